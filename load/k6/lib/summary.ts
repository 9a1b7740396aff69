import { BUCKET_LAYOUT, bucketMiddleMs } from './bucket-layout.ts';
import { env, MAX_ITERATIONS, RATE } from './env.ts';

/**
 * handleSummary: writes the runner's raw figures for stackproof (src/load/k6-summary.ts parses them
 * with a schema and reads percentiles from the bucket counts), and a short text summary on stdout,
 * since a handleSummary that returns anything replaces k6's own end-of-test summary (and jslib's
 * textSummary cannot be fetched at run time here).
 *
 * k6 hands handleSummary one of two shapes: the legacy one (`metrics` keyed by name, `values` with
 * `count`/`passes`/`p(90)`, `state.testRunDurationMs`), or, with K6_NEW_MACHINE_READABLE_SUMMARY=true
 * (k6 v1+), the machine-readable one (`results.metrics` an array of `{ name, type, values }`, rates as
 * `matches`/`total`, trends only avg/min/med/max/p90/p95, `config.duration` in seconds, and in k6
 * v2.2 the checks apart, under `results.checks`). Both are read into the same flat view here.
 */

type Values = Record<string, number | null | undefined>;
interface LegacyData {
  metrics: Record<string, { type?: string; values: Values; thresholds?: Record<string, { ok: boolean }> }>;
  state: { testRunDurationMs: number };
}
interface MachineReadableData {
  config: { duration: number };
  metadata?: { k6_version?: string };
  results: {
    /** `type` is a Go value here (see count below), so it is only ever read through String(). */
    metrics: { name: string; type: unknown; values: Values }[];
    /** k6 v2.2 keeps the checks apart from the other metrics: checks_succeeded and the like, and each check's passes. */
    checks?: { metrics?: { name: string; values: Values }[]; results?: { name: string; passes: number; fails: number }[] };
  };
}
export type SummaryData = LegacyData | MachineReadableData;

interface FlatSummary {
  shape: 'legacy' | 'machine-readable';
  durationMs: number;
  /** Counter count, or for a rate the number of true samples. */
  count: (metric: string) => number;
  trend: (metric: string) => Values;
  /** Check samples that passed, wherever this shape keeps them. */
  checksPassed: number;
  thresholds: { metric: string; expression: string; ok: boolean }[];
}

function flatten(data: SummaryData): FlatSummary {
  if ('results' in data && data.results && Array.isArray(data.results.metrics)) {
    const byName: Record<string, { type: unknown; values: Values }> = {};
    for (const m of data.results.metrics) byName[m.name] = m;
    const count = (name: string) => {
      const m = byName[name];
      if (!m) return 0;
      // k6 v2.2 hands `type` over as a Go value whose String() is the name, not as a JS string:
      // compared with === it is never 'rate', and every rate (sp_failed, the errors) read as 0.
      return Number((String(m.type) === 'rate' ? m.values.matches : m.values.count) ?? 0);
    };
    return {
      shape: 'machine-readable',
      durationMs: data.config.duration * 1000,
      count,
      trend: (name) => (byName[name] ? byName[name]!.values : {}),
      checksPassed: machineReadableChecksPassed(data.results.checks) ?? count('checks'),
      thresholds: [],
    };
  }
  const legacy = data as LegacyData;
  const thresholds: FlatSummary['thresholds'] = [];
  for (const name of Object.keys(legacy.metrics)) {
    const t = legacy.metrics[name]!.thresholds ?? {};
    for (const expression of Object.keys(t)) thresholds.push({ metric: name, expression, ok: t[expression]!.ok });
  }
  return {
    shape: 'legacy',
    durationMs: legacy.state.testRunDurationMs,
    count: (name) => {
      const m = legacy.metrics[name];
      if (!m) return 0;
      return Number((m.type === 'rate' ? m.values.passes : m.values.count) ?? 0);
    },
    trend: (name) => (legacy.metrics[name] ? legacy.metrics[name]!.values : {}),
    checksPassed: Number(legacy.metrics.checks?.values.passes ?? 0),
    thresholds,
  };
}

/**
 * k6 v2.2's machine-readable summary keeps the checks under `results.checks`: the rate
 * `checks_succeeded` (its `matches` are the passed samples) and each check's passes. Undefined when
 * the shape has neither, as where k6 listed `checks` among the other metrics.
 */
function machineReadableChecksPassed(checks: MachineReadableData['results']['checks']): number | undefined {
  const succeeded = checks?.metrics?.find((m) => m.name === 'checks_succeeded');
  if (succeeded && succeeded.values.matches !== null && succeeded.values.matches !== undefined) return Number(succeeded.values.matches);
  if (checks?.results) return checks.results.reduce((sum, c) => sum + Number(c.passes ?? 0), 0);
  return undefined;
}

/** The percentile of bucket counts, read at the bucket's middle (as stackproof reads them). */
function bucketPercentile(counts: number[], total: number, p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * total));
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i]!;
    if (seen >= rank) return bucketMiddleMs(i);
  }
  return 0;
}

// The machine-readable shape hands trend values over as Go pointers, which are not always JS numbers.
const ms = (v: unknown) => (v === null || v === undefined || Number.isNaN(Number(v)) ? '-' : `${Math.round(Number(v) * 1000) / 1000} ms`);

export function summarize(scenario: string, requestsPerIteration: number, data: SummaryData): Record<string, string> {
  const s = flatten(data);
  const counts: number[] = [];
  let total = 0;
  for (let i = 0; i < BUCKET_LAYOUT.count; i++) {
    const c = s.count(`sp_latency_bucket_${i}`);
    counts.push(c);
    total += c;
  }
  const raw = {
    kind: 'stackproof-k6-summary',
    version: 1,
    scenario,
    summaryShape: s.shape,
    targetRate: RATE,
    maxIterations: MAX_ITERATIONS,
    requestsPerIteration,
    durationMs: Math.round(s.durationMs),
    requests: s.count('http_reqs'),
    iterations: s.count('sp_iterations'),
    droppedIterations: s.count('dropped_iterations'),
    failed: s.count('sp_failed'),
    exceptions: s.count('sp_exceptions'),
    checks: { passed: s.checksPassed },
    buckets: { minMs: BUCKET_LAYOUT.minMs, growth: BUCKET_LAYOUT.growth, counts },
  };
  const d = s.trend('http_req_duration');
  const lines = [
    `stackproof ${scenario} on k6 (${s.shape} summary): ${raw.requests} HTTP requests in ${raw.iterations} iterations over ${Math.round(s.durationMs) / 1000} s`,
    `  errors ${raw.failed} (${raw.exceptions} exceptions), dropped iterations ${raw.droppedIterations}`,
    `  latency (buckets): p50 ${ms(bucketPercentile(counts, total, 50))}, p90 ${ms(bucketPercentile(counts, total, 90))}, p99 ${ms(bucketPercentile(counts, total, 99))}, p99.9 ${ms(bucketPercentile(counts, total, 99.9))}, of ${total}`,
    `  http_req_duration (k6): avg ${ms(d.avg)}, min ${ms(d.min)}, med ${ms(d.med)}, p(90) ${ms(d['p(90)'] ?? d.p90)}, p(99) ${ms(d['p(99)'])}, max ${ms(d.max)}`,
    ...s.thresholds.map((t) => `  threshold ${t.metric} ${t.expression}: ${t.ok ? 'ok' : 'FAILED'}`),
  ];
  return { stdout: `${lines.join('\n')}\n`, [env('RESULTS', `results.k6.${scenario}.json`)]: JSON.stringify(raw) };
}
