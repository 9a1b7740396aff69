import { newLatencyHistogram, encodeHistogram, percentilesMs, recordLatencyMs } from './latency-histogram.ts';
import { openArrivalClock } from './arrival-clock.ts';
import type { LoadScenarioResult } from '../report/results-model.ts';

export interface OpenModelOptions {
  scenario: string;
  /** Requests started per second, on a fixed schedule. */
  rate: number;
  durationMs: number;
  /** Hard cap on requests, whatever the duration. */
  maxRequests: number;
  /** Requests in flight beyond this are not started and count as dropped. */
  maxInFlight?: number;
  /** Performs one request; resolves true when the answer was correct. */
  request: () => Promise<boolean>;
  /**
   * Called just before request i is started, with its intended start and the performance.now() at
   * which it is started (never earlier than intended). Lets tests observe the schedule; a dropped
   * request is not started and gets no call.
   */
  onStart?: (i: number, intendedMs: number, actualMs: number) => void;
}

/**
 * An open-model load runner: request i is due at start + i/rate whatever happened to earlier ones,
 * and its latency is measured from that intended start, so a target that stalls shows the full
 * wait of every request queued behind the stall (no coordinated omission). A request is never
 * started before it is due: starting early and measuring from the intended time would subtract the
 * head start from its latency, which is how sub-millisecond answers used to read as 1 µs.
 */
export async function runOpenModel(options: OpenModelOptions): Promise<LoadScenarioResult> {
  const histogram = newLatencyHistogram();
  const total = Math.min(options.maxRequests, Math.floor((options.rate * options.durationMs) / 1000));
  const interval = 1000 / options.rate;
  const maxInFlight = options.maxInFlight ?? 1024;
  const seconds = new Map<number, { requests: number; errors: number; h: ReturnType<typeof newLatencyHistogram> }>();
  let inFlight = 0;
  let errors = 0;
  let dropped = 0;
  let completed = 0;
  const pending = new Set<Promise<void>>();
  const clock = await openArrivalClock();
  const start = performance.now();

  const record = (intended: number) => (ok: boolean) => {
    const latencyMs = performance.now() - intended;
    recordLatencyMs(histogram, latencyMs);
    const second = Math.floor((intended - start) / 1000);
    let bucket = seconds.get(second);
    if (!bucket) seconds.set(second, (bucket = { requests: 0, errors: 0, h: newLatencyHistogram() }));
    bucket.requests += 1;
    recordLatencyMs(bucket.h, latencyMs);
    if (!ok) {
      errors += 1;
      bucket.errors += 1;
    }
    completed += 1;
  };

  const launch = (i: number, intended: number) => {
    if (inFlight >= maxInFlight) {
      dropped += 1;
      return;
    }
    inFlight += 1;
    options.onStart?.(i, intended, performance.now());
    const done = record(intended);
    const p: Promise<void> = options
      .request()
      .then(done, () => done(false))
      .finally(() => {
        inFlight -= 1;
        pending.delete(p);
      });
    pending.add(p);
  };

  try {
    let i = 0;
    while (i < total) {
      await clock.until(start + i * interval);
      // Start every request that is due by now, in order: after a late wake-up (a busy event loop,
      // a coarse timer) several are, and each is still measured from its own intended start. The
      // check here, not the clock, is what guarantees no request starts early.
      const now = performance.now();
      while (i < total && start + i * interval <= now) {
        launch(i, start + i * interval);
        i += 1;
      }
    }
  } finally {
    clock.close();
  }
  await Promise.all(pending);
  const elapsed = performance.now() - start;
  const timeline = [...seconds.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([t, b]) => ({ t, requests: b.requests, errors: b.errors, p50: percentilesMs(b.h).p50, p99: percentilesMs(b.h).p99 }));
  return {
    scenario: options.scenario,
    engine: 'open-model',
    model: 'open',
    targetRate: options.rate,
    durationMs: Math.round(elapsed),
    requests: completed,
    errors,
    dropped,
    throughput: Math.round((completed / elapsed) * 1000 * 10) / 10,
    latencyMs: percentilesMs(histogram),
    histogram: encodeHistogram(histogram),
    timeline,
    thresholds: [],
  };
}
