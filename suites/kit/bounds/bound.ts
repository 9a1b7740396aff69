import type { SuiteContext } from '../../../src/run/suite-context.ts';

/**
 * How long a rule waits for a product's own signal (a stream's end, a frame, a file's change) when
 * the spec promises no time for it. Generous, since a product on a busy host answers later: running
 * out of one is ERROR "waited N s for X" (src/client/scheduler-api.ts awaited), never FAIL. Every
 * bound is multiplied by --time-scale.
 */
export interface WaitBound {
  ms: number;
  /** What the rule waits for, as the ERROR names it. */
  waitsFor: string;
  /** Why this value. */
  why: string;
}

/** The bound in milliseconds for this run (--time-scale). */
export function boundMs(ctx: Pick<SuiteContext, 'timeScale'>, bound: WaitBound): number {
  return Math.round(bound.ms * (ctx.timeScale ?? 1));
}
