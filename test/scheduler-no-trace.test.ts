import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../src/reference/reference.ts';
import { processRunning } from './support/process-alive.ts';

const run = promisify(execFile);

/** The running processes of this machine whose working directory is under `dir` (from /proc). */
async function processesUnder(dir: string): Promise<number[]> {
  const pids = (await readdir('/proc')).filter((n) => /^\d+$/.test(n)).map(Number);
  const found: number[] = [];
  for (const pid of pids) {
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => '');
    if (cwd.startsWith(dir) && processRunning(pid)) found.push(pid);
  }
  return found;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The scheduler suites against the reference standing in for a real Nomad (hashicorp dialect, no
 * control listener), given only its URL, its management token and the dialect, as a user points
 * stackproof at `nomad agent -dev -acl-enabled`: every MUST rule gets a verdict, and the run leaves
 * no job, ACL token or policy, namespace, task process or allocation directory behind.
 */
describe('conform --systems scheduler against a stand-in Nomad', () => {
  let ref: RunningReference;
  let reports: string;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp', control: false });
    reports = await mkdtemp(join(tmpdir(), 'stackproof-no-trace-'));
  });
  afterAll(async () => {
    await ref?.stop();
    await rm(reports, { recursive: true, force: true });
  });

  const api = async <T>(path: string): Promise<T> => {
    const res = await request(`${ref.scheduler.url}${path}`, { headers: { 'x-nomad-token': ref.scheduler.token } });
    return (await res.body.json()) as T;
  };

  it('gives every rule a verdict and leaves nothing behind', async () => {
    const before = {
      jobs: (await api<{ ID: string }[]>('/v1/jobs?namespace=*')).map((j) => j.ID).sort(),
      allocDirs: (await readdir(ref.scheduler.allocRoot)).sort(),
      tokens: (await api<{ AccessorID: string }[]>('/v1/acl/tokens')).map((t) => t.AccessorID).sort(),
      policies: (await api<{ Name: string }[]>('/v1/acl/policies')).map((p) => p.Name).sort(),
      namespaces: (await api<{ Name: string }[]>('/v1/namespaces')).map((n) => n.Name).sort(),
    };
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('STACKPROOF_')));
    const result = await run(process.execPath, ['bin/stackproof.js', 'conform', '--systems', 'scheduler', '--no-load-smoke', '--reports-dir', reports], {
      env: { ...env, STACKPROOF_SCHEDULER_URL: ref.scheduler.url, STACKPROOF_SCHEDULER_TOKEN: ref.scheduler.token, STACKPROOF_SCHEDULER_DIALECT: 'hashicorp' },
      timeout: 300_000,
    }).catch((err: { code: number; stdout: string; stderr: string }) => err);
    const results = JSON.parse(await readFile(join(reports, 'results.json'), 'utf8')) as { summary: { total: number; byOutcome: Record<string, number> }; rules: { id: string; level: string; outcome: string }[] };
    const notPassed = results.rules.filter((r) => r.level === 'MUST' && r.outcome !== 'PASS').map((r) => `${r.id}: ${r.outcome}`);
    expect(notPassed, result.stdout).toEqual([]);
    expect(results.rules.filter((r) => r.level === 'MUST').length).toBeGreaterThan(30);

    // The run's cleanup purged its jobs; their tasks end as the client stops them.
    for (const end = Date.now() + 30_000; ref.scheduler.runningTaskPids().length > 0 && Date.now() < end; ) await sleep(100);
    expect(ref.scheduler.runningTaskPids(), 'task processes still running').toEqual([]);
    const after = {
      jobs: (await api<{ ID: string }[]>('/v1/jobs?namespace=*')).map((j) => j.ID).sort(),
      allocDirs: (await readdir(ref.scheduler.allocRoot)).sort(),
      tokens: (await api<{ AccessorID: string }[]>('/v1/acl/tokens')).map((t) => t.AccessorID).sort(),
      policies: (await api<{ Name: string }[]>('/v1/acl/policies')).map((p) => p.Name).sort(),
      namespaces: (await api<{ Name: string }[]>('/v1/namespaces')).map((n) => n.Name).sort(),
    };
    expect(after).toEqual(before);
    // No process at all works in an allocation directory: not even one a task left in the background.
    expect(await processesUnder(ref.scheduler.allocRoot), 'processes running in the allocation directories').toEqual([]);
  }, 300_000);
});
