import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureJob, type FixtureTask } from '../src/client/fixture-job.ts';
import type { SchedulerEvent } from '../src/reference/scheduler/event-broker.ts';
import { startReference, type ReferenceWithControl } from '../src/reference/reference.ts';

/** The events as the tests read them: payloads are objects keyed by kind. */
type Event = Omit<SchedulerEvent, 'Payload'> & { Payload: Record<string, Record<string, unknown>> };
interface Frame {
  Index: number;
  Events: Event[];
}
interface AllocStub {
  ID: string;
  ClientStatus: string;
  DesiredStatus: string;
  TaskStates: Record<string, { State: string }> | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The reference's Nomad API (jobs, nodes, ACL, namespaces) and the events of its real actions: in the
 * hashicorp dialect on the scheduler listener with X-Nomad-Token, and in the spec dialect through
 * the control listener's /v1/control/scheduler/nomad prefix (acting as management).
 */
describe.each(['hashicorp', 'spec'] as const)('the scheduler reference Nomad API, %s dialect', (dialect) => {
  const nomad = dialect === 'hashicorp';
  let ref: ReferenceWithControl;
  const auth = (token: string): Record<string, string> => (nomad ? { 'x-nomad-token': token } : { authorization: `Bearer ${token}` });

  /** A Nomad API call: the scheduler listener (hashicorp) or the control prefix (spec). */
  const api = async (method: 'GET' | 'PUT' | 'POST' | 'DELETE', path: string, body?: unknown, raw?: string) => {
    const base = nomad ? ref.scheduler.url : `${ref.control.url}/v1/control/scheduler/nomad`;
    const headers = nomad ? auth(ref.scheduler.token) : { authorization: `Bearer ${ref.control.token}` };
    const res = await request(`${base}${path}`, { method, headers, body: raw ?? (body === undefined ? undefined : JSON.stringify(body)), headersTimeout: 5_000, bodyTimeout: 5_000 });
    const text = await res.body.text();
    return { status: res.statusCode, index: Number(res.headers['x-nomad-index']), text, json: <T = Record<string, unknown>>() => JSON.parse(text) as T };
  };
  /** A spec 002 endpoint on the scheduler listener. */
  const client = async (path: string, token = ref.scheduler.token) => {
    const res = await request(`${ref.scheduler.url}${path}`, { headers: auth(token), headersTimeout: 5_000, bodyTimeout: 5_000 });
    return { status: res.statusCode, text: await res.body.text() };
  };
  /** Reads the event stream from `index` until `done` holds for the frames read (or 3 s pass). */
  const frames = async (query: string, done: (fs: Frame[]) => boolean, token = ref.scheduler.token): Promise<{ status: number; frames: Frame[] }> => {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), 3_000);
    const res = await request(`${ref.scheduler.url}/v1/event/stream?${query}`, { headers: auth(token), signal: abort.signal });
    const out: Frame[] = [];
    if (res.statusCode !== 200) {
      clearTimeout(timer);
      await res.body.text();
      return { status: res.statusCode, frames: out };
    }
    let buffered = '';
    try {
      for await (const chunk of res.body) {
        buffered += (chunk as Buffer).toString();
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          const value = JSON.parse(line) as Partial<Frame>;
          if (value.Events) out.push(value as Frame);
        }
        if (done(out)) break;
      }
    } catch {
      // aborted after the time limit: the frames read so far are the answer
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
    return { status: 200, frames: out };
  };
  /** Every frame at `index` (read until a later frame, or 3 s): Nomad may publish several at one index. */
  const framesAt = async (index: number, topic = '*'): Promise<Frame[]> => (await frames(`index=${index}&topic=${topic}&namespace=*`, (fs) => fs.some((f) => f.Index > index))).frames.filter((f) => f.Index === index);
  /** The first frame at `index` (of a change made in one transaction, its only one). */
  const frameAt = async (index: number, topic = '*') => (await frames(`index=${index}&topic=${topic}&namespace=*`, (fs) => fs.some((f) => f.Index >= index))).frames.find((f) => f.Index === index);
  /**
   * A job change's frames at its index: Nomad's two transactions (nomad/fsm.go applyUpsertJob and
   * applyDeregisterJob: the job's, then the evaluation's) as two frames in the hashicorp dialect, one
   * frame otherwise. Their events, by frame.
   */
  const jobChangeAt = async (index: number) => {
    const at = await framesAt(index);
    expect(at.map((f) => f.Events.map((e) => e.Topic)), `the frames at ${index}`).toEqual(nomad ? [['Job'], ['Evaluation']] : [['Job', 'Evaluation']]);
    return { Index: index, Events: at.flatMap((f) => f.Events) };
  };

  const register = async (id: string, tasks: FixtureTask[], namespace = 'default', kind: 'allocation' | 'event' = 'allocation') => {
    const res = await api('PUT', '/v1/jobs', { Job: buildFixtureJob({ id, namespace, kind, tasks }) });
    expect(res.status, res.text).toBe(200);
    return res.json() as { EvalID: string; EvalCreateIndex: number; JobModifyIndex: number; Index: number };
  };
  const allocationUntil = async (id: string, statuses: string[], namespace = 'default'): Promise<AllocStub> => {
    for (let i = 0; i < 200; i++) {
      const list = (await api('GET', `/v1/job/${id}/allocations?namespace=${namespace}`)).json<AllocStub[]>();
      const found = list.find((a) => statuses.includes(a.ClientStatus));
      if (found) return found;
      await sleep(25);
    }
    throw new Error(`allocation of ${id} never reached ${statuses.join('|')}`);
  };

  beforeAll(async () => {
    ref = await startReference({ dialect });
  });
  afterAll(async () => ref.stop());

  it('places a fixture job: its files, logs and ticks are on the node, and it completes', async () => {
    const reply = await register('sp-files', [
      { name: 'main', files: { 'conf/app.txt': 'app ✓\n' }, stdout: 'out bytes\n', stderr: 'err bytes\n', ticks: { count: 3, everyMs: 60, file: 'ticks.txt' }, holdMs: 50 },
      { name: 'quiet', logsDisabled: true, files: { 'q.txt': 'q' } },
    ]);
    expect(reply.JobModifyIndex).toBe(reply.Index);
    const running = await allocationUntil('sp-files', ['running', 'complete']);
    expect(running.ID).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect((await client(`/v1/client/fs/cat/${running.ID}?path=main/local/conf/app.txt`)).text).toBe('app ✓\n');
    expect((await client(`/v1/client/fs/logs/${running.ID}?task=quiet&type=stdout&plain=true`)).status, 'logging disabled').toBe(404);
    const done = await allocationUntil('sp-files', ['complete']);
    // Read once the task has ended: while it runs, a busy machine may not have let it write yet.
    expect((await client(`/v1/client/fs/logs/${done.ID}?task=main&type=stderr&plain=true`)).text).toBe('err bytes\n');
    expect(done.TaskStates?.main?.State).toBe('dead');
    expect((await client(`/v1/client/fs/cat/${done.ID}?path=main/local/ticks.txt`)).text).toBe('tick 1\ntick 2\ntick 3\n');
    expect((await client(`/v1/client/fs/logs/${done.ID}?task=main&type=stdout&plain=true`)).text).toBe('out bytes\ntick 1\ntick 2\ntick 3\n');
    const job = (await api('GET', '/v1/job/sp-files')).json();
    expect(job.Status).toBe('dead');
  });

  it(`publishes a register at JobModifyIndex as ${nomad ? 'two frames, the Job event and then the Evaluation event' : 'one frame: the Job event and the Evaluation event'}`, async () => {
    const reply = await register('sp-events', [{ name: 'main', holdMs: 2_000 }]);
    const frame = await jobChangeAt(reply.JobModifyIndex);
    expect(frame?.Events.map((e) => [e.Topic, e.Type, e.Key, e.Namespace])).toEqual([
      ['Job', 'JobRegistered', 'sp-events', 'default'],
      ['Evaluation', 'JobRegistered', reply.EvalID, 'default'],
    ]);
    expect(frame?.Events[0]!.FilterKeys).toBeNull();
    expect(frame?.Events[1]!.FilterKeys).toEqual(['sp-events', '']);
    expect(frame?.Events[0]!.Payload.Job).toMatchObject({ ID: 'sp-events', Namespace: 'default', Status: 'pending', Stop: false, Version: 0, JobModifyIndex: reply.Index });
    const alloc = await allocationUntil('sp-events', ['running']);
    const later = await frames(`index=${reply.Index + 1}&topic=Allocation:sp-events`, (fs) => fs.some((f) => f.Events.some((e) => e.Type === 'AllocationUpdated')));
    const events = later.frames.flatMap((f) => f.Events);
    expect(events.find((e) => e.Type === 'PlanResult')?.Key).toBe(alloc.ID);
    for (const e of events) expect(Object.hasOwn(e.Payload.Allocation!, 'Job'), 'Allocation events leave the job out').toBe(false);

    const stop = await api('DELETE', '/v1/job/sp-events');
    expect(stop.status).toBe(200);
    const stopFrame = await jobChangeAt(stop.index);
    expect(stopFrame?.Events.map((e) => [e.Topic, e.Type])).toEqual([
      ['Job', 'JobDeregistered'],
      ['Evaluation', 'JobDeregistered'],
    ]);
    expect(stopFrame?.Events[0]!.Payload.Job!.Stop).toBe(true);
    const stopped = await allocationUntil('sp-events', ['complete']);
    expect(stopped.DesiredStatus).toBe('stop');

    const purge = await api('DELETE', '/v1/job/sp-events?purge=true');
    expect(purge.json<{ JobModifyIndex: number }>().JobModifyIndex).toBe(purge.index);
    const purgeFrame = await jobChangeAt(purge.index);
    expect(purgeFrame?.Events.map((e) => [e.Topic, e.Type])).toEqual([
      ['Job', 'JobDeregistered'],
      ['Evaluation', 'JobDeregistered'],
    ]);
    expect(purgeFrame?.Events[0]!.Payload.Deleted, 'a purged job is marked Deleted').toBe(true);
    expect((await api('GET', '/v1/job/sp-events')).status).toBe(404);
    expect((await client(`/v1/client/fs/cat/${stopped.ID}?path=main/local`)).status, 'the allocation stays on disk until GC').not.toBe(404);
  });

  it('evaluates an event job and never places it: a blocked follow-up evaluation, no allocation', async () => {
    const reply = await register('sp-unplaceable', [{ name: 'main' }], 'default', 'event');
    const after = await frames(`index=${reply.Index}&topic=Evaluation:sp-unplaceable`, (fs) => fs.some((f) => f.Events.some((e) => e.Payload.Evaluation?.Status === 'blocked')));
    const evals = after.frames.flatMap((f) => f.Events).map((e) => e.Payload.Evaluation!);
    expect(evals.find((e) => e.Status === 'blocked')?.PreviousEval).toBe(reply.EvalID);
    await sleep(50);
    expect((await api('GET', '/v1/job/sp-unplaceable/allocations')).json()).toEqual([]);
    expect((await api('GET', '/v1/jobs?prefix=sp-unplaceable')).json()).toMatchObject([{ ID: 'sp-unplaceable', Status: 'pending' }]);
    await api('DELETE', '/v1/job/sp-unplaceable?purge=true');
  });

  // Nomad's Node.UpdateEligibility (nomad/node_endpoint.go) fills Index only, never NodeModifyIndex,
  // and for the eligibility the node already has writes nothing: 200 with every index 0, no event.
  it('toggles the node eligibility with a Node event at the reply\'s Index (NodeModifyIndex stays 0), and restores it', async () => {
    const nodeId = ref.scheduler.nodeId;
    const off = await api('POST', `/v1/node/${nodeId}/eligibility`, { NodeID: nodeId, Eligibility: 'ineligible' });
    expect(off.status).toBe(200);
    const reply = off.json<{ Index: number; NodeModifyIndex: number; EvalIDs: unknown; EvalCreateIndex: number }>();
    expect(reply).toEqual({ NodeModifyIndex: 0, EvalIDs: null, EvalCreateIndex: 0, Index: off.index });
    expect(reply.Index).toBeGreaterThan(0);
    const frame = await frameAt(reply.Index, 'Node');
    expect(frame?.Events.map((e) => [e.Topic, e.Type, e.Key, e.Namespace])).toEqual([['Node', 'NodeEligibility', nodeId, '']]);
    expect(frame?.Events[0]!.Payload.Node).toMatchObject({ ID: nodeId, SchedulingEligibility: 'ineligible' });
    expect((await api('GET', `/v1/node/${nodeId}`)).json().SchedulingEligibility).toBe('ineligible');

    // The same eligibility again: nothing to do, nothing written, no event.
    const same = await api('POST', `/v1/node/${nodeId}/eligibility`, { NodeID: nodeId, Eligibility: 'ineligible' });
    expect(same.status).toBe(200);
    expect(same.index, 'X-Nomad-Index 0').toBe(0);
    expect(same.json()).toEqual({ NodeModifyIndex: 0, EvalIDs: null, EvalCreateIndex: 0, Index: 0 });

    const on = await api('POST', `/v1/node/${nodeId}/eligibility`, { NodeID: nodeId, Eligibility: 'eligible' });
    expect(on.status).toBe(200);
    expect(on.json<{ Index: number }>().Index).toBe(on.index);
    expect(on.index, 'the next write after the toggle: no frame was published for the repeated request').toBeGreaterThan(reply.Index);
    const between = await frames(`index=${reply.Index + 1}&topic=Node`, (fs) => fs.some((f) => f.Index >= on.index));
    expect(between.frames.filter((f) => f.Index > reply.Index).map((f) => f.Index), 'the only Node frame after the first toggle is the second').toEqual([on.index]);
    expect((await api('GET', '/v1/nodes')).json()).toMatchObject([{ ID: nodeId, SchedulingEligibility: 'eligible' }]);
    expect((await api('POST', `/v1/node/${nodeId}/eligibility`, { Eligibility: 'maybe' })).status, "Nomad's plain RPC error is a 500").toBe(nomad ? 500 : 400);
  });

  it('gives a policy-made token what its policy grants, at once, and nothing once deleted', async () => {
    const policy = await api('POST', '/v1/acl/policy/sp-node-reader', { Name: 'sp-node-reader', Description: 'd', Rules: 'node {\n  policy = "read"\n}\n' });
    expect(policy.status).toBe(200);
    const policyFrame = await frameAt(policy.index, 'ACLPolicy');
    expect(policyFrame?.Events.map((e) => [e.Topic, e.Type, e.Key, e.Namespace])).toEqual([['ACLPolicy', 'ACLPolicyUpserted', 'sp-node-reader', '']]);
    expect(policyFrame?.Events[0]!.Payload.ACLPolicy).toMatchObject({ Name: 'sp-node-reader', Rules: 'node {\n  policy = "read"\n}\n', ModifyIndex: policy.index });

    const created = await api('POST', '/v1/acl/token', { Name: 'sp-reader', Type: 'client', Policies: ['sp-node-reader'] });
    const token = created.json() as { AccessorID: string; SecretID: string; CreateIndex: number };
    const tokenFrame = await frameAt(token.CreateIndex, 'ACLToken');
    expect(tokenFrame?.Events.map((e) => [e.Topic, e.Type, e.Key])).toEqual([['ACLToken', 'ACLTokenUpserted', token.AccessorID]]);
    expect(tokenFrame!.Events[0]!.Payload.ACLToken!.SecretID ?? '', 'no secret in events').toBe('');
    expect(Object.hasOwn(tokenFrame!.Events[0]!.Payload.ACLToken!, 'SecretID'), "Nomad blanks it; the spec dialect leaves it out").toBe(nomad);

    expect((await frames('topic=Node', () => true, token.SecretID)).status).toBe(200);
    expect((await frames('topic=Job', () => true, token.SecretID)).status).toBe(403);
    expect((await client('/v1/client/metadata', token.SecretID)).status).toBe(200);

    const deleted = await api('DELETE', `/v1/acl/token/${token.AccessorID}`);
    expect(deleted.status).toBe(200);
    expect((await frameAt(deleted.index, 'ACLToken'))?.Events.map((e) => e.Type)).toEqual(['ACLTokenDeleted']);
    expect((await frames('topic=Node', () => true, token.SecretID)).status).toBe(403);
    expect((await client('/v1/client/metadata', token.SecretID)).status).toBe(403);
    const gone = await api('DELETE', '/v1/acl/policy/sp-node-reader');
    expect((await frameAt(gone.index, 'ACLPolicy'))?.Events.map((e) => e.Type)).toEqual(['ACLPolicyDeleted']);
  });

  it("expands a namespace `policy = \"read\"` as Nomad does: read-job, not read-fs or submit-job", async () => {
    await api('POST', '/v1/acl/policy/sp-ns-read', { Rules: 'namespace "default" { policy = "read" }' });
    const token = (await api('POST', '/v1/acl/token', { Name: 'sp-ns', Type: 'client', Policies: ['sp-ns-read'] })).json<{ SecretID: string }>();
    expect((await frames('topic=Job', () => true, token.SecretID)).status).toBe(200);
    expect((await frames('topic=Node', () => true, token.SecretID)).status).toBe(403);
    if (nomad) {
      const res = await request(`${ref.scheduler.url}/v1/jobs`, { method: 'PUT', headers: auth(token.SecretID), body: JSON.stringify({ Job: buildFixtureJob({ id: 'sp-denied', namespace: 'default', kind: 'event', tasks: [{ name: 'main' }] }) }) });
      await res.body.text();
      expect(res.statusCode, 'submit-job needs write').toBe(403);
    }
    expect((await api('POST', '/v1/acl/policy/sp-bad', { Rules: 'namespace "default" { capabilities = ["fly"] }' })).status).toBe(400);
  });

  it('keeps namespaces real: jobs carry them, and one with a running job cannot be deleted', async () => {
    expect((await api('POST', '/v1/namespace/sp-team', { Name: 'sp-team', Description: 'x' })).status).toBe(200);
    expect((await api('GET', '/v1/namespaces')).json<{ Name: string }[]>().map((n) => n.Name)).toEqual(['default', 'sp-team']);
    const reply = await register('sp-in-ns', [{ name: 'main', holdMs: 10_000 }], 'sp-team');
    expect((await jobChangeAt(reply.Index)).Events.map((e) => e.Namespace)).toEqual(['sp-team', 'sp-team']);
    await allocationUntil('sp-in-ns', ['running'], 'sp-team');
    const refused = await api('DELETE', '/v1/namespace/sp-team');
    expect(refused.status).toBe(nomad ? 500 : 409);
    expect(refused.text).toContain('non-terminal jobs');
    expect((await api('GET', '/v1/jobs?namespace=*')).json<{ ID: string; Namespace: string }[]>().some((j) => j.ID === 'sp-in-ns' && j.Namespace === 'sp-team')).toBe(true);
    expect((await api('DELETE', '/v1/job/sp-in-ns?namespace=sp-team&purge=true')).status).toBe(200);
    // Like Nomad, the namespace goes once the purged job's allocation has stopped too.
    let deleted = await api('DELETE', '/v1/namespace/sp-team');
    // The task is a real process: its kill takes what the machine gives it, under a generous bound.
    for (const end = Date.now() + 30_000; Date.now() < end && deleted.status !== 200; ) {
      expect(deleted.text).toContain('non-terminal allocations');
      await sleep(20);
      deleted = await api('DELETE', '/v1/namespace/sp-team');
    }
    expect(deleted.status).toBe(200);
    expect((await api('DELETE', '/v1/namespace/default')).status).toBe(400);
    expect((await api('PUT', '/v1/jobs', { Job: buildFixtureJob({ id: 'sp-nowhere', namespace: 'sp-gone', kind: 'event', tasks: [{ name: 'main' }] }) })).text).toContain('nonexistent namespace');
  });

  it('refuses a job Nomad refuses with Nomad\'s 500 and message, and malformed JSON with a 400', async () => {
    const other = await api('PUT', '/v1/jobs', { Job: { ID: 'web', Type: 'service', TaskGroups: [] } });
    expect(other.status).toBe(500);
    expect(other.text).toContain('Missing job task groups');
    const malformed = await api('PUT', '/v1/jobs', undefined, '{"Job": ');
    expect(malformed.status).toBe(400);
    expect(malformed.text).toContain('Failed to decode request');
    expect((await api('PUT', '/v1/jobs', {})).status).toBe(400);
  });

  it(nomad ? 'requires a known token on the Nomad API' : 'keeps the Nomad API off the spec listener', async () => {
    const res = await client('/v1/jobs', nomad ? 'not-a-token' : ref.scheduler.token);
    expect(res.status).toBe(nomad ? 403 : 404);
    if (nomad) expect((await api('GET', '/v1/acl/token/self')).json()).toMatchObject({ Type: 'management' });
  });
});

describe('the event faults that real actions show', () => {
  let ref: ReferenceWithControl;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp', faults: ['scheduler.events-node-payload-missing-fields', 'scheduler.events-type-unlisted', 'scheduler.events-allocation-carries-job', 'scheduler.events-payload-unkeyed'] });
  });
  afterAll(async () => ref.stop());

  it('changes the register, Allocation and Node events as each fault says', async () => {
    const headers = { 'x-nomad-token': ref.scheduler.token };
    const put = await request(`${ref.scheduler.url}/v1/jobs`, { method: 'PUT', headers, body: JSON.stringify({ Job: buildFixtureJob({ id: 'sp-f', namespace: 'default', kind: 'allocation', tasks: [{ name: 'main' }] }) }) });
    const { Index } = (await put.body.json()) as { Index: number };
    // Away and back: the node starts eligible, and asking for that writes nothing (no event).
    const setEligibility = async (e: string) => {
      const res = await request(`${ref.scheduler.url}/v1/node/${ref.scheduler.nodeId}/eligibility`, { method: 'POST', headers, body: JSON.stringify({ Eligibility: e }) });
      return ((await res.body.json()) as { Index: number }).Index;
    };
    await setEligibility('ineligible');
    const eligibleAgain = await setEligibility('eligible');
    const abort = new AbortController();
    const res = await request(`${ref.scheduler.url}/v1/event/stream?index=${Index}`, { headers, signal: abort.signal });
    let text = '';
    try {
      for await (const chunk of res.body) {
        text += (chunk as Buffer).toString();
        if (text.includes(`{"Index":${eligibleAgain},`) && text.includes('"Topic":"Allocation"')) break;
      }
    } finally {
      abort.abort();
    }
    const events = text.split('\n').filter((l) => l.startsWith('{"Index"')).flatMap((l) => (JSON.parse(l) as Frame).Events);
    const register = events.filter((e) => e.Index === Index);
    expect(register.map((e) => e.Type)).toEqual(['JobUpserted', 'JobUpserted']);
    expect(register[0]!.Payload.ID, 'the Job payload is the job itself').toBe('sp-f');
    expect(events.find((e) => e.Topic === 'Allocation')!.Payload.Allocation!.Job).toMatchObject({ ID: 'sp-f' });
    const node = events.find((e) => e.Index === eligibleAgain && e.Topic === 'Node')!.Payload.Node!;
    expect(Object.hasOwn(node, 'SchedulingEligibility')).toBe(false);
  });
});

describe('placement on an ineligible node', () => {
  let ref: ReferenceWithControl;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp' });
  });
  afterAll(async () => ref.stop());

  it('blocks the evaluation while the node is ineligible, and places the job once it is eligible again', async () => {
    const headers = { 'x-nomad-token': ref.scheduler.token };
    const call = async (method: 'GET' | 'PUT' | 'POST', path: string, body?: unknown) => {
      const res = await request(`${ref.scheduler.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      return (await res.body.json()) as unknown;
    };
    const eligibility = (e: string) => call('POST', `/v1/node/${ref.scheduler.nodeId}/eligibility`, { Eligibility: e });
    await eligibility('ineligible');
    await call('PUT', '/v1/jobs', { Job: buildFixtureJob({ id: 'sp-wait', namespace: 'default', kind: 'allocation', tasks: [{ name: 'main' }] }) });
    await sleep(100);
    expect(await call('GET', '/v1/job/sp-wait/allocations')).toEqual([]);
    await eligibility('eligible');
    let allocs: { ClientStatus: string }[] = [];
    for (let i = 0; i < 100 && allocs.length === 0; i++) {
      await sleep(20);
      allocs = (await call('GET', '/v1/job/sp-wait/allocations')) as { ClientStatus: string }[];
    }
    expect(allocs).toHaveLength(1);
  });
});
