import autocannon from 'autocannon';
import type { LoadScenarioResult } from '../report/results-model.ts';
import { encodeHistogram, newLatencyHistogram, recordLatencyMs, timelinePercentilesMs } from './latency-histogram.ts';
import { rowPercentilesMs } from './percentile-row.ts';
import type { PreparedScenario } from './scenarios/types.ts';
import { PROGRESS_EVERY_MS, startProgress, type LoadProgress } from './load-progress.ts';
import { capStop } from './open-model-runner.ts';

export interface ClosedModelOptions {
  connections: number;
  durationMs: number;
  /** Exact cap on HTTP requests sent (autocannon's `amount`); the duration is our own timer's. */
  maxRequests: number;
  onProgress?: (progress: LoadProgress) => void;
  progressEveryMs?: number;
  /** Stops the run early (Ctrl-C). */
  signal?: AbortSignal;
}

/**
 * The closed model: a fixed number of connections each send the next request as soon as the
 * previous answer arrives, for the highest throughput a target sustains. Its latencies are
 * recorded into an HDR histogram of our own from every response.
 */
export async function runClosedModel(scenario: PreparedScenario, options: ClosedModelOptions): Promise<LoadScenarioResult> {
  if (!scenario.fixed?.length) throw new Error(`${scenario.name} has no fixed request sequence for the closed-model engine`);
  const histogram = newLatencyHistogram();
  const perSecond = new Map<number, { requests: number; errors: number; h: ReturnType<typeof newLatencyHistogram> }>();
  const started = performance.now();
  let errors = 0;
  // The closed model never drops: a connection waits for its answer before the next request.
  const dropped = 0;
  const acceptBody = scenario.acceptBody;
  // autocannon judges a body right after it emits that answer's 'response' event, in the same tick:
  // this is that answer's status, so an answer already counted for its status is not counted twice.
  let statusFailed = false;
  const bodyRejected = () => {
    if (statusFailed) return;
    errors += 1;
    const b = perSecond.get(Math.floor((performance.now() - started) / 1000));
    if (b) b.errors += 1;
  };
  let instance!: autocannon.Instance;
  let timedOut = false;
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      {
        url: scenario.url,
        connections: options.connections,
        // `amount` is autocannon's exact cap on requests sent, and makes it ignore `duration`: the
        // duration is the timer below.
        amount: options.maxRequests,
        requests: scenario.fixed!.map((r) => ({ method: r.method, path: r.path, headers: r.headers, body: r.body })),
        timeout: 10,
        ...(acceptBody ? { verifyBody: (body: unknown) => acceptBody(String(body)) || (bodyRejected(), false) } : {}),
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
  const durationTimer = setTimeout(() => {
    timedOut = true;
    instance.stop();
  }, options.durationMs);
  let interrupted = false;
  const onAbort = () => {
    interrupted = true;
    instance.stop();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const stopProgress = options.onProgress
    ? startProgress({ everyMs: options.progressEveryMs ?? PROGRESS_EVERY_MS, durationMs: options.durationMs, startedAt: started, buckets: perSecond, counts: () => ({ requests: histogram.totalCount, errors, dropped }), report: options.onProgress })
    : () => undefined;
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    recordLatencyMs(histogram, responseTime);
    const sec = Math.floor((performance.now() - started) / 1000);
    let b = perSecond.get(sec);
    if (!b) perSecond.set(sec, (b = { requests: 0, errors: 0, h: newLatencyHistogram() }));
    b.requests += 1;
    recordLatencyMs(b.h, responseTime);
    statusFailed = statusCode >= 400;
    if (statusFailed) {
      errors += 1;
      b.errors += 1;
    }
  });
  const result = await done.finally(() => options.signal?.removeEventListener('abort', onAbort));
  clearTimeout(durationTimer);
  stopProgress();
  const elapsed = performance.now() - started;
  const total = histogram.totalCount;
  return {
    scenario: scenario.name,
    engine: 'autocannon',
    model: 'closed',
    durationMs: Math.round(elapsed),
    requests: total,
    errors: errors + result.errors + result.timeouts,
    dropped: 0,
    throughput: Math.round((total / elapsed) * 1000 * 10) / 10,
    latencyMs: rowPercentilesMs(histogram),
    histogram: encodeHistogram(histogram),
    timeline: [...perSecond.entries()].sort((a, b) => a[0] - b[0]).map(([t, b]) => ({ t, requests: b.requests, errors: b.errors, ...timelinePercentilesMs(b.h) })),
    thresholds: [],
    ...(interrupted ? { stoppedEarly: `interrupted after ${(elapsed / 1000).toFixed(1)} s of the ${(options.durationMs / 1000).toFixed(1)} s asked` } : !timedOut ? { stoppedEarly: capStop(options.maxRequests, elapsed, options.durationMs) } : {}),
  };
}
