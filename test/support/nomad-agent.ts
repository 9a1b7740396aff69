import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './consul-agent.ts';
import { findSharedTool, type FoundTool } from './shared-tools.ts';

/**
 * A real Nomad agent for a test: `nomad agent -dev -acl-enabled` (server and client in one, raw_exec
 * on) on free loopback ports with its own data dir, ACLs bootstrapped for a management token, as
 * ../shared/bin/README.md says. Stopped by its PID, with the `nomad executor` processes of its tasks,
 * which live in sessions of their own and would outlive it.
 */

/** Nomad 2.0.5 (`NOMAD`, `nomad` on PATH, ../shared/bin/unpack nomad) or 1.6.1 (`NOMAD_1_6`, unpack nomad-1.6.1). */
export function findNomad(which: 'current' | '1.6.1' = 'current'): FoundTool {
  return which === 'current' ? findSharedTool('NOMAD', 'nomad', 'nomad') : findSharedTool('NOMAD_1_6', undefined, 'nomad-1.6.1');
}

/**
 * The Nomad releases a test runs against, the two ends of the version ranges ../shared/bin holds
 * (2.0.5 and 1.6.1, the last MPL release), those found; each one not found is said, for the test
 * to skip it.
 */
export function nomadReleases(test: string): { which: 'current' | '1.6.1'; found: FoundTool }[] {
  const all = (['current', '1.6.1'] as const).map((which) => ({ which, found: findNomad(which) }));
  for (const r of all) if (!r.found.path) console.log(`${test}: Nomad ${r.which} SKIPPED, no binary to run against: ${r.found.why}`);
  return all.filter((r) => r.found.path);
}

export interface NomadAgent {
  url: string;
  /** The bootstrap management token's secret. */
  token: string;
  /** As /v1/agent/self reports it (config.Version.Version). */
  version: string;
  /** The dev client's node ID. */
  nodeId: string;
  pid: number;
  child: ChildProcess;
  dataDir: string;
  output(): string;
  /** Stops the agent (SIGINT, SIGKILL after 10 s), its task executors and log monitors, and removes its directory. */
  stop(): Promise<void>;
}

/**
 * PIDs of the processes an agent leaves behind: those whose command line names `dir` (the
 * executors of its raw_exec tasks) and those holding a file under it open (its `nomad logmon`
 * plugins, whose command line names nothing, keep each task's log files open). Both run in sessions
 * of their own and outlive the agent.
 */
function processesOf(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(dir) || holdsFileUnder(entry, dir)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

function holdsFileUnder(pid: string, dir: string): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  for (const fd of fds) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith(`${dir}/`)) return true;
    } catch {
      // closed meanwhile
    }
  }
  return false;
}

/** Mount points under `dir` (the client mounts a tmpfs at each task's secrets/ when run as root). */
function mountsUnder(dir: string): string[] {
  try {
    return readFileSync('/proc/mounts', 'utf8').split('\n').map((l) => l.split(' ')[1] ?? '').filter((m) => m.startsWith(`${dir}/`)).sort().reverse();
  } catch {
    return [];
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startNomadAgent(binary: string, options: { timeoutMs?: number } = {}): Promise<NomadAgent> {
  const dir = mkdtempSync(join(tmpdir(), 'stackproof-nomad-'));
  const dataDir = join(dir, 'data');
  const [http, rpc, serf] = await Promise.all([freePort(), freePort(), freePort()]);
  const config = join(dir, 'dev.hcl');
  // The denylist keeps the client from probing cloud metadata services (and from failing to start where AWS_CA_BUNDLE is set).
  writeFileSync(config, `ports {\n  http = ${http}\n  rpc = ${rpc}\n  serf = ${serf}\n}\nclient {\n  options = { "fingerprint.denylist" = "env_aws,env_gce,env_azure,env_digitalocean" }\n}\n`);
  const env = { ...process.env };
  delete env.AWS_CA_BUNDLE;
  for (const k of Object.keys(env)) if (k.startsWith('NOMAD_')) delete env[k];
  const child = spawn(binary, ['agent', '-dev', '-acl-enabled', '-bind', '127.0.0.1', '-data-dir', dataDir, '-config', config], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let output = '';
  child.stdout!.on('data', (d) => (output = (output + d).slice(-40_000)));
  child.stderr!.on('data', (d) => (output = (output + d).slice(-40_000)));
  const url = `http://127.0.0.1:${http}`;
  const pid = child.pid!;
  const alive = () => child.exitCode === null && child.signalCode === null;
  const endLeftovers = () => {
    for (const p of processesOf(dir)) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  };
  const onExit = () => {
    if (alive()) process.kill(pid, 'SIGKILL');
    endLeftovers();
  };
  process.once('exit', onExit);
  const stop = async () => {
    process.off('exit', onExit);
    if (alive()) {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      process.kill(pid, 'SIGINT');
      const timer = setTimeout(() => alive() && process.kill(pid, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    endLeftovers();
    for (const m of mountsUnder(dir)) spawnSync('umount', ['-l', m]);
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  };
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const fail = (why: string) => new Error(`nomad ${why}:\n${output.slice(-3000)}`);
  try {
    let token = '';
    while (!token) {
      if (!alive()) throw fail(`exited (${child.exitCode ?? child.signalCode}) before its ACLs could be bootstrapped`);
      if (Date.now() > deadline) throw fail('did not bootstrap its ACLs in time');
      const res = await fetch(`${url}/v1/acl/bootstrap`, { method: 'POST' }).catch(() => undefined);
      if (res?.ok) token = ((await res.json()) as { SecretID: string }).SecretID;
      else await sleep(300);
    }
    const headers = { 'x-nomad-token': token };
    let nodeId = '';
    while (!nodeId) {
      if (!alive()) throw fail('exited before its client was ready');
      if (Date.now() > deadline) throw fail('has no ready client node in time');
      const nodes = (await fetch(`${url}/v1/nodes`, { headers }).then((r) => (r.ok ? r.json() : []), () => [])) as { ID: string; Status: string }[];
      nodeId = nodes.find((n) => n.Status === 'ready')?.ID ?? '';
      if (!nodeId) await sleep(300);
    }
    const self = (await (await fetch(`${url}/v1/agent/self`, { headers })).json()) as { config: { Version: { Version: string } } };
    return { url, token, version: self.config.Version.Version, nodeId, pid, child, dataDir, output: () => output, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
