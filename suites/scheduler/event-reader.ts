import { expect } from 'vitest';
import type { StreamResult, StreamState } from '../../src/client/http-client.ts';
import { frameSchema, type EventFrame } from '../../src/client/scheduler-api.ts';
import { TargetError } from '../../src/client/target-error.ts';
import { boundMs, type WaitBound } from '../kit/bounds/bound.ts';
import { awaitingBound, refusalMs, SCHEDULER_BOUNDS } from '../kit/bounds/scheduler.ts';
import type { RuleKit } from '../kit/rule-kit.ts';
import { WITNESS_TOPICS } from './event-model.ts';

// How the event rules read the stream: every frame of a window of indexes, in the order the spec
// allows, and whether the window was still the target's to give.
//
// The spec gives a frame an "Index of the frame" and nothing more: several frames may share one.
// Nomad publishes a frame per state-store transaction, and one raft apply may commit several at the
// log's index (nomad/fsm.go applyUpsertJob: the job's, then the evaluation's; nomad/state/
// state_changes.go txn.Commit). So frames come in non-decreasing index order, no event comes twice,
// and a reader has every frame of an index only once a frame of a later index came: each rule makes
// one more action after its window (its fence) that the subscriptions it reads select.
//
// The target keeps a bounded buffer of frames ("If no longer in the buffer, streaming starts at the
// next available index"; Nomad's event_buffer_size, 100 by default). A window read from the past can
// leave it before a subscription has read it, when something else writes to the scheduler meanwhile.
// That is no verdict on the rule: the attempt is made again with new actions (inWindow), and a rule
// whose window is lost every time is an ERROR that says so.

export type Event = EventFrame['Events'][number];
export type Query = Record<string, string | string[] | undefined>;

/** An action a rule made: its event is the one at its index with its key (the Key, or for evaluations a FilterKey). */
export interface ActionRef {
  index: number;
  topic: string;
  key: string;
}

/** A window of indexes a rule judges; `first` is the action at `from`, which the witness must hold. */
export interface Window {
  from: number;
  through: number;
  first?: ActionRef;
}

/** The Index of a stream value, 0 for a heartbeat or anything else. */
export const indexOf = (v: unknown): number => (typeof v === 'object' && v !== null ? ((v as { Index?: number }).Index ?? 0) : 0);

/** An event as compared between subscriptions (the payload is the same object either way). */
export const ident = (e: Event): string => `${e.Index} ${e.Topic} ${e.Type} ${e.Key} ns=${e.Namespace} fk=${(e.FilterKeys ?? []).join(',')}`;

export const eventsIn = (frames: EventFrame[], from: number, through: number): Event[] => frames.filter((f) => f.Index >= from && f.Index <= through).flatMap((f) => f.Events);

/** The event an action produced, among `events`. */
export function actionEvent(events: Event[], action: ActionRef): Event | undefined {
  return events.find((e) => e.Index === action.index && e.Topic === action.topic && (e.Key === action.key || (e.FilterKeys ?? []).includes(action.key)));
}

export function expectActionEvent(events: Event[], action: ActionRef, what: string): Event {
  const e = actionEvent(events, action);
  expect(e, `${what}: the ${action.topic} event of the action at index ${action.index} (key ${action.key}) is received`).toBeDefined();
  return e!;
}

/** A stream value that is a frame, as a one-element list; anything else, none. */
export function asFrame(value: unknown): EventFrame[] {
  const frame = frameSchema.safeParse(value);
  return frame.success ? [frame.data] : [];
}

/**
 * Frames of a stream answer, heartbeats ({}) left out; a malformed frame fails the rule. An event
 * repeated within its frame is kept once: Nomad repeats an event that matches two subscribed keys
 * (nomad/stream/subscription.go filter), and the spec says nothing about it.
 */
export function framesOf(res: StreamResult): EventFrame[] {
  expect(res.malformed, 'the stream is a sequence of JSON values').toEqual([]);
  return res.values
    .filter((l) => typeof l === 'object' && l !== null && Object.keys(l).length > 0)
    .map((l) => {
      const parsed = frameSchema.safeParse(l);
      if (!parsed.success) expect.fail(`a stream value is not a frame {Index, Events}: ${JSON.stringify(l).slice(0, 200)}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      const seen = new Set<string>();
      return { ...parsed.data, Events: parsed.data.Events.filter((e) => !seen.has(JSON.stringify(e)) && Boolean(seen.add(JSON.stringify(e)))) };
    });
}

/**
 * The order the spec allows a stream: frames in non-decreasing index order (several may share an
 * index), each event carrying its frame's index, and no event in two frames: a repeated frame or an
 * event sent again is an event that arrives twice, a frame of an older index after a newer one is
 * out of order.
 */
export function expectStreamOrder(frames: EventFrame[], what: string): void {
  const indexes = frames.map((f) => f.Index);
  expect(indexes, `${what}: frames arrive in non-decreasing index order`).toEqual([...indexes].sort((a, b) => a - b));
  for (const f of frames) for (const e of f.Events) expect(e.Index, `${what}: each event carries its frame's index`).toBe(f.Index);
  const seen = new Set<string>();
  const twice = frames.flatMap((f) => f.Events.map((e) => JSON.stringify(e))).filter((json) => seen.has(json) || !seen.add(json));
  expect(twice.map((json) => ident(JSON.parse(json) as Event)), `${what}: no event arrives twice`).toEqual([]);
}

/** Whether the stream read past `through` (so it has every frame of `through`). */
const readPast = (res: StreamState, through: number): boolean => res.values.some((v) => indexOf(v) > through);

/**
 * Subscribes and reads until a frame of an index after `through` arrives: only then has the reader
 * every frame of `through`. With `event`, until that action's event arrives instead (a rule that
 * wants one event, not a window). With `awaiting`, what it reads for must come (running out of the
 * bound is ERROR); without, the subscription may rightly never see it (another topic, a refused
 * token), and reads for `maxMs` (scaled by --time-scale) or the quiet bound.
 */
export async function subscribe(kit: RuleKit, query: Query, through: number, options: { token?: string | null; maxMs?: number; awaiting?: WaitBound; event?: ActionRef } = {}): Promise<StreamResult> {
  const wanted = options.event;
  const until = wanted ? (s: StreamState) => s.values.some((v) => holdsAction(v, wanted)) : (s: StreamState) => readPast(s, through);
  if (options.awaiting) return kit.scheduler.events(query, { ...awaitingBound(kit, options.awaiting), token: options.token, until });
  const maxMs = options.maxMs === undefined ? refusalMs(kit) : Math.round(options.maxMs * (kit.ctx.timeScale ?? 1));
  return kit.scheduler.events(query, { maxMs, token: options.token, until });
}

/** The window left the target's buffer before a subscription read it: no verdict; the rule tries again. */
export class WindowLost extends Error {
  override name = 'WindowLost';
}

/** How many times a rule makes its actions and reads their window before a lost window is its ERROR. */
export const WINDOW_ATTEMPTS = 3;

/**
 * Runs one attempt of a rule (its actions and the reading of their window), again with new actions
 * while the window is lost; the last lost window is an ERROR naming the cause, never a FAIL.
 */
export async function inWindow<T>(kit: RuleKit, attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof WindowLost)) throw err;
      if (n >= WINDOW_ATTEMPTS) {
        throw new TargetError('timeout', `${err.message}; ${n} attempts, each with new actions, lost their window: something else writes to the scheduler faster than its event buffer keeps frames (Nomad: event_buffer_size, 100 by default), or the target ends streams on its own`);
      }
      kit.note(`attempt ${n}: ${err.message}; made again with new actions`);
    }
  }
}

/**
 * The index of the oldest frame the target still holds: a subscription from index 0 to every topic
 * in every namespace (the profile's management token) starts there ("If no longer in the buffer,
 * streaming starts at the next available index"; Nomad: nomad/stream/event_broker.go Subscribe
 * starts index 0 at the buffer's head). Undefined when the target does not say so.
 */
async function oldestHeld(kit: RuleKit): Promise<number | undefined> {
  const res = await kit.scheduler.events({ index: '0', namespace: '*' }, { maxMs: boundMs(kit.ctx, SCHEDULER_BOUNDS.eventFrame), until: (s) => s.values.some((v) => indexOf(v) > 0) });
  const first = res.status === 200 ? res.values.find((v) => indexOf(v) > 0) : undefined;
  return first === undefined ? undefined : indexOf(first);
}

/**
 * Throws WindowLost when the target no longer holds `index`: what a subscription misses from there
 * on is no verdict. A target that does not tell its oldest frame is judged on what it sent.
 */
async function lostWhenEvicted(kit: RuleKit, index: number, what: string): Promise<void> {
  const oldest = await oldestHeld(kit);
  if (oldest !== undefined && oldest > index) throw new WindowLost(`${what}; the target no longer holds index ${index} (its oldest frame is now at ${oldest})`);
}

/** Whether a stream value holds the action's event (read loosely: a frame of the wrong shape is still seen, and judged after). */
function holdsAction(value: unknown, action: ActionRef): boolean {
  const events = (value as { Events?: unknown } | null)?.Events;
  if (!Array.isArray(events)) return false;
  return events.some((e: { Index?: unknown; Topic?: unknown; Key?: unknown; FilterKeys?: unknown } | null) => e?.Index === action.index && e.Topic === action.topic && (e.Key === action.key || (Array.isArray(e.FilterKeys) && e.FilterKeys.includes(action.key))));
}

/**
 * A stream that should have read past `through` and did not (the target ended it, or it went
 * silent): when the frames after the last it read have left the target's buffer meanwhile, the
 * target dropped a reader that fell behind it (Nomad ends the subscription, nomad/stream/event_buffer.go bufferItem.Next
 * "event dropped from buffer"; 1.6 writes that text into the 200 answer, 2.x closes the connection).
 */
async function expectNotDropped(kit: RuleKit, res: StreamResult, window: Window, what: string, evictedStart = false): Promise<void> {
  if (readPast(res, window.through)) return;
  // From an evicted index on purpose, a stream that got no frame at all is what the rule judges.
  if (evictedStart && !res.values.some((v) => indexOf(v) > 0)) return;
  const last = Math.max(window.from, ...res.values.map(indexOf));
  const text = res.malformed.length ? ` with ${JSON.stringify(res.malformed.join(' ').slice(0, 120))}` : '';
  // Nomad 2 leaves a dropped subscriber's connection open and silent, so a stream the reader had to
  // cut is checked as one the target ended: either way, its place may have left the buffer.
  await lostWhenEvicted(kit, last, `${what} ${res.ended ? 'ended' : 'went silent'}${text} after index ${last}, before the window's end (${window.through})`);
}

/** The frames of a stream that should hold the window, in the order the spec allows; WindowLost when the target dropped it. */
export async function readWindow(kit: RuleKit, res: StreamResult, window: Window, what: string, options: { evictedStart?: boolean } = {}): Promise<EventFrame[]> {
  await expectNotDropped(kit, res, window, what, options.evictedStart);
  const frames = framesOf(res);
  expectStreamOrder(frames, what);
  return frames;
}

/** The event of an action a subscription from its index must have received, unless the target no longer holds that index. */
export async function expectActionHeld(kit: RuleKit, events: Event[], action: ActionRef, what: string): Promise<Event> {
  if (!actionEvent(events, action)) await lostWhenEvicted(kit, action.index, `${what} lacks the event at index ${action.index}`);
  return expectActionEvent(events, action, what);
}

/**
 * The witness of a window: a subscription to every topic the run's actions produce, in every
 * namespace, with the profile's management token, read past the window's end. It must hold the
 * window's first action, unless the target no longer does (then the window is lost).
 */
export async function witness(kit: RuleKit, window: Window, options: { evictedStart?: boolean } = {}): Promise<EventFrame[]> {
  // Not awaited: how the product serves an index is what some rules judge through the witness
  // (a product that starts live from an evicted index must FAIL, not be an ERROR); a generous bound
  // costs nothing when the frame comes.
  const res = await subscribe(kit, { index: String(window.from), topic: [...WITNESS_TOPICS], namespace: '*' }, window.through, { maxMs: SCHEDULER_BOUNDS.witness.ms });
  expect(res.status, 'the witness subscription (every topic, namespace=*, management token) is answered').toBe(200);
  // A window that starts at an evicted index on purpose is "lost" from its start: a witness that got
  // nothing from there is read as it is, and the rule judges with what it knows of its own actions.
  const frames = await readWindow(kit, res, window, 'the witness', options);
  if (window.first) await expectActionHeld(kit, eventsIn(frames, window.from, window.from), window.first, 'the witness (every topic from the index of the first action)');
  return frames;
}

/**
 * The judged subscription receives, over the window, exactly the witness's events that the filter
 * selects (only `topics` when the stream may carry topics the witness does not ask for). Returns them.
 */
export async function expectSelected(kit: RuleKit, res: StreamResult, witnessFrames: EventFrame[], filter: (e: Event) => boolean, window: Window, what: string, onlyTopics?: readonly string[]): Promise<Event[]> {
  const { from, through } = window;
  expect(res.status, `${what} is answered`).toBe(200);
  const frames = await readWindow(kit, res, window, what);
  const received = eventsIn(frames, from, through).filter((e) => !onlyTopics || onlyTopics.includes(e.Topic));
  const expected = eventsIn(witnessFrames, from, through).filter(filter);
  // Opened beside the witness, it may still start later: what it lacks from the window's start is
  // lost, not missing, when the target no longer holds it.
  const got = new Set(received.map(ident));
  const firstMissing = expected.find((e) => !got.has(ident(e)));
  if (firstMissing && firstMissing.Index < (received[0]?.Index ?? Infinity)) await lostWhenEvicted(kit, firstMissing.Index, `${what} started after index ${firstMissing.Index}, which the witness read`);
  expect(received.map(ident), `${what} receives exactly the events of [${from}, ${through}] its filter selects (compared with a subscription to every topic)`).toEqual(expected.map(ident));
  return received;
}
