import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runInitCommand } from '../src/cli/commands/init.ts';
import { detectTarget } from '../src/config/detect-target.ts';
import { loadConfig } from '../src/config/load-config.ts';
import { startReference, type RunningReference } from '../src/reference/reference.ts';

const TOKENS = { STACKPROOF_SECRETS_TOKEN: 'tok-secrets-8f1e', STACKPROOF_MESH_TOKEN: 'tok-mesh-77a2', STACKPROOF_SCHEDULER_TOKEN: 'tok-scheduler-c0d3' };
/** The token variables of the named systems only (a token alone would make a target without a URL). */
const tokensFor = (...systems: string[]) => Object.fromEntries(Object.entries(TOKENS).filter(([k]) => systems.some((s) => k.includes(s.toUpperCase()))));

let dir: string;
let stderr: string;
const realWrite = process.stderr.write;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'stackproof-init-'));
  stderr = '';
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  }) as typeof process.stderr.write;
});
afterEach(() => {
  process.stderr.write = realWrite;
});

/** Runs init into a fresh file and returns its text. */
async function init(flags: Parameters<typeof runInitCommand>[0], exitCode = 0): Promise<{ file: string; text: string }> {
  const file = flags.out ?? join(dir, 'stackproof.config.json');
  expect(await runInitCommand({ ...flags, out: file })).toBe(exitCode);
  return { file, text: readFileSync(file, 'utf8') };
}

/** The comment lines just above a key inside the named target's block. */
function commentAbove(text: string, system: string, key: string): string {
  const block = text.slice(text.indexOf(`"${system}": {`));
  const lines = block.split('\n');
  const at = lines.findIndex((l) => l.trimStart().startsWith(`"${key}":`));
  const comments: string[] = [];
  for (let i = at - 1; i >= 0 && lines[i]!.trimStart().startsWith('//'); i--) comments.unshift(lines[i]!.trim());
  return comments.join(' ');
}

function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  const server = createServer(handler);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
const urlOf = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
const close = (s: Server) => new Promise<void>((resolve) => s.close(() => resolve()));

describe.each(['spec', 'hashicorp'] as const)('init against the embedded reference, %s dialect', (dialect) => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startReference({ dialect, control: false });
  });
  afterAll(async () => ref.stop());

  it('detects the dialect of each system, and the file loads with tokens from the environment', async () => {
    const { file, text } = await init({ secretsUrl: ref.secrets.url, meshUrl: ref.mesh.url, schedulerUrl: ref.scheduler.url });
    const config = loadConfig({ file, env: TOKENS });
    expect(config.targets.mesh).toMatchObject({ url: ref.mesh.url, dialect, token: TOKENS.STACKPROOF_MESH_TOKEN });
    expect(config.targets.scheduler).toMatchObject({ url: ref.scheduler.url, dialect });
    // The hashicorp reference answers /v1/sys/health without a token, as Vault does; the spec's secrets
    // service has no health endpoint, but spec 000's OIDC key set needs no token (and is no other product's).
    expect(config.targets.secrets).toMatchObject({ url: ref.secrets.url, dialect });
    expect(commentAbove(text, 'secrets', 'dialect')).toMatch(dialect === 'hashicorp' ? /detected: .*sys\/health answered 200 with Vault's health fields/ : /detected: GET \/v1\/identity\/oidc\/provider\/default\/\.well-known\/keys answered 200 with a key set without a token, and GET \/v1\/sys\/health 403/);
    expect(commentAbove(text, 'mesh', 'dialect')).toMatch(dialect === 'hashicorp' ? /detected: .*x-consul-default-acl-policy/ : /detected: GET \/v1\/agent\/connect\/ca\/roots answered 200 with X-Mesh-Index/);
    expect(commentAbove(text, 'scheduler', 'dialect')).toMatch(dialect === 'hashicorp' ? /detected: GET \/v1\/agent\/self answered 403/ : /detected: GET \/v1\/client\/stats answered 403/);
    expect(text).toMatch(/token: set STACKPROOF_MESH_TOKEN/);
    expect(text).not.toMatch(/"token"/);
    expect(text).not.toContain(ref.mesh.token);
    expect(text).not.toContain(ref.secrets.token);
    expect(text).not.toContain(ref.scheduler.token);
  });
});

describe('init against stubs that answer like the upstream products', () => {
  let vault: Server;
  let consul: Server;
  let nomad: Server;
  beforeAll(async () => {
    vault = await listen((req, res) => {
      if (req.url === '/v1/sys/health') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ initialized: true, sealed: false, standby: false, performance_standby: false, server_time_utc: 1, version: '1.18.1+ent', enterprise: true, cluster_name: 'c' }));
      }
      res.writeHead(403, { 'content-type': 'application/json' }).end('{"errors":["permission denied"]}');
    });
    consul = await listen((req, res) => {
      res.setHeader('X-Consul-Default-ACL-Policy', 'allow');
      if (req.url === '/v1/agent/self') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ Config: { Datacenter: 'dc1', NodeName: 'n1', Version: '1.20.2+ent', Server: true }, Member: {} }));
      }
      res.writeHead(404).end();
    });
    nomad = await listen((req, res) => {
      if (req.url === '/v1/status/leader') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('"127.0.0.1:4647"');
      }
      if (req.url === '/v1/agent/self') return res.writeHead(403).end('Permission denied');
      res.writeHead(404).end();
    });
  });
  afterAll(async () => Promise.all([vault, consul, nomad].map(close)));

  it('detects the hashicorp dialect, versions and Enterprise editions, with how each was found', async () => {
    const { file, text } = await init({ secretsUrl: urlOf(vault), meshUrl: urlOf(consul), schedulerUrl: urlOf(nomad) });
    const config = loadConfig({ file, env: TOKENS });
    expect(config.targets.secrets?.dialect).toBe('hashicorp');
    expect(config.targets.mesh?.dialect).toBe('hashicorp');
    expect(config.targets.scheduler?.dialect).toBe('hashicorp');
    expect(commentAbove(text, 'secrets', 'dialect')).toMatch(/\/v1\/sys\/health answered 200 with Vault's health fields \(version 1\.18\.1\+ent\)/);
    // Namespaces are possible on Vault Enterprise, but the loader needs their paths: left false, with what to do.
    expect(config.targets.secrets?.capabilities.namespaces).toBe(false);
    // In the hashicorp dialect stackproof makes its own namespaces, mounts and entities: the comments say so.
    expect(commentAbove(text, 'secrets', 'namespaces')).toMatch(/Enterprise detected \(enterprise: true in \/v1\/sys\/health\): stackproof makes its namespaces through sys\/namespaces/);
    expect(config.targets.mesh?.capabilities.namespaces).toBe(true);
    expect(commentAbove(text, 'mesh', 'namespaces')).toMatch(/Config\.Version 1\.20\.2\+ent in \/v1\/agent\/self/);
    expect(commentAbove(text, 'scheduler', 'dialect')).toMatch(/\/v1\/status\/leader answered 200/);
    expect(commentAbove(text, 'secrets', 'kvV2')).toMatch(/stackproof makes a version 2 key-value mount through Vault's API/);
    expect(commentAbove(text, 'mesh', 'meshFixtures')).toMatch(/stackproof makes intentions, limited ACL tokens and CA rotations through Consul's API/);
    expect(commentAbove(text, 'scheduler', 'schedulerFixtures')).toMatch(/through Nomad's API/);
    expect(text).not.toMatch(/controlUrl/);
    expect(stderr).toMatch(/secrets .*: reachable; dialect hashicorp/);
  });

  it('tells Vault CE from Enterprise', async () => {
    const ce = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ initialized: true, sealed: true, standby: false, version: '1.18.1', enterprise: false }));
    });
    try {
      const { text } = await init({ secretsUrl: urlOf(ce) });
      expect(commentAbove(text, 'secrets', 'namespaces')).toMatch(/not Enterprise \(enterprise: false/);
      expect(text).toMatch(/note: the target reported sealed: true/);
    } finally {
      await close(ce);
    }
  });
});

describe('init with targets that do not answer', () => {
  it('says a closed port is unreachable, quickly, exits 3, and still writes a file that loads', async () => {
    const gone = await listen(() => undefined);
    const url = urlOf(gone);
    await close(gone);
    const started = Date.now();
    const { file, text } = await init({ meshUrl: url }, 3);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(text).toMatch(/NOT reachable when init ran: connection failed \(ECONNREFUSED\)/);
    expect(commentAbove(text, 'mesh', 'dialect')).toMatch(/not detected: unreachable/);
    expect(loadConfig({ file, env: tokensFor('mesh') }).targets.mesh?.url).toBe(url);
    expect(stderr).toMatch(/NOT reachable/);
    expect(stderr).toMatch(/not reachable: mesh http:\S+: check the URL and that it is running, then run init again \(exit 3\)/);
  });

  it('gives up on a target that accepts but never answers within the deadline', async () => {
    const silent = await listen(() => undefined);
    try {
      const started = Date.now();
      const d = await detectTarget('scheduler', urlOf(silent), 400);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(d).toMatchObject({ reachable: false, reachability: 'no answer before the deadline' });
    } finally {
      silent.closeAllConnections();
      await close(silent);
    }
  });
});

describe('init files', () => {
  it('never writes a token, even when the token variables are set', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, TOKENS);
    try {
      const ref = await startReference({ dialect: 'hashicorp', control: false });
      try {
        const { text } = await init({ secretsUrl: ref.secrets.url, meshUrl: ref.mesh.url, schedulerUrl: ref.scheduler.url });
        for (const token of [...Object.values(TOKENS), ref.secrets.token, ref.mesh.token, ref.scheduler.token]) {
          expect(text).not.toContain(token);
          expect(stderr).not.toContain(token);
        }
      } finally {
        await ref.stop();
      }
    } finally {
      for (const k of Object.keys(TOKENS)) if (!(k in saved)) delete process.env[k];
    }
  });

  it('without URLs writes a template that uses the embedded reference; its commented-out targets load once uncommented', async () => {
    const { file, text } = await init({});
    expect(text).toMatch(/embedded reference,\n\/\/ which needs no config at all/);
    expect(loadConfig({ file, env: {} }).targets).toEqual({});
    for (const address of ['http://127.0.0.1:8200', 'http://127.0.0.1:8500', 'http://127.0.0.1:4646']) expect(text).toContain(address);
    const uncommented = join(dir, 'uncommented.json');
    writeFileSync(uncommented, text.replace(/^(\s*)\/\/ (\s*["}])/gm, '$1$2'));
    const config = loadConfig({ file: uncommented, env: TOKENS });
    expect(config.targets.secrets).toMatchObject({ url: 'http://127.0.0.1:8200', dialect: 'hashicorp', token: TOKENS.STACKPROOF_SECRETS_TOKEN });
    expect(config.targets.scheduler?.url).toBe('http://127.0.0.1:4646');
  });

  it('uncommenting the safety options of a detected target keeps the file valid', async () => {
    const gone = await listen(() => undefined);
    const url = urlOf(gone);
    await close(gone);
    const { text } = await init({ meshUrl: url, schedulerUrl: url }, 3);
    const uncommented = join(dir, 'uncommented.json');
    writeFileSync(uncommented, text.replace(/^(\s*)\/\/ (\s*["}])/gm, '$1$2'));
    const config = loadConfig({ file: uncommented, env: tokensFor('mesh', 'scheduler') });
    expect(config.targets.mesh?.rotateCa).toBe(false);
    expect(config.targets.scheduler).toMatchObject({ changeEligibility: false, gcAll: false });
  });

  it('refuses to overwrite a file without --force (exit 2), and overwrites it with --force', async () => {
    const out = join(dir, 'existing.json');
    writeFileSync(out, '{"runs": 3}\n');
    await expect(runInitCommand({ out })).rejects.toMatchObject({ exitCode: 2, message: `${out} exists; --force overwrites it` });
    expect(readFileSync(out, 'utf8')).toBe('{"runs": 3}\n');
    expect(await runInitCommand({ out, force: true })).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/stackproof init|embedded reference/);
  });

  it('refuses a URL that is not http(s) or carries credentials (exit 2), before probing anything', async () => {
    await expect(runInitCommand({ out: join(dir, 'a.json'), meshUrl: 'localhost:8500' })).rejects.toMatchObject({ exitCode: 2 });
    await expect(runInitCommand({ out: join(dir, 'a.json'), meshUrl: 'ftp://h:1' })).rejects.toMatchObject({ exitCode: 2 });
    await expect(runInitCommand({ out: join(dir, 'a.json'), secretsUrl: 'http://root:s3cret@h:8200' })).rejects.toMatchObject({ exitCode: 2, message: expect.not.stringContaining('s3cret') });
  });
});
