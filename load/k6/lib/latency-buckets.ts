import { Counter } from 'k6/metrics';

/**
 * k6 keeps percentiles, not histograms, and percentiles from several runners cannot be averaged.
 * So each script also counts its latencies into fixed log-spaced buckets (about 5% wide); bucket
 * counts from any number of runners add up, and percentiles come from the sum
 * (`stackproof merge-k6`).
 */
const GROWTH = 1.05;
const BUCKETS = 400;
const counters: Counter[] = [];
for (let i = 0; i < BUCKETS; i++) counters.push(new Counter(`sp_latency_bucket_${i}`));

export function bucketOf(ms: number): number {
  if (ms <= 0.01) return 0;
  return Math.min(BUCKETS - 1, Math.max(0, Math.floor(Math.log(ms / 0.01) / Math.log(GROWTH))));
}

/** The upper bound in ms of a bucket. */
export function bucketUpperMs(i: number): number {
  return 0.01 * Math.pow(GROWTH, i + 1);
}

export function recordLatency(ms: number): void {
  counters[bucketOf(ms)]!.add(1);
}

interface SummaryData {
  metrics: Record<string, { values: Record<string, number> }>;
  state: { testRunDurationMs: number };
}

/** handleSummary body: the results.json shape stackproof writes, with the bucket counts for merging. */
export function summaryToResults(scenario: string, data: SummaryData, targetRate: number): string {
  const buckets: number[] = [];
  for (let i = 0; i < BUCKETS; i++) buckets.push(data.metrics[`sp_latency_bucket_${i}`]?.values.count ?? 0);
  const d = data.metrics.http_req_duration?.values ?? {};
  const iterations = data.metrics.iterations?.values.count ?? 0;
  const failed = data.metrics.checks ? (data.metrics.checks.values.fails ?? 0) : 0;
  const dropped = data.metrics.dropped_iterations?.values.count ?? 0;
  const result = {
    scenario,
    engine: 'k6',
    model: 'open',
    targetRate,
    durationMs: Math.round(data.state.testRunDurationMs),
    requests: iterations,
    errors: failed,
    dropped,
    throughput: Math.round((iterations / (data.state.testRunDurationMs / 1000)) * 10) / 10,
    latencyMs: { p50: d['p(50)'] ?? 0, p90: d['p(90)'] ?? 0, p99: d['p(99)'] ?? 0, p999: d['p(99.9)'] ?? 0, max: d.max ?? 0, min: d.min ?? 0, mean: d.avg ?? 0 },
    histogram: '',
    timeline: [],
    thresholds: [],
    k6Buckets: buckets,
  };
  return JSON.stringify({ schemaVersion: 1, load: [result] }, null, 2);
}
