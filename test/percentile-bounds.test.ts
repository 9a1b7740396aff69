import fc from 'fast-check';
import * as hdr from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { BUCKET_LAYOUT, bucketOf } from '../load/k6/lib/bucket-layout.ts';
import { k6SummaryToResult, type K6Summary } from '../src/load/k6-summary.ts';
import { encodeHistogram, newLatencyHistogram, percentilesMs, recordLatencyMs, type Percentiles } from '../src/load/latency-histogram.ts';
import { mergeRunnerResults, type RunnerResult } from '../src/load/merge.ts';
import { rowPercentilesMs } from '../src/load/percentile-row.ts';

/**
 * Issue 38, item 5: no engine's row shows a percentile above its max or below its min. An HDR
 * histogram reads a percentile as its bucket's top while keeping the max as recorded, so above
 * 2,048 µs p99.9 came out up to 0.1% above the max; the rows are bounded where they are built.
 * Each property drives the functions the engines build their rows with.
 */

/** Latencies in ms, mostly where HDR buckets are wider than 1 µs (above 2.048 ms), with repeats, as a tail has. */
const latencies = fc.array(
  fc.oneof(
    fc.double({ min: 0.001, max: 2, noNaN: true }),
    fc.double({ min: 2, max: 60_000, noNaN: true }),
    fc.constantFrom(2.0481, 4.0999, 16.6981, 123.4567, 1000.0001),
  ),
  { minLength: 1, maxLength: 400 },
);

const PERCENTILES = ['p50', 'p90', 'p99', 'p999', 'mean'] as const;

function expectWithinMinMax(p: Percentiles, what: string): void {
  for (const k of PERCENTILES) {
    expect(p[k], `${what}: ${k} ${p[k]} <= max ${p.max}`).toBeLessThanOrEqual(p.max);
    expect(p[k], `${what}: ${k} ${p[k]} >= min ${p.min}`).toBeGreaterThanOrEqual(p.min);
  }
  expect(p.p50 <= p.p90 && p.p90 <= p.p99 && p.p99 <= p.p999, `${what}: percentiles in order ${JSON.stringify(p)}`).toBe(true);
}

/** The sum of every bucket's count of an encoded histogram (not its totalCount, which is kept apart). */
function bucketCountSum(encoded: string): number {
  const h = hdr.decodeFromCompressedBase64(encoded);
  if (!(h instanceof hdr.JsHistogram)) throw new Error('expected the JavaScript histogram');
  let sum = 0;
  for (let i = 0; i < h.countsArrayLength; i++) sum += h.getCountAtIndex(i);
  return sum;
}

/** What the open model and autocannon both do with each answer's latency: recordLatencyMs into newLatencyHistogram. */
function recorded(ms: number[]): hdr.Histogram {
  const h = newLatencyHistogram();
  for (const v of ms) recordLatencyMs(h, v);
  return h;
}

/** A k6 script's summary of these latencies: one bucket count per request (load/k6/lib/iteration.ts). */
function k6Summary(ms: number[]): K6Summary {
  const counts = new Array<number>(BUCKET_LAYOUT.count).fill(0);
  for (const v of ms) counts[bucketOf(v)]! += 1;
  return {
    kind: 'stackproof-k6-summary', version: 1, scenario: 'mesh-roots', summaryShape: 'machine-readable', targetRate: 100, maxIterations: ms.length, requestsPerIteration: 1,
    durationMs: 1000, requests: ms.length, iterations: ms.length, droppedIterations: 0, failed: 0, exceptions: 0, checks: { passed: ms.length },
    buckets: { minMs: BUCKET_LAYOUT.minMs, growth: BUCKET_LAYOUT.growth, counts },
  };
}

/** A results.json row of another engine, as `stackproof merge` reads it. */
function histogramRunner(ms: number[], engine: string): RunnerResult {
  const h = recorded(ms);
  return { scenario: 'mesh-roots', engine, requests: ms.length, errors: 0, dropped: 0, durationMs: 1000, histogram: encodeHistogram(h), latencyMs: percentilesMs(h) };
}

/** Splits a latency set into 1-4 runners' shares. */
const runnerShares = latencies.chain((all) => fc.array(fc.nat({ max: 3 }), { minLength: all.length, maxLength: all.length }).map((who) => [0, 1, 2, 3].map((r) => all.filter((_, i) => who[i] === r)).filter((share) => share.length > 0)));

describe('every engine reports percentiles between its min and max (property)', () => {
  // The open model's runner, the event fan-out and autocannon build their rows with rowPercentilesMs.
  it('open model, fan-out and autocannon: rowPercentilesMs of their histogram', () => {
    fc.assert(
      fc.property(latencies, (ms) => {
        const h = recorded(ms);
        const p = rowPercentilesMs(h);
        expectWithinMinMax(p, 'open model, fan-out, autocannon');
        // The max is the largest latency recorded, to the microsecond, and so is every bound.
        expect(p.max).toBe(Math.max(...ms.map((v) => Math.max(1, Math.round(v * 1000)))) / 1000);
        expect(bucketCountSum(encodeHistogram(h))).toBe(ms.length);
      }),
      { numRuns: 300 },
    );
  });

  it('k6: k6SummaryToResult of the bucket counts', () => {
    fc.assert(
      fc.property(latencies, (ms) => {
        const row = k6SummaryToResult(k6Summary(ms));
        expectWithinMinMax(row.latencyMs, 'k6');
        expect(row.k6Buckets!.counts.reduce((a, b) => a + b, 0)).toBe(row.requests);
        expect(bucketCountSum(row.histogram)).toBe(row.requests);
      }),
      { numRuns: 300 },
    );
  });

  it('stackproof merge: mergeRunnerResults of histogram rows and of k6 rows, split over 1-4 runners', () => {
    fc.assert(
      fc.property(runnerShares, (shares) => {
        const all = shares.flat();
        const merged = mergeRunnerResults([
          ...shares.map((share) => histogramRunner(share, 'open-model')),
          ...shares.map((share) => ({ ...k6SummaryToResult(k6Summary(share)) })),
        ]);
        expect(merged.map((m) => m.engine).sort()).toEqual(['k6', 'open-model']);
        for (const m of merged) {
          expectWithinMinMax(m.latencyMs, `merge (${m.engine}, ${shares.length} runners)`);
          expect(m.requests).toBe(all.length);
          expect(bucketCountSum(m.histogram)).toBe(all.length);
        }
        // The merged max is the largest a runner recorded, not its bucket's top in the decoded histogram.
        const open = merged.find((m) => m.engine === 'open-model')!;
        expect(open.latencyMs.max).toBe(percentilesMs(recorded(all)).max);
        // Summed buckets read as one k6 run of all the latencies would.
        expect(merged.find((m) => m.engine === 'k6')!.latencyMs).toEqual(k6SummaryToResult(k6Summary(all)).latencyMs);
      }),
      { numRuns: 150 },
    );
  });

  it('found the fault it guards against: unbounded, a histogram tail reads above its max', () => {
    // A single latency of 16.6981 ms: its bucket's top is 16.703 ms, above the 16.698 ms recorded.
    const h = recorded([16.6981]);
    expect(percentilesMs(h).p999).toBeGreaterThan(percentilesMs(h).max);
    expect(rowPercentilesMs(h).p999).toBe(rowPercentilesMs(h).max);
  });
});
