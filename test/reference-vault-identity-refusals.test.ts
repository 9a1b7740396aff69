import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type ReferenceWithControl } from '../src/reference/reference.ts';

/**
 * What hvac met on OpenBao 2.6.2 where the reference serves Vault's identity API beyond the spec,
 * answered as the products answer it: a group alias on an internal group, and an identity-token
 * role whose ttl is longer than its key's verification_ttl, are refused. Each expected answer is
 * what OpenBao 2.6.2 gave for the same request (openbao/openbao vault/identity/store_group_aliases.go
 * handleGroupAliasUpdateCommon, vault/identity/store_oidc.go pathOIDCCreateUpdateRole,
 * pathOIDCCreateUpdateKey, pathOIDCDeleteKey; hashicorp/vault has the same code under
 * vault/identity_store_*.go).
 */
async function call(ref: ReferenceWithControl, method: string, path: string, body?: unknown) {
  const res = await fetch(`${ref.secrets.url}/v1/${path}`, { method, headers: { 'X-Vault-Token': ref.secrets.token, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as { data?: Record<string, unknown>; errors?: string[] }) : undefined };
}

const refused = (status: number, message: string) => ({ status, body: { errors: [message] } });

describe('identity refusals hvac met on OpenBao (hashicorp dialect)', () => {
  let ref: ReferenceWithControl;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp' });
  });
  afterAll(async () => ref.stop());

  it('refuses a group alias on an internal group, and checks the alias\'s fields first', async () => {
    const accessor = ((await call(ref, 'GET', 'sys/auth')).body!.data!['token/'] as { accessor: string }).accessor;
    const group = (await call(ref, 'POST', 'identity/group', { name: 'ga-internal' })).body!.data!.id as string;
    expect(await call(ref, 'POST', 'identity/group-alias', { name: 'x', mount_accessor: accessor, canonical_id: group })).toEqual(refused(400, "alias can't be set on an internal group"));
    // The group is looked at before the mount accessor.
    expect(await call(ref, 'POST', 'identity/group-alias', { name: 'x', mount_accessor: 'bogus', canonical_id: group })).toEqual(refused(400, "alias can't be set on an internal group"));
    expect(await call(ref, 'POST', 'identity/group-alias', { name: 'x', mount_accessor: accessor, canonical_id: 'nope' })).toEqual(refused(400, "invalid group ID given in 'canonical_id'"));
    expect(await call(ref, 'POST', 'identity/group-alias', { mount_accessor: accessor })).toEqual(refused(400, 'missing alias name'));
    expect(await call(ref, 'POST', 'identity/group-alias', { name: 'x' })).toEqual(refused(400, 'missing mount_accessor'));
    expect(await call(ref, 'POST', 'identity/group-alias', { name: 'x', mount_accessor: 'bogus' })).toEqual(refused(400, 'invalid mount accessor "bogus"'));
    expect(await call(ref, 'POST', 'identity/group-alias', { id: 'nope', name: 'x' })).toEqual(refused(400, 'invalid group alias ID'));
    expect(await call(ref, 'GET', 'identity/group-alias/id/nope')).toEqual({ status: 404, body: { errors: [] } });
    expect(await call(ref, 'DELETE', 'identity/group-alias/id/nope')).toEqual({ status: 204, body: undefined });
    expect(await call(ref, 'LIST', 'identity/group-alias/id')).toEqual({ status: 404, body: { errors: [] } });
  });

  it('refuses an identity-token role whose ttl is longer than its key\'s verification_ttl, and keeps keys and roles consistent', async () => {
    expect((await call(ref, 'POST', 'identity/oidc/key/rk', { verification_ttl: '1h', rotation_period: '1h', allowed_client_ids: ['*'] })).status).toBe(204);
    const tooLong = refused(400, "a role's token ttl cannot be longer than the verification_ttl of the key it references");
    expect(await call(ref, 'POST', 'identity/oidc/role/r1', { key: 'rk' }), 'the default ttl, 24h').toEqual(tooLong);
    expect(await call(ref, 'POST', 'identity/oidc/role/r2', { key: 'rk', ttl: '2h' })).toEqual(tooLong);
    expect((await call(ref, 'POST', 'identity/oidc/role/r1', { key: 'rk', ttl: '30m' })).status).toBe(204);
    const read = (await call(ref, 'GET', 'identity/oidc/role/r1')).body!.data!;
    expect(read).toMatchObject({ key: 'rk', template: '', ttl: 1800 });
    expect(read.client_id).toMatch(/^[A-Za-z0-9]{26}$/);
    expect((await call(ref, 'POST', 'identity/oidc/role/r1', { ttl: '20m' })).status, 'an update keeps the key').toBe(204);
    expect((await call(ref, 'GET', 'identity/oidc/role/r1')).body!.data).toEqual({ ...read, ttl: 1200 });
    expect((await call(ref, 'POST', 'identity/oidc/role/r2', { key: 'rk', ttl: '1h' })).status).toBe(204);
    expect(await call(ref, 'POST', 'identity/oidc/role/r3', {})).toEqual(refused(400, 'the key parameter is required'));
    expect(await call(ref, 'POST', 'identity/oidc/role/r3', { key: 'nokey', ttl: 60 })).toEqual(refused(400, 'cannot find key "nokey"'));
    expect(await call(ref, 'POST', 'identity/oidc/role/r3', { key: 'rk', ttl: 60, template: '{"a":{"b":{{identity.entity.name}}}}' })).toEqual(refused(400, 'error parsing template: unbalanced templating characters'));
    expect(await call(ref, 'POST', 'identity/oidc/role/r3', { key: 'rk', ttl: 'abc' })).toEqual(refused(400, 'error converting input for field "ttl": time: invalid duration "abc"'));
    expect(await call(ref, 'POST', 'identity/oidc/key/rk', { verification_ttl: '10m' })).toEqual(refused(400, 'unable to update key "rk" because it is currently referenced by one or more roles with a token ttl greater than 600 seconds'));
    expect(await call(ref, 'DELETE', 'identity/oidc/key/rk')).toEqual(refused(400, 'unable to delete key "rk" because it is currently referenced by these roles: r1, r2'));
    expect((await call(ref, 'LIST', 'identity/oidc/role')).body!.data).toEqual({ keys: ['r1', 'r2'] });
    for (const r of ['r1', 'r2', 'nope']) expect((await call(ref, 'DELETE', `identity/oidc/role/${r}`)).status).toBe(204);
    expect(await call(ref, 'GET', 'identity/oidc/role/nope')).toEqual({ status: 404, body: { errors: [] } });
    expect((await call(ref, 'POST', 'identity/oidc/role/r3', { key: 'default' })).status, "the default key's verification_ttl is 24h, the default ttl").toBe(204);
    expect((await call(ref, 'GET', 'identity/oidc/role/r3')).body!.data!.ttl).toBe(86400);
    expect((await call(ref, 'DELETE', 'identity/oidc/key/rk')).status, 'a key no role names can go').toBe(204);
  });

  it('serves neither in the spec dialect, which defines no identity API', async () => {
    const spec = await startReference({ dialect: 'spec' });
    try {
      for (const path of ['identity/group-alias', 'identity/oidc/role/r1']) {
        const res = await fetch(`${spec.secrets.url}/v1/${path}`, { method: 'POST', headers: { 'X-Service-Token': spec.secrets.token }, body: '{"key":"default","name":"x"}' });
        expect(res.status, path).toBe(404);
      }
    } finally {
      await spec.stop();
    }
  });
});
