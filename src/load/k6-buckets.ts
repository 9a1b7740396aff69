import type * as hdr from 'hdr-histogram-js';
import { BUCKET_LAYOUT, bucketMiddleMs } from '../../load/k6/lib/bucket-layout.ts';
import { newLatencyHistogram } from './latency-histogram.ts';

/** Latency bucket counts as the k6 scripts write them, with the layout they were counted in. */
export interface K6Buckets {
  minMs: number;
  growth: number;
  counts: number[];
}

export { BUCKET_LAYOUT };

/**
 * An HDR histogram (µs) holding each bucket's count at the bucket's middle. Every k6 figure
 * stackproof reports (percentiles, mean, max) is read from this, so a single run, a merge of several
 * runners and a baseline all read k6 rows exactly as they read the other engines' histograms.
 */
export function histogramFromBuckets(b: K6Buckets): hdr.Histogram {
  const h = newLatencyHistogram();
  b.counts.forEach((count, i) => {
    if (count > 0) h.recordValueWithCount(Math.max(1, Math.round(bucketMiddleMs(i, b) * 1000)), count);
  });
  return h;
}

/** Adds the bucket counts of several runners; they must have counted in the same layout. */
export function sumBuckets(all: K6Buckets[]): K6Buckets {
  const first = all[0]!;
  for (const b of all) {
    if (b.minMs !== first.minMs || b.growth !== first.growth) throw new Error(`k6 bucket layouts differ (${first.minMs} ms x ${first.growth} and ${b.minMs} ms x ${b.growth}); these results were written by different stackproof versions`);
  }
  const length = Math.max(...all.map((b) => b.counts.length));
  return { minMs: first.minMs, growth: first.growth, counts: Array.from({ length }, (_, i) => all.reduce((s, b) => s + (b.counts[i] ?? 0), 0)) };
}
