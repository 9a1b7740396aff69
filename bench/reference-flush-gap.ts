/**
 * The least time between two writes of the reference's event-stream fan-out, for a number of
 * subscribers: the floor (bench/fanout.ts) writes its streams as the reference batches them. A copy
 * of src/reference/scheduler/stream-fanout.ts's FLUSH_GAP_MS_PER_SUBSCRIBER and MAX_FLUSH_GAP_MS,
 * since the bench, like the rest of the harness, imports only the reference's starting interface
 * (test/import-boundary.test.ts); that test also holds this copy equal to the reference's.
 */
export const FLUSH_GAP_MS_PER_SUBSCRIBER = 0.04;
export const MAX_FLUSH_GAP_MS = 20;

export function referenceFlushGapMs(subscribers: number): number {
  return Math.min(MAX_FLUSH_GAP_MS, subscribers * FLUSH_GAP_MS_PER_SUBSCRIBER);
}
