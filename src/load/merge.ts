import { decodeFromCompressedBase64 } from 'hdr-histogram-js';
import { encodeHistogram, mergeHistograms, newLatencyHistogram, percentilesMs, type Percentiles } from './latency-histogram.ts';

/** What one runner reports for one scenario: an HDR histogram (stackproof's engines) or k6 bucket counts. */
export interface RunnerResult {
  scenario: string;
  engine: string;
  requests: number;
  errors: number;
  dropped: number;
  durationMs: number;
  histogram?: string;
  k6Buckets?: number[];
}

const GROWTH = 1.05;
const bucketUpperMs = (i: number) => 0.01 * Math.pow(GROWTH, i + 1);

/** Percentiles of summed k6 bucket counts (each value is taken as its bucket's upper bound). */
export function percentilesFromBuckets(buckets: number[]): Percentiles {
  const total = buckets.reduce((a, b) => a + b, 0);
  const at = (p: number) => {
    const rank = Math.ceil((p / 100) * total);
    let seen = 0;
    for (let i = 0; i < buckets.length; i++) {
      seen += buckets[i]!;
      if (seen >= rank && buckets[i]! > 0) return Math.round(bucketUpperMs(i) * 1000) / 1000;
    }
    return 0;
  };
  const first = buckets.findIndex((b) => b > 0);
  const last = buckets.length - 1 - [...buckets].reverse().findIndex((b) => b > 0);
  const mean = total ? buckets.reduce((s, c, i) => s + c * bucketUpperMs(i), 0) / total : 0;
  return { p50: at(50), p90: at(90), p99: at(99), p999: at(99.9), max: first < 0 ? 0 : bucketUpperMs(last), min: first < 0 ? 0 : bucketUpperMs(first - 1), mean: Math.round(mean * 1000) / 1000 };
}

/**
 * Merges the results of several runners of the same scenario: counts add, histograms (or bucket
 * counts) add, and percentiles are read from the sum. Percentiles are never averaged.
 */
export function mergeRunnerResults(results: RunnerResult[]): { scenario: string; engine: string; runners: number; requests: number; errors: number; dropped: number; throughput: number; latencyMs: Percentiles; histogram?: string; k6Buckets?: number[] }[] {
  const groups = new Map<string, RunnerResult[]>();
  for (const r of results) groups.set(`${r.scenario}\u0000${r.engine}`, [...(groups.get(`${r.scenario}\u0000${r.engine}`) ?? []), r]);
  return [...groups.values()].map((group) => {
    const first = group[0]!;
    const requests = group.reduce((s, r) => s + r.requests, 0);
    const seconds = Math.max(...group.map((r) => r.durationMs)) / 1000;
    const base = {
      scenario: first.scenario,
      engine: first.engine,
      runners: group.length,
      requests,
      errors: group.reduce((s, r) => s + r.errors, 0),
      dropped: group.reduce((s, r) => s + r.dropped, 0),
      throughput: seconds > 0 ? Math.round((requests / seconds) * 10) / 10 : 0,
    };
    if (group.every((r) => r.k6Buckets)) {
      const summed = first.k6Buckets!.map((_, i) => group.reduce((s, r) => s + (r.k6Buckets![i] ?? 0), 0));
      return { ...base, latencyMs: percentilesFromBuckets(summed), k6Buckets: summed };
    }
    const histograms = group.map((r) => r.histogram).filter((h): h is string => Boolean(h));
    const merged = histograms.length ? mergeHistograms(histograms) : newLatencyHistogram();
    return { ...base, latencyMs: percentilesMs(merged), histogram: encodeHistogram(merged) };
  });
}

export { decodeFromCompressedBase64 };
