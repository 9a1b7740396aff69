import { mergeHistograms } from '../load/latency-histogram.ts';
import { gap, type ChartSpec } from './chart-spec.ts';
import type { LoadScenarioResult } from './results-model.ts';

/**
 * What the report's charts of one load scenario draw. Every latency here is a number of the
 * scenario's row in results.json or of its histogram, never recomputed another way, so a value read
 * off a chart equals the table's.
 */
export interface ScenarioCharts {
  id: string;
  title: string;
  /** Seconds since the scenario started, with each second's latency percentiles (ms), requests and errors. */
  timeline?: { t: number[]; p50: number[]; p90: number[]; p99: number[]; max: number[]; requests: number[]; errors: number[] };
  /** The latency distribution: x is 1/(1 - percentile/100), so each tenfold step is one more nine. */
  spectrum?: { x: number[]; percentile: number[]; latencyMs: number[]; p99LimitMs?: number };
}

/** The percentiles the table shows, drawn on the spectrum with the table's values. */
const NAMED = [
  { p: 50, key: 'p50' },
  { p: 90, key: 'p90' },
  { p: 99, key: 'p99' },
  { p: 99.9, key: 'p999' },
] as const;

export function scenarioCharts(s: LoadScenarioResult, index: number): ScenarioCharts {
  const id = `load-${index}`;
  const title = `${s.scenario} (${s.engine})`;
  if (s.error) return { id, title };
  return { id, title, timeline: timeline(s), spectrum: spectrum(s) };
}

/** The three charts of a scenario: latency over time, requests and errors per second, the latency distribution. */
export function scenarioChartSpecs(s: LoadScenarioResult, index: number): ChartSpec[] {
  const c = scenarioCharts(s, index);
  const specs: ChartSpec[] = [];
  const seconds = { label: 'time since start', kind: 'linear' as const, unit: 's' };
  if (c.timeline) {
    const t = c.timeline;
    specs.push({
      id: `${c.id}-latency`,
      caption: `Latency per second: p50, p90, p99 and max`,
      x: seconds,
      y: { label: 'latency', unit: 'ms' },
      series: [
        { label: 'p50', color: '#2a7de1', style: 'line' },
        { label: 'p90', color: '#12a150', style: 'line' },
        { label: 'p99', color: '#d9480f', style: 'line' },
        { label: 'max', color: '#7b2cbf', style: 'dashed' },
      ],
      data: [t.t, t.p50, t.p90.map(gap), t.p99, t.max.map(gap)],
    });
    specs.push({
      id: `${c.id}-rate`,
      caption: 'Requests and errors per second',
      x: seconds,
      y: { label: 'per second', unit: '/s' },
      series: [
        { label: 'requests', color: '#5b7fb8', style: 'bars' },
        { label: 'errors', color: '#d23c3c', style: 'line' },
      ],
      data: [t.t, t.requests, t.errors],
    });
  }
  if (c.spectrum) {
    const sp = c.spectrum;
    specs.push({
      id: `${c.id}-spectrum`,
      caption: `Latency by percentile (log axis: each step one more nine)${sp.p99LimitMs !== undefined ? ', with the p99 threshold' : ''}`,
      x: { label: 'percentile', kind: 'percentile', pointLabels: sp.percentile.map((p) => (p === 100 ? '100% (max)' : `${p}%`)) },
      y: { label: 'latency', unit: 'ms', log: true },
      series: [
        { label: 'latency', color: '#2a7de1', style: 'line' },
        ...(sp.p99LimitMs !== undefined ? [{ label: 'p99 threshold', color: '#d23c3c', style: 'dashed' as const }] : []),
      ],
      data: [sp.x, sp.latencyMs, ...(sp.p99LimitMs !== undefined ? [sp.x.map(() => sp.p99LimitMs!)] : [])],
    });
  }
  return specs;
}

function timeline(s: LoadScenarioResult): ScenarioCharts['timeline'] {
  if (s.timeline.length === 0) return undefined;
  const points = [...s.timeline].sort((a, b) => a.t - b.t);
  return {
    // Each engine numbers a second from the scenario's start: second 0 holds the first 1,000 ms.
    t: points.map((p) => p.t),
    p50: points.map((p) => p.p50),
    // Results written before the timeline carried p90 and max draw those lines empty rather than guessed.
    p90: points.map((p) => p.p90 ?? NaN),
    p99: points.map((p) => p.p99),
    max: points.map((p) => p.max ?? NaN),
    requests: points.map((p) => p.requests),
    errors: points.map((p) => p.errors),
  };
}

function spectrum(s: LoadScenarioResult): ScenarioCharts['spectrum'] {
  const answered = s.requests - s.errors;
  if (!s.histogram || s.latencyMs.max === 0 || answered <= 0) return undefined;
  const h = mergeHistograms([s.histogram]);
  if (h.totalCount === 0) return undefined;
  const named = new Map<number, number>([[0, s.latencyMs.min], ...NAMED.map(({ p, key }) => [p, s.latencyMs[key]] as [number, number])]);
  // Steps of a quarter of a nine, as HdrHistogram's percentile plots take them, up to the nine the
  // request count resolves; the named percentiles are always on it.
  const grid = new Set<number>(named.keys());
  const nines = Math.max(3, Math.ceil(Math.log10(h.totalCount)));
  for (let i = 1; i < nines * 4; i++) grid.add(round(100 - 100 / 10 ** (i / 4)));
  for (let d = 1; d < 10; d++) grid.add(d * 10);
  const percentiles = [...grid].sort((a, b) => a - b);
  const values = percentiles.map((p) => named.get(p) ?? Math.round(h.getValueAtPercentile(p)) / 1000);
  // Between two named points a histogram value stays between their table values, so the curve
  // never crosses a number the table shows (k6 rows' table values come from k6, not the buckets).
  let low = s.latencyMs.min;
  for (let i = 0; i < percentiles.length; i++) {
    const p = percentiles[i]!;
    if (named.has(p)) {
      low = values[i]!;
      continue;
    }
    const next = percentiles.slice(i + 1).find((q) => named.has(q));
    const high = next === undefined ? s.latencyMs.max : named.get(next)!;
    values[i] = Math.min(Math.max(values[i]!, low), high);
  }
  const x = percentiles.map((p) => 100 / (100 - p));
  // 100 % (the maximum) has no finite place on the axis: it sits one nine past the last point.
  x.push(x[x.length - 1]! * 10);
  percentiles.push(100);
  values.push(s.latencyMs.max);
  const limit = s.thresholds.find((t) => t.name.startsWith('p99 latency'))?.limit;
  return { x, percentile: percentiles, latencyMs: values, ...(limit !== undefined ? { p99LimitMs: limit } : {}) };
}

function round(p: number): number {
  return Math.round(p * 10_000) / 10_000;
}
