import fc from 'fast-check';
import { expect } from 'vitest';
import { nodeMetadataSchema, type NodeMetadataResponse } from '../../src/client/schemas/scheduler.ts';
import { expectShape } from '../kit/expect-shape.ts';
import { ruleTest } from '../kit/rule-test.ts';
import { runAlone } from '../kit/exclusive.ts';
import { SkipRule, type RuleKit } from '../kit/rule-kit.ts';
import { runMetadataKey, unsetKey } from './run-metadata-keys.ts';

// Not beside the other scheduler files: rules there update the node's metadata too (a key of their
// own, but the whole Dynamic map is compared here), and each update is a Node event.
runAlone('scheduler-events');

/**
 * Dynamic with keys set to null left out: a key unset through the API may be kept as null or
 * deleted (client/meta_endpoint.go NodeMeta.Apply: Nomad 1.5.0-1.5.9 and 1.6.0-1.6.2 keep the null,
 * PR 18664 deletes it since 1.5.10, 1.6.3 and 1.7.0); both mean unset.
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
  const key = unsetKey(kit);
  try {
    await nullUnsets(kit, key);
  } finally {
    // Leave no stray value behind on a shared target.
    await kit.scheduler.updateMetadata({ [key]: null });
  }
});

async function nullUnsets(kit: RuleKit, key: string): Promise<void> {
  // One key, set to '' and then to a string, then unset: every key a run touches stays on a Nomad
  // that keeps unset keys as null (run-metadata-keys.ts).
  const empty = await kit.scheduler.updateMetadata({ [key]: '' });
  expect(empty.status, 'POST /v1/client/metadata answers 200').toBe(200);
  expect(expectShape(empty, nodeMetadataSchema, 'POST /v1/client/metadata response').Meta[key], "'' is a valid value, kept in Meta").toBe('');
  const set = await kit.scheduler.updateMetadata({ [key]: 'v1' });
  expect(set.status, 'POST /v1/client/metadata answers 200').toBe(200);
  const afterSet = expectShape(set, nodeMetadataSchema, 'POST /v1/client/metadata response');
  expect(afterSet.Meta[key], 'a key set to a string appears in Meta').toBe('v1');

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
  const run = runMetadataKey(kit, 'merge');
  const touched = new Set<string>();
  try {
    await merge(kit, run, touched);
  } finally {
    // Leave no stray value behind on a shared target.
    if (touched.size) await kit.scheduler.updateMetadata(Object.fromEntries([...touched].map((k) => [k, null])));
  }
});

/**
 * The two keys the updates draw from: the run's shared key, and a dotted key the run's seed picks
 * under the run's merge prefix. Two rather than fresh keys for every update: every key a run
 * touches stays on a Nomad that keeps unset keys as null (run-metadata-keys.ts); two are enough to
 * see whether an update leaves the key it does not list alone.
 */
function mergeKeys(kit: RuleKit, run: string): [string, string] {
  const [picked] = fc.sample(dottedKey, { numRuns: 1, seed: kit.ctx.seed });
  return [unsetKey(kit), `${run}.${picked!}`];
}

async function merge(kit: RuleKit, run: string, touched: Set<string>): Promise<void> {
  const pool = mergeKeys(kit, run);
  await kit.property(
    fc.dictionary(fc.constantFrom(...pool), fc.option(fc.string({ maxLength: 12 }), { nil: null }), { minKeys: 1, maxKeys: pool.length }),
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
    { numRuns: 2 + Math.min(kit.ctx.runs, 15), examples: [{ [pool[0]]: 'one' }, { [pool[1]]: 'two' }] },
  );
}

ruleTest('scheduler.metadata.invalid-keys', async (kit) => {
  // The run's shared key: a valid key beside the invalid one, set only if the target wrongly takes the update.
  const valid = unsetKey(kit);
  try {
    await invalidKeys(kit, valid);
  } finally {
    await kit.scheduler.updateMetadata({ [valid]: null });
  }
});

async function invalidKeys(kit: RuleKit, valid: string): Promise<void> {
  await kit.property(
    fc.constantFrom('a/b', 'rack/zone', '', '.lead', 'trail.', 'a..b', 'has space', 'semi;colon', '1starts-with-digit', 'a.b/c'),
    async (key) => {
      const before = (await kit.scheduler.readMetadata()).parse(nodeMetadataSchema);
      const res = await kit.scheduler.updateMetadata({ [key]: 'x', [valid]: 'y' });
      // The spec names no status for the refusal: anything but a success refuses (Nomad: 400).
      expect(res.status >= 200 && res.status < 300, `a key ${JSON.stringify(key)} is refused (got ${res.status})`).toBe(false);
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
  const key = unsetKey(kit);
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
  expect(other.status >= 200 && other.status < 300, `node_id of no node is refused (got ${other.status})`).toBe(false);
});

ruleTest('scheduler.metadata.node-id-default', async (kit) => {
  const nodeId = kit.ctx.provisioned?.scheduler?.nodeId ?? kit.ctx.targets.scheduler?.nodeId;
  if (!nodeId) throw new SkipRule('the node ID is not known: none was detected and the scheduler profile names none');
  const key = unsetKey(kit);
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
