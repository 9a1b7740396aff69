import * as hdr from 'hdr-histogram-js';

/**
 * Latencies are recorded in microseconds, up to an hour, with 3 significant digits: every value
 * below 2,048 µs is kept exactly (to the microsecond) and larger ones within 0.1 %, so a
 * sub-millisecond p50 keeps about three digits after the millisecond point, far finer than the
 * 0.2 ms the open-model tests hold it to.
 */
export function newLatencyHistogram(): hdr.Histogram {
  return hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 3 });
}

/**
 * Records a latency given in milliseconds (a difference of performance.now() readings) to the
 * nearest microsecond. The floor of 1 µs keeps a reading that rounds to zero in the histogram's
 * range; no real request answers that fast, so a percentile at the floor means the latency was
 * measured from the wrong moment (as when the open-model runner used to start requests early).
 */
export function recordLatencyMs(h: hdr.Histogram, ms: number): void {
  h.recordValue(Math.max(1, Math.round(ms * 1000)));
}

export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  min: number;
  mean: number;
}

/** A histogram value (microseconds) in milliseconds, to the microsecond. */
const ms = (us: number) => Math.round(us) / 1000;

/** Percentiles in milliseconds, from a histogram of microseconds. */
export function percentilesMs(h: hdr.Histogram): Percentiles {
  if (h.totalCount === 0) return { p50: 0, p90: 0, p99: 0, p999: 0, max: 0, min: 0, mean: 0 };
  return {
    p50: ms(h.getValueAtPercentile(50)),
    p90: ms(h.getValueAtPercentile(90)),
    p99: ms(h.getValueAtPercentile(99)),
    p999: ms(h.getValueAtPercentile(99.9)),
    max: ms(h.maxValue),
    min: ms(h.minNonZeroValue),
    mean: ms(h.mean),
  };
}

/**
 * A timeline second's p50, p90, p99 and max, in milliseconds: each a walk of the counts up to the
 * percentile, without percentilesMs's mean, which walks every recorded value through the library's
 * iterator (most of the CPU a run spent after its last answer). The report's latency chart draws them.
 */
export function timelinePercentilesMs(h: hdr.Histogram): { p50: number; p90: number; p99: number; max: number } {
  if (h.totalCount === 0) return { p50: 0, p90: 0, p99: 0, max: 0 };
  // A percentile reads as its bucket's top, the max as recorded: held at the max, as a row's are (src/load/percentile-row.ts).
  const max = ms(h.maxValue);
  const at = (p: number) => Math.min(max, ms(h.getValueAtPercentile(p)));
  return { p50: at(50), p90: at(90), p99: at(99), max };
}

export function encodeHistogram(h: hdr.Histogram): string {
  return hdr.encodeIntoCompressedBase64(h);
}

/** Merges encoded histograms from several runners: percentiles of the union, never an average of percentiles. */
export function mergeHistograms(encoded: string[]): hdr.Histogram {
  const total = newLatencyHistogram();
  for (const e of encoded) total.add(hdr.decodeFromCompressedBase64(e));
  return total;
}
