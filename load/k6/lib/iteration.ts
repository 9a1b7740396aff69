import { check } from 'k6';
import exec from 'k6/execution';
import type { RefinedResponse, ResponseType } from 'k6/http';
import { Counter, Gauge, Rate } from 'k6/metrics';
import { BUCKET_LAYOUT, bucketOf } from './bucket-layout.ts';
import { MAX_ITERATIONS } from './env.ts';

// Every counter must exist in the init context (k6 refuses metrics made later), hence all buckets
// up front; k6 reports only those that received a sample.
const buckets: Counter[] = [];
for (let i = 0; i < BUCKET_LAYOUT.count; i++) buckets.push(new Counter(`sp_latency_bucket_${i}`));

/** One sample per request and per exception: true when it failed. Its threshold is the error rate. */
const failed = new Rate('sp_failed');
const exceptions = new Counter('sp_exceptions');
/** Iterations that ran (past the iteration cap they are skipped and send nothing). */
const iterations = new Counter('sp_iterations');
/**
 * The true samples of sp_failed, as a counter: a streaming output (Prometheus remote write) sends a
 * Rate as a ratio, from which the runners' errors cannot be added up.
 */
const errors = new Counter('sp_errors');
/**
 * Milliseconds from the scenario's start to the end of the latest iteration: a streaming output has
 * no end-of-test summary, so this is where a run's duration is read from.
 */
const elapsed = new Gauge('sp_elapsed_ms');

let loggedException = false;

/**
 * Wraps a scenario's iteration: skips it past the iteration cap, and counts an exception (a script
 * error, an unparseable body) as an error instead of letting k6 log it and carry on with 0 errors.
 */
export function iteration(body: () => void): () => void {
  return () => {
    // iterationInTest is unique across all VUs of the scenario, so this caps the whole run.
    if (exec.scenario.iterationInTest >= MAX_ITERATIONS) return;
    iterations.add(1);
    try {
      body();
    } catch (err) {
      exceptions.add(1);
      failed.add(true);
      errors.add(1);
      // One line per VU is enough to see what is wrong without flooding the output.
      if (!loggedException) console.error(`stackproof iteration failed: ${String(err)}`);
      loggedException = true;
    }
    elapsed.add(Date.now() - exec.scenario.startTime);
  };
}

/**
 * Records one answer: its latency into the buckets, and whether it was right (the expected status and
 * the scenario's own checks). Returns true when it was.
 */
export function answered<RT extends ResponseType | undefined>(
  name: string,
  res: RefinedResponse<RT>,
  expectStatus: number,
  checks: Record<string, (r: RefinedResponse<RT>) => boolean> = {},
): boolean {
  buckets[bucketOf(res.timings.duration)]!.add(1);
  const ok = check(res, { [`${name} ${expectStatus}`]: (r) => r.status === expectStatus, ...checks });
  failed.add(!ok);
  if (!ok) errors.add(1);
  return ok;
}
