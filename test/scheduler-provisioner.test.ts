import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SchedulerTarget } from '../src/config/schema.ts';
import { NomadAdminApi } from '../src/provision/nomad-admin-api.ts';
import { NomadSchedulerFixtures } from '../src/provision/nomad-scheduler-fixtures.ts';
import { eligibilityRecordKey, metadataKeyPrefix, provisionScheduler, schedulerHttpFor } from '../src/provision/scheduler-provisioner.ts';
import { runResultsSchema } from '../src/report/results-model.ts';
import { RULES } from '../src/rules/catalog.ts';
import { runCli } from './support/run-cli.ts';
import { processRunning } from './support/process-alive.ts';
import { serveInChild } from './support/serve-child.ts';

/**
 * Issue 17's "done means": a user of a real Nomad agent gives only its address, a management token
 * and the dialect. The agent here is `stackproof serve --dialect hashicorp --no-control`: every job,
 * event, ACL token and namespace must come from Nomad's own API.
 */

interface Served {
  child: ChildProcess;
  url: string;
  token: string;
}

const envFor = (s: Served) => ({ STACKPROOF_SCHEDULER_URL: s.url, STACKPROOF_SCHEDULER_TOKEN: s.token, STACKPROOF_SCHEDULER_DIALECT: 'hashicorp' });

/** What a run could leave behind on the agent, as Nomad's own listings show it. */
async function inventory(api: NomadAdminApi, nodeId: string): Promise<Record<string, unknown>> {
  const node = await api.node(nodeId);
  const meta = await api.metadata(nodeId);
  return {
    jobs: (await api.jobs('', '*')).map((j) => `${j.Namespace}/${j.ID}`).sort(),
    tokens: (await api.tokens()).map((t) => t.Name).sort(),
    policies: (await api.policies()).map((p) => p.Name).sort(),
    namespaces: (await api.namespaces()).map((n) => n.Name).sort(),
    eligibility: node.SchedulingEligibility,
    metadata: Object.entries(meta.Dynamic).filter(([, v]) => v !== null).map(([k]) => k).sort(),
  };
}

/** The allocation directories of the agent's node: its temporary directory holds one `stackproof-allocs-*`. */
function allocationDirs(tmp: string): string[] {
  const root = readdirSync(tmp).find((n) => n.startsWith('stackproof-allocs-'));
  return root ? readdirSync(join(tmp, root)).sort() : [];
}

/** The running processes whose working directory is under `dir`: the agent's tasks (from /proc). */
function processesUnder(dir: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n)).map(Number)) {
    let cwd = '';
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      continue;
    }
    if (cwd.startsWith(dir) && processRunning(pid)) found.push(pid);
  }
  return found;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('conform on a Nomad-like agent with nothing but its address and a management token', () => {
  let served: Served;
  let api: NomadAdminApi;
  let nodeId: string;
  /** The agent's temporary directory, where its node keeps the allocations' directories. */
  const agentTmp = mkdtempSync(join(tmpdir(), 'stackproof-agent-'));
  beforeAll(async () => {
    const { child, targets } = await serveInChild(['--dialect', 'hashicorp', '--no-control'], { env: { TMPDIR: agentTmp } });
    served = { child, url: targets.scheduler!.url, token: targets.scheduler!.token };
    api = new NomadAdminApi(schedulerHttpFor({ url: served.url, token: served.token, dialect: 'hashicorp' } as SchedulerTarget));
    nodeId = (await api.agentNodeId()) ?? (await api.nodes())[0]!.ID;
  }, 40_000);
  afterAll(() => {
    served?.child.kill('SIGINT');
    rmSync(agentTmp, { recursive: true, force: true });
  });

  it('gives a verdict on every scheduler MUST rule, all PASS, and leaves nothing behind', async () => {
    const before = await inventory(api, nodeId);
    const dirsBefore = allocationDirs(agentTmp);
    const dir = mkdtempSync(join(tmpdir(), 'stackproof-reports-'));
    const res = await runCli(['conform', '--systems', 'scheduler', '--reports-dir', dir, '--runs', '5', '--seed', '20261121'], { env: envFor(served), timeoutMs: 290_000 });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toMatch(/scheduler fixtures: through Nomad's API, under the run prefix sp-[0-9a-z]{10}/);
    expect(res.stdout).toMatch(/cleanup \(scheduler\): removed \d+ thing\(s\) made under sp-[0-9a-z]{10}\n/);
    const results = runResultsSchema.parse(JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')));
    expect(results.run.provisioning?.join('\n')).toMatch(/scheduler fixtures: through Nomad's API[\s\S]*cleanup \(scheduler\): removed/);
    const byId = new Map(results.rules.map((r) => [r.id, r]));
    for (const rule of RULES.filter((r) => r.system === 'scheduler' && r.level === 'MUST')) {
      const r = byId.get(rule.id)!;
      expect(r.outcome, `${rule.id}: ${r.message ?? ''}`).toBe('PASS');
    }
    expect(await inventory(api, nodeId), 'the agent holds nothing the run made').toEqual(before);
    // Nor does its node: no task of the run still runs (the purged jobs' tasks end as the node stops
    // them), and no allocation directory of the run is left. scheduler.gc.all collects every stopped
    // allocation of the node, the agent's own seed ones too, so some may go; none may be added.
    for (const end = Date.now() + 30_000; processesUnder(agentTmp).length > 0 && Date.now() < end; ) await sleep(100);
    expect(processesUnder(agentTmp), 'task processes still running on the node').toEqual([]);
    expect(allocationDirs(agentTmp).filter((d) => !dirsBefore.includes(d)), 'allocation directories the run left').toEqual([]);
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text.includes(served.token), `${file} holds no management token`).toBe(false);
      expect(text.match(/"SecretID"\s*:\s*"(?!<redacted>)[^"]+"/)?.[0], `${file} holds no ACL token the run made`).toBeUndefined();
    }
  }, 300_000);

  it('`stackproof cleanup` lists a killed run\'s jobs, tokens, policies, namespaces, metadata keys and eligibility change, and removes or reverts them by prefix', async () => {
    const before = await inventory(api, nodeId);
    const prefix = 'sp-0000test17';
    const fixtures = new NomadSchedulerFixtures(schedulerHttpFor({ url: served.url, token: served.token, dialect: 'hashicorp' } as SchedulerTarget), { nodeId, runPrefix: prefix });
    await fixtures.namespace(`${prefix}-ns`);
    await fixtures.registerJob(`${prefix}-event`, `${prefix}-ns`);
    await fixtures.allocation(`${prefix}-alloc`, [{ name: 'app', stdout: 'hello\n', holdMs: 60_000 }], 'running');
    const token = await fixtures.token(`${prefix}-reader`, { nodeRead: true });
    expect(token.secret).toMatch(/\S/);
    await fixtures.policy(`${prefix}-policy`, {});
    const key = `${metadataKeyPrefix(prefix)}left`;
    expect((await api.http.request({ method: 'POST', path: '/v1/client/metadata', query: { node_id: nodeId }, json: { Meta: { [key]: 'x' } } })).status).toBe(200);
    // The run is killed with the node made ineligible: it recorded the eligibility it found first.
    expect(before.eligibility).toBe('eligible');
    await fixtures.setEligibility(false);
    expect((await api.metadata(nodeId)).Dynamic[eligibilityRecordKey(prefix)]).toBe('eligible');
    await fixtures.setEligibility(true);
    await fixtures.setEligibility(false);
    expect((await api.metadata(nodeId)).Dynamic[eligibilityRecordKey(prefix)], 'a later toggle keeps the first record').toBe('eligible');
    // Names without a run prefix are refused: cleanup could never find them.
    await expect(fixtures.registerJob('not-a-run-job')).rejects.toThrow(/not under the run prefix/);

    const listed = await runCli(['cleanup'], { env: envFor(served), timeoutMs: 60_000 });
    expect(listed.code, listed.stdout + listed.stderr).toBe(0);
    // The eligibility change is a change to put back, named apart; the counts add up.
    expect(listed.stdout).toMatch(/scheduler \S+: 9 thing\(s\) left behind by 1 run\(s\):\n  sp-0000test17 .* 9 thing\(s\)\n  to put back: .*eligib/);
    expect((await api.node(nodeId)).SchedulingEligibility, 'a listing changes nothing').toBe('ineligible');
    expect(listed.stdout).toContain(prefix);
    expect(listed.stdout).toMatch(/nothing was removed/);
    expect((await inventory(api, nodeId)).namespaces).toContain(`${prefix}-ns`);

    const removed = await runCli(['cleanup', '--prefix', prefix], { env: envFor(served), timeoutMs: 60_000 });
    expect(removed.code, removed.stdout + removed.stderr).toBe(0);
    // 9: the two jobs, the token, two policies, the namespace, two metadata keys, and the running
    // allocation's directory, collected once its purged job stopped; and the eligibility put back.
    expect(removed.stdout).toMatch(/scheduler \S+: 9 thing\(s\) removed by 1 run\(s\):\n  sp-0000test17 .* 9 thing\(s\)\n  put back: .*eligib/);
    expect(await inventory(api, nodeId)).toEqual(before);
    expect(removed.stdout + listed.stdout).not.toContain(token.secret);
  }, 120_000);

  it('`load --scenario scheduler-event-fanout` runs on the same profile: every subscriber gets every registration once', async () => {
    const before = await inventory(api, nodeId);
    const dir = mkdtempSync(join(tmpdir(), 'stackproof-load-'));
    const res = await runCli(['load', '--scenario', 'scheduler-event-fanout', '--duration', '2s', '--subscribers', '3', '--event-rate', '20', '--reports-dir', dir], { env: envFor(served), timeoutMs: 90_000 });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const m = /(\d+) events published, (\d+) delivered \([^;]*; per subscriber (\d+) each\), missed 0, duplicated 0/.exec(res.stdout);
    expect(m, res.stdout).not.toBeNull();
    const [published, delivered, each] = [Number(m![1]), Number(m![2]), Number(m![3])];
    expect(published).toBeGreaterThanOrEqual(30);
    expect(each).toBe(published);
    expect(delivered).toBe(published * 3);
    expect(res.stdout).toMatch(/cleanup \(scheduler\): removed \d+ thing\(s\)/);
    expect(await inventory(api, nodeId), 'the fan-out purged its jobs').toEqual(before);
  }, 100_000);
});

/** A stand-in for the few answers detection reads, shaped like Nomad's, with what varies between agents as parameters. */
async function fakeAgent(answers: { tokenSelf: [number, string]; rawExec?: { Detected: boolean; Healthy: boolean }; clientNodeId?: string; nodes?: string[] }): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const json = (v: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(v));
    if (path === '/v1/acl/token/self') return void res.writeHead(answers.tokenSelf[0]).end(answers.tokenSelf[1]);
    if (path === '/v1/agent/self') return json({ config: {}, member: {}, stats: answers.clientNodeId ? { client: { node_id: answers.clientNodeId } } : {} });
    if (path === '/v1/nodes') return json((answers.nodes ?? []).map((ID) => ({ ID })));
    if (path.startsWith('/v1/node/')) return json({ ID: path.split('/')[3], SchedulingEligibility: 'eligible', Drivers: answers.rawExec ? { raw_exec: answers.rawExec } : { exec: { Detected: true, Healthy: true } } });
    if (path === '/v1/namespaces') return json([{ Name: 'default' }]);
    res.writeHead(404).end('not found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('what the scheduler provisioner finds out about an agent, and says', () => {
  const target = (url: string) => ({ url, token: 'mgmt', dialect: 'hashicorp', capabilities: { schedulerFixtures: false } }) as SchedulerTarget;
  const healthy = { Detected: true, Healthy: true };

  it('ACLs disabled: fixtures through Nomad\'s API, the ACL rules without limited tokens', async () => {
    const { url, server } = await fakeAgent({ tokenSelf: [400, 'ACL support disabled'], rawExec: healthy, clientNodeId: 'n-1' });
    try {
      const p = await provisionScheduler(target(url), 'sp-0000detect1');
      expect(p.provisioned.provisioner).toBe('upstream');
      expect(p.provisioned.nodeId).toBe('n-1');
      expect(p.provisioned.missing.acl).toMatch(/ACLs are disabled .*-acl-enabled/);
      expect(p.target.capabilities.schedulerFixtures).toBe(true);
    } finally {
      server.close();
    }
  });

  it('a client token: no fixtures, saying a management token is needed', async () => {
    const { url, server } = await fakeAgent({ tokenSelf: [200, JSON.stringify({ AccessorID: 'a', Type: 'client', Policies: ['x'] })], rawExec: healthy, clientNodeId: 'n-1' });
    try {
      const p = await provisionScheduler(target(url), 'sp-0000detect2');
      expect(p.provisioned.provisioner).toBe('none');
      expect(p.provisioned.missing.management).toMatch(/client token/);
      expect(p.provisioned.missing.schedulerFixtures).toMatch(/management token/);
    } finally {
      server.close();
    }
  });

  it('no raw_exec on the node: no fixtures, saying how to enable it; a server-only agent with one node uses that node', async () => {
    const { url, server } = await fakeAgent({ tokenSelf: [200, JSON.stringify({ Type: 'management' })], nodes: ['only-node'] });
    try {
      const p = await provisionScheduler(target(url), 'sp-0000detect3');
      expect(p.provisioned.provisioner).toBe('none');
      expect(p.provisioned.missing.schedulerFixtures).toMatch(/raw_exec driver is not listed on node only-node.*plugin "raw_exec"/);
    } finally {
      server.close();
    }
  });

  it('several nodes and no local client: asks for nodeId; changeEligibility and gcAll false: those rules SKIP', async () => {
    const { url, server } = await fakeAgent({ tokenSelf: [200, JSON.stringify({ Type: 'management' })], rawExec: healthy, nodes: ['a', 'b'] });
    try {
      const p = await provisionScheduler({ ...target(url), changeEligibility: false, gcAll: false }, 'sp-0000detect4');
      expect(p.provisioned.missing.schedulerFixtures).toMatch(/2 nodes: name the node .*STACKPROOF_SCHEDULER_NODE_ID/);
      expect(p.provisioned.missing.eligibility).toMatch(/changeEligibility: false/);
      expect(p.provisioned.missing.gcAll).toMatch(/gcAll: false/);
      const named = await provisionScheduler({ ...target(url), nodeId: 'b' }, 'sp-0000detect4');
      expect(named.provisioned).toMatchObject({ provisioner: 'upstream', nodeId: 'b' });
    } finally {
      server.close();
    }
  });
});
