import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newLatencyHistogram, percentilesMs, recordLatencyMs, timelinePercentilesMs } from '../src/load/latency-histogram.ts';
import { rowPercentilesMs } from '../src/load/percentile-row.ts';

describe('latency histogram resolution', () => {
  it('reads any single latency back within 0.1 %, and to the microsecond below 2 ms', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.001, max: 3_600_000, noNaN: true }), (ms) => {
        const h = newLatencyHistogram();
        recordLatencyMs(h, ms);
        const back = percentilesMs(h).p50;
        const us = Math.round(ms * 1000) / 1000;
        if (us < 2.048) expect(back).toBe(us);
        else expect(Math.abs(back - us) / us).toBeLessThanOrEqual(0.001);
      }),
    );
  });

  it('keeps a sub-millisecond p50 to the microsecond (the k6 median of a bare server was 0.29 ms)', () => {
    const h = newLatencyHistogram();
    // 0.250 .. 0.349 ms, each value ten times: the median is 0.299 ms.
    for (let k = 0; k < 10; k++) for (let us = 250; us < 350; us++) recordLatencyMs(h, us / 1000);
    expect(percentilesMs(h).p50).toBe(0.299);
    expect(percentilesMs(h).min).toBe(0.25);
    expect(percentilesMs(h).max).toBe(0.349);
  });

  it("gives a timeline second the same p50, p90, p99 and max as the row's figures, and zeros when empty", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0.001, max: 60_000, noNaN: true }), { maxLength: 300 }), (latencies) => {
        const h = newLatencyHistogram();
        for (const ms of latencies) recordLatencyMs(h, ms);
        const full = rowPercentilesMs(h);
        expect(timelinePercentilesMs(h)).toEqual(latencies.length ? { p50: full.p50, p90: full.p90, p99: full.p99, max: full.max } : { p50: 0, p90: 0, p99: 0, max: 0 });
      }),
    );
  });

  it('floors a reading that rounds to zero at 1 µs', () => {
    const h = newLatencyHistogram();
    recordLatencyMs(h, 0);
    recordLatencyMs(h, 0.0004);
    expect(percentilesMs(h).max).toBe(0.001);
  });
});
