import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DialectName } from '../src/config/dialects.ts';
import { RULES, matchesRuleFilter } from '../src/rules/catalog.ts';
import type { Rule } from '../src/rules/types.ts';
import { RuleAloneLane, type AloneRun } from './support/rule-alone.ts';

/**
 * Every scheduler and mesh rule stands alone: run by itself against a fresh embedded reference, in
 * both dialects, it passes, so no rule leans on what another rule made (or on the order they run
 * in). Each run is what `stackproof conform --rules <id> --no-load-smoke` does, in this process
 * (test/support/rule-alone.ts): a fresh reference, its fixtures through the control listener, the
 * rule, the sweep. Lanes run side by side, each with one conformance runner (vitest) for its runs.
 *
 * RULE_ISOLATION_RULES (comma-separated rule id prefixes or globs, as --rules takes) runs a part.
 */
const DIALECTS: readonly DialectName[] = ['spec', 'hashicorp'];
const SYSTEMS = ['mesh', 'scheduler'] as const;
/**
 * Runs side by side (RULE_ISOLATION_CONCURRENCY to change it). A run costs ~2 s of CPU whatever its
 * rule: the reference's start (its key pairs) and a new vitest worker (vitest keeps no worker
 * between two runs of one instance). On 2 shared cores, 166 runs took 326 s 4 at a time (1.1 cores
 * used) and 226 s 8 at a time (1.7 cores; the main thread 67% busy), 2026-11-26.
 */
const CONCURRENCY = Number(process.env.RULE_ISOLATION_CONCURRENCY ?? 8);
const SEED = 20_331;
const RUNS = 25;

/**
 * Rules a full run of the same dialect (`stackproof conform --systems mesh,scheduler --profile
 * strict --reference-dialect <dialect>`) gives SKIP, with its reason: alone they may SKIP for that
 * same reason. None today (checked 2026-11-26: 83 of 83 PASS in both dialects).
 */
const SKIPPED_IN_A_FULL_RUN: Record<DialectName, Record<string, string>> = { spec: {}, hashicorp: {} };

const only = process.env.RULE_ISOLATION_RULES?.split(',').map((s) => s.trim()).filter(Boolean) ?? [];
const RULES_ALONE: Rule[] = RULES.filter((r) => (SYSTEMS as readonly string[]).includes(r.system) && matchesRuleFilter(r.id, only));

/**
 * The rules that wait longest on real time (a leaf that must expire, blocking queries that must
 * time out, file streams), started first so that none of them starts last and holds the end.
 */
const SLOWEST_FIRST = ['mesh.leaf.renewed-when-expired', 'scheduler.fs.stream-file-events', 'mesh.authorize.intentions', 'scheduler.events.index-evicted'];

/** Runs the jobs `concurrency` at a time, in order; each job's promise settles when it ends. */
function pool<T>(jobs: (() => Promise<T>)[], concurrency: number): Promise<T>[] {
  const settle: ((value: T) => void)[] = [];
  const promises = jobs.map(() => new Promise<T>((resolve) => settle.push(resolve)));
  let next = 0;
  const lane = async () => {
    while (next < jobs.length) {
      const i = next++;
      settle[i]!(await jobs[i]!());
    }
  };
  for (let i = 0; i < Math.min(concurrency, jobs.length); i++) void lane();
  return promises;
}

const rank = (rule: Rule) => (SLOWEST_FIRST.includes(rule.id) ? SLOWEST_FIRST.indexOf(rule.id) : SLOWEST_FIRST.length);
const cases = DIALECTS.flatMap((dialect) => RULES_ALONE.map((rule) => ({ dialect, rule }))).sort((a, b) => rank(a.rule) - rank(b.rule));
let lanes: RuleAloneLane[] = [];
const runs = new Map<string, Promise<AloneRun>>();
const key = (dialect: string, id: string) => `${dialect} ${id}`;
let wallStarted = 0;
let loopAtStart: ReturnType<typeof performance.eventLoopUtilization> | undefined;
let cpuAtStart: NodeJS.CpuUsage | undefined;

describe('every scheduler and mesh rule stands alone against a fresh reference', () => {
  beforeAll(async () => {
    wallStarted = performance.now();
    loopAtStart = performance.eventLoopUtilization();
    cpuAtStart = process.cpuUsage();
    lanes = await Promise.all(Array.from({ length: Math.min(CONCURRENCY, cases.length) }, () => RuleAloneLane.create()));
    const free = [...lanes];
    const promises = pool(
      cases.map(({ dialect, rule }) => async () => {
        const lane = free.pop()!;
        try {
          return await lane.run(rule, dialect, { seed: SEED, runs: RUNS });
        } finally {
          free.push(lane);
        }
      }),
      lanes.length,
    );
    cases.forEach(({ dialect, rule }, i) => runs.set(key(dialect, rule.id), promises[i]!));
  });

  afterAll(async () => {
    const done = await Promise.all(runs.values());
    await Promise.all(lanes.map((l) => l.close()));
    const byTime = [...runs.keys()].map((k, i) => ({ k, run: done[i]! })).sort((a, b) => b.run.durationMs - a.run.durationMs);
    const cpu = process.cpuUsage(cpuAtStart);
    const sum = (phase: string) => done.reduce((t, r) => t + (r.phases[phase] ?? 0), 0) / 1000;
    console.log(
      [
        `rule isolation: ${cases.length} run(s), ${lanes.length} at a time, ${((performance.now() - wallStarted) / 1000).toFixed(1)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s of CPU in this process, its main thread ${Math.round(performance.eventLoopUtilization(loopAtStart).utilization * 100)}% busy`,
        `  summed over the runs: reference ${sum('reference').toFixed(1)} s, fixtures ${sum('fixtures').toFixed(1)} s, rule ${sum('rule').toFixed(1)} s, cleanup ${sum('cleanup').toFixed(1)} s`,
        '  slowest:',
        ...byTime.slice(0, 10).map(({ k, run }) => `    ${k} ${(run.durationMs / 1000).toFixed(1)} s (${Object.entries(run.phases).map(([p, ms]) => `${p} ${(ms / 1000).toFixed(1)} s`).join(', ')})`),
      ].join('\n'),
    );
  });

  it('runs every scheduler and mesh rule', () => {
    if (only.length === 0) expect(RULES_ALONE.length).toBe(RULES.filter((r) => r.system === 'mesh' || r.system === 'scheduler').length);
    expect(RULES_ALONE.length).toBeGreaterThan(0);
  });

  for (const dialect of DIALECTS) {
    describe(`dialect ${dialect}`, () => {
      for (const rule of RULES_ALONE) {
        it(`${rule.id} alone`, async () => {
          const run = await runs.get(key(dialect, rule.id))!;
          const context = `${rule.id} alone (dialect ${dialect}):\n${run.error ?? run.result?.message ?? ''}\n--- conform's log:\n${run.log.join('\n')}`;
          expect(run.error, context).toBeUndefined();
          const skippedFullRun = SKIPPED_IN_A_FULL_RUN[dialect][rule.id];
          if (run.result!.outcome === 'SKIP' && skippedFullRun !== undefined) {
            expect(run.result!.message, context).toContain(skippedFullRun);
            return;
          }
          expect(run.result!.outcome, context).toBe('PASS');
        }, 600_000);
      }
    });
  }
});
