import { encodeHistogram, mergeHistograms, newLatencyHistogram, percentilesMs, type Percentiles } from './latency-histogram.ts';
import { boundedPercentiles, rowPercentilesMs } from './percentile-row.ts';
import { histogramFromBuckets, sumBuckets, type K6Buckets } from './k6-buckets.ts';

/** What one runner reports for one scenario: an HDR histogram (every engine) and, from k6, the bucket counts it was built from. */
export interface RunnerResult {
  scenario: string;
  engine: string;
  requests: number;
  errors: number;
  dropped: number;
  durationMs: number;
  histogram?: string;
  k6Buckets?: K6Buckets;
  /** The runner's own figures; their min and max are the values it recorded, before any encoding. */
  latencyMs?: Pick<Percentiles, 'min' | 'max'>;
  model?: 'open' | 'closed';
  /** A k6 runner's SP_RATE: the whole run's rate, each runner starting its execution segment's share. */
  targetRate?: number;
  iterations?: number;
  droppedIterations?: number;
}

export interface MergedResult {
  scenario: string;
  engine: string;
  model: 'open' | 'closed';
  runners: number;
  /** The longest runner's: runners run side by side. */
  durationMs: number;
  /** Where every runner names the same rate (k6 runners of one test run do). */
  targetRate?: number;
  iterations?: number;
  droppedIterations?: number;
  requests: number;
  errors: number;
  dropped: number;
  throughput: number;
  latencyMs: Percentiles;
  histogram: string;
  k6Buckets?: K6Buckets;
}

/**
 * Merges the results of several runners of the same scenario: counts add, histograms (or k6 bucket
 * counts) add, and percentiles are read from the sum. Percentiles are never averaged. k6 rows are
 * read exactly as a single k6 run is (src/load/k6-summary.ts): an HDR histogram of the summed
 * buckets, so a merge of one file gives that file's own figures.
 */
export function mergeRunnerResults(results: RunnerResult[]): MergedResult[] {
  const groups = new Map<string, RunnerResult[]>();
  for (const r of results) groups.set(`${r.scenario}\u0000${r.engine}`, [...(groups.get(`${r.scenario}\u0000${r.engine}`) ?? []), r]);
  return [...groups.values()].map((group) => {
    const first = group[0]!;
    const requests = group.reduce((s, r) => s + r.requests, 0);
    // Runners run side by side, so the merged run lasts as long as the longest of them.
    const seconds = Math.max(...group.map((r) => r.durationMs)) / 1000;
    const rates = new Set(group.map((r) => r.targetRate));
    const sumOf = (field: 'iterations' | 'droppedIterations') => (group.every((r) => r[field] !== undefined) ? { [field]: group.reduce((s, r) => s + r[field]!, 0) } : {});
    const base = {
      scenario: first.scenario,
      engine: first.engine,
      model: first.model ?? 'open',
      runners: group.length,
      durationMs: Math.max(...group.map((r) => r.durationMs)),
      ...(rates.size === 1 && first.targetRate !== undefined ? { targetRate: first.targetRate } : {}),
      ...sumOf('iterations'),
      ...sumOf('droppedIterations'),
      requests,
      errors: group.reduce((s, r) => s + r.errors, 0),
      dropped: group.reduce((s, r) => s + r.dropped, 0),
      throughput: seconds > 0 ? Math.round((requests / seconds) * 10) / 10 : 0,
    };
    if (group.every((r) => r.k6Buckets)) {
      const summed = sumBuckets(group.map((r) => r.k6Buckets!));
      const h = histogramFromBuckets(summed);
      // Rebuilt from buckets, the histogram's min and max are the bucket middles a single run reports too.
      return { ...base, latencyMs: rowPercentilesMs(h), histogram: encodeHistogram(h), k6Buckets: summed };
    }
    const histograms = group.map((r) => r.histogram).filter((h): h is string => Boolean(h));
    const merged = histograms.length ? mergeHistograms(histograms) : newLatencyHistogram();
    const figures = percentilesMs(merged);
    return { ...base, latencyMs: boundedPercentiles(figures, recordedRange(group) ?? figures), histogram: encodeHistogram(merged) };
  });
}

/**
 * The merged min and max from the runners' own rows, when every runner that counted requests gives
 * them: a decoded histogram knows its extremes only to their bucket (its max is the bucket's top, up
 * to 0.1% above the value recorded), so a merge of one file would otherwise not give that file's max.
 */
function recordedRange(group: RunnerResult[]): { min: number; max: number } | undefined {
  const counted = group.filter((r) => r.requests > 0 && r.histogram);
  if (!counted.length || !counted.every((r) => r.latencyMs && r.latencyMs.max > 0)) return undefined;
  return { min: Math.min(...counted.map((r) => r.latencyMs!.min)), max: Math.max(...counted.map((r) => r.latencyMs!.max)) };
}
