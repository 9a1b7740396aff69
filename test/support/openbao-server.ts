import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { freePort } from './consul-agent.ts';
import { findSharedTool, type FoundTool } from './shared-tools.ts';

/**
 * A real OpenBao for a test: `bao server -dev` (in memory, unsealed) with a root token of the test's
 * choosing on a free loopback port, and, when asked, OpenBao's Azure auth plugin in its catalog under
 * the name `azure`, as ../shared/bin/README.md says.
 */

export function findOpenBao(): FoundTool {
  return findSharedTool('BAO', 'bao', 'bao');
}

export function findAzurePlugin(): FoundTool {
  return findSharedTool('BAO_AZURE_PLUGIN', undefined, 'openbao-plugin-auth-azure');
}

export interface OpenBaoServer {
  url: string;
  token: string;
  /** As sys/health reports it. */
  version: string;
  /** The catalog name the Azure plugin was registered under, when it was. */
  azurePlugin?: string;
  pid: number;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `env`: variables to set in the server's environment on top of the cleaned one (e.g. a CA bundle, to see it override a catalog entry's). */
export async function startOpenBao(binary: string, options: { azurePlugin?: string; timeoutMs?: number; env?: Record<string, string> } = {}): Promise<OpenBaoServer> {
  const dir = mkdtempSync(join(tmpdir(), 'stackproof-openbao-'));
  const plugins = join(dir, 'plugins');
  mkdirSync(plugins);
  const token = randomUUID();
  const port = await freePort();
  const env = { ...process.env };
  delete env.AWS_CA_BUNDLE;
  for (const k of Object.keys(env)) if (k.startsWith('VAULT_') || k.startsWith('BAO_')) delete env[k];
  // A plugin process gets the server's environment after its catalog entry's env, and the last
  // value of a name wins (go-plugin appends os.Environ(); os/exec keeps the last duplicate), so a
  // CA bundle or proxy setting of this machine's would override what a run puts in a catalog entry
  // (the cloud-identity route: docs/cloud-identity-real-products.md). The server starts without
  // them, as a service does from a clean environment.
  for (const k of Object.keys(env)) if (/^(SSL_CERT_FILE|SSL_CERT_DIR|HTTPS?_PROXY|NO_PROXY|ALL_PROXY)$/i.test(k)) delete env[k];
  Object.assign(env, options.env);
  const args = ['server', '-dev', `-dev-root-token-id=${token}`, `-dev-listen-address=127.0.0.1:${port}`, `-dev-plugin-dir=${plugins}`];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let output = '';
  child.stdout!.on('data', (d) => (output = (output + d).slice(-40_000)));
  child.stderr!.on('data', (d) => (output = (output + d).slice(-40_000)));
  const url = `http://127.0.0.1:${port}`;
  const pid = child.pid!;
  const alive = () => child.exitCode === null && child.signalCode === null;
  const onExit = () => alive() && process.kill(pid, 'SIGKILL');
  process.once('exit', onExit);
  const stop = async () => {
    process.off('exit', onExit);
    if (alive()) {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      process.kill(pid, 'SIGTERM');
      const timer = setTimeout(() => alive() && process.kill(pid, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  };
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  try {
    let version = '';
    while (!version) {
      if (!alive()) throw new Error(`bao exited (${child.exitCode ?? child.signalCode}) before it answered:\n${output.slice(-3000)}`);
      if (Date.now() > deadline) throw new Error(`bao did not answer sys/health in time:\n${output.slice(-3000)}`);
      const health = (await fetch(`${url}/v1/sys/health`).then((r) => (r.ok ? r.json() : undefined), () => undefined)) as { version?: string; sealed?: boolean } | undefined;
      if (health?.version && health.sealed === false) version = health.version;
      else await sleep(200);
    }
    let azurePlugin: string | undefined;
    if (options.azurePlugin) {
      const file = join(plugins, basename(options.azurePlugin));
      copyFileSync(options.azurePlugin, file);
      const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
      const res = await fetch(`${url}/v1/sys/plugins/catalog/auth/azure`, { method: 'POST', headers: { 'x-vault-token': token }, body: JSON.stringify({ sha256, command: basename(file) }) });
      if (!res.ok) throw new Error(`registering the Azure plugin answered ${res.status}: ${await res.text()}`);
      azurePlugin = 'azure';
    }
    return { url, token, version, azurePlugin, pid, child, output: () => output, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
