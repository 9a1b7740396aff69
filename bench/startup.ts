// Section: how fast the CLI starts (issue 20), as a user who installed the package sees it. The
// package is packed and installed into a temporary project (scripts/pack-install.mjs), and each
// command is timed from spawn to exit, beside a bare `node -e 0` and the clone's TypeScript path.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error: a plain-JavaScript script of the repo, without declarations
import { packAndInstall } from '../scripts/pack-install.mjs';
import type { BenchContext } from './context.ts';
import { Table, fmt, type GoalFigure } from './table.ts';

const RUNS = 7;

/** Median wall time of a command, in seconds, over RUNS runs after one warm-up (the file cache). */
function medianSeconds(args: string[], cwd: string): number {
  const times: number[] = [];
  for (let i = 0; i <= RUNS; i++) {
    const t0 = performance.now();
    const res = spawnSync(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    const s = (performance.now() - t0) / 1000;
    if (res.status !== 0) throw new Error(`${args.join(' ')} exited with ${res.status}: ${res.stderr.slice(0, 300)}`);
    if (i > 0) times.push(s);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

export async function benchStartup(_ctx: BenchContext): Promise<GoalFigure[]> {
  const dest = mkdtempSync(join(tmpdir(), 'stackproof-bench-pack-'));
  try {
    const { app } = packAndInstall(dest) as { app: string };
    const installed = join(app, 'node_modules', 'stackproof', 'bin', 'stackproof.js');
    const clone = join(process.cwd(), 'bin', 'stackproof.js');
    const node = medianSeconds(['-e', '0'], app);
    const help = medianSeconds([installed, '--help'], app);
    const rules = medianSeconds([installed, 'rules', '--json'], app);
    const cloneHelp = medianSeconds([clone, '--help'], process.cwd());
    const cloneRules = medianSeconds([clone, 'rules', '--json'], process.cwd());
    const table = new Table(`CLI start-up, wall time from spawn to exit, median of ${RUNS} runs (after a warm-up)`);
    table.row('command', 'installed package (compiled)', 'clone (TypeScript through tsx)', 'clone / package');
    table.row('node -e 0 (yardstick)', `${node.toFixed(3)} s`, '', '');
    table.row('stackproof --help', `${help.toFixed(3)} s`, `${cloneHelp.toFixed(3)} s`, fmt(cloneHelp / help));
    table.row('stackproof rules --json', `${rules.toFixed(3)} s`, `${cloneRules.toFixed(3)} s`, fmt(cloneRules / rules));
    table.print();
    return [
      { goal: 'stackproof --help, installed package (s)', measured: help.toFixed(3), target: '< 0.300', met: help < 0.3 },
      { goal: 'stackproof rules --json, installed package (s)', measured: rules.toFixed(3), target: '< 0.600', met: rules < 0.6 },
    ];
  } finally {
    rmSync(dest, { recursive: true, force: true });
  }
}
