// Loaded with `node --import` into the dry run's `stackproof conform` (run-mutant.mjs): at exit it
// writes the ids of the mutants whose code ran. Stryker's instrumented sandbox counts them itself
// (globalThis.__stryker__.mutantCoverage); the reference runs in the conform process, so this is
// every mutant any mapped rule reached, in this dialect. A mutant not among them runs no process.
import { writeFileSync } from 'node:fs';

const out = process.env.STACKPROOF_MUTATE_COVERAGE_OUT;
if (out) {
  process.on('exit', () => {
    const coverage = globalThis.__stryker__?.mutantCoverage ?? { static: {}, perTest: {} };
    const ids = new Set([...Object.keys(coverage.static ?? {}), ...Object.values(coverage.perTest ?? {}).flatMap((c) => Object.keys(c))]);
    writeFileSync(out, JSON.stringify([...ids]));
  });
}
