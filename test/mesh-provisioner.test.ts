import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsulAdminApi } from '../src/provision/consul-admin-api.ts';
import { ConsulMeshFixtures } from '../src/provision/mesh-fixtures.ts';
import { caRecordKey } from '../src/provision/ca-configuration-record.ts';
import { meshHttpFor } from '../src/provision/mesh-provisioner.ts';
import { runResultsSchema } from '../src/report/results-model.ts';
import { RULES } from '../src/rules/catalog.ts';
import { runCli } from './support/run-cli.ts';
import { serveInChild } from './support/serve-child.ts';

/**
 * Issue 16's "done means": a user of a real Consul agent gives only its address, a management token
 * and the dialect. The agent here is `stackproof serve --dialect hashicorp --no-control`: every
 * intention, ACL token and CA rotation must go through Consul's own API.
 */

interface Served {
  child: ChildProcess;
  url: string;
  token: string;
}

async function serveMeshWithoutControl(): Promise<Served> {
  const { child, targets } = await serveInChild(['--dialect', 'hashicorp', '--no-control']);
  return { child, url: targets.mesh!.url, token: targets.mesh!.token };
}

/** The CA configuration but for what a rotation replaces (the private key and root certificate), which no run can put back. */
async function caConfigurationApartFromKey(api: ConsulAdminApi): Promise<Record<string, unknown>> {
  const { Config, ...rest } = await api.caConfiguration();
  const { PrivateKey: _key, RootCert: _root, ...config } = Config;
  return { Provider: rest.Provider, Config: config, ForceWithoutCrossSigning: (rest as { ForceWithoutCrossSigning?: boolean }).ForceWithoutCrossSigning };
}

/** What a run could leave behind on the agent, as Consul's own listings show it. */
async function inventory(api: ConsulAdminApi): Promise<Record<string, unknown>> {
  const ns = await api.namespaces();
  const kv = await api.http.request({ method: 'GET', path: '/v1/kv/', query: { keys: '' } });
  return {
    ca: await caConfigurationApartFromKey(api),
    kv: kv.status === 200 ? (kv.json() as string[]).sort() : [],
    intentions: (await api.listConfigEntries('service-intentions')).sort(),
    serviceDefaults: (await api.listConfigEntries('service-defaults')).sort(),
    tokens: (await api.listTokens()).map((t) => t.description).sort(),
    policies: (await api.listPolicies()).map((p) => p.name).sort(),
    namespaces: ns.status === 200 ? (ns.json() as { Name: string }[]).map((n) => n.Name).sort() : [],
  };
}

describe('conform on a Consul-like agent with nothing but its address and a management token', () => {
  let served: Served;
  let api: ConsulAdminApi;
  beforeAll(async () => {
    served = await serveMeshWithoutControl();
    api = new ConsulAdminApi(meshHttpFor({ url: served.url, token: served.token, dialect: 'hashicorp' } as Parameters<typeof meshHttpFor>[0]));
  }, 40_000);
  afterAll(() => {
    served?.child.kill('SIGINT');
  });

  it('gives a verdict on every mesh MUST rule (namespace rules where the agent has namespaces), all PASS, and leaves nothing behind', async () => {
    const before = await inventory(api);
    const dir = mkdtempSync(join(tmpdir(), 'stackproof-reports-'));
    const env = { STACKPROOF_MESH_URL: served.url, STACKPROOF_MESH_TOKEN: served.token, STACKPROOF_MESH_DIALECT: 'hashicorp' };
    const res = await runCli(['conform', '--systems', 'mesh', '--reports-dir', dir, '--runs', '5', '--seed', '20261121'], { env, timeoutMs: 170_000 });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toMatch(/mesh fixtures: through Consul's API, under the run prefix sp-[0-9a-z]{10}/);
    const results = runResultsSchema.parse(JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')));
    const byId = new Map(results.rules.map((r) => [r.id, r]));
    for (const rule of RULES.filter((r) => r.system === 'mesh' && r.level === 'MUST')) {
      const r = byId.get(rule.id)!;
      if (rule.capability === 'namespaces' && r.outcome === 'SKIP') expect(r.message ?? '').toMatch(/namespaces/);
      else expect(r.outcome, `${rule.id}: ${r.message ?? ''}`).toBe('PASS');
    }
    expect(await inventory(api), 'the agent holds nothing the run made, and its CA configuration is as it was').toEqual(before);
    // The run's end says how many CA rotations it made (they cannot be undone), in the terminal and in results.json.
    expect(res.stdout).toMatch(/cleanup \(mesh\): CA rotations: [1-9]\d* made by run sp-[0-9a-z]{10}; a rotation cannot be undone/);
    expect(results.run.provisioning?.join('\n')).toMatch(/cleanup \(mesh\): CA rotations: [1-9]\d* made by run/);
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text.includes(served.token), `${file} holds no management token`).toBe(false);
      expect(text.match(/"SecretID"\s*:\s*"(?!<redacted>)[^"]+"/)?.[0], `${file} holds no ACL token the run made`).toBeUndefined();
    }
  }, 180_000);

  it('a killed run\'s CA change is recorded on the agent first (the first record wins), listed by `stackproof cleanup` and put back by `cleanup --prefix`', async () => {
    const before = await inventory(api);
    const ttl = String((before.ca as { Config: Record<string, unknown> }).Config.LeafCertTTL);
    const http = meshHttpFor({ url: served.url, token: served.token, dialect: 'hashicorp' } as Parameters<typeof meshHttpFor>[0]);
    // A run that shortens the leaves' lifetime, rotates the CA, and is killed: nothing of it restores anything.
    const killed = 'sp-0000kill34';
    const fixtures = new ConsulMeshFixtures(http, killed);
    await fixtures.leafCertTtl(65);
    await fixtures.rotate();
    await fixtures.rotate();
    const record = await api.http.request({ method: 'GET', path: `/v1/kv/${caRecordKey(killed)}`, query: { raw: '' } });
    expect(record.status, record.text).toBe(200);
    const recorded = JSON.parse(record.text) as { config: Record<string, unknown>; rotations: number };
    expect(recorded.config.LeafCertTTL, 'recorded before the first change').toBe(ttl);
    expect(recorded.rotations).toBe(2);
    expect(record.text, 'no private key is recorded').not.toMatch(/PRIVATE KEY|"PrivateKey":/);
    const env = { STACKPROOF_MESH_URL: served.url, STACKPROOF_MESH_TOKEN: served.token, STACKPROOF_MESH_DIALECT: 'hashicorp' };
    const listed = await runCli(['cleanup'], { env, timeoutMs: 60_000 });
    expect(listed.code, listed.stdout + listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`to put back: CA configuration of the agent back to LeafCertTTL ${ttl}`);
    expect(listed.stdout).toContain(`(run ${killed})`);
    expect((await caConfigurationApartFromKey(api)).Config, 'a listing changes nothing').toMatchObject({ LeafCertTTL: '65s' });

    // Another run meets the left record: its own copies it, since the killed run saw the CA first.
    const later = 'sp-0000late34';
    const second = new ConsulMeshFixtures(http, later);
    const restoreLater = await second.leafCertTtl(70);
    const copied = JSON.parse((await api.http.request({ method: 'GET', path: `/v1/kv/${caRecordKey(later)}`, query: { raw: '' } })).text) as { config: Record<string, unknown>; copiedFrom?: string };
    expect([copied.config.LeafCertTTL, copied.copiedFrom]).toEqual([ttl, killed]);
    await restoreLater();
    expect((await caConfigurationApartFromKey(api)).Config, 'the later run\'s rule put back what it found').toMatchObject({ LeafCertTTL: '65s' });

    const removed = await runCli(['cleanup', '--prefix', killed], { env, timeoutMs: 60_000 });
    expect(removed.code, removed.stdout + removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`put back: CA configuration of the agent back to LeafCertTTL ${ttl}`);
    expect(removed.stdout).toMatch(/CA rotations: 2 made/);
    const laterGone = await runCli(['cleanup', '--prefix', later], { env, timeoutMs: 60_000 });
    expect(laterGone.code, laterGone.stdout + laterGone.stderr).toBe(0);
    expect(await inventory(api), 'the CA configuration is as it was, and no record is left').toEqual(before);
  }, 120_000);
});
