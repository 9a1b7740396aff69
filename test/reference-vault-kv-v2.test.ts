import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type ReferenceWithControl } from '../src/reference/reference.ts';

/**
 * The version 2 key-value engine of the reference in the hashicorp dialect, as Vault's clients use
 * it: each case sends what hvac (hvac/api/secrets_engines/kv_v2.py) or the vault CLI sends and
 * expects what hashicorp/vault-plugin-secrets-kv answers (file and function named per case).
 */
async function call(ref: ReferenceWithControl, method: string, path: string, body?: unknown) {
  const res = await fetch(`${ref.secrets.url}/v1/${path}`, {
    method,
    headers: { 'X-Vault-Token': ref.secrets.token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) as { data: Record<string, any>; errors?: string[]; warnings?: string[] | null } };
}

describe('KV version 2 in the hashicorp dialect: versions, check-and-set, metadata', () => {
  let ref: ReferenceWithControl;
  let mount: string;
  let n = 0;
  const key = () => `kvtest-${++n}`;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp' });
    mount = ref.secrets.kvV2Mount;
  });
  afterAll(async () => ref.stop());

  /** hvac create_or_update_secret: always an options object, cas only when given. */
  const put = (k: string, secret: Record<string, unknown>, cas?: unknown) => call(ref, 'POST', `${mount}data/${k}`, { options: cas === undefined ? {} : { cas }, data: secret });

  it('reads the version asked for with ?version= (pathDataRead), the current one for 0 or none, 404 {"errors":[]} for one that never was', async () => {
    const k = key();
    expect((await put(k, { v: 'one' })).json().data).toMatchObject({ version: 1, deletion_time: '', destroyed: false, custom_metadata: null });
    expect((await put(k, { v: 'two' })).json().data.version).toBe(2);
    const read = async (q: string) => call(ref, 'GET', `${mount}data/${k}${q}`);
    expect((await read('?version=1')).json().data).toMatchObject({ data: { v: 'one' }, metadata: { version: 1 } });
    expect((await read('?version=2')).json().data.data).toEqual({ v: 'two' });
    expect((await read('')).json().data.data).toEqual({ v: 'two' });
    expect((await read('?version=0')).json().data.data).toEqual({ v: 'two' });
    const missing = await read('?version=3');
    expect(missing.status).toBe(404);
    expect(missing.json()).toEqual({ errors: [] });
    expect((await read('?version=abc')).status).toBe(400);
  });

  it('check-and-set (validateCheckAndSetOption): cas 0 creates only, a cas that is not the current version is 400 with Vault\'s message and writes nothing', async () => {
    const k = key();
    expect((await put(k, { a: 1 }, 0)).status).toBe(200);
    const again = await put(k, { a: 2 }, 0);
    expect(again.status).toBe(400);
    expect(again.json()).toEqual({ errors: ['check-and-set parameter did not match the current version'] });
    for (const stale of [2, 9, '0']) expect((await put(k, { a: 3 }, stale)).status, String(stale)).toBe(400);
    expect((await put(k, { a: 4 }, '1')).json().data.version, 'a cas given as a string is read weakly').toBe(2);
    expect((await put(k, { a: 5 }, 'one')).json()).toEqual({ errors: ['error parsing check-and-set parameter'] });
    expect((await call(ref, 'GET', `${mount}data/${k}`)).json().data).toMatchObject({ data: { a: 4 }, metadata: { version: 2 } });
    // A refused create-only write on a new key leaves no key behind.
    const fresh = key();
    expect((await put(fresh, { a: 1 }, 5)).status).toBe(400);
    expect((await call(ref, 'GET', `${mount}metadata/${fresh}`)).status).toBe(404);
  });

  it('requires check-and-set where the key\'s metadata says so (cas_required), with Vault\'s message', async () => {
    const k = key();
    expect((await call(ref, 'POST', `${mount}metadata/${k}`, { cas_required: true })).status).toBe(204);
    expect((await put(k, { a: 1 })).json()).toEqual({ errors: ['check-and-set parameter required for this call'] });
    expect((await put(k, { a: 1 }, 0)).status).toBe(200);
  });

  it('deletes, undeletes and destroys versions (path_delete.go, path_destroy.go): 204, versions that cannot change passed over, an empty list refused in each endpoint\'s words', async () => {
    const k = key();
    for (const v of ['a', 'b', 'c']) await put(k, { v });
    expect((await call(ref, 'POST', `${mount}delete/${k}`, { versions: [1, 2, 7] })).status).toBe(204);
    expect((await call(ref, 'GET', `${mount}data/${k}?version=1`)).status).toBe(404);
    expect((await call(ref, 'GET', `${mount}data/${k}?version=3`)).json().data.data).toEqual({ v: 'c' });
    expect((await call(ref, 'POST', `${mount}undelete/${k}`, { versions: ['1'] })).status).toBe(204);
    expect((await call(ref, 'GET', `${mount}data/${k}?version=1`)).json().data.data).toEqual({ v: 'a' });
    expect((await call(ref, 'PUT', `${mount}destroy/${k}`, { versions: '1,3' })).status).toBe(204);
    const meta = (await call(ref, 'GET', `${mount}metadata/${k}`)).json().data;
    expect(meta.versions['1']).toMatchObject({ destroyed: true });
    expect(meta.versions['2'].deletion_time).not.toBe('');
    expect(meta.versions['3']).toMatchObject({ destroyed: true });
    // A destroyed version cannot be undeleted.
    await call(ref, 'POST', `${mount}undelete/${k}`, { versions: [1] });
    expect((await call(ref, 'GET', `${mount}data/${k}?version=1`)).status).toBe(404);
    expect((await call(ref, 'POST', `${mount}delete/${k}`, { versions: [] })).json()).toEqual({ errors: ['No version number provided'] });
    expect((await call(ref, 'POST', `${mount}undelete/${k}`, {})).json()).toEqual({ errors: ['No version number provided'] });
    expect((await call(ref, 'PUT', `${mount}destroy/${k}`, { versions: [] })).json()).toEqual({ errors: ['no version number provided'] });
    expect((await call(ref, 'POST', `${mount}delete/never-written`, { versions: [1] })).status).toBe(204);
  });

  it('reads metadata (pathMetadataRead): versions keyed by their number as text, current and oldest version, settings; 404 {"errors":[]} for no key', async () => {
    const k = key();
    await put(k, { a: 1 });
    await put(k, { a: 2 });
    const meta = (await call(ref, 'GET', `${mount}metadata/${k}`)).json().data;
    expect(Object.keys(meta.versions)).toEqual(['1', '2']);
    expect(meta).toMatchObject({ current_version: 2, oldest_version: 0, max_versions: 0, cas_required: false, delete_version_after: '0s', custom_metadata: null });
    expect(meta.updated_time).toBe(meta.versions['2'].created_time);
    expect((await call(ref, 'GET', `${mount}metadata/nothing-here`)).json()).toEqual({ errors: [] });
  });

  it('keeps the last 10 versions when neither the mount nor the key says otherwise (KeyMetadata.AddVersion), and the larger of the two when they do', async () => {
    const k = key();
    for (let i = 1; i <= 12; i++) await put(k, { i });
    const meta = (await call(ref, 'GET', `${mount}metadata/${k}`)).json().data;
    expect(meta.oldest_version).toBe(3);
    expect(Object.keys(meta.versions)).toEqual(['3', '4', '5', '6', '7', '8', '9', '10', '11', '12']);
    expect((await call(ref, 'GET', `${mount}data/${k}?version=2`)).status).toBe(404);
    const few = key();
    await call(ref, 'POST', `${mount}metadata/${few}`, { max_versions: 2 });
    for (let i = 1; i <= 4; i++) await put(few, { i });
    expect(Object.keys((await call(ref, 'GET', `${mount}metadata/${few}`)).json().data.versions)).toEqual(['3', '4']);
  });

  it('writes metadata (pathMetadataWrite): none of its fields makes nothing; custom_metadata is checked as validateCustomMetadata checks it and then read with every version', async () => {
    const k = key();
    expect((await call(ref, 'POST', `${mount}metadata/${k}`, { unrelated: 1 })).status).toBe(204);
    expect((await call(ref, 'GET', `${mount}metadata/${k}`)).status).toBe(404);
    expect((await call(ref, 'POST', `${mount}metadata/${k}`, { custom_metadata: { owner: 'team-a', n: 3 } })).status).toBe(204);
    await put(k, { a: 1 });
    expect((await call(ref, 'GET', `${mount}data/${k}`)).json().data.metadata.custom_metadata).toEqual({ owner: 'team-a', n: '3' });
    const long = await call(ref, 'POST', `${mount}metadata/${k}`, { custom_metadata: { ['k'.repeat(129)]: 'v' } });
    expect(long.status).toBe(400);
    // A go-multierror's text, even for one problem (OpenBao 2.6.2 answers the same).
    expect(long.json().errors![0]).toBe(`1 error occurred:\n\t* custom_metadata validation failed: length of key "${'k'.repeat(129)}" is 129 but must be 0 < len(key) <= 128\n\n`);
    const many = await call(ref, 'POST', `${mount}metadata/${k}`, { custom_metadata: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v'])) });
    expect(many.json().errors![0]).toBe('1 error occurred:\n\t* custom_metadata validation failed: payload must contain at most 64 keys, provided 65\n\n');
    expect((await call(ref, 'DELETE', `${mount}metadata/${k}`)).status).toBe(204);
    expect((await call(ref, 'GET', `${mount}data/${k}`)).status).toBe(404);
  });

  it('takes the mount settings hvac configure() sends by default (max_versions 10, delete_version_after 0s), and refuses a deletion timer it would not honour', async () => {
    expect((await call(ref, 'POST', `${mount}config`, { max_versions: 10, cas_required: false, delete_version_after: '0s' })).status).toBe(204);
    expect((await call(ref, 'GET', `${mount}config`)).json().data).toEqual({ max_versions: 10, cas_required: false, delete_version_after: '0s' });
    expect((await call(ref, 'POST', `${mount}config`, { delete_version_after: '1h' })).status).toBe(400);
    expect((await call(ref, 'POST', `${mount}config`, { max_versions: 0 })).status).toBe(204);
  });
});

describe('KV version 2 in the spec dialect stays what the spec shows', () => {
  let ref: ReferenceWithControl;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'spec' });
  });
  afterAll(async () => ref.stop());

  it('ignores ?version and options, and serves no metadata/<name>, delete/ or destroy/ (the spec shows only data/ and listing metadata/)', async () => {
    const mount = ref.secrets.kvV2Mount;
    const headers = { 'X-Service-Token': ref.secrets.token, 'content-type': 'application/json' };
    const post = (path: string, body: unknown) => fetch(`${ref.secrets.url}/v1/${mount}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    expect((await post('data/s', { data: { a: 1 } })).status).toBe(200);
    expect((await post('data/s', { data: { a: 2 }, options: { cas: 0 } })).status).toBe(200);
    const read = (await (await fetch(`${ref.secrets.url}/v1/${mount}data/s?version=1`, { headers })).json()) as { data: { data: unknown } };
    expect(read.data.data).toEqual({ a: 2 });
    expect((await fetch(`${ref.secrets.url}/v1/${mount}metadata/s`, { headers })).status).toBe(404);
    expect((await post('delete/s', { versions: [1] })).status).toBe(404);
  });
});
