import fc from 'fast-check';
import { expect } from 'vitest';
import { nodeMetadataSchema, type NodeMetadataResponse } from '../../src/client/schemas/scheduler.ts';
import { expectShape } from '../kit/expect-shape.ts';
import { ruleTest } from '../kit/rule-test.ts';
import { SkipRule } from '../kit/rule-kit.ts';

/** Spec 002: Meta is the merge of Static and Dynamic, with keys whose dynamic value is null left out. */
function expectedMeta(view: NodeMetadataResponse): Record<string, string> {
  const meta: Record<string, string> = { ...view.Static };
  for (const [key, value] of Object.entries(view.Dynamic)) {
    if (value === null) delete meta[key];
    else meta[key] = value;
  }
  return meta;
}

ruleTest('scheduler.metadata.null-unsets', async (kit) => {
  const key = `stackproof.k${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const set = await kit.scheduler.updateMetadata({ [key]: 'v1', [`${key}_empty`]: '' });
  expect(set.status, 'POST /v1/client/metadata answers 200').toBe(200);
  const afterSet = expectShape(set, nodeMetadataSchema, 'POST /v1/client/metadata response');
  expect(afterSet.Meta[key], 'a key set to a string appears in Meta').toBe('v1');
  expect(afterSet.Meta[`${key}_empty`], "'' is a valid value, kept in Meta").toBe('');

  const unset = await kit.scheduler.updateMetadata({ [key]: null });
  expect(unset.status, 'POST with a null value answers 200').toBe(200);
  const read = await kit.scheduler.readMetadata();
  expect(read.status, 'GET /v1/client/metadata answers 200').toBe(200);
  const view = expectShape(read, nodeMetadataSchema, 'GET /v1/client/metadata response');
  expect(Object.hasOwn(view.Meta, key), `${key} set to null is absent from Meta`).toBe(false);
  expect(Object.hasOwn(view.Dynamic, key) && view.Dynamic[key] === null, `${key} set to null is present as null in Dynamic`).toBe(true);
  expect(view.Meta, 'Meta is the merge of Static and Dynamic').toEqual(expectedMeta(view));
  // Leave no stray value behind on a shared target.
  await kit.scheduler.updateMetadata({ [`${key}_empty`]: null });
});

const segment = fc.stringMatching(/^[a-z_][a-z0-9_-]{0,6}$/);
const dottedKey = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('.'));

ruleTest('scheduler.metadata.merge', async (kit) => {
  const run = `sp${Date.now().toString(36)}`;
  await kit.property(
    fc.dictionary(dottedKey.map((k) => `${run}.${k}`), fc.option(fc.string({ maxLength: 12 }), { nil: null }), { minKeys: 1, maxKeys: 5 }),
    async (update) => {
      const before = (await kit.scheduler.readMetadata()).parse(nodeMetadataSchema);
      const res = await kit.scheduler.updateMetadata(update);
      expect(res.status, `POST ${JSON.stringify(update)} answers 200`).toBe(200);
      const after = expectShape(await kit.scheduler.readMetadata(), nodeMetadataSchema, 'metadata after the update');
      const expectedDynamic = { ...before.Dynamic, ...update };
      expect(after.Dynamic, 'only the listed keys change in Dynamic').toEqual(expectedDynamic);
      expect(after.Meta, 'Meta is the merge of Static and Dynamic').toEqual(expectedMeta(after));
    },
    { numRuns: Math.min(kit.ctx.runs, 15) },
  );
});

ruleTest('scheduler.metadata.invalid-keys', async (kit) => {
  await kit.property(
    fc.constantFrom('a/b', 'rack/zone', '', '.lead', 'trail.', 'a..b', 'has space', 'semi;colon', '1starts-with-digit', 'a.b/c'),
    async (key) => {
      const before = (await kit.scheduler.readMetadata()).parse(nodeMetadataSchema);
      const res = await kit.scheduler.updateMetadata({ [key]: 'x', [`sp.valid${Date.now().toString(36)}`]: 'y' });
      expect(res.status, `a key ${JSON.stringify(key)} is refused`).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      const after = (await kit.scheduler.readMetadata()).parse(nodeMetadataSchema);
      expect(after, 'and nothing changes, not even the valid key beside it').toEqual(before);
    },
    { numRuns: 10 },
  );
});

ruleTest('scheduler.metadata.static', async (kit) => {
  const before = (await kit.scheduler.readMetadata()).parse(nodeMetadataSchema);
  const staticKey = Object.keys(before.Static)[0];
  const update: Record<string, string | null> = { [`sp.static${Date.now().toString(36)}`]: 'dynamic' };
  if (staticKey) update[staticKey] = 'overridden';
  expect((await kit.scheduler.updateMetadata(update)).status).toBe(200);
  const after = (await kit.scheduler.readMetadata()).parse(nodeMetadataSchema);
  expect(after.Static, 'Static does not change through the API').toEqual(before.Static);
  if (staticKey) {
    expect(after.Meta[staticKey], 'a dynamic value overrides the static one in Meta').toBe('overridden');
    await kit.scheduler.updateMetadata({ [staticKey]: null });
  }
});

ruleTest('scheduler.metadata.node-id', async (kit) => {
  const nodeId = kit.ctx.targets.scheduler?.nodeId;
  if (!nodeId) throw new SkipRule('the scheduler profile names no nodeId');
  expect((await kit.scheduler.readMetadata({ node_id: nodeId })).status, "node_id with this node's full ID answers 200").toBe(200);
  const other = await kit.scheduler.readMetadata({ node_id: '0e6c7f7a-1111-4222-8333-944445555666' });
  expect(other.status, 'node_id of no node is refused').toBeGreaterThanOrEqual(400);
});
