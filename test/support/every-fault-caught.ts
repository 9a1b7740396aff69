import { randomInt } from 'node:crypto';
import { expect } from 'vitest';
import { runCli } from './run-cli.ts';

/** Fault-matrix jobs: the matrix waits on its targets most of the time, so more jobs than the 2 cores. */
export const MATRIX_JOBS = 4;

/**
 * Runs the fault matrix (10 runs per property) with a fresh random seed and expects a clean
 * baseline and every fault caught: a fault must be caught under any seed, not one the tests were
 * tuned to. The seed is printed, and each miss names the command that replays it.
 */
export async function expectEveryFaultCaught(args: string[], atLeast: number, label = ''): Promise<{ durationMs: number; faults: number }> {
  const seed = String(randomInt(1, 2 ** 31));
  console.log(`fault matrix ${args.join(' ')} with --seed ${seed}${label ? ` (${label})` : ''}`);
  const res = await runCli(['faults', '--json', '--runs', '10', '--jobs', String(MATRIX_JOBS), '--seed', seed, ...args], { timeoutMs: 1_190_000 });
  // The report first: a miss or a failing baseline is named with its replay command, where the
  // exit code alone would show only the matrix's whole log.
  let report: { allCaught: boolean; baseline: { allPass: boolean; outcomes: { rule: string; outcome: string }[] }; faults: { fault: string; caught: boolean; erroredFirst?: unknown[] }[] };
  try {
    report = JSON.parse(res.stdout) as typeof report;
  } catch {
    expect.fail(`the matrix printed no JSON report (exit ${res.code}, seed ${seed}): ${res.stderr.split('\n').filter((l) => !/^\s+caught /.test(l)).join('\n').slice(-4000)}`);
  }
  for (const f of report.faults.filter((x) => x.erroredFirst)) console.log(`  ${f.fault}: ERROR on its first run (${JSON.stringify(f.erroredFirst).slice(0, 300)}), run once more: ${f.caught ? 'caught' : 'missed'}`);
  expect(report.baseline.outcomes.filter((o) => o.outcome !== 'PASS'), `baseline with seed ${seed}`).toEqual([]);
  expect(report.faults.length).toBeGreaterThan(atLeast);
  const replay = (fault: string) => `npx stackproof faults --fault ${fault} --runs 10 --seed ${seed} ${args.join(' ')}`;
  expect(report.faults.filter((f) => !f.caught).map((f) => replay(f.fault)), 'every fault caught').toEqual([]);
  expect(report.allCaught).toBe(true);
  expect(res.code, `exit code (seed ${seed})`).toBe(0);
  return { durationMs: res.durationMs, faults: report.faults.length };
}
