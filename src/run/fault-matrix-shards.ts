import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Fault } from '../reference/faults/types.ts';
import { PACKAGE_ROOT } from './package-root.ts';
import type { FaultMatrixReport, FaultVerdict } from './fault-matrix.ts';

export interface ShardOptions {
  faults: readonly Fault[];
  dialect: string;
  runs: number;
  seed: number;
  profile: string;
  /** Who makes the secrets and mesh fixtures (see FaultMatrixOptions.fixtures). */
  fixtures?: 'control' | 'upstream';
  log: (line: string) => void;
}

/**
 * Runs a share of the fault matrix in a child `stackproof faults` process (its own vitest and its
 * own references), so shards use the machine's cores side by side. Progress lines pass through.
 */
export function runShard(options: ShardOptions): Promise<FaultVerdict[]> {
  const args = [join(PACKAGE_ROOT, 'bin', 'stackproof.js'), 'faults', '--json', '--jobs', '1', '--no-baseline', '--dialect', options.dialect, '--runs', String(options.runs), '--seed', String(options.seed), '--profile', options.profile];
  for (const f of options.faults) args.push('--fault', f.id);
  if (options.fixtures && options.fixtures !== 'control') args.push('--fixtures', options.fixtures);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: PACKAGE_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let pending = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d: Buffer) => {
      pending += d.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.trim() && !line.startsWith('fault matrix:')) options.log(line);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        resolve((JSON.parse(out) as FaultMatrixReport).faults);
      } catch {
        reject(new Error(`a fault-matrix shard exited ${code} without a report`));
      }
    });
  });
}
