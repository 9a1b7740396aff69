import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findSharedTool, type FoundTool } from './shared-tools.ts';

/**
 * A real Consul agent for a test: `consul agent -dev` with ACLs on (default deny) and a management
 * token of its own, on free loopback ports, with its own data dir; stopped by its PID.
 * ../shared/bin/README.md says how the binary came here and how it is started.
 */

/**
 * Where the real Consul is: `CONSUL`, then `consul` on PATH, then `../shared/bin/consul` relative
 * to the repository; undefined (and why) when there is none, so a test can say so and skip.
 */
export function findConsul(): FoundTool {
  return findSharedTool('CONSUL', 'consul', 'consul');
}

/** A loopback TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface ConsulAgent {
  url: string;
  /** The management (master) token the agent was started with. */
  token: string;
  pid: number;
  child: ChildProcess;
  /** What the agent printed so far (for a failure's message). */
  output(): string;
  /** Stops the agent by its PID (SIGTERM, then SIGKILL after 5 s) and removes its config dir. */
  stop(): Promise<void>;
}

/**
 * Starts `consul agent -dev` with ACLs on, default deny, and a fresh management token, on free
 * loopback ports for HTTP, serf LAN/WAN and server RPC (DNS and gRPC off); resolves once
 * GET /v1/status/leader names a leader and the token is accepted. A start that fails stops the agent.
 */
export async function startConsulAgent(binary: string, options: { timeoutMs?: number; extraArgs?: string[] } = {}): Promise<ConsulAgent> {
  const dir = mkdtempSync(join(tmpdir(), 'stackproof-consul-'));
  const token = randomUUID();
  const config = join(dir, 'acl.hcl');
  writeFileSync(config, `acl {\n  enabled = true\n  default_policy = "deny"\n  tokens {\n    master = "${token}"\n  }\n}\n`);
  const [http, serfLan, serfWan, server] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const args = ['agent', '-dev', `-config-file=${config}`, '-bind=127.0.0.1', '-client=127.0.0.1', `-http-port=${http}`, `-serf-lan-port=${serfLan}`, `-serf-wan-port=${serfWan}`, `-server-port=${server}`, '-dns-port=-1', '-grpc-port=-1', ...(options.extraArgs ?? [])];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: false });
  let output = '';
  child.stdout!.on('data', (d) => (output = (output + d).slice(-20_000)));
  child.stderr!.on('data', (d) => (output = (output + d).slice(-20_000)));
  const url = `http://127.0.0.1:${http}`;
  const pid = child.pid!;
  // Should the test process end without stop() (an uncaught error, process.exit), the agent goes too.
  const onExit = () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(pid, 'SIGKILL');
  };
  process.once('exit', onExit);
  const stop = async () => {
    process.off('exit', onExit);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      process.kill(pid, 'SIGTERM');
      const timer = setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) process.kill(pid, 'SIGKILL');
      }, 5_000);
      await exited;
      clearTimeout(timer);
    }
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  };
  const agent: ConsulAgent = { url, token, pid, child, output: () => output, stop };
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`consul exited (${child.exitCode ?? child.signalCode}) before it had a leader:\n${output.slice(-3000)}`);
      if (Date.now() > deadline) throw new Error(`consul had no leader after ${(options.timeoutMs ?? 30_000) / 1000} s:\n${output.slice(-3000)}`);
      const leader = await fetch(`${url}/v1/status/leader`).then((r) => (r.ok ? r.json() : ''), () => '');
      if (typeof leader === 'string' && leader !== '') {
        // The ACL system may answer a moment after the leader is elected (the master token is set up by the leader).
        const self = await fetch(`${url}/v1/acl/token/self`, { headers: { 'x-consul-token': token } }).then((r) => r.status, () => 0);
        const ca = await fetch(`${url}/v1/connect/ca/roots`, { headers: { 'x-consul-token': token } }).then((r) => (r.ok ? r.json() : undefined), () => undefined) as { ActiveRootID?: string } | undefined;
        if (self === 200 && ca?.ActiveRootID) return agent;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  } catch (err) {
    await stop();
    throw err;
  }
}
