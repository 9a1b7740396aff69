import { readdir } from 'node:fs/promises';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../src/reference/reference.ts';
import { processRunning } from './support/process-alive.ts';

/**
 * The reference's scheduler runs the jobs it is given as Nomad's raw_exec driver runs them: real
 * processes whose exit decides the allocation's status, stopped with the job, bounded in number,
 * absent when the driver is, and gone when the reference stops.
 */
interface AllocStub {
  ID: string;
  ClientStatus: string;
  TaskStates: Record<string, { State: string; Failed: boolean; Events: { Type: string; ExitCode: number }[] }> | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function client(ref: RunningReference) {
  const headers = { 'x-nomad-token': ref.scheduler.token };
  const call = async (method: 'GET' | 'PUT' | 'DELETE', path: string, body?: unknown) => {
    const res = await request(`${ref.scheduler.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), headersTimeout: 10_000, bodyTimeout: 10_000 });
    const text = await res.body.text();
    return { status: res.statusCode, text, json: <T>() => JSON.parse(text) as T };
  };
  const job = (id: string, script: string, extra: Record<string, unknown> = {}) => ({
    Job: {
      ID: id,
      Type: 'batch',
      Datacenters: ['*'],
      TaskGroups: [{ Name: 'g', RestartPolicy: { Attempts: 0, Mode: 'fail' }, Tasks: [{ Name: 'main', Driver: 'raw_exec', Config: { command: '/bin/sh', args: ['-c', script] }, ...extra }] }],
    },
  });
  const register = async (id: string, script: string, extra?: Record<string, unknown>) => {
    const res = await call('PUT', '/v1/jobs', job(id, script, extra));
    expect(res.status, res.text).toBe(200);
  };
  const allocations = async (id: string) => (await call('GET', `/v1/job/${id}/allocations`)).json<AllocStub[]>();
  /** Waits, under a generous bound, for the job's newest allocation to reach one of the statuses. */
  const until = async (id: string, statuses: string[], ms = 20_000): Promise<AllocStub> => {
    for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) {
      const found = (await allocations(id)).find((a) => statuses.includes(a.ClientStatus));
      if (found) return found;
    }
    throw new Error(`no allocation of ${id} reached ${statuses.join('|')} in ${ms} ms`);
  };
  return { call, register, allocations, until };
}

describe('raw_exec jobs on the reference (hashicorp dialect)', () => {
  let ref: RunningReference;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp', control: false, maxRunningAllocations: 2 });
    api = client(ref);
  });
  afterAll(async () => ref?.stop());

  it('sees its environment and templates, and its output is what the logs endpoint serves', async () => {
    await api.register('sp-env', 'cat "$NOMAD_TASK_DIR/greeting.txt"; echo "$NOMAD_JOB_ID $NOMAD_TASK_NAME $NOMAD_GROUP_NAME $NOMAD_ALLOC_ID $GIVEN"', {
      Env: { GIVEN: 'from-env' },
      Templates: [{ DestPath: 'local/greeting.txt', EmbeddedTmpl: 'hi {{ env "GIVEN" }}\n' }],
    });
    const alloc = await api.until('sp-env', ['complete']);
    const logs = await api.call('GET', `/v1/client/fs/logs/${alloc.ID}?task=main&type=stdout&plain=true`);
    expect(logs.text).toBe(`hi from-env\nsp-env main g ${alloc.ID} from-env\n`);
  });

  it('fails the allocation when the task exits non-zero', async () => {
    await api.register('sp-exit', 'echo bad >&2; exit 3');
    const alloc = await api.until('sp-exit', ['failed', 'complete']);
    expect(alloc.ClientStatus).toBe('failed');
    expect(alloc.TaskStates?.main).toMatchObject({ State: 'dead', Failed: true });
    expect(alloc.TaskStates?.main?.Events.find((e) => e.Type === 'Terminated')?.ExitCode).toBe(3);
  });

  it('refuses a job Nomad refuses, with Nomad\'s status and message', async () => {
    const res = await api.call('PUT', '/v1/jobs', { Job: { ID: 'sp-logs', Type: 'batch', Datacenters: ['*'], TaskGroups: [{ Name: 'g', EphemeralDisk: { SizeMB: 20 }, Tasks: [{ Name: 'main', Driver: 'raw_exec', Config: { command: '/bin/true' }, LogConfig: { MaxFiles: 2, MaxFileSizeMB: 10 } }] }] } });
    expect(res.status).toBe(500);
    expect(res.text).toContain('log storage (20 MB) must be less than requested disk capacity (20 MB)');
  });

  it('refuses at registration a template using a function it does not implement, saying so', async () => {
    const res = await api.call('PUT', '/v1/jobs', { Job: { ID: 'sp-keyfn', Type: 'batch', Datacenters: ['*'], TaskGroups: [{ Name: 'g', Tasks: [{ Name: 'main', Driver: 'raw_exec', Config: { command: '/bin/true' }, Templates: [{ DestPath: 'local/a.txt', EmbeddedTmpl: '{{ key "app/config" }}' }] }] }] } });
    expect(res.status).toBe(400);
    expect(res.text).toBe('Task group g, task main, template local/a.txt: template: function "key" is not implemented by the stackproof reference (it renders env and string literals only)');
    expect(await api.allocations('sp-keyfn')).toEqual([]);
  });

  it('stops the task with the job, and runs at most the configured number of allocations at once', async () => {
    await api.register('sp-long-1', 'sleep 60');
    await api.register('sp-long-2', 'sleep 60');
    const first = await api.until('sp-long-1', ['running']);
    await api.until('sp-long-2', ['running']);
    await api.register('sp-third', 'echo third');
    await sleep(300);
    expect(await api.allocations('sp-third'), 'a third allocation waits while two run').toEqual([]);
    const pids = ref.scheduler.runningTaskPids();
    expect(pids.length).toBeGreaterThanOrEqual(2);
    expect((await api.call('DELETE', '/v1/job/sp-long-1')).status).toBe(200);
    const stopped = await api.until('sp-long-1', ['complete']);
    expect(stopped.ID).toBe(first.ID);
    expect(stopped.TaskStates?.main?.Failed, 'a task the client stopped has not failed').toBe(false);
    // The freed slot places the waiting job.
    await api.until('sp-third', ['complete']);
  });

  it('leaves no process and no allocation directory once it stops', async () => {
    await api.register('sp-left', 'sleep 120 & sleep 120');
    await api.until('sp-left', ['running']);
    const pids = ref.scheduler.runningTaskPids();
    expect(pids.length).toBeGreaterThan(0);
    const root = ref.scheduler.allocRoot;
    await ref.stop();
    for (const pid of pids) expect(processRunning(pid), `task process ${pid}`).toBe(false);
    await expect(readdir(root)).rejects.toThrow(/ENOENT/);
  });
});

describe('a reference without the raw_exec driver', () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp', control: false, rawExec: false });
  });
  afterAll(async () => ref?.stop());

  it('lists raw_exec as not detected and places nothing', async () => {
    const api = client(ref);
    const node = (await api.call('GET', `/v1/node/${ref.scheduler.nodeId}`)).json<{ Drivers: Record<string, { Detected: boolean; Healthy: boolean }> }>();
    expect(node.Drivers.raw_exec).toMatchObject({ Detected: false, Healthy: false });
    await api.register('sp-nowhere', 'echo never');
    await sleep(300);
    expect(await api.allocations('sp-nowhere')).toEqual([]);
    expect(ref.scheduler.runningTaskPids()).toEqual([]);
  });
});

describe('a raw_exec task whose driver config the driver cannot take', () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp', control: false });
  });
  afterAll(async () => ref?.stop());

  it('is accepted at registration and fails on the client, as Nomad decodes driver config there', async () => {
    const api = client(ref);
    const res = await api.call('PUT', '/v1/jobs', { Job: { ID: 'sp-nocommand', Type: 'batch', Datacenters: ['*'], TaskGroups: [{ Name: 'g', RestartPolicy: { Attempts: 0, Mode: 'fail' }, Tasks: [{ Name: 'main', Driver: 'raw_exec', Config: { args: ['x'] } }] }] } });
    expect(res.status, res.text).toBe(200);
    const alloc = await api.until('sp-nocommand', ['failed', 'complete']);
    expect(alloc.ClientStatus).toBe('failed');
    expect(alloc.TaskStates?.main?.Events.map((e) => e.Type)).toContain('Failed Validation');
  });
});
