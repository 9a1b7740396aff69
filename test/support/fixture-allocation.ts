import type { FixtureTask } from '../../src/client/fixture-job.ts';
import { NomadSchedulerFixtures } from '../../src/provision/nomad-scheduler-fixtures.ts';
import { newRunPrefix } from '../../src/provision/run-prefix.ts';
import { schedulerControlHttpFor } from '../../src/provision/scheduler-provisioner.ts';
import type { ReferenceWithControl } from '../../src/reference/reference.ts';

let jobs = 0;
const prefix = newRunPrefix();

/**
 * An allocation of a fixture job placed on the reference's node through the Nomad API its control
 * listener serves: what the suites get, for tests of the reference itself. Resolves with its full ID.
 */
export async function placeAllocation(ref: ReferenceWithControl, tasks: FixtureTask[], until: 'running' | 'complete' = 'complete'): Promise<string> {
  const fixtures = new NomadSchedulerFixtures(schedulerControlHttpFor({ controlUrl: ref.control.url, controlToken: ref.control.token }), { nodeId: ref.scheduler.nodeId, runPrefix: prefix });
  jobs += 1;
  return (await fixtures.allocation(`${prefix}-test-${jobs}`, tasks, until)).id;
}
