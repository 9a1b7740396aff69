import type * as hdr from 'hdr-histogram-js';
import { percentilesMs, type Percentiles } from './latency-histogram.ts';

/**
 * Keeps a row's percentiles and mean within its min and max. An HDR histogram reads a percentile
 * back as the highest value of the bucket it falls in, but keeps the largest value recorded as it
 * was: above 2,048 µs a bucket is wider than a microsecond, so p99 or p99.9 could come out up to
 * 0.1% above the max the same row shows (the mean, read at bucket middles, likewise). No latency
 * was ever above the largest one measured, so the bound is the truth, not a cosmetic fix.
 * `range` is where the min and max are known better than the histogram's own, as in a merge, whose
 * decoded histograms round their max up to the bucket's top.
 */
export function boundedPercentiles(p: Percentiles, range: { min: number; max: number } = p): Percentiles {
  const { min, max } = range;
  if (!(min <= max)) return p;
  const bound = (v: number) => Math.min(max, Math.max(min, v));
  return { p50: bound(p.p50), p90: bound(p.p90), p99: bound(p.p99), p999: bound(p.p999), mean: bound(p.mean), min, max };
}

/** A row's latency figures from its histogram of microseconds, in milliseconds, within its min and max. */
export function rowPercentilesMs(h: hdr.Histogram): Percentiles {
  return boundedPercentiles(percentilesMs(h));
}
