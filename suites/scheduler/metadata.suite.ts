import { expect } from 'vitest';
import { nodeMetadataSchema, type NodeMetadataResponse } from '../../src/client/schemas/scheduler.ts';
import { expectShape } from '../kit/expect-shape.ts';
import { ruleTest } from '../kit/rule-test.ts';

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
