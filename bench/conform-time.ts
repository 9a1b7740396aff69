// Section 4: the conformance run itself, `npm start` (conform, all systems, default runs), timed as a user runs it.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { BenchContext } from './context.ts';
import { Table, type GoalFigure } from './table.ts';

const GOAL_SECONDS = 20;

export async function benchConformTime(_ctx: BenchContext): Promise<GoalFigure[]> {
  const started = performance.now();
  const child = spawn(process.execPath, ['bin/stackproof.js', 'conform', '--reports-dir', 'reports/bench-conform'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  const seconds = (performance.now() - started) / 1000;
  const verdict = /^(PASSED|FAILED)[^\n]*/m.exec(output)?.[0] ?? `exit ${code}`;
  // conform's last line: its own wall time and where it went, phase by phase.
  const phases = /^wall time [\d.]+ s \((.*)\)$/m.exec(output)?.[1] ?? '(conform printed no phases)';
  const t = new Table('The conformance run (stackproof conform, all systems, default runs, embedded reference)');
  t.row('wall time s', 'goal s', 'verdict');
  t.row(seconds.toFixed(1), `< ${GOAL_SECONDS}`, verdict);
  t.print();
  console.log(`  phases: ${phases}`);
  return [{ goal: 'npm start (conform) wall time, s', measured: seconds.toFixed(1), target: `< ${GOAL_SECONDS}`, met: seconds < GOAL_SECONDS && code === 0 }];
}
