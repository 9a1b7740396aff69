import fc from 'fast-check';
import { expect } from 'vitest';
import { nodeMetadataSchema, type NodeMetadataResponse } from '../../src/client/schemas/scheduler.ts';
import { expectShape } from '../kit/expect-shape.ts';
import { ruleTest } from '../kit/rule-test.ts';
import { runAlone } from '../kit/exclusive.ts';
import { SkipRule, type RuleKit } from '../kit/rule-kit.ts';
import { metadataKeyPrefix } from '../../src/provision/scheduler-provisioner.ts';

// Not beside the other scheduler files: rules there update the node's metadata too (a key of their
// own, but the whole Dynamic map is compared here), and each update is a Node event.
runAlone('scheduler-events');

/**
 * A key this run creates: `stackproof.<run prefix with '_' for '-'>.<rest>`, so the tests touch
 * nothing else on a shared node and the end-of-run sweep removes any a test could not.
 */
const runKey = (kit: RuleKit, rest: string) => `${metadataKeyPrefix(kit.ctx.runPrefix)}${rest}`;

/**
 * Dynamic with keys set to null left out: a key unset through the API may be kept as null or
 * deleted (Nomad deletes it since PR 18664, client/meta_endpoint.go NodeMeta.Apply); both mean unset.
 */
function setKeys(dynamic: Record<string, string | null>): Record<string, string> {
  return Object.fromEntries(Object.entries(dynamic).filter((e): e is [string, string] => e[1] !== null));
}

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
  const key = runKey(kit, 'unset');
  try {
    await nullUnsets(kit, key);
  } finally {
    // Leave no stray value behind on a shared target.
    await kit.scheduler.updateMetadata({ [key]: null, [`${key}_empty`]: null });
  }
});

async function nullUnsets(kit: RuleKit, key: string): Promise<void> {
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
  expect(view.Dynamic[key] ?? null, `${key} set to null is absent or null in Dynamic`).toBeNull();
  expect(view.Meta, 'Meta is the merge of Static and Dynamic').toEqual(expectedMeta(view));
}

const segment = fc.stringMatching(/^[a-z_][a-z0-9_-]{0,6}$/);
const dottedKey = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('.'));

ruleTest('scheduler.metadata.merge', async (kit) => {
  const run = runKey(kit, 'merge');
  const touched = new Set<string>();
  try {
    await merge(kit, run, touched);
  } finally {
    // Leave no stray value behind on a shared target.
    if (touched.size) await kit.scheduler.updateMetadata(Object.fromEntries([...touched].map((k) => [k, null])));
  }
});

async function merge(kit: RuleKit, run: string, touched: Set<string>): Promise<void> {
  await kit.property(
    fc.dictionary(dottedKey.map((k) => `${run}.${k}`), fc.option(fc.string({ maxLength: 12 }), { nil: null }), { minKeys: 1, maxKeys: 5 }),
    async (update) => {
      const before = (await kit.scheduler.readMetadata()).parse(nodeMetadataSchema);
      for (const k of Object.keys(update)) touched.add(k);
      const res = await kit.scheduler.updateMetadata(update);
      expect(res.status, `POST ${JSON.stringify(update)} answers 200`).toBe(200);
      const after = expectShape(await kit.scheduler.readMetadata(), nodeMetadataSchema, 'metadata after the update');
      expect(setKeys(after.Dynamic), 'only the listed keys change in Dynamic (a key set to null is absent or null)').toEqual(setKeys({ ...before.Dynamic, ...update }));
      for (const [k, v] of Object.entries(update)) if (v === null) expect(after.Dynamic[k] ?? null, `${k} set to null is absent or null in Dynamic`).toBeNull();
      expect(after.Meta, 'Meta is the merge of Static and Dynamic').toEqual(expectedMeta(after));
    },
    // Two updates of different keys first, so any seed sees whether the second leaves the first's key
    // alone (fast-check counts the examples among numRuns).
    { numRuns: 2 + Math.min(kit.ctx.runs, 15), examples: [{ [`${run}.first`]: 'one' }, { [`${run}.second`]: 'two' }] },
  );
}

ruleTest('scheduler.metadata.invalid-keys', async (kit) => {
  const valid = runKey(kit, 'valid');
  try {
    await invalidKeys(kit, valid);
  } finally {
    // Set only if the target wrongly took the update.
    await kit.scheduler.updateMetadata({ [valid]: null });
  }
});

async function invalidKeys(kit: RuleKit, valid: string): Promise<void> {
  await kit.property(
    fc.constantFrom('a/b', 'rack/zone', '', '.lead', 'trail.', 'a..b', 'has space', 'semi;colon', '1starts-with-digit', 'a.b/c'),
    async (key) => {
      const before = (await kit.scheduler.readMetadata()).parse(nodeMetadataSchema);
      const res = await kit.scheduler.updateMetadata({ [key]: 'x', [valid]: 'y' });
      expect(res.status, `a key ${JSON.stringify(key)} is refused`).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      const after = (await kit.scheduler.readMetadata()).parse(nodeMetadataSchema);
      expect(after, 'and nothing changes, not even the valid key beside it').toEqual(before);
    },
    // A slashed key first, whatever the seed (fast-check counts the examples among numRuns).
    { numRuns: 11, examples: ['a/b'] },
  );
}

ruleTest('scheduler.metadata.static', async (kit) => {
  // Only keys this run made: setting a static key to null to "clean up" would leave a tombstone
  // hiding it on a real node (see the rule's notes).
  const before = (await kit.scheduler.readMetadata()).parse(nodeMetadataSchema);
  const key = runKey(kit, 'static');
  let after: NodeMetadataResponse;
  try {
    expect((await kit.scheduler.updateMetadata({ [key]: 'dynamic' })).status).toBe(200);
    after = (await kit.scheduler.readMetadata()).parse(nodeMetadataSchema);
  } finally {
    await kit.scheduler.updateMetadata({ [key]: null });
  }
  expect(after.Static, 'Static does not change through the API').toEqual(before.Static);
  for (const [k, v] of Object.entries(before.Static)) {
    if (!Object.hasOwn(after.Dynamic, k)) expect(after.Meta[k], `static ${k} is reported in Meta`).toBe(v);
  }
});

ruleTest('scheduler.metadata.node-id', async (kit) => {
  const nodeId = kit.ctx.provisioned?.scheduler?.nodeId ?? kit.ctx.targets.scheduler?.nodeId;
  if (!nodeId) throw new SkipRule('the node ID is not known: none was detected and the scheduler profile names none');
  expect((await kit.scheduler.readMetadata({ node_id: nodeId })).status, "node_id with this node's full ID answers 200").toBe(200);
  const other = await kit.scheduler.readMetadata({ node_id: '0e6c7f7a-1111-4222-8333-944445555666' });
  expect(other.status, 'node_id of no node is refused').toBeGreaterThanOrEqual(400);
});

ruleTest('scheduler.metadata.node-id-default', async (kit) => {
  const nodeId = kit.ctx.provisioned?.scheduler?.nodeId ?? kit.ctx.targets.scheduler?.nodeId;
  if (!nodeId) throw new SkipRule('the node ID is not known: none was detected and the scheduler profile names none');
  const key = runKey(kit, 'nodedefault');
  const s = kit.scheduler;
  try {
    // Set without node_id (query and body): the receiving node takes it.
    const set = await s.updateMetadata({ [key]: 'implicit' }, { node_id: undefined });
    expect(set.status, 'POST /v1/client/metadata without node_id answers 200').toBe(200);
    const named = expectShape(await s.readMetadata({ node_id: nodeId }), nodeMetadataSchema, 'GET with node_id');
    expect(named.Dynamic[key], "a key set without node_id is the receiving node's: read with its full ID").toBe('implicit');
    // Set with NodeID in the body, read without node_id.
    const body = await s.http.post('/v1/client/metadata', { NodeID: nodeId, Meta: { [key]: 'body' } });
    expect(body.status, 'POST /v1/client/metadata with NodeID in the body answers 200').toBe(200);
    const implicit = expectShape(await s.readMetadata({ node_id: undefined }), nodeMetadataSchema, 'GET without node_id');
    expect(implicit.Dynamic[key], 'GET without node_id reads the receiving node, where NodeID in the body set the key').toBe('body');
    expect((await s.stats({ node_id: undefined })).status, 'GET /v1/client/stats without node_id answers 200').toBe(200);
  } finally {
    await s.updateMetadata({ [key]: null });
  }
});
