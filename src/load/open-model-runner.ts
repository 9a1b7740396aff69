import { newLatencyHistogram, encodeHistogram, percentilesMs } from './latency-histogram.ts';
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
}

/**
 * An open-model load runner: request i is due at start + i/rate whatever happened to earlier ones,
 * and its latency is measured from that intended start, so a target that stalls shows the full
 * wait of every request queued behind the stall (no coordinated omission).
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
  const start = performance.now();

  const record = (intended: number) => (ok: boolean) => {
    const latencyUs = Math.max(1, Math.round((performance.now() - intended) * 1000));
    histogram.recordValue(latencyUs);
    const second = Math.floor((intended - start) / 1000);
    let bucket = seconds.get(second);
    if (!bucket) seconds.set(second, (bucket = { requests: 0, errors: 0, h: newLatencyHistogram() }));
    bucket.requests += 1;
    bucket.h.recordValue(latencyUs);
    if (!ok) {
      errors += 1;
      bucket.errors += 1;
    }
    completed += 1;
  };

  for (let i = 0; i < total; i++) {
    const intended = start + i * interval;
    const wait = intended - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    if (inFlight >= maxInFlight) {
      dropped += 1;
      continue;
    }
    inFlight += 1;
    const done = record(intended);
    const p: Promise<void> = options
      .request()
      .then(done, () => done(false))
      .finally(() => {
        inFlight -= 1;
        pending.delete(p);
      });
    pending.add(p);
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
