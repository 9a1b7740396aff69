/**
 * The latency buckets the k6 scripts count into, shared with stackproof's reader
 * (src/load/k6-buckets.ts) so both sides agree on what bucket i means. Pure arithmetic: no k6 and no
 * Node imports, because this file is bundled for k6's engine and also imported by Node.
 *
 * k6 keeps no histogram, and percentiles from several runners cannot be averaged; bucket counts add.
 * Bucket i holds latencies in [MIN_MS * GROWTH^i, MIN_MS * GROWTH^(i+1)): 2% wide, so a value read
 * back at its bucket's geometric middle is within 1% of what k6 measured. 10 µs (below anything k6
 * times over a socket) to about 11 minutes (beyond k6's 60 s default request timeout); values outside
 * land in the first or the last bucket.
 */
export const BUCKET_LAYOUT = { minMs: 0.01, growth: 1.02, count: 910 } as const;

export function bucketOf(ms: number): number {
  if (!(ms > BUCKET_LAYOUT.minMs)) return 0;
  const i = Math.floor(Math.log(ms / BUCKET_LAYOUT.minMs) / Math.log(BUCKET_LAYOUT.growth));
  return Math.min(BUCKET_LAYOUT.count - 1, Math.max(0, i));
}

/** The value a bucket stands for when percentiles are read back: its geometric middle, in ms. */
export function bucketMiddleMs(i: number, layout: { minMs: number; growth: number } = BUCKET_LAYOUT): number {
  return layout.minMs * Math.pow(layout.growth, i + 0.5);
}
