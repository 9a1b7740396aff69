import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DiffRun } from '../src/diff/diff-model.ts';
import { findConsul, startConsulAgent, type ConsulAgent } from './support/consul-agent.ts';
import { snapshot as consulSnapshot } from './support/consul-snapshot.ts';
import { nomadReleases, startNomadAgent, type NomadAgent } from './support/nomad-agent.ts';
import { NOMAD_METADATA_BATCH_MS, nomadSnapshot } from './support/nomad-snapshot.ts';
import { findAzurePlugin, findOpenBao, startOpenBao, type OpenBaoServer } from './support/openbao-server.ts';
import { runCli } from './support/run-cli.ts';

/**
 * Issue 53, part 8: the reference's fidelity measured, not claimed. `stackproof diff` sends the same
 * generated requests (a new seed each run, printed) to the embedded reference in the hashicorp
 * dialect and to each real product found here, and every difference it finds must be listed in
 * docs/reference-fidelity.md for that product and version; the product is left as it was found, and
 * each diff takes well under a minute.
 */
const DIFF_BOUND_MS = 60_000;
const reports = mkdtempSync(join(tmpdir(), 'stackproof-diff-real-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

/** Runs the diff as a user would (URL and token only) and checks what every product's diff must hold. */
async function diffAgainst(system: 'secrets' | 'mesh' | 'scheduler', url: string, token: string, version: string, tag: string): Promise<DiffRun> {
  const dir = join(reports, tag);
  const res = await runCli(['diff', '--a', 'reference', '--b', url, '--system', system, '--reports-dir', dir], { env: { STACKPROOF_DIFF_B_TOKEN: token }, timeoutMs: 180_000 });
  const run = JSON.parse(readFileSync(join(dir, `diff-${system}.json`), 'utf8')) as DiffRun;
  const c = run.counts;
  console.log(`diff-real: reference vs ${run.b.name}: ${c.requests} requests, ${c.alike} alike, ${c.listed} listed, ${c.unlisted} not listed; seed ${run.seed}; ${Math.round(run.durationMs / 1000)} s${run.unseen.length ? `; listed but not seen: lines ${run.unseen.map((u) => u.line).join(', ')}` : ''}`);
  // The summary names each unlisted difference and the seed that replays it.
  expect(res.code, `${res.stdout}\n${res.stderr}`).toBe(0);
  expect(run.b.product?.version, 'the product and version the listing was matched against').toBe(version);
  expect(c.unlisted).toBe(0);
  expect(c.unanswered, 'every request was answered by both').toBe(0);
  expect(c.requests).toBeGreaterThan(30);
  expect(run.durationMs, 'one diff takes well under a minute').toBeLessThan(DIFF_BOUND_MS);
  expect(run.cleanup.b.problems, 'everything the diff made on the product was removed').toEqual([]);
  expect(readFileSync(join(dir, `diff-${system}.md`), 'utf8') + JSON.stringify(run), 'no token of the product in the reports').not.toContain(token);
  return run;
}

const consul = findConsul();
if (!consul.path) console.log(`diff-real: Consul SKIPPED, no binary: ${consul.why}`);
describe.skipIf(!consul.path)(`the reference against a real Consul (${consul.why})`, () => {
  let agent: ConsulAgent | undefined;
  afterAll(async () => agent?.stop(), 20_000);

  it('differs only where docs/reference-fidelity.md lists it, and leaves the agent as it was', async () => {
    agent = await startConsulAgent(consul.path!);
    const before = await consulSnapshot(agent);
    const self = (await (await fetch(`${agent.url}/v1/agent/self`, { headers: { 'x-consul-token': agent.token } })).json()) as { Config: { Version: string } };
    await diffAgainst('mesh', agent.url, agent.token, self.Config.Version, 'consul');
    expect(await consulSnapshot(agent)).toEqual(before);
  }, 240_000);
});

describe.each(nomadReleases('diff-real'))('the reference against a real Nomad ($which)', ({ found }) => {
  let agent: NomadAgent | undefined;
  afterAll(async () => agent?.stop(), 30_000);

  it('differs only where docs/reference-fidelity.md lists it, and leaves the agent as it was', async () => {
    agent = await startNomadAgent(found.path!);
    const before = await nomadSnapshot(agent);
    await diffAgainst('scheduler', agent.url, agent.token, agent.version, `nomad-${agent.version}`);
    // The client hands metadata changes to the servers in batches: read the node after one has passed.
    await new Promise((r) => setTimeout(r, NOMAD_METADATA_BATCH_MS + 1_000));
    expect(await nomadSnapshot(agent)).toEqual(before);
  }, 300_000);
});

const bao = findOpenBao();
const plugin = findAzurePlugin();
if (!bao.path) console.log(`diff-real: OpenBao SKIPPED, no binary: ${bao.why}`);
else if (!plugin.path) console.log(`diff-real: OpenBao runs without the Azure plugin (${plugin.why}): its cloud-identity endpoints are not compared`);
describe.skipIf(!bao.path)(`the reference against a real OpenBao (${bao.why})`, () => {
  let server: OpenBaoServer | undefined;
  afterAll(async () => server?.stop(), 20_000);

  it('differs only where docs/reference-fidelity.md lists it, and leaves the server as it was', async () => {
    server = await startOpenBao(bao.path!, { ...(plugin.path ? { azurePlugin: plugin.path } : {}) });
    const before = await openBaoSnapshot(server);
    const run = await diffAgainst('secrets', server.url, server.token, server.version, 'openbao');
    if (plugin.path) expect(run.skipped, 'with the plugin in the catalog every endpoint is compared').toEqual([]);
    expect(await openBaoSnapshot(server)).toEqual(before);
  }, 240_000);
});

/** What a diff could leave on OpenBao, as its own listings show it (an empty LIST answers 404). */
async function openBaoSnapshot(server: OpenBaoServer): Promise<Record<string, string[]>> {
  const headers = { 'x-vault-token': server.token };
  const keysOf = async (path: string, method: 'LIST' | 'GET' = 'LIST'): Promise<string[]> => {
    const res = await fetch(`${server.url}/v1/${path}`, { method, headers });
    if (res.status === 404) return [];
    const body = (await res.json()) as { data?: { keys?: string[] } & Record<string, unknown> };
    if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}`);
    return (method === 'LIST' ? (body.data?.keys ?? []) : Object.keys(body.data ?? {})).sort();
  };
  const out: Record<string, string[]> = {
    namespaces: await keysOf('sys/namespaces'),
    mounts: await keysOf('sys/mounts', 'GET'),
    auth: await keysOf('sys/auth', 'GET'),
    policies: await keysOf('sys/policies/acl'),
    pluginCatalog: await keysOf('sys/plugins/catalog/auth'),
    entities: await keysOf('identity/entity/name'),
    groups: await keysOf('identity/group/name'),
  };
  for (const kind of ['key', 'client', 'assignment', 'scope', 'provider']) out[`oidc-${kind}`] = await keysOf(`identity/oidc/${kind}`);
  return out;
}
