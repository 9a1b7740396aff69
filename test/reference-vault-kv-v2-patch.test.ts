import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergePatch } from '../src/reference/secrets/kv-v2.ts';
import { startReference, type ReferenceWithControl } from '../src/reference/reference.ts';

/**
 * PATCH of a KV version 2 secret in the hashicorp dialect, as Vault's Go client sends it
 * (hashicorp/vault api/kv_v2.go KVv2.Patch → mergePatch: `PATCH /v1/<mount>/data/<path>` with
 * Content-Type application/merge-patch+json and `{"data": {...}, "options": {"cas": N}}`; its default
 * method, with no fallback) and `vault kv patch` tries first (command/kv_patch.go mergePatch), and as
 * vault-plugin-secrets-kv path_data.go pathDataPatch answers it.
 */
async function call(ref: ReferenceWithControl, method: string, path: string, body?: unknown, contentType = 'application/merge-patch+json') {
  const res = await fetch(`${ref.secrets.url}/v1/${path}`, {
    method,
    headers: { 'X-Vault-Token': ref.secrets.token, ...(body === undefined ? {} : { 'content-type': method === 'PATCH' ? contentType : 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) as { data: Record<string, any>; errors?: string[] } };
}

describe('KV version 2 PATCH (hashicorp dialect)', () => {
  let ref: ReferenceWithControl;
  let mount: string;
  let n = 0;
  const key = () => `patch-${++n}`;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp' });
    mount = ref.secrets.kvV2Mount;
  });
  afterAll(async () => ref.stop());
  const put = (k: string, data: Record<string, unknown>) => call(ref, 'POST', `${mount}data/${k}`, { options: {}, data });
  const patch = (k: string, data: unknown, options: Record<string, unknown> = {}) => call(ref, 'PATCH', `${mount}data/${k}`, { data, options });
  const current = async (k: string) => (await call(ref, 'GET', `${mount}data/${k}`)).json().data;

  it('merges the patch into the current version as RFC 7396 says and writes it as the next version', async () => {
    const k = key();
    expect((await put(k, { a: '1', b: '2', nested: { x: 1, y: 2 } })).status).toBe(200);
    const res = await patch(k, { b: null, c: '3', nested: { y: null, z: 3 } });
    expect(res.status, res.text).toBe(200);
    expect(res.json().data).toMatchObject({ version: 2, deletion_time: '', destroyed: false });
    const read = await current(k);
    expect(read.data).toEqual({ a: '1', c: '3', nested: { x: 1, z: 3 } });
    expect(read.metadata.version).toBe(2);
    // The version patched from is kept as it was.
    expect((await call(ref, 'GET', `${mount}data/${k}?version=1`)).json().data.data).toEqual({ a: '1', b: '2', nested: { x: 1, y: 2 } });
  });

  it('checks check-and-set against the current version before patching (validateCheckAndSetOption)', async () => {
    const k = key();
    await put(k, { a: '1' });
    await put(k, { a: '2' });
    const stale = await patch(k, { b: 'x' }, { cas: 1 });
    expect(stale.status).toBe(400);
    expect(stale.json().errors).toEqual(['check-and-set parameter did not match the current version']);
    expect((await current(k)).data).toEqual({ a: '2' });
    const ok = await patch(k, { b: 'x' }, { cas: 2 });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json().data.version).toBe(3);
    // A mount or key that requires check-and-set refuses a patch without it, as a write.
    expect((await call(ref, 'POST', `${mount}metadata/${k}`, { cas_required: true })).status).toBeLessThan(300);
    const without = await patch(k, { c: 'y' });
    expect(without.status).toBe(400);
    expect(without.json().errors).toEqual(['check-and-set parameter required for this call']);
  });

  it('answers 404 for a key with no versions and for a deleted current version; 400 without data', async () => {
    expect((await patch(key(), { a: '1' })).status).toBe(404);
    const k = key();
    await put(k, { a: '1' });
    const noData = await call(ref, 'PATCH', `${mount}data/${k}`, { options: {} });
    expect(noData.status).toBe(400);
    expect(noData.json().errors).toEqual(['no data provided']);
    expect((await call(ref, 'DELETE', `${mount}data/${k}`)).status).toBe(204);
    expect((await patch(k, { a: '2' })).status).toBe(404);
  });

  it('answers PATCH 405 where the engine has no patch: a version 1 engine, delete/ of a version 2 one; and media types first (400, 415)', async () => {
    const k = key();
    await put(k, { a: '1' });
    expect((await call(ref, 'PATCH', `${mount}delete/${k}`, { versions: [1] })).status).toBe(405);
    expect((await call(ref, 'PATCH', `${ref.secrets.kvV1Mount}x`, { data: { a: '1' } })).status).toBe(405);
    expect((await call(ref, 'PATCH', `${mount}data/${k}`, { data: { a: '2' } }, 'application/json')).status).toBe(415);
    // Without a token: refused before the path is looked at.
    const anonymous = await fetch(`${ref.secrets.url}/v1/${mount}data/${k}`, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: '{"data":{}}' });
    expect(anonymous.status).toBe(403);
  });

  /**
   * PATCH metadata/<path> as `vault kv metadata patch` and hvac's patch_metadata send it, answered as
   * vault-plugin-secrets-kv path_metadata.go pathMetadataPatch; each answer below is also what
   * OpenBao 2.6.2 (builtin/logical/kv, the same handler) gave for it, but the one noted.
   */
  it('patches a key\'s metadata (pathMetadataPatch): the fields given merged in, custom_metadata key by key, a null removing', async () => {
    const k = key();
    await put(k, { a: '1' });
    const meta = async () => (await call(ref, 'GET', `${mount}metadata/${k}`)).json().data;
    expect((await call(ref, 'POST', `${mount}metadata/${k}`, { custom_metadata: { x: '1', y: '2' }, max_versions: 3 })).status).toBe(204);
    expect((await call(ref, 'PATCH', `${mount}metadata/${k}`, { custom_metadata: { x: null, z: 3 }, cas_required: true })).status).toBe(204);
    expect(await meta()).toMatchObject({ custom_metadata: { y: '2', z: '3' }, max_versions: 3, cas_required: true });
    expect((await call(ref, 'PATCH', `${mount}metadata/${k}`, { max_versions: 5 })).status).toBe(204);
    expect(await meta(), 'what the patch does not name stays').toMatchObject({ custom_metadata: { y: '2', z: '3' }, max_versions: 5, cas_required: true });
    expect((await call(ref, 'PATCH', `${mount}metadata/${k}`, { custom_metadata: null })).status).toBe(204);
    expect((await meta()).custom_metadata, 'a null custom_metadata removes every key').toBeNull();
    expect((await call(ref, 'PATCH', `${mount}metadata/${k}`, { unrelated: 1 })).status, 'no field of its own: nothing changes').toBe(204);
    expect((await meta()).max_versions).toBe(5);
  });

  it('refuses a metadata patch as pathMetadataPatch does: no key 404, custom_metadata checked (its nulls left out), a negative max_versions 500', async () => {
    // OpenBao answers a patch with none of the fields 204 even for a key with no metadata (its
    // handler returns before the lookup); Vault looks the key up first, as here.
    expect((await call(ref, 'PATCH', `${mount}metadata/${key()}`, { max_versions: 2 })).status).toBe(404);
    const k = key();
    await put(k, { a: '1' });
    const empty = await call(ref, 'PATCH', `${mount}metadata/${k}`, { custom_metadata: { k: '', gone: null } });
    expect(empty.status).toBe(400);
    expect(empty.json().errors).toEqual(['1 error occurred:\n\t* custom_metadata validation failed: length of value for key "k" is 0 but must be 0 < len(value) <= 512\n\n']);
    const negative = await call(ref, 'PATCH', `${mount}metadata/${k}`, { max_versions: -1 });
    expect(negative.status).toBe(500);
    expect(negative.json().errors).toEqual(['1 error occurred:\n\t* json: cannot unmarshal number -1 into Go struct field KeyMetadata.max_versions of type uint32\n\n']);
    expect((await call(ref, 'GET', `${mount}metadata/${k}`)).json().data.max_versions, 'a refused patch changes nothing').toBe(0);
  });

  it('mergePatch follows RFC 7396: the examples of its appendix A', () => {
    const cases: [unknown, unknown, unknown][] = [
      [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
      [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
      [{ a: 'b' }, { a: null }, {}],
      [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
      [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
      [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
      [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
      [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
      [['a', 'b'], ['c', 'd'], ['c', 'd']],
      [{ a: 'b' }, ['c'], ['c']],
      [{ a: 'foo' }, null, null],
      [{ a: 'foo' }, 'bar', 'bar'],
      [{ e: null }, { a: 1 }, { e: null, a: 1 }],
      [[1, 2], { a: 'b', c: null }, { a: 'b' }],
      [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    ];
    // A key named __proto__ is data: JSON.parse makes it an own property, and so does the patch.
    const proto = mergePatch(JSON.parse('{"a":1}'), JSON.parse('{"__proto__":{"b":2}}')) as Record<string, unknown>;
    expect(JSON.stringify(proto)).toBe('{"a":1,"__proto__":{"b":2}}');
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    for (const [target, patch, result] of cases) expect(mergePatch(target, patch), JSON.stringify([target, patch])).toEqual(result);
    // Applying a patch twice changes nothing more (merge patches are idempotent).
    const json = fc.jsonValue();
    fc.assert(
      fc.property(json, json, (t, p) => {
        expect(mergePatch(mergePatch(t, p), p)).toEqual(mergePatch(t, p));
      }),
      { numRuns: 300 },
    );
  });
});

describe('PATCH in the spec dialect stays what the spec shows', () => {
  it('answers 405: the spec has no PATCH', async () => {
    const ref = await startReference({ dialect: 'spec' });
    try {
      const res = await fetch(`${ref.secrets.url}/v1/${ref.secrets.kvV2Mount}data/x`, { method: 'PATCH', headers: { 'X-Service-Token': ref.secrets.token, 'content-type': 'application/merge-patch+json' }, body: '{"data":{"a":"1"}}' });
      expect(res.status).toBe(405);
    } finally {
      await ref.stop();
    }
  });
});
