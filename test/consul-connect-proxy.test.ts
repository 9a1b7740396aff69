import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findConsul, freePort } from './support/consul-agent.ts';
import { BIN, ROOT } from './support/run-cli.ts';

/**
 * Issue 40, part 3: Consul's own tooling against the embedded reference. `stackproof serve --dialect
 * hashicorp` runs as a user starts it; Consul's CLI (../shared/bin/consul, 1.8.7) makes the
 * intentions and rotates the CA, and two of Consul's built-in Connect proxies carry traffic between
 * two small HTTP services: "db" behind a proxy that registers itself, and "web" whose proxy finds db
 * through the catalog (`-upstream db:<port>` asks GET /v1/health/connect/db) and dials it over
 * mutual TLS with the leaves and roots it keeps by blocking queries.
 */
const consul = findConsul();
if (!consul.path) console.log(`consul-connect-proxy: SKIPPED, no real Consul CLI to run: ${consul.why}`);

const run = promisify(execFile);
const BOUND_MS = 30_000;

interface Profile {
  targets: { mesh: { url: string; token: string } };
}

/** Polls `probe` until it answers true, up to the bound; the error says what was awaited. */
async function until(what: string, probe: () => Promise<boolean>, boundMs = BOUND_MS): Promise<void> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`not within ${boundMs / 1000} s: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One GET through the web proxy's upstream listener: the body, or the error that ended it. */
function throughUpstream(port: number): Promise<{ ok: true; body: string } | { ok: false; error: string }> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent: false, timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve(res.statusCode === 200 ? { ok: true, body } : { ok: false, error: `status ${res.statusCode}` }));
      res.on('error', (e) => resolve({ ok: false, error: e.message }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (e) => resolve({ ok: false, error: e.message }));
    req.end();
  });
}

function app(name: string): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    let n = 0;
    const server = createServer((req, res) => res.end(`${name} answers request ${++n}`));
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port }));
  });
}

describe.skipIf(!consul.path)(`Consul's CLI and built-in Connect proxy against serve --dialect hashicorp (${consul.why})`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'stackproof-connect-proxy-'));
  const children: { name: string; child: ChildProcess; output: () => string }[] = [];
  let mesh: Profile['targets']['mesh'];
  let env: NodeJS.ProcessEnv;
  const apps: Server[] = [];
  const ports = { dbPublic: 0, webPublic: 0, upstream: 0 };

  const start = (name: string, command: string, args: string[]) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d) => (output = (output + d).slice(-20_000)));
    child.stderr!.on('data', (d) => (output = (output + d).slice(-20_000)));
    const entry = { name, child, output: () => output };
    children.push(entry);
    return entry;
  };
  const logs = () => children.map((c) => `--- ${c.name}\n${c.output()}`).join('\n');
  const consulCli = async (...args: string[]) => (await run(consul.path!, args, { env, timeout: BOUND_MS })).stdout;
  const api = async (path: string) => {
    const res = await fetch(`${mesh.url}${path}`, { headers: { 'X-Consul-Token': mesh.token } });
    return res.json() as Promise<unknown>;
  };
  const passingInstances = async (service: string) => ((await api(`/v1/health/connect/${service}?passing=1`)) as unknown[]).length;
  const activeRoot = async () => {
    const roots = (await api('/v1/agent/connect/ca/roots')) as { ActiveRootID: string; Roots: { ID: string; RootCert: string; Active: boolean }[] };
    return roots.Roots.find((r) => r.ID === roots.ActiveRootID)!;
  };
  /** The certificate a proxy's public listener presents, read with a leaf of "web" as the client's. */
  const servedLeaf = async (port: number): Promise<X509Certificate> => {
    const leaf = (await api('/v1/agent/connect/ca/leaf/web')) as { CertPEM: string; PrivateKeyPEM: string };
    const roots = (await api('/v1/agent/connect/ca/roots')) as { Roots: { RootCert: string }[] };
    return new Promise((resolve, reject) => {
      const socket = tlsConnect({ host: '127.0.0.1', port, cert: leaf.CertPEM, key: leaf.PrivateKeyPEM, ca: roots.Roots.map((r) => r.RootCert), rejectUnauthorized: false, servername: 'db' }, () => {
        const peer = socket.getPeerX509Certificate();
        socket.destroy();
        if (peer) resolve(peer);
        else reject(new Error('no peer certificate'));
      });
      socket.on('error', reject);
    });
  };

  beforeAll(async () => {
    const profile = join(dir, 'profile.json');
    env = { ...process.env };
    const serve = start('stackproof serve', process.execPath, [BIN, 'serve', '--dialect', 'hashicorp', '--no-control', '--profile-out', profile]);
    await until('stackproof serve writes its profile', async () => {
      try {
        mesh = (JSON.parse(readFileSync(profile, 'utf8')) as Profile).targets.mesh;
        return true;
      } catch {
        return serve.child.exitCode === null ? false : Promise.reject(new Error(logs()));
      }
    }, 60_000);
    env = { ...process.env, CONSUL_HTTP_ADDR: mesh.url, CONSUL_HTTP_TOKEN: mesh.token };

    const db = await app('db');
    const web = await app('web');
    apps.push(db.server, web.server);
    [ports.dbPublic, ports.webPublic, ports.upstream] = await Promise.all([freePort(), freePort(), freePort()]);
    start('db proxy', consul.path!, ['connect', 'proxy', '-service', 'db', '-service-addr', `127.0.0.1:${db.port}`, '-listen', `127.0.0.1:${ports.dbPublic}`, '-register']);
    start('web proxy', consul.path!, ['connect', 'proxy', '-service', 'web', '-service-addr', `127.0.0.1:${web.port}`, '-listen', `127.0.0.1:${ports.webPublic}`, '-register', '-upstream', `db:${ports.upstream}`]);
    try {
      await until('both proxies registered themselves with a passing check', async () => (await passingInstances('db')) === 1 && (await passingInstances('web')) === 1);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n${logs()}`);
    }
  }, 120_000);

  afterAll(async () => {
    for (const c of [...children].reverse()) {
      if (c.child.exitCode !== null || c.child.signalCode !== null) continue;
      const exited = new Promise((r) => c.child.once('exit', r));
      c.child.kill('SIGINT');
      const timer = setTimeout(() => c.child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    for (const s of apps) s.close();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('carries traffic over mutual TLS where an intention allows it and refuses it where one denies it', async () => {
    expect(await consulCli('intention', 'create', '-allow', 'web', 'db')).toContain('Created: web => db (allow)');
    let last: Awaited<ReturnType<typeof throughUpstream>> | undefined;
    await until('a request through the web proxy reaches db', async () => (last = await throughUpstream(ports.upstream)).ok).catch((err) => {
      throw new Error(`${(err as Error).message}: ${JSON.stringify(last)}\n${logs()}`);
    });
    expect(last).toMatchObject({ ok: true, body: expect.stringMatching(/^db answers request \d+$/) });
    // The db proxy serves a leaf for db, signed by the active root, with the SPIFFE ID of db.
    const served = await servedLeaf(ports.dbPublic);
    expect(served.subjectAltName).toMatch(/URI:spiffe:\/\/[^/]+\.consul\/ns\/default\/dc\/dc1\/svc\/db/);
    expect(served.verify(new X509Certificate((await activeRoot()).RootCert).publicKey)).toBe(true);

    expect(await consulCli('intention', 'delete', 'web', 'db')).toContain('Intention deleted');
    expect(await consulCli('intention', 'create', '-deny', 'web', 'db')).toContain('Created: web => db (deny)');
    const denied = await throughUpstream(ports.upstream);
    expect(denied.ok, JSON.stringify(denied)).toBe(false);
    expect(await consulCli('intention', 'check', 'web', 'db').catch((e: { stdout: string }) => e.stdout)).toContain('Denied');

    expect(await consulCli('intention', 'delete', 'web', 'db')).toContain('Intention deleted');
    expect(await consulCli('intention', 'create', '-allow', 'web', 'db')).toContain('Created: web => db (allow)');
    await until('traffic flows again once the intention allows it', async () => (await throughUpstream(ports.upstream)).ok);
  }, 120_000);

  it('keeps traffic flowing through a CA rotation made with the CLI, and both proxies take leaves of the new root', async () => {
    const before = await activeRoot();
    let stop = false;
    const outcomes: Awaited<ReturnType<typeof throughUpstream>>[] = [];
    const traffic = (async () => {
      while (!stop) {
        outcomes.push(await throughUpstream(ports.upstream));
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    await new Promise((r) => setTimeout(r, 500));

    const config = JSON.parse(await consulCli('connect', 'ca', 'get-config')) as { Provider: string; Config: Record<string, unknown> };
    const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'sec1' }).toString();
    const file = join(dir, 'ca.json');
    writeFileSync(file, JSON.stringify({ Provider: config.Provider, Config: { ...config.Config, PrivateKey: key, RootCert: '' } }));
    expect(await consulCli('connect', 'ca', 'set-config', `-config-file=${file}`)).toContain('Configuration updated!');
    const after = await activeRoot();
    expect(after.ID).not.toBe(before.ID);
    const newRoot = new X509Certificate(after.RootCert).publicKey;

    // Each proxy holds its leaf by a blocking query; the rotation wakes it, and its listener serves the new leaf.
    for (const [name, port] of [['db', ports.dbPublic], ['web', ports.webPublic]] as const) {
      await until(`the ${name} proxy serves a leaf of the new root`, async () => (await servedLeaf(port)).verify(newRoot)).catch((err) => {
        throw new Error(`${(err as Error).message}\n${logs()}`);
      });
    }
    await new Promise((r) => setTimeout(r, 500));
    stop = true;
    await traffic;
    const failed = outcomes.filter((o) => !o.ok);
    expect(outcomes.length).toBeGreaterThan(10);
    expect(failed, `${failed.length} of ${outcomes.length} requests failed during the rotation`).toEqual([]);
    expect(await throughUpstream(ports.upstream)).toMatchObject({ ok: true });
  }, 120_000);

  it('a stopped proxy deregisters itself: the catalog no longer offers it', async () => {
    const dbProxy = children.find((c) => c.name === 'db proxy')!;
    const exited = new Promise((r) => dbProxy.child.once('exit', r));
    dbProxy.child.kill('SIGINT');
    await exited;
    expect(await api('/v1/health/connect/db')).toEqual([]);
    expect(await api('/v1/catalog/service/db-proxy')).toEqual([]);
    const denied = await throughUpstream(ports.upstream);
    expect(denied.ok).toBe(false);
  }, 60_000);
});
