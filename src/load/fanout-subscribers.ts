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
  /**
   * A shared Float64Array of 2 entries the publisher keeps: how many registrations were accepted,
   * and the highest index the target gave one. A stream that ends early says how far behind them it
   * was (absent: it does not say).
   */
  newest?: SharedArrayBuffer;
}

/**
 * Why a subscriber's stream ended before the run stopped it:
 * - `server-closed`: the server ended the response (the end of its body) and sent no error frame;
 * - `error-frame`: the server sent a frame with an Error, then ended;
 * - `status`: the stream answered a status other than 200;
 * - `reset`: the connection was reset or closed in the middle of the body (a socket error);
 * - `headers-timeout`: no status and headers within the subscriber's bound;
 * - `refused`: the connection could not be made;
 * - `malformed`: a frame was not JSON (the subscriber ended the stream);
 * - `deadline`: still open, and still missing events, when the run stopped it at its drain deadline.
 */
export type StreamEndCause = 'server-closed' | 'error-frame' | 'status' | 'reset' | 'headers-timeout' | 'refused' | 'malformed' | 'deadline';

/** Each cause in words, for a line that also carries the detail. */
export const STREAM_END_WORDS: Record<StreamEndCause, string> = {
  'server-closed': 'closed by the server with no error frame',
  'error-frame': 'ended by the server with an error frame',
  status: 'refused with a status other than 200',
  reset: 'reset, or closed in the middle of the body',
  'headers-timeout': 'no response headers in time',
  refused: 'connection refused',
  malformed: 'a frame that is not JSON',
  deadline: "stopped short at the subscriber's own drain deadline",
};

/** One subscriber whose stream ended early, and where it was in the stream when it did. */
export interface StreamEnding {
  subscriber: number;
  cause: StreamEndCause;
  /** The server's own words where it gave any (the status and body, the error frame), else what the subscriber saw (STREAM_END_WORDS says the cause). */
  detail: string;
  /** Milliseconds since the run started. */
  atMs: number;
  /** Distinct registrations it had received. */
  delivered: number;
  /** The Index of the last frame it read (0: none). */
  lastIndex: number;
  /** How far the newest accepted registration was ahead of what it had read, in the target's indexes and in registrations. */
  behindIndexes?: number;
  behindRegistrations?: number;
}

export interface SubscriberSetResult {
  histogram: string;
  /** Per second since the start: receipts and their latency histogram. */
  perSecond: { t: number; requests: number; histogram: string }[];
  missed: number;
  duplicates: number;
  deliveredPerSubscriber: number[];
  errors: string[];
  /** The subscribers whose streams ended early (or that the drain deadline stopped short), each with why. */
  endings: StreamEnding[];
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
  private running: Promise<StreamEnding | undefined>[] = [];
  /** Per subscriber: the highest frame Index read, and when its last bytes came (epoch ms; 0: none yet). */
  private readonly lastIndex: number[];
  private readonly lastDataAt: number[];
  private readonly newest: Float64Array | undefined;
  private bytes = 0;
  /** Publishes the progress for the drain now and then, not per receipt (a scan of every subscriber). */
  private readonly progressTimer = setInterval(() => this.reportProgress(), 25);
  connected = 0;

  constructor(private readonly config: SubscriberSetConfig) {
    this.agent = new Agent({ connections: config.count + 1, bodyTimeout: 0, headersTimeout: config.headersTimeoutMs ?? HEADERS_TIMEOUT_MS });
    setMaxListeners(0, this.abort.signal);
    this.seen = Array.from({ length: config.count }, () => new Uint16Array(config.total + 1));
    this.distinct = new Array<number>(config.count).fill(0);
    this.lastIndex = new Array<number>(config.count).fill(0);
    this.lastDataAt = new Array<number>(config.count).fill(0);
    this.newest = config.newest ? new Float64Array(config.newest) : undefined;
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
      return this.subscriber(i, ready).then((ending) => (ready(), ending));
    });
    await Promise.all(opened);
  }

  async stop(accepted: number[], drainDeadlineMs?: number): Promise<SubscriberSetResult> {
    // Read before the streams are stopped: a subscriber still open and still short is stopped by the run's deadline.
    const stoppedAt = this.sinceStart();
    const short = new Set(this.distinct.flatMap((d, i) => (d < accepted.length ? [i] : [])));
    this.abort.abort();
    clearInterval(this.progressTimer);
    const ended = await Promise.all(this.running);
    const endings: StreamEnding[] = [];
    ended.forEach((ending, i) => {
      if (ending) endings.push(ending);
      else if (short.has(i) && drainDeadlineMs !== undefined) {
        const missing = accepted.length - this.distinct[i]!;
        const quiet = this.lastDataAt[i] ? `, nothing received for the last ${((epochNow() - this.lastDataAt[i]!) / 1000).toFixed(1)} s` : ', nothing received at all';
        endings.push(this.ending(i, 'deadline', `stopped ${drainDeadlineMs / 1000} s after the last registration answered, ${missing} event(s) still missing${quiet}`, stoppedAt));
      }
    });
    const errors = endings.filter((e) => e.cause !== 'deadline').map((e) => `subscriber ${e.subscriber}: ${STREAM_END_WORDS[e.cause]} (${e.detail})`);
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
      endings,
      bytes: this.bytes,
    };
  }

  private sinceStart(): number {
    return Math.round(epochNow() - this.config.startedAt);
  }

  private ending(i: number, cause: StreamEndCause, detail: string, atMs = this.sinceStart()): StreamEnding {
    const lastIndex = this.lastIndex[i]!;
    const accepted = this.newest?.[0] ?? 0;
    const newestIndex = this.newest?.[1] ?? 0;
    return {
      subscriber: this.config.first + i,
      cause,
      detail,
      atMs,
      delivered: this.distinct[i]!,
      lastIndex,
      ...(newestIndex > 0 ? { behindIndexes: Math.max(0, newestIndex - lastIndex) } : {}),
      // A subscriber misses nothing while its stream is open: what it has not got yet is how far behind it is.
      ...(accepted > 0 ? { behindRegistrations: Math.max(0, accepted - this.distinct[i]!) } : {}),
    };
  }

  /**
   * One subscriber, on undici's dispatch API: its chunks reach the frame reader in a callback, with
   * no Readable and no promise per chunk between them (at hundreds of thousands of chunks a second
   * that machinery was a good part of the subscriber side's CPU). Resolves undefined when the run
   * stopped it, else with why and where its stream ended.
   */
  private subscriber(i: number, ready: () => void): Promise<StreamEnding | undefined> {
    const url = new URL(this.config.url);
    const reader = new NdjsonFrameReader();
    const parser = this.parser;
    const headersTimeout = this.config.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
    let now = 0;
    let errorFrame: string | undefined;
    const onFrame = (buf: Buffer, start: number, end: number) => {
      const frame = parser.parse(buf, start, end);
      if (frame.index > this.lastIndex[i]!) this.lastIndex[i] = frame.index;
      if (frame.error !== undefined) errorFrame ??= frame.error;
      for (const job of frame.jobs) if (this.ours.has(job.key)) this.receive(i, job.seq, now);
    };
    return new Promise<StreamEnding | undefined>((resolve) => {
      let failed: StreamEnding | undefined;
      /** A status other than 200: its body (the server's reason) is read, up to a bound, before the stream is judged. */
      let refusedWith: number | undefined;
      let refusal = '';
      const fail = (controller: Dispatcher.DispatchController, cause: StreamEndCause, detail: string) => {
        failed ??= this.ending(i, cause, detail);
        controller.abort(new Error(detail));
      };
      const end = (ending: StreamEnding | undefined) => {
        ready();
        resolve(ending);
      };
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart: (controller) => {
          if (this.abort.signal.aborted) controller.abort(new Error('stopped'));
          else this.abort.signal.addEventListener('abort', () => controller.abort(new Error('stopped')), { once: true });
        },
        onResponseStart: (_controller, statusCode) => {
          if (statusCode !== 200) {
            refusedWith = statusCode;
            return;
          }
          this.connected += 1;
          ready();
        },
        onResponseData: (controller, chunk) => {
          if (refusedWith !== undefined) {
            if (refusal.length < 300) refusal += chunk.toString('utf8', 0, Math.min(chunk.length, 300));
            return;
          }
          now = epochNow();
          this.lastDataAt[i] = now;
          this.bytes += chunk.length;
          try {
            reader.push(chunk, onFrame);
          } catch (err) {
            fail(controller, 'malformed', (err as Error).message);
          }
        },
        onResponseEnd: () => {
          if (failed) return end(failed);
          if (refusedWith !== undefined) return end(this.ending(i, 'status', `HTTP ${refusedWith}${refusal.trim() ? `: ${refusal.trim().slice(0, 200)}` : ''}`));
          if (this.abort.signal.aborted) return end(undefined);
          if (errorFrame !== undefined) return end(this.ending(i, 'error-frame', `Error: ${errorFrame}`));
          // Bytes after the last newline are no frame: a server's error text written into the body (Nomad 1.x writes its error there).
          const cut = reader.pendingBytes > 0 ? `, after ${reader.pendingBytes} bytes that are no frame: "${reader.pendingText()}"` : '';
          end(this.ending(i, 'server-closed', `the end of its body${cut}`));
        },
        onResponseError: (_controller, err) => {
          if (failed) return end(failed);
          if (this.abort.signal.aborted) return end(undefined);
          if (refusedWith !== undefined) return end(this.ending(i, 'status', `HTTP ${refusedWith}`));
          end(this.socketEnding(i, err, headersTimeout, errorFrame));
        },
      };
      this.agent.dispatch({ origin: url.origin, path: url.pathname + url.search, method: 'GET', headers: this.config.headers, headersTimeout, bodyTimeout: 0 }, handler);
    });
  }

  /** A transport error's ending: what undici's code says happened to the connection. */
  private socketEnding(i: number, err: Error, headersTimeoutMs: number, errorFrame: string | undefined): StreamEnding {
    const code = (err as { code?: string }).code ?? (err.cause as { code?: string } | undefined)?.code;
    if (code === 'UND_ERR_HEADERS_TIMEOUT') return this.ending(i, 'headers-timeout', `no response headers within ${headersTimeoutMs} ms`);
    if (code === 'ECONNREFUSED') return this.ending(i, 'refused', 'ECONNREFUSED');
    if (errorFrame !== undefined) return this.ending(i, 'error-frame', `Error: ${errorFrame}; then the connection broke (${code ?? err.message})`);
    if (code === 'ECONNRESET') return this.ending(i, 'reset', 'ECONNRESET');
    // undici's "other side closed": the socket closed while the body was still owed (no end of a chunked body).
    if (code === 'UND_ERR_SOCKET') return this.ending(i, 'reset', `closed in the middle of the body (${err.message})`);
    return this.ending(i, 'reset', `${err.message}${code ? ` (${code})` : ''}`);
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
