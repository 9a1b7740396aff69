import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The suite files whose rules wait longest on the target (expiring leaves, tasks that tick on a
 * schedule, streams read until a deadline), longest first. They start first, one per worker, and
 * the short files fill the workers they leave free: started last, one of them would end the run late.
 */
export const LONGEST_SUITES_FIRST = ['suites/mesh/ca.suite.ts', 'suites/scheduler/fs.suite.ts', 'suites/scheduler/events.suite.ts', 'suites/secrets/oidc-flow.suite.ts'];

/** Vitest's order (by its cache of earlier durations), with the known long files moved ahead. */
export class SuiteSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const i = LONGEST_SUITES_FIRST.findIndex((f) => spec.moduleId.endsWith(`/${f}`));
      return i === -1 ? LONGEST_SUITES_FIRST.length : i;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
