import { z } from 'zod';
import type { LoadScenarioResult } from '../report/results-model.ts';
import { encodeHistogram } from './latency-histogram.ts';
import { rowPercentilesMs } from './percentile-row.ts';
import { histogramFromBuckets } from './k6-buckets.ts';

/**
 * What a k6 scenario script's handleSummary writes (load/k6/lib/summary.ts): the runner's raw counts
 * and latency buckets. Parsed here, never trusted as is: a file that is missing or does not match
 * becomes a clear error for its row.
 */
export const k6SummarySchema = z.object({
  kind: z.literal('stackproof-k6-summary'),
  version: z.literal(1),
  scenario: z.string(),
  summaryShape: z.enum(['legacy', 'machine-readable']),
  targetRate: z.number().positive(),
  maxIterations: z.number().int().nonnegative(),
  requestsPerIteration: z.number().int().positive(),
  durationMs: z.number().nonnegative(),
  /** k6's http_reqs: HTTP requests sent. */
  requests: z.number().int().nonnegative(),
  iterations: z.number().int().nonnegative(),
  droppedIterations: z.number().int().nonnegative(),
  /** Requests that failed a check or had an unexpected status, plus exceptions. */
  failed: z.number().int().nonnegative(),
  exceptions: z.number().int().nonnegative(),
  checks: z.object({ passed: z.number().int().nonnegative() }),
  buckets: z.object({ minMs: z.number().positive(), growth: z.number().gt(1), counts: z.array(z.number().int().nonnegative()).max(100_000) }),
});
export type K6Summary = z.infer<typeof k6SummarySchema>;

/**
 * One results.json row from a k6 summary. "requests" are HTTP requests; "dropped" are the requests
 * of dropped iterations (dropped iterations x requests per iteration), so the dropped rate
 * dropped / (requests + dropped) compares like with like; the raw iteration counts are kept too.
 */
export function k6SummaryToResult(s: K6Summary): LoadScenarioResult {
  const histogram = histogramFromBuckets(s.buckets);
  const seconds = s.durationMs / 1000;
  return {
    scenario: s.scenario,
    engine: 'k6',
    model: 'open',
    targetRate: s.targetRate,
    durationMs: Math.round(s.durationMs),
    requests: s.requests,
    errors: s.failed,
    dropped: s.droppedIterations * s.requestsPerIteration,
    throughput: seconds > 0 ? Math.round((s.requests / seconds) * 10) / 10 : 0,
    latencyMs: rowPercentilesMs(histogram),
    histogram: encodeHistogram(histogram),
    timeline: [],
    thresholds: [],
    iterations: s.iterations,
    droppedIterations: s.droppedIterations,
    k6Buckets: s.buckets,
  };
}
