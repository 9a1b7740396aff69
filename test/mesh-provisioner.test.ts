import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsulAdminApi } from '../src/provision/consul-admin-api.ts';
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

/** What a run could leave behind on the agent, as Consul's own listings show it. */
async function inventory(api: ConsulAdminApi): Promise<Record<string, string[]>> {
  const ns = await api.namespaces();
  return {
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
    expect(await inventory(api), 'the agent holds nothing the run made').toEqual(before);
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text.includes(served.token), `${file} holds no management token`).toBe(false);
      expect(text.match(/"SecretID"\s*:\s*"(?!<redacted>)[^"]+"/)?.[0], `${file} holds no ACL token the run made`).toBeUndefined();
    }
  }, 180_000);
});
