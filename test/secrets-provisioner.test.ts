import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretsApiFor } from '../src/provision/secrets-admin-client.ts';
import { VaultAdminApi } from '../src/provision/vault-admin-api.ts';
import type { SecretsApi } from '../src/client/secrets-api.ts';
import { runResultsSchema } from '../src/report/results-model.ts';
import { RULES } from '../src/rules/catalog.ts';
import { BIN, ROOT, runCli } from './support/run-cli.ts';
import { serveInChild } from './support/serve-child.ts';

/**
 * Issue 15's "done means": a user of a real Vault gives only the address, a root token and the
 * dialect. Here the real Vault is `stackproof serve --dialect hashicorp --no-control` in a child
 * process: no control listener, so every fixture must come through Vault's own admin API.
 */

interface Served {
  child: ChildProcess;
  url: string;
  token: string;
}

async function serveHashicorpWithoutControl(behavior: 'spec' | 'upstream' = 'spec'): Promise<Served> {
  const { child, targets } = await serveInChild(['--dialect', 'hashicorp', '--reference-behavior', behavior, '--no-control']);
  return { child, url: targets.secrets!.url, token: targets.secrets!.token };
}

/** What a run could leave behind, as Vault's own listings show it. */
async function inventory(api: SecretsApi): Promise<Record<string, string[]>> {
  const admin = new VaultAdminApi(api);
  const list = async (path: string) => (await admin.listKeys(path)).sort();
  return {
    mounts: Object.keys(await admin.mounts('mounts')).sort(),
    auth: Object.keys(await admin.mounts('auth')).sort(),
    policies: await list('sys/policies/acl'),
    entities: await list('identity/entity/name'),
    groups: await list('identity/group/name'),
    namespaces: await list('sys/namespaces'),
    keys: await list('identity/oidc/key'),
    clients: await list('identity/oidc/client'),
    providers: await list('identity/oidc/provider'),
    scopes: await list('identity/oidc/scope'),
    assignments: await list('identity/oidc/assignment'),
    'secret/': await list('secret/'),
    // Where secret/ is version 2 (as `vault server -dev` mounts it), what a run wrote shows here.
    'secret/metadata/': await list('secret/metadata/'),
  };
}

const envFor = (s: Served) => ({ STACKPROOF_SECRETS_URL: s.url, STACKPROOF_SECRETS_TOKEN: s.token, STACKPROOF_SECRETS_DIALECT: 'hashicorp' });

describe('conform on a Vault-like target with nothing but its address and a root token', () => {
  let served: Served;
  let api: SecretsApi;
  beforeAll(async () => {
    served = await serveHashicorpWithoutControl();
    api = secretsApiFor({ url: served.url, token: served.token, dialect: 'hashicorp' } as Parameters<typeof secretsApiFor>[0]);
  }, 40_000);
  afterAll(async () => {
    served?.child.kill('SIGINT');
  });

  it('gives a verdict on every secrets MUST rule but those needing the proxy or the cloud simulator, all PASS, and leaves nothing behind', async () => {
    const before = await inventory(api);
    const dir = mkdtempSync(join(tmpdir(), 'stackproof-reports-'));
    const res = await runCli(['conform', '--systems', 'secrets', '--reports-dir', dir, '--runs', '5', '--seed', '20261121'], { env: envFor(served), timeoutMs: 170_000 });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toMatch(/secrets fixtures: through Vault's admin API, under the run prefix sp-[0-9a-z]{10}/);
    const results = runResultsSchema.parse(JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')));
    const must = RULES.filter((r) => r.system === 'secrets' && r.level === 'MUST');
    const byId = new Map(results.rules.map((r) => [r.id, r]));
    const needsSimulatorOrProxy = (id: string) => ['cloudIdentity', 'requestHeaderProxy'].includes(RULES.find((r) => r.id === id)!.capability ?? '');
    for (const rule of must) {
      const r = byId.get(rule.id);
      expect(r, `${rule.id} was run`).toBeDefined();
      if (needsSimulatorOrProxy(rule.id)) {
        expect(r!.outcome, rule.id).toBe('SKIP');
        expect(r!.message ?? '', `${rule.id} says what is missing`).toMatch(rule.capability === 'cloudIdentity' ? /simulator/ : /proxy|requestHeaderProxy/);
      } else {
        expect(r!.outcome, `${rule.id}: ${r!.message ?? ''}`).toBe('PASS');
      }
    }
    expect(must.filter((r) => !needsSimulatorOrProxy(r.id)).length, 'most MUST rules get a verdict').toBeGreaterThan(70);
    expect(res.stdout).toMatch(/cleanup \(secrets\): removed \d+ thing\(s\) made under sp-[0-9a-z]{10}\n/);
    expect(await inventory(api), 'the target holds nothing the run made').toEqual(before);
    expect(results.run.provisioning?.join('\n')).toMatch(/made a userpass auth method[\s\S]*cleanup \(secrets\): removed/);
    // Entity tokens, the root token and userpass passwords went through the exchanges: none is in a report.
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text.includes(served.token), `${file} holds no root token`).toBe(false);
      expect(text.match(/hvs\.[A-Za-z0-9_-]{10,}/)?.[0], `${file} holds no client token`).toBeUndefined();
      expect(text.match(/"password"\s*:\s*"(?!<redacted>)[^"]+"/)?.[0], `${file} holds no password`).toBeUndefined();
    }
  }, 180_000);

  it('cleans up after Ctrl-C in the middle of a run, and exits 130', async () => {
    const before = await inventory(api);
    const env: NodeJS.ProcessEnv = { ...process.env, ...envFor(served) };
    for (const k of Object.keys(env)) if (k.startsWith('VITEST') || k === 'TEST' || k === 'NODE_ENV') delete env[k];
    const child = spawn(process.execPath, [BIN, 'conform', '--systems', 'secrets', '--reports-dir', mkdtempSync(join(tmpdir(), 'stackproof-reports-')), '--runs', '5'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // Interrupt once some rules have run (so entities, mounts and OIDC resources exist).
    const deadline = Date.now() + 60_000;
    while ((out.match(/^ {2}(PASS|FAIL|SKIP|ERROR) +\S+ \(/gm)?.length ?? 0) < 15 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGINT');
    const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 60_000))]);
    if (code === 'hung') child.kill('SIGKILL');
    expect(code, out).toBe(130);
    expect(out).toMatch(/SIGINT: stopping the suites and removing what the run made/);
    expect(out).toMatch(/cleanup \(secrets\): removed \d+ thing\(s\)/);
    expect(await inventory(api), 'the target holds nothing the interrupted run made').toEqual(before);
  }, 150_000);

  it('`stackproof cleanup` lists leftovers of a killed run without removing them, and removes them by prefix', async () => {
    const before = await inventory(api);
    const admin = new VaultAdminApi(api);
    const prefix = 'sp-0000test01';
    await admin.enableSecrets(`${prefix}-kv1`, 'kv', { version: '1' });
    await admin.enableAuth(`${prefix}-up`, 'userpass');
    await admin.createEntity(`${prefix}-entity-1`, {});
    await admin.writeGroup(`${prefix}-g-1`, []);
    await admin.createOidcKey(`${prefix}-key`);
    expect((await api.write(`identity/oidc/scope/${prefix}-scope-1`, { description: 'left behind' })).status).toBeLessThan(300);
    expect((await api.write(`secret/${prefix}-kv-1/a/b`, { x: '1' })).status).toBeLessThan(300);
    // The version-2 path a rule probes secret/ with, on this version-1 mount: a key under data/.
    expect((await api.write(`secret/data/${prefix}-core/mounted`, { data: { probe: 'mounted' } })).status).toBeLessThan(300);
    // Somebody else's things, without a run prefix: never touched.
    expect((await api.write('identity/oidc/scope/not-a-run-scope', { description: 'not ours' })).status).toBeLessThan(300);

    const listed = await runCli(['cleanup'], { env: envFor(served), timeoutMs: 60_000 });
    expect(listed.code, listed.stdout + listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/8 thing\(s\) left behind by 1 run\(s\):/);
    expect(listed.stdout).toContain(prefix);
    expect(listed.stdout).toMatch(/nothing was removed/);
    expect((await inventory(api)).mounts).toContain(`${prefix}-kv1/`);

    const removed = await runCli(['cleanup', '--prefix', prefix], { env: envFor(served), timeoutMs: 60_000 });
    expect(removed.code, removed.stdout + removed.stderr).toBe(0);
    const after = await inventory(api);
    expect(after.scopes).toContain('not-a-run-scope');
    await api.delete('identity/oidc/scope/not-a-run-scope');
    expect(await inventory(api)).toEqual(before);

    const bad = await runCli(['cleanup', '--prefix', 'secret'], { env: envFor(served) });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/a run prefix looks like sp-/);
  }, 150_000);
});

describe('conform on a target that acts like `vault server -dev` (upstream behaviour, no namespaces), with --expect vault', () => {
  let served: Served;
  beforeAll(async () => {
    served = await serveHashicorpWithoutControl('upstream');
  }, 40_000);
  afterAll(async () => {
    served?.child.kill('SIGINT');
  });

  it('passes with the listed deviations EXPECTED, says why the namespace rules got no verdict, and leaves nothing behind', async () => {
    const api = secretsApiFor({ url: served.url, token: served.token, dialect: 'hashicorp' } as Parameters<typeof secretsApiFor>[0]);
    const before = await inventory(api);
    const dir = mkdtempSync(join(tmpdir(), 'stackproof-reports-'));
    const res = await runCli(['conform', '--systems', 'secrets', '--expect', 'vault', '--reports-dir', dir, '--runs', '5', '--seed', '20261121'], { env: envFor(served), timeoutMs: 170_000 });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const results = runResultsSchema.parse(JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')));
    expect(results.rules.filter((r) => r.outcome === 'FAIL' || r.outcome === 'ERROR').map((r) => r.id)).toEqual([]);
    expect(results.rules.filter((r) => r.outcome === 'EXPECTED').length).toBeGreaterThan(5);
    for (const id of ['secrets.ns.isolation', 'secrets.ns.header-path-equivalence']) {
      expect(results.rules.find((r) => r.id === id)?.message ?? '').toMatch(/sys\/namespaces answered 404/);
    }
    const counted = RULES.filter((r) => r.system === 'secrets' && r.level !== 'UPSTREAM').length;
    expect(res.stdout).toMatch(new RegExp(`no verdict for \\d+ of ${counted} rules`));
    expect(await inventory(api), 'the target holds nothing the run made').toEqual(before);
  }, 180_000);
});
