import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The suite files whose rules wait longest on the target (expiring leaves, tasks that tick on a
 * schedule, tokens that must expire), longest first. They start first, one per worker, and the
 * short files fill the workers they leave free: started last, one of them would end the run late.
 */
export const SUITES_FIRST = ['suites/mesh/ca.suite.ts', 'suites/scheduler/fs.suite.ts', 'suites/secrets/oidc-flow.suite.ts'];

/**
 * The files that wait for scheduler/fs.suite.ts to end (runAlone, suites/kit/exclusive.ts): started
 * last, they find it ended or nearly so, rather than hold a worker idle while it runs.
 */
export const SUITES_LAST = ['suites/scheduler/events.suite.ts', 'suites/scheduler/metadata.suite.ts'];

/** Vitest's order (by its cache of earlier durations), with the files above moved to the front and the back. */
export class SuiteSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const indexIn = (list: string[], spec: TestSpecification) => list.findIndex((f) => spec.moduleId.endsWith(`/${f}`));
    const rank = (spec: TestSpecification) => {
      const first = indexIn(SUITES_FIRST, spec);
      if (first !== -1) return first;
      const last = indexIn(SUITES_LAST, spec);
      return last === -1 ? SUITES_FIRST.length : SUITES_FIRST.length + 1 + last;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
