import { newLatencyHistogram, percentilesMs } from './latency-histogram.ts';

/** How often a running scenario says where it is, unless asked otherwise (--progress-interval). */
export const PROGRESS_EVERY_MS = 5_000;

/** Where a running scenario is: what it has done so far, and the latest interval's rate and p99. */
export interface LoadProgress {
  elapsedMs: number;
  /** Of the duration asked. */
  durationMs: number;
  requests: number;
  errors: number;
  dropped: number;
  /** How long the interval just ended was. */
  intervalMs: number;
  /** Answers per second over the interval just ended. */
  ratePerSecond: number;
  /** p99 of the answers in the interval just ended (ms); undefined when none came. */
  p99Ms?: number;
}

/** The per-second buckets every engine keeps: a progress report reads the latest ones. */
export interface SecondBuckets {
  get(second: number): { requests: number; h: ReturnType<typeof newLatencyHistogram> } | undefined;
}

/** The line a progress report prints, the same for every engine. */
export function progressLine(p: LoadProgress): string {
  const p99 = p.p99Ms === undefined ? 'no answer' : `p99 ${p.p99Ms} ms`;
  return `    … ${Math.round(p.elapsedMs / 1000)} s of ${Math.round(p.durationMs / 1000)} s: ${p.requests} done, ${p.errors} errors, ${p.dropped} dropped; last ${Math.round(p.intervalMs / 1000)} s: ${Math.round(p.ratePerSecond)}/s held, ${p99}`;
}

/**
 * Calls `report` every `everyMs` while a scenario runs, with counts so far and the rate and p99 of
 * the whole seconds since the last report (from the engine's own per-second histograms). Timers
 * are unref'd: progress never holds a run open.
 */
export function startProgress(options: {
  everyMs: number;
  durationMs: number;
  startedAt: number;
  buckets: SecondBuckets;
  counts: () => { requests: number; errors: number; dropped: number };
  report: (p: LoadProgress) => void;
}): () => void {
  let lastRequests = 0;
  let lastAt = options.startedAt;
  let lastSecond = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const c = options.counts();
    const second = Math.floor((now - options.startedAt) / 1000);
    const h = newLatencyHistogram();
    let any = false;
    // Through the second now under way (a timer may fire a hair before the second it was set for).
    for (let s = lastSecond; s <= second; s++) {
      const b = options.buckets.get(s);
      if (b && b.requests > 0) {
        h.add(b.h);
        any = true;
      }
    }
    options.report({
      elapsedMs: now - options.startedAt,
      durationMs: options.durationMs,
      ...c,
      intervalMs: now - lastAt,
      ratePerSecond: ((c.requests - lastRequests) * 1000) / Math.max(1, now - lastAt),
      ...(any ? { p99Ms: percentilesMs(h).p99 } : {}),
    });
    lastRequests = c.requests;
    lastAt = now;
    lastSecond = second;
  }, options.everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
