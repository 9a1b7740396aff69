import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { EventBroker, type Frame, type MatchRules, type SchedulerEvent, type Subscription } from '../src/reference/scheduler/event-broker.ts';
import { StreamFanout, type FrameSink } from '../src/reference/scheduler/stream-fanout.ts';

/** A subscriber's socket: records every write; `stuck` makes it refuse more (as a client that stops reading). */
class FakeSink implements FrameSink {
  writes: Buffer[] = [];
  writableEnded = false;
  destroyed = false;
  writableNeedDrain = false;
  private drain?: () => void;
  constructor(private readonly stuck = false) {}
  write(chunk: Buffer): boolean {
    this.writes.push(chunk);
    if (this.stuck) this.writableNeedDrain = true;
    return !this.stuck;
  }
  end(): void {
    this.writableEnded = true;
  }
  once(_event: 'drain', listener: () => void): void {
    this.drain = listener;
  }
  drained(): void {
    this.writableNeedDrain = false;
    this.drain?.();
  }
  get text(): string {
    return Buffer.concat(this.writes).toString();
  }
}

const rules: MatchRules = { repeatPerKey: false, wildcardOnlyAlone: false, flaws: { filterKeysIgnored: false, namespaceIgnored: false } };
const sub = (topics: [string, string[]][], namespace = 'default'): Subscription => ({ topics: new Map(topics), namespace });

function setup(options: { capacity?: number; rules?: MatchRules; omitFilterKeys?: boolean; flushGapMs?: number } = {}) {
  let index = 0;
  const broker = new EventBroker(options.capacity ?? 256, () => ++index);
  const fanout = new StreamFanout(broker, { rules: options.rules ?? rules, omitFilterKeys: options.omitFilterKeys ?? false, flushGapMs: options.flushGapMs ?? 0 });
  const job = (key: string, extra: Record<string, unknown> = {}): Omit<SchedulerEvent, 'Index'> => ({ Topic: 'Job', Type: 'JobRegistered', Key: key, Namespace: 'default', FilterKeys: null, Payload: { Job: { ID: key, Meta: { n: '✓' }, ...extra } } });
  const evaluation = (jobId: string): Omit<SchedulerEvent, 'Index'> => ({ Topic: 'Evaluation', Type: 'EvaluationUpdated', Key: `eval-${jobId}`, Namespace: 'default', FilterKeys: [jobId, ''], Payload: { Evaluation: { JobID: jobId } } });
  return { broker, fanout, job, evaluation };
}

/** What the stream wrote for a frame before the fan-out: JSON.stringify of the matching events, then a newline. */
const expected = (frame: Frame, keep: (e: SchedulerEvent) => boolean) => `${JSON.stringify({ Index: frame.Index, Events: frame.Events.filter(keep) })}\n`;

describe('StreamFanout (the event stream writes each frame once for all its subscribers)', () => {
  it('every subscriber whose filter matches gets the same bytes, written once; a filtered-out one gets nothing', async () => {
    const { broker, fanout, job, evaluation } = setup();
    const subscribers = Array.from({ length: 5 }, () => new FakeSink());
    for (const s of subscribers) fanout.subscribe(sub([['Job', ['a']]]), s, 0, false);
    const other = new FakeSink();
    fanout.subscribe(sub([['Job', ['b']]]), other, 0, false);
    const frame = broker.publishWith(() => [job('a'), evaluation('a')]);
    await turn();
    for (const s of subscribers) {
      expect(s.writes).toHaveLength(1);
      // The very same Buffer: serialised once, not once per subscriber.
      expect(s.writes[0]).toBe(subscribers[0]!.writes[0]);
      expect(s.text).toBe(expected(frame, (e) => e.Topic === 'Job'));
    }
    expect(other.writes).toHaveLength(0);
  });

  it('the bytes are those of JSON.stringify for every selection: repeated keys, several topics, FilterKeys matches, the missing-FilterKeys fault', async () => {
    const repeat = setup({ rules: { ...rules, repeatPerKey: true } });
    const twice = new FakeSink();
    repeat.fanout.subscribe(sub([['Job', ['a', 'a']], ['Evaluation', ['a']]]), twice, 0, false);
    const f1 = repeat.broker.publishWith(() => [repeat.job('a'), repeat.evaluation('a'), repeat.job('b')]);
    await turn();
    expect(twice.text).toBe(`${JSON.stringify({ Index: f1.Index, Events: [f1.Events[0], f1.Events[0], f1.Events[1]] })}\n`);

    const fault = setup({ omitFilterKeys: true });
    const s = new FakeSink();
    fault.fanout.subscribe(sub([['*', ['*']]]), s, 0, false);
    const f2 = fault.broker.publishWith(() => [fault.evaluation('a')]);
    await turn();
    expect(s.text).toBe(`${JSON.stringify({ Index: f2.Index, Events: f2.Events.map((e) => ({ ...e, FilterKeys: undefined })) })}\n`);
  });

  it("a turn's frames go out in one write per subscriber, in order", async () => {
    const { broker, fanout, job } = setup();
    const s = new FakeSink();
    fanout.subscribe(sub([['Job', ['*']]]), s, 0, false);
    const frames = [broker.publishWith(() => [job('a')]), broker.publishWith(() => [job('b')]), broker.publishWith(() => [job('c')])];
    await turn();
    expect(s.writes).toHaveLength(1);
    expect(s.text).toBe(frames.map((f) => expected(f, () => true)).join(''));
  });

  it('under load, frames of later turns within the flush gap join the next write; an idle stream writes at once', async () => {
    const { broker, fanout, job } = setup({ flushGapMs: 200 });
    const s = new FakeSink();
    fanout.subscribe(sub([['Job', ['*']]]), s, 0, false);
    broker.publishWith(() => [job('a')]);
    await turn();
    expect(s.writes).toHaveLength(1);
    broker.publishWith(() => [job('b')]);
    await turn();
    broker.publishWith(() => [job('c')]);
    await turn();
    expect(s.writes).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 250));
    expect(s.writes).toHaveLength(2);
    expect(s.writes[1]!.toString().split('\n').filter(Boolean)).toHaveLength(2);
  });

  it('a subscriber that joins in the middle of a turn gets the backlog and then each later frame once', async () => {
    const { broker, fanout, job } = setup();
    const early = new FakeSink();
    fanout.subscribe(sub([['Job', ['*']]]), early, 0, false);
    const f1 = broker.publishWith(() => [job('a')]);
    const late = new FakeSink();
    fanout.subscribe(sub([['Job', ['*']]]), late, f1.Index, false);
    const f2 = broker.publishWith(() => [job('b')]);
    await turn();
    const all = (f: Frame) => expected(f, () => true);
    expect(early.text).toBe(all(f1) + all(f2));
    expect(late.text).toBe(all(f1) + all(f2));
    // Skipping the backlog (the faults that start live): only what comes after joining.
    const live = new FakeSink();
    fanout.subscribe(sub([['Job', ['*']]]), live, 1, true);
    const f3 = broker.publishWith(() => [job('c')]);
    await turn();
    expect(live.text).toBe(all(f3));
  });

  it('a subscriber that stops reading is ended once more frames than the buffer holds wait for it; the others go on', async () => {
    const { broker, fanout, job } = setup({ capacity: 4 });
    const stuck = new FakeSink(true);
    const reading = new FakeSink();
    fanout.subscribe(sub([['Job', ['*']]]), stuck, 0, false);
    fanout.subscribe(sub([['Job', ['*']]]), reading, 0, false);
    for (let i = 0; i < 10; i++) {
      broker.publishWith(() => [job(`j${i}`)]);
      await turn();
    }
    expect(stuck.writableEnded).toBe(true);
    expect(stuck.writes.length).toBeLessThanOrEqual(5);
    expect(reading.writes).toHaveLength(10);
    // One that catches up in time (its socket drains) is not ended.
    const slow = new FakeSink(true);
    fanout.subscribe(sub([['Job', ['*']]]), slow, broker.latestIndex + 1, true);
    for (let i = 0; i < 10; i++) {
      broker.publishWith(() => [job(`k${i}`)]);
      await turn();
      if (i % 3 === 2) slow.drained();
    }
    expect(slow.writableEnded).toBe(false);
    expect(slow.writes).toHaveLength(10);
  });

  it('one change as two frames at one index (Nomad: a frame per state-store transaction): both buffered and sent, in order, and an index subscription gets both', async () => {
    const { broker, fanout, job, evaluation } = setup();
    const live = new FakeSink();
    fanout.subscribe(sub([['*', ['*']]]), live, 0, false);
    const index = broker.publishFrames(() => [[job('a')], [], [evaluation('a')]]);
    await turn();
    const [first, second] = broker.backlog(index);
    expect([first?.Index, second?.Index, broker.backlog(index).length]).toEqual([index, index, 2]);
    expect(first!.Events.map((e) => e.Topic)).toEqual(['Job']);
    expect(second!.Events.map((e) => e.Topic)).toEqual(['Evaluation']);
    const all = (f: Frame) => expected(f, () => true);
    expect(live.text).toBe(all(first!) + all(second!));
    const fromIndex = new FakeSink();
    fanout.subscribe(sub([['*', ['*']]]), fromIndex, index, false);
    expect(fromIndex.text).toBe(all(first!) + all(second!));
  });

  it('an unsubscribed subscriber gets nothing more', async () => {
    const { broker, fanout, job } = setup();
    const s = new FakeSink();
    const unsubscribe = fanout.subscribe(sub([['Job', ['*']]]), s, 0, false);
    broker.publishWith(() => [job('a')]);
    unsubscribe();
    broker.publishWith(() => [job('b')]);
    await turn();
    expect(s.writes).toHaveLength(0);
  });
});
