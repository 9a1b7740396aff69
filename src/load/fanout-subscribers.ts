import { setMaxListeners } from 'node:events';
import { Agent, type Dispatcher } from 'undici';
import { FanoutFrameParser } from './fanout-frame.ts';
import { encodeHistogram, newLatencyHistogram, recordLatencyMs } from './latency-histogram.ts';
import { NdjsonFrameReader } from './ndjson-frame-reader.ts';

/** What a set of subscribers needs to know, plain data so that it crosses to a worker thread. */
export interface SubscriberSetConfig {
  /** The stream's URL with the subscription's topics and start index. */
  url: string;
  headers: Record<string, string>;
  /** How many subscribers this set runs, and the number of its first (for error messages). */
  count: number;
  first: number;
  /** The job IDs whose events count. */
  jobs: string[];
  /** The meta key that carries a registration's sequence number. */
  metaKey: string;
  /** Highest sequence number the run may send. */
  total: number;
  /** When the run started (epoch ms, performance.timeOrigin + performance.now()), for the per-second timeline. */
  startedAt: number;
  /**
   * A shared Float64Array of total + 1 entries: entry n is when registration n was sent (epoch ms;
   * 0 while unsent). The publisher writes it before sending, the subscribers read it on receipt, so
   * no message per event crosses between threads.
   */
  sentAt: SharedArrayBuffer;
  /** A shared Int32Array slot per set: the fewest distinct registrations any of its subscribers got, for the drain. */
  progress: SharedArrayBuffer;
  progressSlot: number;
  /** How long a stream may take to answer with its status and headers (default HEADERS_TIMEOUT_MS). */
  headersTimeoutMs?: number;
}

export interface SubscriberSetResult {
  histogram: string;
  /** Per second since the start: receipts and their latency histogram. */
  perSecond: { t: number; requests: number; histogram: string }[];
  missed: number;
  duplicates: number;
  deliveredPerSubscriber: number[];
  errors: string[];
  /** Bytes of stream body the set's subscribers read. */
  bytes: number;
}

/** How long a stream may take to answer with its status and headers. */
const HEADERS_TIMEOUT_MS = 10_000;

/** Epoch milliseconds with performance.now()'s resolution, comparable between threads. */
export const epochNow = (): number => performance.timeOrigin + performance.now();

/**
 * The subscriber side of the event fan-out: `count` event-stream subscribers on one event loop,
 * each reading its frames with NdjsonFrameReader and FanoutFrameParser (no full JSON.parse of a
 * plain Job frame) and counting every registration it receives. Runs in the main thread or, to
 * spread the subscribers across cores, in worker threads (fanout-worker.ts).
 */
export class SubscriberSet {
  private readonly agent: Agent;
  private readonly abort = new AbortController();
  private readonly histogram = newLatencyHistogram();
  private readonly perSecond = new Map<number, { requests: number; h: ReturnType<typeof newLatencyHistogram> }>();
  /** Per subscriber, how many times it got each sequence number. */
  private readonly seen: Uint16Array[];
  private readonly distinct: number[];
  private readonly sentAt: Float64Array;
  private readonly progress: Int32Array;
  private readonly ours: Set<string>;
  /** One parser for the set: its memo serves every subscriber the same frame. */
  private readonly parser: FanoutFrameParser;
  /** Receipts whose send time was not visible yet: recorded once it is. */
  private early: { seq: number; at: number }[] = [];
  private running: Promise<string | undefined>[] = [];
  private bytes = 0;
  /** Publishes the progress for the drain now and then, not per receipt (a scan of every subscriber). */
  private readonly progressTimer = setInterval(() => this.reportProgress(), 25);
  connected = 0;

  constructor(private readonly config: SubscriberSetConfig) {
    this.agent = new Agent({ connections: config.count + 1, bodyTimeout: 0, headersTimeout: config.headersTimeoutMs ?? HEADERS_TIMEOUT_MS });
    setMaxListeners(0, this.abort.signal);
    this.seen = Array.from({ length: config.count }, () => new Uint16Array(config.total + 1));
    this.distinct = new Array<number>(config.count).fill(0);
    this.sentAt = new Float64Array(config.sentAt);
    this.progress = new Int32Array(config.progress);
    this.ours = new Set(config.jobs);
    this.parser = new FanoutFrameParser(config.metaKey);
  }

  /** Opens every stream; resolves when all are open or have failed (a failure is in the result's errors). */
  async start(): Promise<void> {
    const opened: Promise<void>[] = [];
    this.running = Array.from({ length: this.config.count }, (_, i) => {
      let ready!: () => void;
      opened.push(new Promise<void>((r) => (ready = r)));
      return this.subscriber(i, ready).then(
        () => undefined,
        (err: Error) => (ready(), `subscriber ${this.config.first + i}: ${err.message}`),
      );
    });
    await Promise.all(opened);
  }

  async stop(accepted: number[]): Promise<SubscriberSetResult> {
    this.abort.abort();
    clearInterval(this.progressTimer);
    const errors = (await Promise.all(this.running)).filter((e): e is string => e !== undefined);
    await this.agent.destroy();
    this.recordEarly();
    let missed = 0;
    let duplicates = 0;
    const deliveredPerSubscriber = this.seen.map((counts) => {
      let got = 0;
      for (const s of accepted) {
        const c = counts[s] ?? 0;
        if (c === 0) missed += 1;
        else {
          got += c;
          duplicates += c - 1;
        }
      }
      return got;
    });
    return {
      histogram: encodeHistogram(this.histogram),
      perSecond: [...this.perSecond.entries()].map(([t, b]) => ({ t, requests: b.requests, histogram: encodeHistogram(b.h) })),
      missed,
      duplicates,
      deliveredPerSubscriber,
      errors,
      bytes: this.bytes,
    };
  }

  /**
   * One subscriber, on undici's dispatch API: its chunks reach the frame reader in a callback, with
   * no Readable and no promise per chunk between them (at hundreds of thousands of chunks a second
   * that machinery was a good part of the subscriber side's CPU).
   */
  private subscriber(i: number, ready: () => void): Promise<void> {
    const url = new URL(this.config.url);
    const reader = new NdjsonFrameReader();
    const parser = this.parser;
    const headersTimeout = this.config.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
    let now = 0;
    const onFrame = (buf: Buffer, start: number, end: number) => {
      for (const job of parser.parse(buf, start, end).jobs) if (this.ours.has(job.key)) this.receive(i, job.seq, now);
    };
    return new Promise<void>((resolve, reject) => {
      let failed: Error | undefined;
      const fail = (controller: Dispatcher.DispatchController, err: Error) => {
        failed ??= err;
        controller.abort(err);
      };
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart: (controller) => {
          if (this.abort.signal.aborted) controller.abort(new Error('stopped'));
          else this.abort.signal.addEventListener('abort', () => controller.abort(new Error('stopped')), { once: true });
        },
        onResponseStart: (controller, statusCode) => {
          if (statusCode !== 200) return fail(controller, new Error(`the stream answered ${statusCode}`));
          this.connected += 1;
          ready();
        },
        onResponseData: (controller, chunk) => {
          now = epochNow();
          this.bytes += chunk.length;
          try {
            reader.push(chunk, onFrame);
          } catch (err) {
            fail(controller, err as Error);
          }
        },
        onResponseEnd: () => (failed ? reject(failed) : this.abort.signal.aborted ? resolve() : reject(new Error('the stream ended'))),
        onResponseError: (_controller, err) => (failed ? reject(failed) : this.abort.signal.aborted ? resolve() : reject(clearer(err, headersTimeout))),
      };
      this.agent.dispatch({ origin: url.origin, path: url.pathname + url.search, method: 'GET', headers: this.config.headers, headersTimeout, bodyTimeout: 0 }, handler);
    });
  }

  private receive(i: number, seq: number, at: number): void {
    const counts = this.seen[i]!;
    if (seq <= 0 || seq >= counts.length) return;
    if (counts[seq] === 0) this.distinct[i]! += 1;
    if (counts[seq]! < 0xffff) counts[seq]! += 1;
    const sent = this.sentAt[seq]!;
    if (sent === 0) this.early.push({ seq, at });
    else this.record(sent, at);
  }

  private record(sent: number, at: number): void {
    const ms = at - sent;
    recordLatencyMs(this.histogram, ms);
    const sec = Math.floor((at - this.config.startedAt) / 1000);
    let b = this.perSecond.get(sec);
    if (!b) this.perSecond.set(sec, (b = { requests: 0, h: newLatencyHistogram() }));
    b.requests += 1;
    recordLatencyMs(b.h, ms);
  }

  private recordEarly(): void {
    for (const { seq, at } of this.early) {
      const sent = this.sentAt[seq]!;
      if (sent !== 0) this.record(sent, Math.max(at, sent));
    }
    this.early = [];
  }

  reportProgress(): void {
    let min = Infinity;
    for (const d of this.distinct) if (d < min) min = d;
    Atomics.store(this.progress, this.config.progressSlot, min);
  }
}

/** undici's own message for a stream that never answered ("Headers Timeout Error") does not say how long it waited. */
function clearer(err: Error, headersTimeoutMs: number): Error {
  return (err as Error & { code?: string }).code === 'UND_ERR_HEADERS_TIMEOUT' ? new Error(`no response headers within ${headersTimeoutMs} ms`) : err;
}
