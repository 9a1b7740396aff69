import { describe, expect, it } from 'vitest';
import type { EventFrame } from '../src/client/scheduler-api.ts';
import { TargetError } from '../src/client/target-error.ts';
import { expectStreamOrder, inWindow, readWindow, WINDOW_ATTEMPTS, WindowLost } from '../suites/scheduler/event-reader.ts';
import type { StreamResult } from '../src/client/http-client.ts';
import type { RuleKit } from '../suites/kit/rule-kit.ts';

const event = (index: number, topic: string, key: string) => ({ Topic: topic, Type: 'JobRegistered', Key: key, Namespace: 'default', FilterKeys: null, Index: index, Payload: { [topic]: { ID: key } } });
const frame = (index: number, ...events: [string, string][]): EventFrame => ({ Index: index, Events: events.map(([topic, key]) => event(index, topic, key)) });

describe('the order the event rules allow a stream (suites/scheduler/event-reader.ts expectStreamOrder)', () => {
  it("takes Nomad's shape: two frames at one index (the job's transaction, then the evaluation's)", () => {
    expect(() => expectStreamOrder([frame(10, ['Job', 'a']), frame(10, ['Evaluation', 'e1']), frame(11, ['Evaluation', 'e2'])], 's')).not.toThrow();
  });

  it.each([
    ['a frame sent twice', [frame(10, ['Job', 'a']), frame(10, ['Job', 'a']), frame(11, ['Job', 'b'])], /s: no event arrives twice/],
    ['an event sent again in another frame of its index', [frame(10, ['Job', 'a']), frame(10, ['Evaluation', 'e1'], ['Job', 'a'])], /s: no event arrives twice/],
    ['a frame of an older index after a newer one', [frame(11, ['Job', 'b']), frame(10, ['Job', 'a'])], /s: frames arrive in non-decreasing index order/],
    ['an event whose index is not its frame\'s', [{ Index: 10, Events: [event(9, 'Job', 'a')] }], /s: each event carries its frame's index/],
  ])('fails %s', (_what, frames, message) => {
    expect(() => expectStreamOrder(frames, 's')).toThrow(message);
  });
});

describe('a lost window is tried again, then an ERROR (inWindow)', () => {
  const kit = () => {
    const notes: string[] = [];
    return { notes, kit: { note: (t: string) => notes.push(t) } as unknown as RuleKit };
  };

  it('makes the attempt again while its window is lost, and returns the first that is not', async () => {
    const { notes, kit: k } = kit();
    let n = 0;
    await expect(inWindow(k, async () => (++n < WINDOW_ATTEMPTS ? Promise.reject(new WindowLost(`lost ${n}`)) : n))).resolves.toBe(WINDOW_ATTEMPTS);
    expect(notes).toEqual(['attempt 1: lost 1; made again with new actions', 'attempt 2: lost 2; made again with new actions']);
  });

  it(`after ${WINDOW_ATTEMPTS} lost windows it is a TargetError (ERROR), never a FAIL`, async () => {
    const { kit: k } = kit();
    const err = await inWindow(k, () => Promise.reject(new WindowLost('the witness ended'))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TargetError);
    expect((err as Error).message).toMatch(/^the witness ended; 3 attempts, each with new actions, lost their window/);
  });

  it('passes any other failure on at once, as the verdict', async () => {
    const { kit: k } = kit();
    let n = 0;
    const failure = new Error('expected [ 1 ] to deeply equal []');
    await expect(inWindow(k, async () => (n++, Promise.reject(failure)))).rejects.toBe(failure);
    expect(n).toBe(1);
  });
});

describe('a stream that stopped short of its window (readWindow)', () => {
  // A target whose oldest held frame is at `oldest`: what oldestHeld reads, a subscription from index 0.
  const target = (oldest: number) =>
    ({ ctx: { timeScale: 1 }, note: () => undefined, scheduler: { events: async () => ({ status: 200, values: [frame(oldest, ['Job', 'x'])], malformed: [], ended: false }) } }) as unknown as RuleKit;
  const stream = (frames: EventFrame[], ended: boolean) => ({ status: 200, headers: {}, values: frames, malformed: [], bytes: Buffer.alloc(0), ended, stoppedBy: ended ? 'end' : 'deadline' }) as unknown as StreamResult;
  const window = { from: 10, through: 20 };

  it('is a lost window when its place left the buffer, also when the target left it open and silent (Nomad 2 drops a slow reader so)', async () => {
    for (const ended of [true, false]) {
      await expect(readWindow(target(50), stream([frame(10, ['Job', 'a']), frame(12, ['Job', 'b'])], ended), window, 's')).rejects.toThrow(new RegExp(`s ${ended ? 'ended' : 'went silent'} after index 12, before the window's end \\(20\\); the target no longer holds index 12`));
    }
  });

  it('is judged on what it sent when the target still holds its place (a target that just failed to deliver)', async () => {
    await expect(readWindow(target(5), stream([frame(10, ['Job', 'a'])], false), window, 's')).resolves.toHaveLength(1);
  });

  it('from an evicted index on purpose, no frame at all is what the rule judges, not a lost window', async () => {
    await expect(readWindow(target(50), stream([], false), window, 's', { evictedStart: true })).resolves.toEqual([]);
    await expect(readWindow(target(50), stream([], false), window, 's')).rejects.toBeInstanceOf(WindowLost);
  });
});
