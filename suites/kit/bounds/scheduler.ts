import type { SuiteContext } from '../../../src/run/suite-context.ts';
import { boundMs, type WaitBound } from './bound.ts';
import { TargetError } from '../../../src/client/target-error.ts';

/** The scheduler rules' waits for the product (spec 002 gives none of these a time). */
export const SCHEDULER_BOUNDS = {
  aclSequence: {
    ms: 240_000,
    waitsFor: 'a generated sequence of policy changes and subscriptions, each refused subscription silent to its end (scheduler.events.acl-neighbours)',
    why: 'Nomad 2.0.5 keeps a refused subscription open and silent until the quiet bound (5 s): up to 17 of them in a sequence; the reference and 1.6.1 end them at once',
  },
  streamEnd: {
    ms: 30_000,
    waitsFor: 'the stream to end (follow=false: the product ends it at the end of the file or log)',
    why: 'a finished file of a few KB streams in milliseconds; 30 s covers a host busy enough to take seconds per request, which CI runners are. Where the end itself is what the rule judges (scheduler.fs.follow-defaults), the same bound is a FAIL when it runs out',
  },
  followedLines: {
    ms: 30_000,
    waitsFor: 'the followed stream to carry the lines the task appends (one every 500 ms)',
    why: 'three lines are due within 1.5 s of the stream opening; the rest is room for a slow host',
  },
  fileEvents: {
    ms: 60_000,
    waitsFor: "the stream's 'file deleted' event (the task deletes its file 10 s after the rule's signal starts its ticks)",
    why: 'the task runs on the kernel\'s clock; the stream must outlast the 10 s of ticks with room for a slow host',
  },
  witness: {
    ms: 15_000,
    waitsFor: 'the frame at the window\'s last index on the witness subscription (every topic, every namespace, a management token)',
    why: 'the window is in the past: the product replays it from its buffer at once; 15 s is for a slow host. Not an ERROR when it runs out: how the product serves an index is judged through the witness',
  },
  eventFrame: {
    ms: 15_000,
    waitsFor: 'the frame of an action the rule made (its index is known)',
    why: 'as the witness: the frame is already in the buffer when the subscription opens',
  },
  heartbeat: {
    ms: 15_000,
    waitsFor: "the event stream's first value (Nomad writes a {} heartbeat as the stream opens, then every 30 s)",
    why: 'the first heartbeat is sent at once (nomad/stream/ndjson.go NewJsonStream, v1.9.0; the 30 s interval is nomad/event_endpoint.go); 15 s is room for a busy host. Running out is the FAIL of the heartbeat rule',
  },
  notBlocking: {
    ms: 15_000,
    waitsFor: 'an fs answer to a request carrying index and wait (the fs endpoints are not blocking queries)',
    why: 'the wait asked; a blocking answer would take all of it, a plain one under half (7.5 s, below the 10 s request deadline) even on a busy host. No answer by then is the FAIL of scheduler.endpoints.no-blocking',
  },
  sampled: {
    ms: 15_000,
    waitsFor: "every task of a running allocation in its stats (usage appears once sampled)",
    why: 'Nomad samples task usage every second (client collection_interval 1s); 15 s is room for a busy host. A task still missing then is the FAIL of the stats rule',
  },
  collected: {
    ms: 15_000,
    waitsFor: "a garbage-collected allocation's files to be gone",
    why: 'the GC call returns once the collection is done (Nomad: client.CollectAll); the bound is for a busy host, and running out is the FAIL of the GC rules (their faults are caught by it)',
  },
  fixtureReady: {
    ms: 30_000,
    waitsFor: "a running fixture task's first output",
    why: 'a task writes its file as its first step; a placement and a process start on a busy host can take seconds',
  },
  eviction: {
    ms: 600_000,
    waitsFor: 'the event buffer to evict the frame of a registration (scheduler.events.evicted-index registers the job again, 20 at a time, up to 3,000 times)',
    why: "Nomad keeps the last 100 frames by default (event_buffer_size); a busy host registers some 10 jobs a second, and the rule's deadline (ERROR) is 10 minutes",
  },
} satisfies Record<string, WaitBound>;

/**
 * How long the fixture tasks run: not bounds on the product, but the time the fixtures give the
 * rules that use them (a running allocation outlives its rules; the run's cleanup stops it).
 */
export const SCHEDULER_FIXTURE_TIMES = {
  /** A running allocation's idle task: alive for the longest rule that needs it running. */
  runningHoldMs: 300_000,
  /** The growing file of a running allocation: a line every 250 ms, 1,200 of them (five minutes). */
  growing: { count: 1200, everyMs: 250 },
  /** The file-events task: a line every 500 ms; it keeps running 30 s after it deleted its file. */
  fileEvents: { everyMs: 500, holdMs: 30_000 },
} as const;

/** A read the product ends by itself (follow=false): its end is awaited under SCHEDULER_BOUNDS.streamEnd. */
export function toEnd(kit: { ctx: Pick<SuiteContext, 'timeScale'> }): { maxMs: number; awaiting: string } {
  return awaitingBound(kit, SCHEDULER_BOUNDS.streamEnd);
}

/** maxMs and awaiting for a read that waits for the product's signal under `bound`. */
export function awaitingBound(kit: { ctx: Pick<SuiteContext, 'timeScale'> }, bound: WaitBound): { maxMs: number; awaiting: string } {
  return { maxMs: boundMs(kit.ctx, bound), awaiting: bound.waitsFor };
}

/** How long a read that should be refused (or stay quiet) is given: the deadline is part of the rule there. */
export function refusalMs(kit: { ctx: Pick<SuiteContext, 'timeScale'> }): number {
  return boundMs(kit.ctx, SCHEDULER_QUIET);
}

const SCHEDULER_QUIET: WaitBound = {
  ms: 5_000,
  waitsFor: 'a refusal, or a subscription that must receive nothing',
  why: 'a refusal comes at once; what must not arrive is looked for this long, the window being in the past',
};

/**
 * Waits until a fixture is as the rule needs it (polled every 200 ms) under SCHEDULER_BOUNDS.fixtureReady:
 * a fixture that is not ready is no verdict on the rule, so running out is ERROR.
 */
export async function fixtureReady(kit: { ctx: Pick<SuiteContext, 'timeScale'> }, check: () => Promise<boolean>, waitsFor: string): Promise<void> {
  const ms = boundMs(kit.ctx, SCHEDULER_BOUNDS.fixtureReady);
  for (const until = Date.now() + ms; !(await check()); await new Promise((r) => setTimeout(r, SCHEDULER_MARGINS.poll.ms))) {
    if (Date.now() >= until) throw new TargetError('timeout', `waited ${(ms / 1000).toFixed(1)} s for ${waitsFor}: the bound ran out; --time-scale raises it for a slow target`);
  }
}

/** Short times the scheduler rules wait on purpose: not bounds on the product (no verdict turns on a busy host here). */
export const SCHEDULER_MARGINS = {
  refusedActionSettle: {
    ms: 500,
    waitsFor: 'a refused GC to have collected nothing',
    why: 'not a verdict on a correct product: a refusal collects nothing however long one looks; a product that wrongly accepted the GC is seen here once it acted within this time',
  },
  streamHeadStart: {
    ms: 500,
    waitsFor: 'a followed stream request to reach the product before the fixture task starts changing its file',
    why: 'not a verdict: the file is empty until the signal and the stream reads from offset 0, so a stream that opens later still sees every tick; only one that opens after the truncation, 6 s on, is an ERROR',
  },
  poll: {
    ms: 200,
    waitsFor: 'the next look at something the rule polls',
    why: 'the interval between looks, well under any bound above',
  },
} satisfies Record<string, WaitBound>;
