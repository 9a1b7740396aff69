import { mkdtempSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runResultsSchema } from '../src/report/results-model.ts';
import { RULES } from '../src/rules/catalog.ts';
import { CpuStress } from './support/cpu-stress.ts';
import { expectEveryFaultCaught } from './support/every-fault-caught.ts';
import { runCli } from './support/run-cli.ts';

/**
 * Issue 36: verdicts that do not depend on how busy the machine is. Conform of all three systems
 * against the embedded reference runs once per dialect unloaded (with the report checks), then,
 * with busy loops spinning (as many as the machine has cores, at least two), three times per
 * dialect: every rule must PASS every time; then the hashicorp dialect's fault matrix runs under
 * the same stress, and every fault must be caught. Each run prints its verdict line, its suites'
 * time beside the unloaded run's, and the 1-minute load average it ran under.
 */
const DIALECTS = ['spec', 'hashicorp'] as const;
const TIMES = 3;
const BUSY_LOOPS = Math.max(2, availableParallelism());
const EXPECTED = RULES.filter((r) => r.level !== 'UPSTREAM').map((r) => r.id).sort();

const stress = new CpuStress();
/** The suites phase of each dialect's unloaded run (conform's "wall time" line), to compare with. */
const unloadedSuitesS: Record<string, number> = {};

const suitesSeconds = (stdout: string): number => Number(/\bsuites (\d+(?:\.\d+)?) s\b/.exec(stdout)?.[1] ?? NaN);
const verdictLine = (stdout: string) => stdout.split('\n').find((l) => /^(PASSED|FAILED|ERROR|INTERRUPTED)/.test(l)) ?? '(no verdict line)';

/** Runs conform against the embedded reference and expects every rule PASS; the results and the suites phase's seconds. */
async function conformPasses(dialect: string, label: string, extra: string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'stackproof-stress-'));
  const res = await runCli(['conform', '--reference-dialect', dialect, '--reports-dir', dir, '--runs', '5', ...extra], { timeoutMs: 900_000 });
  console.log(`stress: ${label}: ${verdictLine(res.stdout)} (wall ${(res.durationMs / 1000).toFixed(1)} s, suites ${suitesSeconds(res.stdout)} s)`);
  expect(res.code, `${label}: ${res.stdout.slice(-3000)}${res.stderr.slice(-2000)}`).toBe(0);
  expect(res.stdout).toMatch(/PASSED: \d+ pass, 0 fail, 0 error/);
  const results = runResultsSchema.parse(JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')));
  expect(results.rules.map((r) => r.id).sort(), `${label}: every rule has a verdict`).toEqual(EXPECTED);
  expect(results.rules.filter((r) => r.outcome !== 'PASS').map((r) => `${r.id} ${r.outcome}: ${(r.message ?? '').split('\n')[0]}`), `${label}: every rule PASS`).toEqual([]);
  return { dir, results, stdout: res.stdout, suitesS: suitesSeconds(res.stdout) };
}

describe('verdicts on a busy machine', () => {
  // First, unloaded: every rule PASS in each dialect, with the three reports, and the time to compare with.
  for (const dialect of DIALECTS) {
    it(`passes every rule in the ${dialect} dialect and writes the three reports`, async () => {
      const { dir, results, stdout, suitesS } = await conformPasses(dialect, `${dialect} dialect, unloaded`);
      unloadedSuitesS[dialect] = suitesS;
      expect(stdout).toContain('reports: ');
      expect(results.targets.every((t) => t.dialect === dialect && t.embedded)).toBe(true);
      expect(results.load.length).toBe(3);
      for (const s of results.load) expect(s.requests).toBeGreaterThan(0);
      const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
      expect(junit.match(/<testcase /g)?.length).toBe(results.rules.length);
      const html = readFileSync(join(dir, 'index.html'), 'utf8');
      for (const r of results.rules) expect(html).toContain(`id="rule-${r.id}"`);
      // Self-contained: nothing to fetch from anywhere.
      expect(html).not.toMatch(/<(script|img|link|iframe)[^>]+(src|href)=["']?(https?:)?\/\//i);
      expect(html).not.toMatch(/@import|url\(\s*['"]?https?:/i);
    }, 300_000);
  }

  describe(`with ${BUSY_LOOPS} busy loops beside it`, () => {
    beforeAll(async () => {
      const pids = stress.start(BUSY_LOOPS);
      console.log(`stress: ${BUSY_LOOPS} busy loops started (PIDs ${pids.join(', ')}) on ${availableParallelism()} core(s)`);
      // Let the 1-minute load average climb before the first stressed run.
      await new Promise((r) => setTimeout(r, 10_000));
      stress.takeLoad();
    }, 60_000);

    afterAll(async () => {
      await stress.stop();
      console.log(`stress: busy loops stopped (PIDs ${stress.pids().join(', ')})`);
    });

    for (const dialect of DIALECTS) {
      for (let i = 1; i <= TIMES; i++) {
        it(`passes every rule in the ${dialect} dialect (run ${i} of ${TIMES})`, async () => {
          stress.takeLoad();
          const { suitesS } = await conformPasses(dialect, `${dialect} dialect, run ${i} of ${TIMES}, stressed`, ['--no-load-smoke']);
          const load = stress.takeLoad();
          expect(stress.allRunning(), 'the busy loops ran for the whole run').toBe(true);
          const base = unloadedSuitesS[dialect];
          console.log(`stress: ${dialect} run ${i}: suites ${suitesS} s against ${base ?? '?'} s unloaded${base ? ` (x${(suitesS / base).toFixed(2)})` : ''}; 1-min load average min ${load.min}, mean ${load.mean}, max ${load.max} (${load.samples} samples)`);
        }, 900_000);
      }
    }

    it('catches every fault of the hashicorp dialect', async () => {
      stress.takeLoad();
      const { durationMs, faults } = await expectEveryFaultCaught(['--dialect', 'hashicorp'], 200, 'under CPU stress');
      const load = stress.takeLoad();
      expect(stress.allRunning(), 'the busy loops ran for the whole matrix').toBe(true);
      console.log(`stress: hashicorp fault matrix: ${faults} faults, every one caught, in ${(durationMs / 1000).toFixed(1)} s; 1-min load average min ${load.min}, mean ${load.mean}, max ${load.max} (${load.samples} samples)`);
    }, 1_200_000);
  });
});
