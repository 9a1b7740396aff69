import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NomadAdminApi } from '../src/provision/nomad-admin-api.ts';
import { NomadSchedulerFixtures } from '../src/provision/nomad-scheduler-fixtures.ts';
import { newRunPrefix } from '../src/provision/run-prefix.ts';
import { eligibilityRecordKey, metadataKeyPrefix, schedulerControlHttpFor, schedulerHttpFor, sweepScheduler } from '../src/provision/scheduler-provisioner.ts';
import { startReference, type ReferenceWithControl } from '../src/reference/reference.ts';
import { referenceTargets } from '../src/run/reference-targets.ts';

// A run that toggles the node's eligibility first records what it found in the node's dynamic
// metadata, so a killed run's change can be put back by `stackproof cleanup` (which has only the
// run prefix, or none). Here through the control listener's copy of Nomad's API, as on the embedded
// reference in the spec dialect; test/scheduler-provisioner.test.ts does it through Nomad's own API.
describe('eligibility record of a run', () => {
  let ref: ReferenceWithControl;
  let control: NomadAdminApi;
  let own: NomadAdminApi;
  let nodeId: string;
  const fixturesFor = (runPrefix: string) => {
    const target = referenceTargets(ref).scheduler!;
    return new NomadSchedulerFixtures(schedulerControlHttpFor(target.fixtures!), { nodeId, runPrefix, metadataHttp: schedulerHttpFor(target) });
  };
  const eligibility = async () => (await control.node(nodeId)).SchedulingEligibility;

  beforeAll(async () => {
    ref = await startReference();
    const target = referenceTargets(ref).scheduler!;
    control = new NomadAdminApi(schedulerControlHttpFor(target.fixtures!));
    own = new NomadAdminApi(schedulerHttpFor(target));
    nodeId = ref.scheduler.nodeId;
  });

  afterAll(async () => {
    await ref?.stop();
  });

  it('a killed run: the record is written before the first toggle, and the sweep by prefix puts the eligibility back and removes it', async () => {
    const prefix = newRunPrefix();
    expect(await eligibility()).toBe('eligible');
    await fixturesFor(prefix).setEligibility(false);
    expect((await own.metadata(nodeId)).Dynamic[eligibilityRecordKey(prefix)]).toBe('eligible');
    // A second fixtures object of the same run (each rule gets its own), which finds the node
    // ineligible, keeps the first record; it toggles the node away and back as the rules do.
    const second = fixturesFor(prefix);
    expect(await second.nodeEligible()).toBe(false);
    await second.setEligibility(true);
    expect((await own.metadata(nodeId)).Dynamic[eligibilityRecordKey(prefix)]).toBe('eligible');
    await second.setEligibility(false);
    // Asking for the eligibility the node has writes nothing on Nomad and publishes no event: refused.
    await expect(second.setEligibility(false)).rejects.toThrow(/already ineligible, so no Node event was published/);

    const listed = await sweepScheduler(control, prefix, { dryRun: true, nodeId, metadataApi: own });
    expect(listed.removed).toContain(`node ${nodeId} eligibility back to eligible (run ${prefix})`);
    expect(await eligibility(), 'a dry run changes nothing').toBe('ineligible');

    const swept = await sweepScheduler(control, prefix, { nodeId, metadataApi: own });
    expect(swept.problems).toEqual([]);
    expect(await eligibility()).toBe('eligible');
    // An unset key may be kept as null (Nomad deletes it since PR 18664): both mean unset.
    expect(Object.entries((await own.metadata(nodeId)).Dynamic).filter(([k, v]) => v !== null && k.startsWith(metadataKeyPrefix(prefix)))).toEqual([]);
  });

  it('a run that starts while a killed run left the node ineligible copies that run\'s record, and `cleanup --all` puts back what the first saw', async () => {
    const first = newRunPrefix();
    const second = newRunPrefix();
    await fixturesFor(first).setEligibility(false);
    await fixturesFor(second).setEligibility(true);
    await fixturesFor(second).setEligibility(false);
    const dynamic = (await own.metadata(nodeId)).Dynamic;
    expect(dynamic[eligibilityRecordKey(second)], 'the second run saw an ineligible node, but records what the first found').toBe('eligible');

    const swept = await sweepScheduler(control, 'all', { nodeId, metadataApi: own });
    expect(swept.problems).toEqual([]);
    expect(await eligibility()).toBe('eligible');
    const left = Object.entries((await own.metadata(nodeId)).Dynamic).filter(([k, v]) => v !== null && (k.startsWith(metadataKeyPrefix(first)) || k.startsWith(metadataKeyPrefix(second))));
    expect(left).toEqual([]);
  });

  it('records that disagree are left, with the eligibility, and the sweep says so', async () => {
    const a = newRunPrefix();
    const b = newRunPrefix();
    await own.setMetadata(nodeId, { [eligibilityRecordKey(a)]: 'eligible', [eligibilityRecordKey(b)]: 'ineligible' });
    await control.setEligibility(nodeId, false);
    const swept = await sweepScheduler(control, 'all', { nodeId, metadataApi: own });
    expect(swept.problems).toEqual([expect.stringMatching(/the runs recorded different eligibilities \(eligible, ineligible\); it is left as it is/)]);
    expect(await eligibility()).toBe('ineligible');
    // An operator decides; the records go with the prefix sweep of each run once the node is back.
    await control.setEligibility(nodeId, true);
    await own.unsetMetadata(nodeId, [eligibilityRecordKey(a), eligibilityRecordKey(b)]);
  });
});

