import { z } from 'zod';
import type { LoadScenarioResult } from '../report/results-model.ts';
import { encodeHistogram, newLatencyHistogram } from './latency-histogram.ts';
import { K6_SCRIPT } from './k6-engine.ts';
import { rowPercentilesMs } from './percentile-row.ts';

/**
 * A k6 test run read back from Prometheus, where its runners sent their metrics through k6's
 * remote-write output (`-o experimental-prometheus-rw`, K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true):
 * the route k6-operator's maintainers recommend, since the operator itself aggregates nothing.
 *
 * Each runner sends its own series, told apart by the `instance_id` tag k6-operator gives every
 * runner (`--tag instance_id=<n>`, pkg/resources/jobs/runner.go), and all carry `testrun_name`. Each
 * series is cumulative over its runner's run, so the run's figures are the last sample of every
 * series, added up: counters by adding, latency histograms bucket by bucket. Percentiles are read from
 * the sum, never averaged. The scripts tag every metric with the stackproof scenario (`sp_scenario`)
 * and its total rate (`sp_rate`), count errors as a counter (`sp_errors`: a Rate goes out as a ratio)
 * and keep the elapsed time in a gauge (`sp_elapsed_ms`), since no end-of-test summary is sent.
 */
export interface PrometheusTestRun {
  /** Prometheus's base URL (its HTTP API under /api/v1). */
  url: string;
  /** The TestRun's name: the `testrun_name` tag of its runners' series. */
  testrun: string;
  /** The window the run lies in; series outside it are not read. */
  since: Date;
  until: Date;
  /** Each query's bound; a Prometheus that does not answer within it is an error. */
  timeoutMs?: number;
}

export class PrometheusUnavailable extends Error {}

/** The window holds more than one run of the TestRun name: added up, they would read as one. */
export class SeveralRunsInWindow extends Error {}

const sample = z.tuple([z.number(), z.string()]);
/** A native histogram sample as Prometheus's HTTP API writes it: bucket counts are per bucket, not cumulative. */
const nativeHistogram = z.object({
  count: z.string(),
  sum: z.string(),
  buckets: z.array(z.tuple([z.number(), z.string(), z.string(), z.string()])).optional(),
});
const seriesSchema = z.object({
  metric: z.record(z.string(), z.string()),
  values: z.array(sample).optional(),
  histograms: z.array(z.tuple([z.number(), nativeHistogram])).optional(),
});
const answerSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('success'), data: z.object({ resultType: z.string(), result: z.array(seriesSchema) }) }),
  z.object({ status: z.literal('error'), errorType: z.string().optional(), error: z.string().optional() }),
]);
type Series = z.infer<typeof seriesSchema>;

/** A TestRun name is a Kubernetes object name; anything else is refused before it reaches a query. */
export const TESTRUN_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

async function query(o: PrometheusTestRun, promql: string): Promise<Series[]> {
  const url = new URL('api/v1/query', o.url.endsWith('/') ? o.url : `${o.url}/`);
  url.searchParams.set('query', promql);
  url.searchParams.set('time', String(o.until.getTime() / 1000));
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(o.timeoutMs ?? 30_000) });
  } catch (err) {
    throw new PrometheusUnavailable(`Prometheus at ${o.url} did not answer ${promql} (${(err as Error).message})`);
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new PrometheusUnavailable(`Prometheus at ${o.url} answered ${res.status} to ${promql}, not with JSON: ${text.slice(0, 200)}`);
  }
  const answer = answerSchema.safeParse(json);
  if (!answer.success) throw new PrometheusUnavailable(`Prometheus at ${o.url} answered ${promql} in a shape this stackproof cannot read (${answer.error.issues[0]?.message ?? 'unknown'})`);
  if (answer.data.status === 'error') throw new PrometheusUnavailable(`Prometheus at ${o.url} refused ${promql}: ${answer.data.errorType ?? ''} ${answer.data.error ?? ''}`.trim());
  return answer.data.data.result;
}

/** The series of one metric of the run, every raw sample in the window. */
function seriesOf(o: PrometheusTestRun, metric: string): Promise<Series[]> {
  const seconds = Math.max(1, Math.ceil((o.until.getTime() - o.since.getTime()) / 1000));
  return query(o, `${metric}{testrun_name="${o.testrun}"}[${seconds}s]`);
}

const lastValue = (s: Series) => Number(s.values?.[s.values.length - 1]?.[1] ?? 0);
const scenarioOf = (s: Series) => s.metric.sp_scenario ?? '';

/** Adds the last sample of every series, per scenario. */
function sumByScenario(series: Series[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of series) out.set(scenarioOf(s), (out.get(scenarioOf(s)) ?? 0) + lastValue(s));
  return out;
}

interface Bucket {
  lower: number;
  upper: number;
  count: number;
}

/** The run's latency histogram per scenario: the last sample of each series, added bucket by bucket. */
function histogramsByScenario(series: Series[]): Map<string, Map<string, Bucket>> {
  const out = new Map<string, Map<string, Bucket>>();
  for (const s of series) {
    const last = s.histograms?.[s.histograms.length - 1]?.[1];
    if (!last) continue;
    const buckets = out.get(scenarioOf(s)) ?? new Map<string, Bucket>();
    out.set(scenarioOf(s), buckets);
    for (const [, lower, upper, count] of last.buckets ?? []) {
      const key = `${lower}|${upper}`;
      const b = buckets.get(key) ?? { lower: Number(lower), upper: Number(upper), count: 0 };
      b.count += Number(count);
      buckets.set(key, b);
    }
  }
  return out;
}

/**
 * Every scenario the run's runners sent, as results.json rows. A native histogram's bucket is read at
 * its geometric middle (k6's schema 3 buckets are 9% wide, so a percentile is within 4.5% of what k6
 * timed); rows are otherwise built as a k6 row of a local run is (src/load/k6-summary.ts).
 */
export async function readTestRunFromPrometheus(o: PrometheusTestRun): Promise<{ rows: LoadScenarioResult[]; runners: Map<string, number> }> {
  if (!TESTRUN_NAME.test(o.testrun)) throw new Error(`not a TestRun name: ${o.testrun}`);
  const [durations, reqs, errs, iters, dropped, elapsed] = await Promise.all([
    seriesOf(o, 'k6_http_req_duration_seconds'),
    seriesOf(o, 'k6_http_reqs_total'),
    seriesOf(o, 'k6_sp_errors_total'),
    seriesOf(o, 'k6_sp_iterations_total'),
    seriesOf(o, 'k6_dropped_iterations_total'),
    seriesOf(o, 'k6_sp_elapsed_ms'),
  ]);
  // A counter that goes down restarted: a second run of the same name (k6-operator gives its runners
  // the same tags every time) whose series continue the first run's.
  const restarted = [...reqs, ...iters].find((s) => (s.values ?? []).some(([, v], i, all) => i > 0 && Number(v) < Number(all[i - 1]![1])));
  if (restarted) {
    const at = restarted.values!.find(([, v], i, all) => i > 0 && Number(v) < Number(all[i - 1]![1]))![0];
    throw new SeveralRunsInWindow(`Prometheus holds more than one run of test run ${o.testrun} since ${o.since.toISOString()}: ${restarted.metric.__name__} of runner ${restarted.metric.instance_id ?? '?'} starts again at ${new Date(at * 1000).toISOString()}; give a --since that reaches back only to the run you want (or name each run apart)`);
  }
  const requests = sumByScenario(reqs);
  const errors = sumByScenario(errs);
  const iterations = sumByScenario(iters);
  const droppedIterations = sumByScenario(dropped);
  const histograms = histogramsByScenario(durations);
  // Runners per scenario: k6-operator tells them apart by their instance_id tag.
  const runnerIds = new Map<string, Set<string>>();
  for (const s of iters) {
    const ids = runnerIds.get(scenarioOf(s)) ?? new Set<string>();
    runnerIds.set(scenarioOf(s), ids.add(s.metric.instance_id ?? ''));
  }
  const runners = new Map([...runnerIds].map(([scenario, ids]) => [scenario, ids.size]));
  const rows: LoadScenarioResult[] = [];
  for (const scenario of [...new Set([...requests.keys(), ...iterations.keys()])].sort()) {
    const rate = Number(iters.find((s) => scenarioOf(s) === scenario)?.metric.sp_rate ?? NaN);
    const script = K6_SCRIPT[scenario];
    const base = { scenario: scenario || '(no sp_scenario tag)', engine: 'k6', model: 'open' as const, ...(Number.isFinite(rate) ? { targetRate: rate } : {}), timeline: [], thresholds: [] };
    if (!script) {
      rows.push({ ...base, durationMs: 0, requests: 0, errors: 0, dropped: 0, throughput: 0, latencyMs: { p50: 0, p90: 0, p99: 0, p999: 0, max: 0, min: 0, mean: 0 }, histogram: encodeHistogram(newLatencyHistogram()), error: `series of test run ${o.testrun} whose sp_scenario is not a stackproof k6 script (${scenario || 'none'}): were they sent by load/dist?` });
      continue;
    }
    const n = requests.get(scenario) ?? 0;
    if (n > 0 && !histograms.has(scenario)) {
      // Without native histograms k6 sends a trend as a few summary gauges, from which no run-wide percentile can be read.
      rows.push({ ...base, durationMs: 0, requests: n, errors: errors.get(scenario) ?? 0, dropped: 0, throughput: 0, latencyMs: { p50: 0, p90: 0, p99: 0, p999: 0, max: 0, min: 0, mean: 0 }, histogram: encodeHistogram(newLatencyHistogram()), error: `test run ${o.testrun} sent ${n} requests of ${scenario} but no native histogram of their latency (k6_http_req_duration_seconds): set K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true on the runners and start Prometheus with --enable-feature=native-histograms` });
      continue;
    }
    const h = newLatencyHistogram();
    for (const b of histograms.get(scenario)?.values() ?? []) {
      // The zero bucket spans [-threshold, threshold]: its latencies are below the threshold.
      const seconds = b.lower > 0 ? Math.sqrt(b.lower * b.upper) : b.upper;
      if (b.count > 0) h.recordValueWithCount(Math.max(1, Math.round(seconds * 1e6)), b.count);
    }
    // Runners run side by side: the run lasts as long as the longest of them.
    const durationMs = Math.max(0, ...elapsed.filter((s) => scenarioOf(s) === scenario).map(lastValue));
    const droppedIters = droppedIterations.get(scenario) ?? 0;
    rows.push({
      ...base,
      durationMs: Math.round(durationMs),
      requests: n,
      errors: errors.get(scenario) ?? 0,
      dropped: droppedIters * script.requestsPerIteration,
      throughput: durationMs > 0 ? Math.round((n / (durationMs / 1000)) * 10) / 10 : 0,
      latencyMs: rowPercentilesMs(h),
      histogram: encodeHistogram(h),
      iterations: iterations.get(scenario) ?? 0,
      droppedIterations: droppedIters,
    });
  }
  return { rows, runners };
}
