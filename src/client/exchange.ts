/** One HTTP request and its answer, as shown in evidence. Bodies are excerpts, already redacted. */
export interface Exchange {
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  durationMs: number;
  /** What went wrong at the transport level, when there was no usable answer. */
  error?: string;
}

/** Receives every exchange a client makes: the evidence log and cross-cutting checks. */
export type ExchangeObserver = (exchange: Exchange, raw: { status?: number; body?: string; headers?: Record<string, string> }) => void;
