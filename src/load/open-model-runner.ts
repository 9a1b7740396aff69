import { PROGRESS_EVERY_MS, startProgress, type LoadProgress } from './load-progress.ts';
import { newLatencyHistogram, encodeHistogram, recordLatencyMs, timelinePercentilesMs } from './latency-histogram.ts';
import { rowPercentilesMs } from './percentile-row.ts';
import { openArrivalSchedule } from './arrival-schedule.ts';
import { FixedRequestClient } from './fixed-request-client.ts';
import type { LoadScenarioResult } from '../report/results-model.ts';
import type { FixedRequest } from './scenarios/types.ts';

/**
 * Fixed requests for the lean client (src/load/fixed-request-client.ts): an arrival sends the next
 * request of the sequence, round robin, on a keep-alive connection of its own.
 */
export interface OpenModelFixedRequests {
  url: string;
  requests: FixedRequest[];
  /** Whether an answer is correct (default: a 2xx status). The body is there when keepBodies is set. */
  accept?: (status: number, body: Buffer | undefined) => boolean;
  keepBodies?: boolean;
  /** An answer not complete this long after its request is an error (default 10 s). */
  timeoutMs?: number;
  /**
   * Connections at most (default maxInFlight, one per request in flight). Fewer: an arrival finding
   * them all busy waits for the next free one, still timed from when it was due. Against a fast
   * target a few suffice, and a burst of late arrivals then does not open hundreds at once.
   */
  connections?: number;
}

export interface OpenModelOptions {
  scenario: string;
  /** Requests started per second, on a fixed schedule. */
  rate: number;
  durationMs: number;
  /** Hard cap on HTTP requests, whatever the duration: iterations of several requests count each. */
  maxRequests: number;
  /** HTTP requests one `request` iteration sends (1 by default; each of `fixed` is one). */
  requestsPerIteration?: number;
  /** Called every `progressEveryMs` while the run goes on (src/load/load-progress.ts). */
  onProgress?: (progress: LoadProgress) => void;
  progressEveryMs?: number;
  /** Requests in flight beyond this are not started and count as dropped. */
  maxInFlight?: number;
  /** Performs one iteration (any requests); resolves true when the answers were correct. Either this or `fixed`. */
  request?: () => Promise<boolean>;
  /** Fixed requests, sent by the lean client: far less generator CPU per request than a `request` function. */
  fixed?: OpenModelFixedRequests;
  /**
   * Called just before request i is started, with its intended start and the performance.now() at
   * which it is started (never earlier than intended). Lets tests observe the schedule; a dropped
   * request is not started and gets no call.
   */
  onStart?: (i: number, intendedMs: number, actualMs: number) => void;
  /**
   * Called as request i's latency is recorded: `fromMs` is where it is measured from (read before
   * the request's bytes were written), `answeredMs` the reading taken after its answer was parsed.
   * Lets tests hold each latency against the target's own clock.
   */
  onAnswer?: (i: number, fromMs: number, answeredMs: number) => void;
  /**
   * How arrivals are timed (src/load/arrival-schedule.ts): 'fine' a worker with sub-millisecond
   * precision, 'coarse' millisecond timers on the main thread, 'auto' (the default) fine up to
   * AUTO_FINE_MAX_RATE and coarse above it.
   */
  precision?: ArrivalPrecision;
  /** Stops starting arrivals (Ctrl-C): those in flight are still awaited and counted. */
  signal?: AbortSignal;
}

export type ArrivalPrecision = 'auto' | 'fine' | 'coarse';

/**
 * 'auto' is the default: fine up to AUTO_FINE_MAX_RATE, coarse above it.
 *
 * Up to 1,000 arrivals a second they are at least a millisecond apart, and starting each within
 * ~0.1 ms of its time (the timing worker) is what keeps a sub-millisecond latency honest. Above it,
 * several arrivals fall due in every millisecond whatever the clock, and the worker's wake-ups
 * cost about twice the generator CPU per request (npm run bench, generators section): on the VMs
 * measured a timed sleep costs 25-40 µs of CPU, one per arrival, so at high rates the timing
 * thread is what delays starts. Millisecond timers then cost far less, and the tick's wait is not
 * counted as latency (COARSE_TICK_MS).
 */
export const AUTO_FINE_MAX_RATE = 1_000;

/**
 * Coarse timers tick about once a millisecond, and an arrival waits for the next tick: up to this
 * much of a start's lateness is the generator's own clock, not the target, and is not counted as
 * latency (so coarse reads the same p50 as fine; test/open-model.test.ts). Lateness beyond it (a
 * loop blocked by the generator's own work or by another process) still counts in full: an open
 * model never assumes a late start was harmless. Fine precision forgives nothing: its starts are
 * ~0.1 ms late, measured as they are.
 */
export const COARSE_TICK_MS = 1;

export function resolvePrecision(precision: ArrivalPrecision | undefined, rate: number): 'fine' | 'coarse' {
  if (precision === undefined || precision === 'auto') return rate > AUTO_FINE_MAX_RATE ? 'coarse' : 'fine';
  return precision;
}

/**
 * An open-model load runner: request i is due at start + i/rate whatever happened to earlier ones,
 * and its latency is measured from that intended start (less, at coarse precision, the wait for the
 * timer's next tick: COARSE_TICK_MS), so a target that stalls shows the full wait of every request
 * queued behind the stall (no coordinated omission). A request is never
 * started before it is due: starting early and measuring from the intended time would subtract the
 * head start from its latency, which is how sub-millisecond answers used to read as 1 µs.
 */
/** An arrival due within this long is waited for by turning the loop, not by the worker's next post. */
const MAIN_TURN_MS = 0.01;

export async function runOpenModel(options: OpenModelOptions): Promise<LoadScenarioResult> {
  if (!options.request === !options.fixed) throw new Error('the open model needs either a request function or fixed requests');
  const byTime = Math.floor((options.rate * options.durationMs) / 1000);
  const total = Math.min(Math.floor(options.maxRequests / (options.requestsPerIteration ?? 1)), byTime);
  const interval = 1000 / options.rate;
  const maxInFlight = options.maxInFlight ?? 1024;
  type Bucket = { requests: number; errors: number; h: ReturnType<typeof newLatencyHistogram> };
  const seconds = new Map<number, Bucket>();
  let inFlight = 0;
  let errors = 0;
  const errorKinds: Record<string, number> = {};
  const countKind = (kind: string) => {
    // A handful of kinds is what a reader needs; past that the rest are lumped together.
    const key = kind in errorKinds || Object.keys(errorKinds).length < 8 ? kind : 'other';
    errorKinds[key] = (errorKinds[key] ?? 0) + 1;
  };
  let dropped = 0;
  let completed = 0;
  let drained: (() => void) | undefined;
  // Answers come back close to the order of their intended starts: the last bucket used is nearly always the next one.
  let lastSecond = -1;
  let lastBucket: Bucket | undefined;
  // The lean path: one callback per answer, no promise, no body stream.
  const fixed = options.fixed;
  const connections = Math.min(maxInFlight, fixed?.connections ?? maxInFlight);
  const client = fixed && new FixedRequestClient(fixed.url, fixed.requests, { maxConnections: connections, queue: connections < maxInFlight, keepBodies: fixed.keepBodies, timeoutMs: fixed.timeoutMs });
  const accept = fixed?.accept ?? ((status: number) => status >= 200 && status < 300);
  // Before the clock starts: as many connections as a hundredth of a second's arrivals.
  if (client) await client.preconnect(Math.ceil(options.rate / 100));
  const precision = resolvePrecision(options.precision, options.rate);
  const forgivenMs = precision === 'coarse' ? COARSE_TICK_MS : 0;
  const schedule = await openArrivalSchedule({ precision });
  const start = performance.now();
  const stopProgress = options.onProgress
    ? startProgress({ everyMs: options.progressEveryMs ?? PROGRESS_EVERY_MS, durationMs: options.durationMs, startedAt: start, buckets: seconds, counts: () => ({ requests: completed, errors, dropped }), report: options.onProgress })
    : () => undefined;
  /** The next arrival to start; set when a setImmediate turn is pending for one due within MAIN_TURN_MS. */
  let i = 0;
  let turning = false;

  /** `from`: the intended start, or up to COARSE_TICK_MS after it (see there); `intended` places it in its second. */
  const record = (n: number, intended: number, from: number, ok: boolean) => {
    const now = performance.now();
    const latencyMs = now - from;
    options.onAnswer?.(n, from, now);
    // Into its second's histogram only: the run's is their sum, taken once at the end.
    const second = Math.floor((intended - start) / 1000);
    let bucket = second === lastSecond ? lastBucket : seconds.get(second);
    if (!bucket) seconds.set(second, (bucket = { requests: 0, errors: 0, h: newLatencyHistogram() }));
    lastSecond = second;
    lastBucket = bucket;
    bucket.requests += 1;
    recordLatencyMs(bucket.h, latencyMs);
    if (!ok) {
      errors += 1;
      bucket.errors += 1;
    }
    completed += 1;
    inFlight -= 1;
    if (inFlight === 0) drained?.();
    // At high rates the thread is busy reading answers when arrivals fall due: start them now
    // rather than after the worker's announcement is read (it then finds nothing left to start).
    else if (i < total && !turning && start + i * interval <= now) startDue();
  };


  const launch = (i: number, intended: number) => {
    if (inFlight >= maxInFlight) {
      dropped += 1;
      return;
    }
    inFlight += 1;
    const now = performance.now();
    options.onStart?.(i, intended, now);
    const from = intended + Math.min(now - intended, forgivenMs);
    if (client) {
      client.send((err, status, body) => {
        let ok = false;
        try {
          ok = !err && accept(status, body);
        } catch {
          // A check that throws (a body that is not the JSON it expects) is a wrong answer, as in `request`.
        }
        if (!ok) countKind(errorKind(err, status));
        record(i, intended, from, ok);
      }, now);
      return;
    }
    options.request!().then(
      (ok) => {
        if (!ok) countKind('wrong answer');
        record(i, intended, from, ok);
      },
      (err: Error) => {
        countKind(errorKind(err, 0));
        record(i, intended, from, false);
      },
    );
  };

  // Start every request that is due by now, in order: a call can find several due (a busy event
  // loop, arrivals closer than a wake-up), and each is still measured from its own intended start.
  // The check here, not the schedule, is what guarantees no request starts early.
  let allStarted!: () => void;
  const started = new Promise<void>((resolve) => (allStarted = resolve));
  let interruptedAt: number | undefined;
  const startDue = () => {
    turning = false;
    if (options.signal?.aborted) {
      interruptedAt ??= performance.now() - start;
      return allStarted();
    }
    const now = performance.now();
    while (i < total && start + i * interval <= now) {
      launch(i, start + i * interval);
      i += 1;
    }
    if (i >= total) return allStarted();
    // The worker's clock and this thread's can differ by a hair: an arrival due within a few
    // microseconds is taken by turning the loop rather than waiting for the next announcement.
    if (!turning && start + i * interval - performance.now() <= MAIN_TURN_MS) {
      turning = true;
      setImmediate(startDue);
    }
  };
  const onAbort = () => startDue();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (total > 0) {
      schedule.run(start, interval, total, () => {
        if (!turning) startDue();
      });
      await started;
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    schedule.close();
  }
  if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
  stopProgress();
  client?.close();
  const elapsed = performance.now() - start;
  const histogram = newLatencyHistogram();
  for (const bucket of seconds.values()) histogram.add(bucket.h);
  const timeline = [...seconds.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([t, b]) => ({ t, requests: b.requests, errors: b.errors, ...timelinePercentilesMs(b.h) }));
  return {
    scenario: options.scenario,
    engine: 'open-model',
    model: 'open',
    arrivalPrecision: precision,
    targetRate: options.rate,
    durationMs: Math.round(elapsed),
    requests: completed,
    errors,
    dropped,
    throughput: Math.round((completed / elapsed) * 1000 * 10) / 10,
    latencyMs: rowPercentilesMs(histogram),
    histogram: encodeHistogram(histogram),
    timeline,
    thresholds: [],
    ...(errors > 0 ? { errorKinds } : {}),
    ...(interruptedAt !== undefined
      ? { stoppedEarly: `interrupted after ${(interruptedAt / 1000).toFixed(1)} s of the ${(options.durationMs / 1000).toFixed(1)} s asked` }
      : total < byTime
        ? { stoppedEarly: capStop(options.maxRequests, total * interval, options.durationMs) }
        : {}),
  };
}

/** Why a scenario ended before its duration: the request cap, reached at the time its last arrival was due. */
export function capStop(maxRequests: number, ranMs: number, durationMs: number): string {
  return `stopped at the --max-requests cap of ${maxRequests} HTTP requests, after ${(ranMs / 1000).toFixed(1)} s of the ${(durationMs / 1000).toFixed(1)} s asked`;
}

/** What kind of error an answer was: the transport's code, the status, or an answer the scenario did not accept. */
function errorKind(err: (Error & { code?: string }) | undefined, status: number): string {
  if (err) {
    const code = err.code ?? (err.cause as { code?: string } | undefined)?.code;
    if (code === 'ECONNRESET') return 'connection reset (ECONNRESET)';
    if (code === 'ECONNREFUSED') return 'connection refused (ECONNREFUSED)';
    if (code) return code;
    return err.message.slice(0, 80);
  }
  if (status < 200 || status >= 300) return `HTTP ${status}`;
  return 'wrong answer';
}
