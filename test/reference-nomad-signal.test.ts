import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureJob, TICKS_SIGNAL, type FixtureTask } from '../src/client/fixture-job.ts';
import { startReference, type ReferenceWithControl } from '../src/reference/reference.ts';
import { rawExecSignal } from '../src/reference/scheduler/task-process.ts';

interface AllocStub {
  ID: string;
  ClientStatus: string;
  TaskStates: Record<string, { State: string; Events: { Type: string; DisplayMessage: string; Details: Record<string, string> }[] }> | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The reference's POST /v1/client/allocation/:id/signal, as Nomad answers it (command/agent/
 * alloc_endpoint.go allocSignal, client/alloc_endpoint.go Allocations.Signal, client/allocrunner/
 * alloc_runner.go Signal, drivers/rawexec/driver.go SignalTask), and what the fixture tasks that
 * await a signal do with it (issue 36: a rule starts the ticks once it streams).
 */
describe.each(['hashicorp', 'spec'] as const)('allocation signals on the reference, %s dialect', (dialect) => {
  const nomad = dialect === 'hashicorp';
  let ref: ReferenceWithControl;
  const base = () => (nomad ? ref.scheduler.url : `${ref.control.url}/v1/control/scheduler/nomad`);
  const call = async (method: 'GET' | 'PUT' | 'POST', path: string, options: { body?: unknown; raw?: string; token?: string } = {}) => {
    const headers = nomad ? { 'x-nomad-token': options.token ?? ref.scheduler.token } : { authorization: `Bearer ${ref.control.token}` };
    const res = await request(`${base()}${path}`, { method, headers, body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)), headersTimeout: 10_000, bodyTimeout: 10_000 });
    return { status: res.statusCode, text: await res.body.text() };
  };
  const signal = (alloc: string, body: unknown, token?: string) => call('POST', `/v1/client/allocation/${alloc}/signal`, { body, token });
  const allocationUntil = async (id: string, statuses: string[], everyTaskRunning = true): Promise<AllocStub> => {
    for (const until = Date.now() + 60_000; Date.now() < until; await sleep(50)) {
      const list = JSON.parse((await call('GET', `/v1/job/${id}/allocations`)).text) as AllocStub[];
      const found = list.find((a) => statuses.includes(a.ClientStatus) && (a.ClientStatus !== 'running' || !everyTaskRunning || Object.values(a.TaskStates ?? {}).every((t) => t.State === 'running')));
      if (found) return found;
    }
    throw new Error(`allocation of ${id} never reached ${statuses.join('|')}`);
  };
  const place = async (id: string, tasks: FixtureTask[], until: string[], everyTaskRunning = true) => {
    const res = await call('PUT', '/v1/jobs', { body: { Job: buildFixtureJob({ id, namespace: 'default', kind: 'allocation', tasks }) } });
    expect(res.status, res.text).toBe(200);
    return allocationUntil(id, until, everyTaskRunning);
  };
  const cat = async (alloc: string, path: string) => {
    const res = await request(`${ref.scheduler.url}/v1/client/fs/cat/${alloc}?path=${path}`, { headers: nomad ? { 'x-nomad-token': ref.scheduler.token } : { authorization: `Bearer ${ref.scheduler.token}` } });
    return { status: res.statusCode, text: await res.body.text() };
  };

  beforeAll(async () => {
    ref = await startReference({ dialect });
  });
  afterAll(async () => ref.stop());

  it('starts the ticks of a task that awaits the signal, and only then', async () => {
    const ticks = { count: 3, everyMs: 100, file: 'ticks.txt', awaitSignal: true };
    const alloc = await place(`sp-signal-${dialect}`, [{ name: 'app', ticks, holdMs: 30_000 }], ['running']);
    // The file is there, empty, and stays so without the signal.
    for (const until = Date.now() + 30_000; (await cat(alloc.ID, 'app/local/ticks.txt')).status !== 200; await sleep(50)) if (Date.now() > until) throw new Error('the task never created its file');
    await sleep(600);
    expect((await cat(alloc.ID, 'app/local/ticks.txt')).text, 'no tick before the signal').toBe('');
    const sent = await signal(alloc.ID, { Task: 'app', Signal: TICKS_SIGNAL });
    expect(sent.status, sent.text).toBe(200);
    expect(JSON.parse(sent.text)).toEqual({ Index: 0 });
    let text = '';
    for (const until = Date.now() + 30_000; !(text = (await cat(alloc.ID, 'app/local/ticks.txt')).text).includes('tick 3'); await sleep(50)) if (Date.now() > until) throw new Error(`the ticks never came: ${JSON.stringify(text)}`);
    expect(text).toBe('tick 1\ntick 2\ntick 3\n');
    // A second signal is taken by the same trap: the task keeps running.
    expect((await signal(alloc.ID, { Task: 'app', Signal: TICKS_SIGNAL })).status).toBe(200);
    await sleep(300);
    const after = JSON.parse((await call('GET', `/v1/allocation/${alloc.ID}`)).text) as AllocStub;
    expect(after.TaskStates!.app!.State, 'still running after a second signal').toBe('running');
    const signalling = after.TaskStates!.app!.Events.filter((e) => e.Type === 'Signaling');
    expect(signalling.length).toBe(2);
    expect(signalling[0]).toMatchObject({ DisplayMessage: `Task being sent signal ${TICKS_SIGNAL}`, Details: { signal: TICKS_SIGNAL } });
  });

  it("refuses as Nomad does: the body first, then the allocation, then the token's alloc-lifecycle, then the task", async () => {
    const alloc = await place(`sp-refuse-${dialect}`, [{ name: 'app', holdMs: 30_000 }, { name: 'done' }], ['running'], false);
    const unknown = '00000000-0000-4000-8000-000000000000';
    const post = (raw: string | undefined, id = alloc.ID) => call('POST', `/v1/client/allocation/${id}/signal`, { raw });
    expect(await post(undefined)).toEqual({ status: 400, text: 'Failed to decode body: Request body is empty' });
    const bad = await post('{"Task":');
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/^Failed to decode body: /);
    expect(await post('[]')).toEqual({ status: 400, text: 'Failed to decode body: json: cannot unmarshal array into Go value of type structs.AllocSignalRequest' });
    const typed = await post('{"Task": 7}');
    expect(typed.status).toBe(400);
    expect(typed.text).toMatch(/^Failed to decode body: json: cannot unmarshal number into Go struct field AllocSignalRequest\.Task of type string/);
    expect(await signal(unknown, { Task: 'app', Signal: 'SIGUSR1' })).toEqual({ status: 404, text: `Unknown allocation "${unknown}"` });
    expect(await signal(alloc.ID, { Task: 'nope', Signal: 'SIGUSR1' })).toEqual({ status: 500, text: 'Task not found' });
    // The task that has ended has no driver handle.
    for (const until = Date.now() + 30_000; ; await sleep(50)) {
      const states = (JSON.parse((await call('GET', `/v1/allocation/${alloc.ID}`)).text) as AllocStub).TaskStates ?? {};
      if (states.done?.State === 'dead') break;
      if (Date.now() > until) throw new Error('the task "done" never ended');
    }
    expect(await signal(alloc.ID, { Task: 'done', Signal: 'SIGUSR1' })).toEqual({ status: 500, text: 'Task not running' });
    // No task: every task is signalled, and the one that cannot be adds to a multierror. SIGCONT leaves the running one be.
    expect(await signal(alloc.ID, { signal: 'SIGCONT' })).toEqual({ status: 500, text: '1 error occurred:\n\t* Failed to signal task: done, err: Task not running\n\n' });
    expect((await call('GET', `/v1/client/allocation/${alloc.ID}/signal`)).status, 'GET is not a signal').toBe(405);
    if (!nomad) return;
    // alloc-lifecycle in the allocation's namespace: read and submit-job's "write" grants differ.
    const policy = async (name: string, rules: string) => expect((await call('POST', `/v1/acl/policy/${name}`, { body: { Name: name, Rules: rules } })).status).toBe(200);
    const token = async (name: string) => (JSON.parse((await call('POST', '/v1/acl/token', { body: { Name: name, Type: 'client', Policies: [name] } })).text) as { SecretID: string }).SecretID;
    await policy('sp-sig-read', 'namespace "default" { policy = "read" }');
    await policy('sp-sig-lifecycle', 'namespace "default" { capabilities = ["alloc-lifecycle"] }');
    await policy('sp-sig-other', 'namespace "other" { capabilities = ["alloc-lifecycle"] }');
    const reader = await token('sp-sig-read');
    expect(await signal(alloc.ID, { Task: 'app', Signal: 'SIGCONT' }, reader)).toEqual({ status: 403, text: 'Permission denied' });
    expect(await signal(alloc.ID, { Task: 'app', Signal: 'SIGCONT' }, await token('sp-sig-other')), 'alloc-lifecycle in another namespace').toEqual({ status: 403, text: 'Permission denied' });
    expect(await signal(unknown, { Task: 'app', Signal: 'SIGCONT' }, reader), 'the allocation is looked up before the permission').toEqual({ status: 404, text: `Unknown allocation "${unknown}"` });
    expect((await signal(alloc.ID, { Task: 'app', Signal: 'SIGCONT' }, await token('sp-sig-lifecycle'))).status).toBe(200);
  });
});

describe('the signals raw_exec sends by name', () => {
  it("sends consul-template's signals by name, SIGNULL as 0, and SIGINT for any other name", () => {
    expect(rawExecSignal('SIGUSR1')).toBe('SIGUSR1');
    expect(rawExecSignal('SIGHUP')).toBe('SIGHUP');
    expect(rawExecSignal('SIGNULL')).toBe(0);
    expect(rawExecSignal('sigusr1'), 'the lookup is exact').toBe('SIGINT');
    expect(rawExecSignal('USR1')).toBe('SIGINT');
    expect(rawExecSignal('SIGCHLD'), 'not in the table').toBe('SIGINT');
    expect(rawExecSignal('')).toBe('SIGINT');
  });
});
