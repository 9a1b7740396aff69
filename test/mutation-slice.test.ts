import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../scripts/mutation/module-map.ts';
import { mutateModule } from '../scripts/mutation/mutate-module.ts';
import { drawSlice } from '../scripts/mutation/slice.ts';
import { describeMutant, mutantRows, readEquivalents, readRecords } from '../scripts/mutation/triage.ts';

// A random slice of the mapped modules' mutants, judged afresh on every run (docs/mutation-testing.md):
// any survivor that mutation/equivalent.json does not list fails the test, so a rule that lost its
// teeth (or a gap nobody closed) shows within a few runs. The log names the seed, the module and the
// mutants; STACKPROOF_MUTATION_SLICE_SEED=<seed> draws the same slice again.
const STRYKER = existsSync(join(ROOT, 'node_modules', '@stryker-mutator', 'core', 'package.json'));
/** About three minutes on the 2-core CI machine, the dry run included. */
const BUDGET_MS = 150_000;

describe('mutation slice', () => {
  it.skipIf(!STRYKER)('judges a random slice of mutants: every survivor is triaged as equivalent', async () => {
    const seed = process.env.STACKPROOF_MUTATION_SLICE_SEED ? Number(process.env.STACKPROOF_MUTATION_SLICE_SEED) : Math.floor(Math.random() * 2 ** 31);
    expect(Number.isInteger(seed), 'STACKPROOF_MUTATION_SLICE_SEED must be an integer').toBe(true);
    expect(readRecords().length, 'no mutation record: run `npm run mutate -- <file>` and commit mutation/').toBeGreaterThan(0);
    const slice = drawSlice(seed, BUDGET_MS)!;
    expect(slice).toBeDefined();
    const rerun = `STACKPROOF_MUTATION_SLICE_SEED=${seed} npx vitest run test/mutation-slice.test.ts`;
    console.log(`mutation slice: seed ${seed}, ${slice.entry.file}, ${slice.picked.length} mutant(s) picked (${slice.expectedMutants} with those nested in them), about ${Math.round(slice.estimatedMs / 1000)} s; again: ${rerun}`);
    for (const p of slice.picked) console.log(`  ${p.range} ${p.mutant.mutatorName} (recorded ${p.mutant.status})`);

    const lines: string[] = [];
    const { report } = await mutateModule(slice.entry, { record: false, ranges: slice.picked.map((p) => p.range), logLevel: 'warn', log: (l) => lines.push(l) });
    const rows = mutantRows(report, readEquivalents());
    const recorded = new Map(mutantRows(readRecords().find((r) => r.report.stackproof?.module === slice.entry.file)!.report).map((r) => [`${r.line}:${r.column}:${r.mutator}:${r.replacement}`, r.status]));
    for (const r of rows) console.log(`  ${r.triage.padEnd(10)} ${describeMutant(r)}${r.reason ? ` (${r.reason.slice(0, 160)})` : ''}`);
    const undecided = rows.filter((r) => r.triage === 'undecided');
    if (undecided.length) console.log(`  ${undecided.length} undecided (a rule stayed ERROR twice: the machine was busy, or the mutant hangs a request): not judged here`);
    // The ranges are exact: what was picked was judged.
    expect(rows.length, 'the slice judged fewer mutants than it picked').toBeGreaterThanOrEqual(slice.picked.length);
    const gaps = rows.filter((r) => r.triage === 'gap');
    const message = gaps
      .map((r) => {
        const before = recorded.get(`${r.line}:${r.column}:${r.mutator}:${r.replacement}`);
        return `${describeMutant(r)}${before === 'Killed' || before === 'Timeout' ? ` (REGRESSION: the record has it ${before})` : ''}`;
      })
      .join('\n  ');
    expect(gaps, `survivors not triaged in mutation/equivalent.json (close them with a rule, or list them with the reason no client can tell them apart); again: ${rerun}\n  ${message}`).toEqual([]);
  }, 420_000);

  it.runIf(!STRYKER)('says why it did not run', () => {
    console.log('mutation slice skipped: @stryker-mutator/core is not installed (npm ci installs it)');
  });
});
