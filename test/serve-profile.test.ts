import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema, type StackproofConfig } from '../src/config/schema.ts';
import { runResultsSchema, type RunResults } from '../src/report/results-model.ts';
import { BIN, ROOT, runCli } from './support/run-cli.ts';

const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));
const readResults = (dir: string): RunResults => runResultsSchema.parse(JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')));

interface Serving {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
}

const started: Serving[] = [];
afterEach(() => {
  for (const s of started.splice(0)) if (s.child.exitCode === null) s.child.kill('SIGKILL');
});

/** `stackproof serve` in a child process, as a user starts it in another shell. */
async function serve(args: string[], profile: string): Promise<Serving> {
  const child = spawn(process.execPath, [BIN, 'serve', '--profile-out', profile, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const s = { child, output: () => out };
  started.push(s);
  const deadline = Date.now() + 30_000;
  // The profile appears whole (written aside, then renamed); the command line follows it.
  while (!(existsSync(profile) && out.includes('conform --config'))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`serve did not write ${profile}: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return s;
}

async function stop(s: Serving): Promise<number | null> {
  const exit = new Promise<number | null>((r) => s.child.on('close', r));
  s.child.kill('SIGINT');
  return exit;
}

/** The TCP ports a process listens on, from /proc: its socket inodes matched against the listening sockets. */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // The descriptor closed while we looked.
    }
  }
  const ports: number[] = [];
  for (const table of ['tcp', 'tcp6']) {
    for (const line of readFileSync(`/proc/${pid}/net/${table}`, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10 || cols[3] !== '0A' || !inodes.has(cols[9]!)) continue;
      ports.push(parseInt(cols[1]!.split(':')[1]!, 16));
    }
  }
  return ports.sort((a, b) => a - b);
}

const port = (url: string) => Number(new URL(url).port);

/** The listeners a profile names: the three systems, the request-header proxy, the cloud simulator and, if any, the control listener. */
function profilePorts(config: StackproofConfig): number[] {
  const t = config.targets;
  const urls = [t.secrets!.url, t.secrets!.requestHeaderProxyUrl!, t.secrets!.cloudIdentity!.simulatorUrl, t.mesh!.url, t.scheduler!.url];
  if (t.secrets!.fixtures?.controlUrl) urls.push(t.secrets!.fixtures.controlUrl);
  return [...new Set(urls.map(port))].sort((a, b) => a - b);
}

function counts(results: RunResults) {
  return { total: results.rules.length, pass: results.summary.byOutcome.PASS, skip: results.summary.byOutcome.SKIP, fail: results.summary.byOutcome.FAIL, error: results.summary.byOutcome.ERROR };
}

describe('stackproof serve --profile-out', () => {
  it('writes a private profile that conform --config loads from another process, with the coverage of the embedded run, and stops on Ctrl-C with 0', async () => {
    const file = join(tempDir('stackproof-serve-'), 'reference.profile.json');
    const s = await serve([], file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(s.output()).toContain(`npx stackproof conform --config ${file}`);
    const config = configSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
    const secrets = config.targets.secrets!;
    expect(secrets.fixtures?.controlUrl).toBeDefined();
    expect(secrets.cloudIdentity).toMatchObject({ simulatorUrl: expect.any(String), simulatorToken: expect.any(String), tenantId: expect.any(String), clientAddresses: ['127.0.0.1', '127.0.0.2'] });
    expect(secrets.requestHeaderProxyUrl).toBeDefined();
    expect(secrets.namespaces.length).toBeGreaterThan(0);
    expect(secrets.kv.v2Mount).toBeDefined();
    expect(secrets.oidcAltKey).toBeDefined();
    expect(config.targets.mesh?.fixtures?.controlUrl).toBe(secrets.fixtures!.controlUrl);
    expect(config.targets.scheduler?.fixtures?.controlUrl).toBe(secrets.fixtures!.controlUrl);
    expect(listeningPorts(s.child.pid!)).toEqual(profilePorts(config));

    const common = ['conform', '--systems', 'secrets,mesh,scheduler', '--runs', '5', '--no-load-smoke'];
    const externalDir = tempDir('stackproof-serve-reports-');
    const external = await runCli([...common, '--config', file, '--reports-dir', externalDir], { timeoutMs: 240_000 });
    expect(external.code, external.stdout + external.stderr).toBe(0);
    const embeddedDir = tempDir('stackproof-embedded-reports-');
    const embedded = await runCli([...common, '--reports-dir', embeddedDir], { timeoutMs: 240_000 });
    expect(embedded.code, embedded.stdout + embedded.stderr).toBe(0);

    const fromProfile = readResults(externalDir);
    expect(fromProfile.targets.every((t) => !t.embedded)).toBe(true);
    expect(counts(fromProfile)).toEqual(counts(readResults(embeddedDir)));
    expect(new Map(fromProfile.rules.map((r) => [r.id, r.outcome]))).toEqual(new Map(readResults(embeddedDir).rules.map((r) => [r.id, r.outcome])));

    expect(await stop(s)).toBe(0);
    expect(s.output()).toContain('stopping the reference');
  }, 600_000);

  it('--no-control starts no control listener, and the profile names no fixtures', async () => {
    const file = join(tempDir('stackproof-serve-'), 'product-like.profile.json');
    const s = await serve(['--no-control'], file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const config = configSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
    const { secrets, mesh, scheduler } = config.targets;
    expect(secrets?.fixtures).toBeUndefined();
    expect(mesh?.fixtures).toBeUndefined();
    expect(scheduler?.fixtures).toBeUndefined();
    expect(secrets?.capabilities.identityFixtures).toBe(false);
    expect(mesh?.capabilities.meshFixtures).toBe(false);
    expect(scheduler?.capabilities.schedulerFixtures).toBe(false);
    // The request-header proxy and the cloud simulator are not part of the product: they still start.
    expect(secrets?.requestHeaderProxyUrl).toBeDefined();
    expect(secrets?.cloudIdentity?.simulatorUrl).toBeDefined();
    // Every port the process listens on is one the profile names: there is no control listener.
    const ports = listeningPorts(s.child.pid!);
    expect(ports).toEqual(profilePorts(config));
    expect(ports.length).toBe(5);
    for (const p of ports) {
      const res = await fetch(`http://127.0.0.1:${p}/v1/control/secrets/entities`, { method: 'POST', body: '{}' });
      expect(res.status, `port ${p}`).not.toBe(200);
    }
    expect(s.output()).toContain('no control listener');
    expect(await stop(s)).toBe(0);
  }, 120_000);
});
