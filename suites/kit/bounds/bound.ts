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

/** The kit's own waits, shared by every system's rules. */
export const KIT_BOUNDS = {
  lock: {
    ms: 30 * 60_000,
    waitsFor: 'another suite file or rule to give back a lock on what is global to a target',
    why: "a slow target's whole suite at worst; running out is the rule's ERROR",
  },
  ruleBeyond: {
    ms: 30_000,
    waitsFor: 'a rule that waits under bounds, beyond the longest wait it asks for',
    why: "the rule's own deadline (ERROR) lies this far beyond the bounds it waits under, so that running out of one is that bound's ERROR with its name",
  },
  lockHookBeyond: {
    ms: 10_000,
    waitsFor: "the hook that takes a lock, beyond the lock's bound",
    why: "so that running out of the lock's bound is its own ERROR, with the holder's name, before vitest's hook deadline",
  },
  connect: {
    ms: 10_000,
    waitsFor: 'a TCP connection to the target',
    why: "the cap on connecting (a request's own deadline when that is shorter): a target that does not accept a connection in 10 s is not there, which is a transport ERROR",
  },
} satisfies Record<string, WaitBound>;

/** The kit's short intervals: not bounds on the product. */
export const KIT_MARGINS = {
  lockPoll: { ms: 50, waitsFor: 'the next look at a held lock', why: 'an interval, not a bound' },
  changePoll: { ms: 250, waitsFor: 'the next look at a change the target applies in its own time (an ACL change, a namespace deleted in the background)', why: 'an interval, not a bound: the bound is the caller\'s' },
  keepAlive: {
    ms: 4_000,
    waitsFor: 'a kept-alive connection to be reused before the harness closes it',
    why: "under the 5 s keep-alive of Node's http server and Go's default idle handling, so that the harness never sends on a connection the target is closing",
  },
} satisfies Record<string, WaitBound>;
