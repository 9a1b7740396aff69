import fc from 'fast-check';
import { expect } from 'vitest';
import type { StreamResult } from '../../src/client/http-client.ts';
import { frameSchema, type EventFrame } from '../../src/client/scheduler-api.ts';
import type { RuleKit } from '../kit/rule-kit.ts';
import { ruleTest } from '../kit/rule-test.ts';

let counter = 0;
const run = `sp${Date.now().toString(36)}${Math.random().toString(36).slice(2, 5)}`;
const unique = (tag: string) => `${run}-${tag}-${++counter}`;

const TOPICS = ['Job', 'Allocation', 'Evaluation', 'Deployment', 'Node'] as const;
const UNNAMESPACED = new Set(['Node', 'NodeDrain', 'ACLToken', 'ACLPolicy']);

interface GenEvent {
  Topic: string;
  Type: string;
  Key: string;
  Namespace: string;
  FilterKeys: string[] | null;
}

/**
 * Frames of a stream answer, heartbeats ({}) left out; a malformed frame fails the rule. An event
 * repeated within its frame is kept once: Nomad repeats an event that matches two subscribed keys
 * (nomad/stream/subscription.go filter), and the spec says nothing about it.
 */
function framesOf(res: StreamResult): EventFrame[] {
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

/** The Index of a stream value, 0 for a heartbeat or anything else. */
const indexOf = (v: unknown): number => (typeof v === 'object' && v !== null ? ((v as { Index?: number }).Index ?? 0) : 0);

/** Subscribes, reads until an event with index >= `last` arrives or the deadline, and returns the frames. */
async function subscribe(kit: RuleKit, query: Record<string, string | string[] | undefined>, last: number, options: { token?: string | null; maxMs?: number } = {}) {
  const res = await kit.scheduler.events(query, {
    maxMs: options.maxMs ?? 2_000,
    token: options.token,
    until: (s) => s.values.some((v) => indexOf(v) >= last),
  });
  return res;
}

async function publish(kit: RuleKit, events: GenEvent[]): Promise<number[]> {
  const indexes: number[] = [];
  for (const e of events) indexes.push(await kit.schedulerControl.publish([{ ...e, Payload: { [e.Topic]: { ID: e.Key } } }]));
  return indexes;
}

function event(topic: string, key: string, namespace = 'default', filterKeys: string[] | null = null): GenEvent {
  return { Topic: topic, Type: `${topic}Updated`, Key: key, Namespace: UNNAMESPACED.has(topic) ? '' : namespace, FilterKeys: filterKeys };
}

ruleTest('scheduler.events.frame-shape', async (kit) => {
  const [index] = await publish(kit, [event('Job', unique('shape'), 'default', ['f1'])]);
  const res = await subscribe(kit, { index: String(index), topic: 'Job' }, index!);
  expect(res.status, 'the stream answers 200').toBe(200);
  const frames = framesOf(res);
  expect(frames.length, 'at least the published frame arrives').toBeGreaterThan(0);
  for (const f of frames) for (const e of f.Events) expect(e.Index, 'each event carries its frame index').toBe(f.Index);
});

/** The documented filter: topic (with its filter keys, '*' for any) and namespace ('*' for all). */
function modelMatches(e: GenEvent, topics: Map<string, Set<string>>, namespace: string): boolean {
  const keys = topics.get(e.Topic) ?? topics.get('*');
  if (!keys) return false;
  if (!keys.has('*') && ![e.Key, ...(e.FilterKeys ?? [])].some((k) => keys.has(k))) return false;
  return namespace === '*' || UNNAMESPACED.has(e.Topic) || e.Namespace === namespace;
}

ruleTest('scheduler.events.matching', async (kit) => {
  const otherNs = `${run}-ns`;
  await kit.property(
    fc.record({
      events: fc.array(
        fc.record({ topic: fc.constantFrom(...TOPICS), key: fc.nat(2), ns: fc.constantFrom('default', otherNs), filter: fc.option(fc.subarray([0, 1, 2], { minLength: 1 }), { nil: null }) }),
        { minLength: 1, maxLength: 8 },
      ),
      subTopics: fc.uniqueArray(fc.record({ topic: fc.constantFrom(...TOPICS), key: fc.option(fc.nat(2), { nil: null }) }), { minLength: 1, maxLength: 3, selector: (t) => `${t.topic}:${t.key}` }),
      namespace: fc.constantFrom<string | undefined>(undefined, 'default', otherNs, '*'),
      startAt: fc.nat(7),
    }),
    async ({ events, subTopics: generated, namespace, startAt }) => {
      // A topic given bare and with a key is scheduler.events.topic-union's case (Nomad deviates
      // there): keep only the bare one, so this rule's verdict never depends on it.
      const bare = new Set(generated.filter((t) => t.key === null).map((t) => t.topic));
      const subTopics = generated.filter((t) => t.key === null || !bare.has(t.topic));
      const pool = [unique('k'), unique('k'), unique('k')];
      const gen = events.map((e) => event(e.topic, pool[e.key]!, e.ns, e.filter ? e.filter.map((i) => pool[i]!) : null));
      const indexes = await publish(kit, gen);
      const from = indexes[Math.min(startAt, indexes.length - 1)]!;
      const topics = new Map<string, Set<string>>();
      for (const t of subTopics) topics.set(t.topic, new Set([...(topics.get(t.topic) ?? []), t.key === null ? '*' : pool[t.key]!]));
      const query = { index: String(from), topic: subTopics.map((t) => (t.key === null ? t.topic : `${t.topic}:${pool[t.key]}`)), namespace };
      const expected = gen.map((e, i) => ({ e, index: indexes[i]! })).filter(({ e, index }) => index >= from && modelMatches(e, topics, namespace ?? 'default'));
      // A sentinel the subscription matches, published last: once it arrives, everything before it has.
      const first = subTopics[0]!;
      const [sentinel] = await publish(kit, [event(first.topic, first.key === null ? unique('sentinel') : pool[first.key]!, namespace === undefined || namespace === '*' ? 'default' : namespace)]);
      const res = await subscribe(kit, query, sentinel!, { maxMs: 3_000 });
      expect(res.status, 'the subscription is answered').toBe(200);
      const frames = framesOf(res);
      expect(frames.some((f) => f.Index === sentinel), 'the sentinel published last arrived').toBe(true);
      const received = frames
        .filter((f) => f.Index !== sentinel)
        .flatMap((f) => f.Events.filter((e) => pool.includes(e.Key) || (e.FilterKeys ?? []).some((k) => pool.includes(k))).map((e) => ({ index: f.Index, key: e.Key, topic: e.Topic, ns: e.Namespace })));
      const indexes2 = frames.map((f) => f.Index);
      expect(indexes2, 'frames arrive in increasing index order, without duplicates').toEqual([...new Set(indexes2)].sort((a, b) => a - b));
      expect(received, `subscription ${JSON.stringify(query)} receives exactly the matching events`).toEqual(expected.map(({ e, index }) => ({ index, key: e.Key, topic: e.Topic, ns: e.Namespace })));
    },
    { numRuns: Math.min(Math.max(kit.ctx.runs, 15), 40) },
  );
});

ruleTest('scheduler.events.backlog-then-live', async (kit) => {
  const key = unique('live');
  const [first] = await publish(kit, [event('Job', key)]);
  let livePublished: Promise<number[]> | undefined;
  const res = await kit.scheduler.events(
    { index: String(first), topic: `Job:${key}` },
    {
      maxMs: 4_000,
      until: (s) => {
        const indexes = s.values.map(indexOf);
        // Publish the live event only once the backlog has arrived on this connection.
        if (!livePublished && indexes.includes(first!)) livePublished = publish(kit, [event('Job', key)]);
        // Both events of this key seen: the backlog one and the live one.
        return s.values.filter((v) => ((v as { Events?: { Key: string }[] }).Events ?? []).some((e) => e.Key === key)).length >= 2;
      },
    },
  );
  expect(livePublished, 'the backlog event arrived, so the live one was published').toBeDefined();
  const [second] = await livePublished!;
  const indexes = framesOf(res).map((f) => f.Index);
  expect(indexes[0], 'the backlog event comes first').toBe(first);
  expect(indexes, 'then the event published while the stream was open').toContain(second);
});

ruleTest('scheduler.events.topic-star-equivalence', async (kit) => {
  const keys = [unique('star'), unique('star')];
  const indexes = await publish(kit, [event('Job', keys[0]!), event('Job', keys[1]!), event('Allocation', keys[0]!)]);
  const last = indexes[1]!;
  const ours = (res: StreamResult) => framesOf(res).flatMap((f) => f.Events.filter((e) => keys.includes(e.Key)).map((e) => `${f.Index}:${e.Topic}:${e.Key}`));
  const bare = ours(await subscribe(kit, { index: String(indexes[0]), topic: 'Job' }, last));
  const star = ours(await subscribe(kit, { index: String(indexes[0]), topic: 'Job:*' }, last));
  expect(bare.length, "'Job' receives both Job events").toBe(2);
  expect(star, "'Job:*' receives the same events as 'Job'").toEqual(bare);
});

ruleTest('scheduler.events.topic-union', async (kit) => {
  const keys = [unique('union'), unique('union')];
  const indexes = await publish(kit, [event('Job', keys[0]!), event('Job', keys[1]!)]);
  const last = indexes[1]!;
  for (const every of ['Job', 'Job:*']) {
    const topic = [every, `Job:${keys[0]}`];
    const got = framesOf(await subscribe(kit, { index: String(indexes[0]), topic }, last)).flatMap((f) => f.Events.filter((e) => keys.includes(e.Key)).map((e) => e.Key));
    expect(got, `topic=${topic.join('&topic=')} subscribes to every Job event, not only those of ${keys[0]}`).toEqual(keys);
  }
});

ruleTest('scheduler.events.no-topic-all', async (kit) => {
  const key = unique('all');
  const indexes = await publish(kit, [event('Job', key), event('Allocation', key), event('Node', key), event('Deployment', key)]);
  const res = await subscribe(kit, { index: String(indexes[0]) }, indexes[3]!);
  const topics = framesOf(res).flatMap((f) => f.Events.filter((e) => e.Key === key).map((e) => e.Topic));
  expect(topics, 'without a topic, events of every topic arrive').toEqual(['Job', 'Allocation', 'Node', 'Deployment']);
});

ruleTest('scheduler.events.namespace', async (kit) => {
  const key = unique('ns');
  const other = `${run}-other`;
  const [a, b] = await publish(kit, [event('Job', key, 'default'), event('Job', key, other)]);
  const nss = async (namespace?: string) =>
    framesOf(await subscribe(kit, { index: String(a), topic: 'Job', namespace }, namespace === undefined || namespace === 'default' ? a! : b!)).flatMap((f) => f.Events.filter((e) => e.Key === key).map((e) => e.Namespace));
  expect(await nss(undefined), "without namespace, only 'default' events").toEqual(['default']);
  expect(await nss(other), `namespace=${other}: only its events`).toEqual([other]);
  expect(await nss('*'), "namespace='*': every namespace").toEqual(['default', other]);
});

ruleTest('scheduler.events.index-evicted', async (kit) => {
  const key = unique('evicted');
  // An index before anything was published.
  const [index] = await publish(kit, [event('Job', key)]);
  const early = await subscribe(kit, { index: '1', topic: `Job:${key}` }, index!);
  expect(early.status, 'a subscription from an index before the buffer is answered').toBe(200);
  expect(framesOf(early).map((f) => f.Index), 'streaming starts at the next available index: the buffered event arrives').toContain(index);
  // An index that was published and has left the buffer: copies of an event of the same key are
  // published until it has; the stream must start with the oldest copies still buffered.
  const fill = await kit.schedulerControl.fillUntilEvicted(index!, { ...event('Job', key), Payload: { Job: { ID: key } } });
  const [after] = await publish(kit, [event('Job', key)]);
  const res = await subscribe(kit, { index: String(index), topic: `Job:${key}` }, after!, { maxMs: 5_000 });
  expect(res.status, 'a subscription from an evicted index is answered').toBe(200);
  const received = framesOf(res).map((f) => f.Index);
  expect(received, 'the evicted frame itself is not sent').not.toContain(index);
  expect(received.at(-1), 'the event published after the eviction arrives').toBe(after);
  const fromFill = received.slice(0, -1);
  // Frames published meanwhile by others may have evicted a few more copies: the copies received
  // are the newest ones without a gap, and at least half of them.
  expect(fromFill, 'streaming starts at the next available index: the buffered copies arrive, oldest first, without a gap').toEqual(fill.slice(fill.length - fromFill.length));
  expect(fromFill.length, `streaming starts at the next available index, not with live events: ${fromFill.length} of the ${fill.length} buffered copies arrived`).toBeGreaterThanOrEqual(Math.ceil(fill.length / 2));
});

ruleTest('scheduler.events.acl', async (kit) => {
  const control = kit.schedulerControl;
  const key = unique('acl');
  const indexes = await publish(kit, [event('Job', key), event('ACLToken', key), event('ACLPolicy', key), event('Node', key)]);
  const last = indexes.at(-1)!;
  const nodeReader = await control.token({ node_read: true });
  const jobReader = await control.token({ read_job: ['default'] });
  for (const t of [nodeReader, jobReader]) kit.secret(t);
  const received = async (token: string, topic?: string) => {
    const res = await subscribe(kit, { index: String(indexes[0]), topic }, last, { token, maxMs: 1_000 });
    if (res.status >= 400) return { refused: true, topics: [] as string[] };
    return { refused: false, topics: framesOf(res).flatMap((f) => f.Events.filter((e) => e.Key === key).map((e) => e.Topic)) };
  };
  const denied = (r: { refused: boolean; topics: string[] }, topic: string) => r.refused || !r.topics.includes(topic);
  expect(denied(await received(nodeReader, 'Job'), 'Job'), 'a node:read token does not receive Job').toBe(true);
  expect((await received(nodeReader, 'Node')).topics, 'a node:read token receives Node').toEqual(['Node']);
  expect(denied(await received(jobReader, 'Node'), 'Node'), 'a namespace:read-job token does not receive Node').toBe(true);
  expect((await received(jobReader, 'Job')).topics, 'a namespace:read-job token receives Job').toEqual(['Job']);
  // A management token receives the ACL topics: so their refusal below can fail.
  const management = await control.token({ management: true });
  kit.secret(management);
  for (const topic of ['ACLToken', 'ACLPolicy']) expect((await received(management, topic)).topics, `a management token receives ${topic}`).toEqual([topic]);
  for (const token of [nodeReader, jobReader]) {
    const all = await received(token, undefined);
    expect(all.refused || all.topics.length < 2, "'*' (no topic) needs a management token").toBe(true);
    for (const topic of ['ACLToken', 'ACLPolicy']) expect(denied(await received(token, topic), topic), `${topic} needs a management token`).toBe(true);
  }
});

ruleTest('scheduler.upstream.stream-heartbeat', async (kit) => {
  const res = await kit.scheduler.events({ topic: 'Job' }, { maxMs: 1_000, until: (s) => s.values.length > 0 });
  expect(res.values[0], 'the first value is the {} heartbeat').toEqual({});
});

ruleTest('scheduler.upstream.bad-stream-params-400', async (kit) => {
  for (const query of [{ index: 'abc' }, { topic: 'Job:a:b' }]) {
    const res = await kit.scheduler.events(query, { maxMs: 1_000 });
    expect(res.status, `${JSON.stringify(query)} answers 400`).toBe(400);
  }
});
