import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
export const BIN = join(ROOT, 'bin', 'stackproof.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  durationMs: number;
}

/** Runs the stackproof CLI as a user would, in a child process, with a hard deadline. */
export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; configFile?: unknown; /** Another stackproof's bin (an installed package's). */ bin?: string } = {}): Promise<CliResult> {
  const started = performance.now();
  if (options.configFile !== undefined) {
    const file = join(mkdtempSync(join(tmpdir(), 'stackproof-cfg-')), 'stackproof.config.json');
    writeFileSync(file, JSON.stringify(options.configFile));
    args = [...args, '--config', file];
  }
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
    // The parent test runner's variables must not leak into the vitest the CLI starts.
    for (const k of Object.keys(env)) if (k.startsWith('VITEST') || k === 'TEST' || k === 'NODE_ENV') delete env[k];
    for (const k of Object.keys(env)) if (k.startsWith('STACKPROOF_') && !(options.env && k in options.env)) delete env[k];
    const child = spawn(process.execPath, [options.bin ?? BIN, ...args], { cwd: options.cwd ?? ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 110_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, durationMs: performance.now() - started });
    });
  });
}
