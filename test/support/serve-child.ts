import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Targets } from '../../src/config/schema.ts';
import { BIN, ROOT } from './run-cli.ts';

export interface ServedReference {
  child: ChildProcess;
  /** The profile `serve --profile-out` wrote: URLs and tokens of every system. */
  targets: Targets;
  /** What serve printed so far. */
  output: () => string;
}

/**
 * `stackproof serve` in a child process, as a user starts it in another shell, with the extra flags
 * given (e.g. --no-control); resolves once its profile file is written.
 */
export async function serveInChild(flags: string[], options: { env?: Record<string, string> } = {}): Promise<ServedReference> {
  const file = join(mkdtempSync(join(tmpdir(), 'stackproof-serve-')), 'profile.json');
  const child = spawn(process.execPath, [BIN, 'serve', ...flags, '--profile-out', file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 30_000;
  while (!existsSync(file) || !/conform --config/.test(output)) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`serve did not come up: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, targets: (JSON.parse(readFileSync(file, 'utf8')) as { targets: Targets }).targets, output: () => output };
}
