import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../src/reference/reference.ts';

/**
 * The embedded reference's Vault admin API (hashicorp dialect only): the shapes and statuses of
 * each endpoint as read in hashicorp/vault (named per case). The provisioner's end-to-end flow is
 * in reference-vault-admin-flow.test.ts.
 */
interface CallInit {
  body?: unknown;
  token?: string | null;
  namespace?: string;
}

async function call(ref: RunningReference, method: string, path: string, init: CallInit = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.token !== null) headers['X-Vault-Token'] = init.token ?? ref.secrets.token;
  if (init.namespace) headers['X-Vault-Namespace'] = init.namespace;
  const res = await fetch(`${ref.secrets.url}/v1/${path}`, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const text = await res.text();
  const json = () => JSON.parse(text) as Record<string, any>;
  return { status: res.status, text, json, data: () => json().data as Record<string, any> };
}

const uid = () => Math.random().toString(36).slice(2, 8);

describe('Vault admin API in the hashicorp dialect (spec behaviour)', () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp' });
  });
  afterAll(async () => ref.stop());

  it('GET sys/mounts lists the namespace mounts under data and at the top level (logical_system.go mountInfo, HTTPSysInjector)', async () => {
    const res = await call(ref, 'GET', 'sys/mounts');
    expect(res.status).toBe(200);
    const body = res.json();
    const kv = body.data[ref.secrets.kvV1Mount];
    expect(kv).toMatchObject({ type: 'kv', options: { version: '1' }, local: false, seal_wrap: false, config: { default_lease_ttl: 0, max_lease_ttl: 0 } });
    expect(kv.accessor).toMatch(/^kv_[0-9a-f]{8}$/);
    expect(body[ref.secrets.kvV1Mount]).toEqual(kv);
    expect(body.data['identity/'].type).toBe('identity');
    expect(body.data['sys/'].type).toBe('system');
    expect(body.data[ref.secrets.kvV2Mount].options).toEqual({ version: '2' });
    expect(Object.keys(body.data).every((k) => !k.startsWith('auth/'))).toBe(true);
  });

  it('mounts a real KV v2 at a new path, refuses a taken, protected or unknown one with 400, and unmounting drops its data (mount.go)', async () => {
    const path = `kv2-${uid()}`;
    expect((await call(ref, 'POST', `sys/mounts/${path}`, { body: { type: 'kv', options: { version: '2' } } })).status).toBe(204);
    expect((await call(ref, 'POST', `${path}/data/app`, { body: { data: { password: 's3cret' } } })).status).toBe(200);
    expect((await call(ref, 'GET', `${path}/data/app`)).data().data).toEqual({ password: 's3cret' });
    expect((await call(ref, 'GET', `sys/mounts/${path}`)).json()).toMatchObject({ type: 'kv', options: { version: '2' }, data: { type: 'kv' } });
    const again = await call(ref, 'POST', `sys/mounts/${path}`, { body: { type: 'kv' } });
    expect(again.status).toBe(400);
    expect(again.json().errors).toEqual([`path is already in use at ${path}/`]);
    expect((await call(ref, 'POST', `sys/mounts/${path}/inner`, { body: { type: 'kv' } })).json().errors).toEqual([`path is already in use at ${path}/`]);
    expect((await call(ref, 'POST', 'sys/mounts/identity/x', { body: { type: 'kv' } })).json().errors).toEqual(['cannot mount "identity/x/"']);
    expect((await call(ref, 'POST', `sys/mounts/t-${uid()}`, { body: { type: 'transit' } })).status).toBe(400);
    expect((await call(ref, 'POST', `sys/mounts/t-${uid()}`, { body: {} })).json().errors).toEqual(['backend type must be specified as a string']);
    expect((await call(ref, 'DELETE', `sys/mounts/${path}`)).status).toBe(204);
    expect((await call(ref, 'GET', 'sys/mounts')).data()[`${path}/`]).toBeUndefined();
    expect((await call(ref, 'GET', `${path}/data/app`)).status).toBe(404);
    expect((await call(ref, 'POST', `sys/mounts/${path}`, { body: { type: 'kv-v2' } })).status).toBe(204);
    expect((await call(ref, 'GET', `${path}/data/app`)).status).toBe(404);
    expect((await call(ref, 'DELETE', `sys/mounts/${path}`)).status).toBe(204);
    // Unmounting what is not there is no error; a protected mount is refused.
    expect((await call(ref, 'DELETE', `sys/mounts/${path}`)).status).toBe(204);
    expect((await call(ref, 'DELETE', 'sys/mounts/identity')).json().errors).toEqual(['cannot unmount "identity/"']);
  });

  it('a KV v2 mount reads its config (what a client polls after mounting), refuses settings it does not honour, and deletes a key with all its versions through metadata/<key> (path_config.go, path_metadata.go)', async () => {
    expect((await call(ref, 'GET', `${ref.secrets.kvV2Mount}config`)).data()).toEqual({ max_versions: 0, cas_required: false, delete_version_after: '0s' });
    expect((await call(ref, 'POST', `${ref.secrets.kvV2Mount}config`, { body: { cas_required: false } })).status).toBe(204);
    // max_versions and cas_required are honoured (test/reference-vault-kv-v2.test.ts); a deletion timer is not, so it is refused.
    expect((await call(ref, 'POST', `${ref.secrets.kvV2Mount}config`, { body: { max_versions: 5 } })).status).toBe(204);
    expect((await call(ref, 'POST', `${ref.secrets.kvV2Mount}config`, { body: { max_versions: 0 } })).status).toBe(204);
    expect((await call(ref, 'POST', `${ref.secrets.kvV2Mount}config`, { body: { delete_version_after: '1h' } })).status).toBe(400);
    const key = `${ref.secrets.kvV2Mount}data/md-${uid()}`;
    await call(ref, 'POST', key, { body: { data: { a: '1' } } });
    expect((await call(ref, 'DELETE', key.replace('/data/', '/metadata/'))).status).toBe(204);
    expect((await call(ref, 'GET', key)).status).toBe(404);
  });

  it('sys/auth enables userpass and the cloud-identity method with auth_<type>_<8 hex> accessors; the new login needs no token (auth.go)', async () => {
    const up = `up-${uid()}`;
    const az = `az-${uid()}`;
    expect((await call(ref, 'POST', `sys/auth/${up}`, { body: { type: 'userpass' } })).status).toBe(204);
    expect((await call(ref, 'POST', `sys/auth/${az}`, { body: { type: 'azure' } })).status).toBe(204);
    const table = await call(ref, 'GET', 'sys/auth');
    expect(table.data()[`${up}/`].accessor).toMatch(/^auth_userpass_[0-9a-f]{8}$/);
    expect(table.json()[`${up}/`]).toEqual(table.data()[`${up}/`]);
    expect(table.data()[`${az}/`]).toMatchObject({ type: 'azure', config: { token_type: 'default-service' } });
    expect(table.data()['azure/'].type).toBe('azure');
    expect((await call(ref, 'POST', `sys/auth/${up}`, { body: { type: 'userpass' } })).json().errors).toEqual([`path is already in use at ${up}/`]);
    expect((await call(ref, 'POST', `sys/auth/x-${uid()}`, { body: { type: 'token' } })).status).toBe(400);
    // The new cloud-identity mount is a real engine: its login answers without a token (400: no role), its config needs one.
    expect((await call(ref, 'POST', `auth/${az}/login`, { token: null, body: { role: 'none', jwt: 'x' } })).status).toBe(400);
    expect((await call(ref, 'POST', `auth/${az}/config`, { token: null, body: {} })).status).toBe(403);
    expect((await call(ref, 'DELETE', `sys/auth/${az}`)).status).toBe(204);
    expect((await call(ref, 'DELETE', `sys/auth/${up}`)).status).toBe(204);
    expect((await call(ref, 'DELETE', 'sys/auth/token')).json().errors).toEqual(['token credential backend cannot be disabled']);
    expect((await call(ref, 'GET', 'sys/auth')).data()[`${up}/`]).toBeUndefined();
  });

  it('userpass: users with token_policies as a string or a list, read, list, login shape, wrong password 400 (path_users.go, path_login.go)', async () => {
    const m = `up-${uid()}`;
    await call(ref, 'POST', `sys/auth/${m}`, { body: { type: 'userpass' } });
    expect((await call(ref, 'POST', `auth/${m}/users/Alice`, { body: { password: 'pw-a', token_policies: 'reader, writer' } })).status).toBe(204);
    expect((await call(ref, 'POST', `auth/${m}/users/bob`, { body: { password: 'pw-b', token_policies: ['reader'] } })).status).toBe(204);
    expect((await call(ref, 'POST', `auth/${m}/users/carol`, { body: { token_policies: ['reader'] } })).json().errors).toEqual(['missing password']);
    const read = await call(ref, 'GET', `auth/${m}/users/alice`);
    expect(read.data()).toEqual({
      token_bound_cidrs: [],
      token_explicit_max_ttl: 0,
      token_max_ttl: 0,
      token_no_default_policy: false,
      token_num_uses: 0,
      token_period: 0,
      token_policies: ['reader', 'writer'],
      token_ttl: 0,
      token_type: 'default',
    });
    expect((await call(ref, 'LIST', `auth/${m}/users`)).data().keys).toEqual(['alice', 'bob']);
    const bad = await call(ref, 'POST', `auth/${m}/login/alice`, { token: null, body: { password: 'nope' } });
    expect(bad.status).toBe(400);
    expect(bad.json().errors).toEqual(['invalid username or password']);
    expect((await call(ref, 'POST', `auth/${m}/login/nobody`, { token: null, body: { password: 'x' } })).json().errors).toEqual(['invalid username or password']);
    const login = await call(ref, 'POST', `auth/${m}/login/alice`, { token: null, body: { password: 'pw-a' } });
    expect(login.status).toBe(200);
    const body = login.json();
    expect(body.data).toBeNull();
    expect(body.mount_type).toBe('userpass');
    expect(body.auth).toMatchObject({ policies: ['default', 'reader', 'writer'], token_policies: ['default', 'reader', 'writer'], metadata: { username: 'alice' }, lease_duration: 2_764_800, renewable: true, token_type: 'service', orphan: true, num_uses: 0, mfa_requirement: null });
    expect(body.auth.client_token).toMatch(/^hvs\./);
    expect(body.auth.entity_id).toMatch(/^[0-9a-f-]{36}$/);
    // The token works, and the login made an entity with an alias on this mount (Vault's core does so).
    const entity = await call(ref, 'GET', `identity/entity/id/${body.auth.entity_id}`);
    expect(entity.data().aliases).toMatchObject([{ name: 'alice', mount_type: 'userpass', mount_path: `auth/${m}/` }]);
    expect((await call(ref, 'GET', `${ref.secrets.kvV1Mount}nothing-${uid()}`, { token: body.auth.client_token })).status).toBe(404);
    // A second login of the same user maps to the same entity.
    const second = await call(ref, 'POST', `auth/${m}/login/ALICE`, { token: null, body: { password: 'pw-a' } });
    expect(second.json().auth.entity_id).toBe(body.auth.entity_id);
    expect((await call(ref, 'DELETE', `auth/${m}/users/bob`)).status).toBe(204);
    expect((await call(ref, 'GET', `auth/${m}/users/bob`)).status).toBe(404);
    // Disabling the method revokes the tokens it issued; the entity and its alias stay (hashicorp/vault#15208).
    expect((await call(ref, 'DELETE', `sys/auth/${m}`)).status).toBe(204);
    expect((await call(ref, 'GET', `${ref.secrets.kvV1Mount}x`, { token: body.auth.client_token })).status).toBe(403);
    const orphaned = await call(ref, 'GET', `identity/entity/id/${body.auth.entity_id}`);
    expect(orphaned.data().aliases).toHaveLength(1);
    expect(orphaned.data().aliases[0].mount_type).toBeUndefined();
    await call(ref, 'DELETE', `identity/entity/id/${body.auth.entity_id}`);
  });

  it('identity/entity: create 200 {id,name,aliases:null}, same name updates with 204, read by id and name, list, delete (identity_store_entities.go)', async () => {
    const name = `ent-${uid()}`;
    const made = await call(ref, 'POST', 'identity/entity', { body: { name, metadata: { team: 'blue' }, policies: ['reader'] } });
    expect(made.status).toBe(200);
    expect(made.data()).toEqual({ id: expect.any(String), name, aliases: null });
    const id = made.data().id as string;
    expect((await call(ref, 'POST', 'identity/entity', { body: { name, metadata: { team: 'red' } } })).status).toBe(204);
    const byId = await call(ref, 'GET', `identity/entity/id/${id}`);
    expect(byId.data()).toMatchObject({ id, name, metadata: { team: 'red' }, policies: ['reader'], disabled: false, namespace_id: 'root', aliases: [], group_ids: [], direct_group_ids: [], inherited_group_ids: [] });
    expect((await call(ref, 'GET', `identity/entity/name/${name}`)).data().id).toBe(id);
    expect((await call(ref, 'POST', 'identity/entity', { body: { name: `x-${uid()}`, policies: ['root'] } })).json().errors).toEqual(['policies cannot contain root']);
    const other = (await call(ref, 'POST', 'identity/entity', { body: { name: `other-${uid()}` } })).data().id as string;
    expect((await call(ref, 'POST', 'identity/entity', { body: { id: other, name } })).json().errors).toEqual(['entity name is already in use']);
    const names = await call(ref, 'LIST', 'identity/entity/name');
    expect(names.data().keys).toContain(name);
    expect(names.data().key_info[id]).toEqual({ name });
    expect((await call(ref, 'LIST', 'identity/entity/id')).data().keys).toContain(id);
    expect((await call(ref, 'DELETE', `identity/entity/name/${name}`)).status).toBe(204);
    expect((await call(ref, 'DELETE', `identity/entity/id/${other}`)).status).toBe(204);
    expect((await call(ref, 'GET', `identity/entity/id/${id}`)).status).toBe(404);
    expect((await call(ref, 'DELETE', `identity/entity/id/${id}`)).status).toBe(204);
  });

  it('identity/entity-alias: {id, canonical_id}; refuses a missing or unknown accessor and a second alias on one mount (identity_store_aliases.go)', async () => {
    const m = `up-${uid()}`;
    await call(ref, 'POST', `sys/auth/${m}`, { body: { type: 'userpass' } });
    const accessor = (await call(ref, 'GET', 'sys/auth')).data()[`${m}/`].accessor as string;
    const entity = (await call(ref, 'POST', 'identity/entity', { body: { name: `e-${uid()}` } })).data().id as string;
    const alias = await call(ref, 'POST', 'identity/entity-alias', { body: { name: 'dave', canonical_id: entity, mount_accessor: accessor } });
    expect(alias.status).toBe(200);
    expect(alias.data()).toEqual({ id: expect.any(String), canonical_id: entity });
    expect((await call(ref, 'GET', `identity/entity-alias/id/${alias.data().id}`)).data()).toMatchObject({ name: 'dave', canonical_id: entity, mount_accessor: accessor, mount_type: 'userpass', namespace_id: 'root' });
    expect((await call(ref, 'POST', 'identity/entity-alias', { body: { name: 'dave2', canonical_id: entity, mount_accessor: accessor } })).json().errors).toEqual(['Alias already exists for requested entity and mount accessor']);
    expect((await call(ref, 'POST', 'identity/entity-alias', { body: { name: 'x', mount_accessor: 'auth_userpass_00000000' } })).json().errors).toEqual(['invalid mount accessor "auth_userpass_00000000"']);
    expect((await call(ref, 'POST', 'identity/entity-alias', { body: { name: 'x' } })).json().errors).toEqual(["'id' or 'mount_accessor' and 'name' must be provided"]);
    expect((await call(ref, 'POST', 'identity/entity-alias', { body: { name: 'x', canonical_id: 'nope', mount_accessor: accessor } })).json().errors).toEqual(['invalid canonical ID']);
    expect((await call(ref, 'LIST', 'identity/entity-alias/id')).data().keys).toContain(alias.data().id);
    expect((await call(ref, 'DELETE', `identity/entity-alias/id/${alias.data().id}`)).status).toBe(204);
    expect((await call(ref, 'GET', `identity/entity/id/${entity}`)).data().aliases).toEqual([]);
    await call(ref, 'DELETE', `identity/entity/id/${entity}`);
    await call(ref, 'DELETE', `sys/auth/${m}`);
  });

  it('identity/group: create 200 {id,name}, update by name 204, members as the entity sees them, read, list, delete (identity_store_groups.go)', async () => {
    const e1 = (await call(ref, 'POST', 'identity/entity', { body: { name: `g1-${uid()}` } })).data().id as string;
    const e2 = (await call(ref, 'POST', 'identity/entity', { body: { name: `g2-${uid()}` } })).data().id as string;
    const name = `grp-${uid()}`;
    const made = await call(ref, 'POST', 'identity/group', { body: { name, member_entity_ids: [e1], policies: ['ops'], metadata: { tier: '1' } } });
    expect(made.status).toBe(200);
    expect(made.data()).toEqual({ id: expect.any(String), name });
    const id = made.data().id as string;
    expect((await call(ref, 'GET', `identity/entity/id/${e1}`)).data().group_ids).toEqual([id]);
    expect((await call(ref, 'POST', 'identity/group', { body: { name, member_entity_ids: [e2] } })).status).toBe(204);
    expect((await call(ref, 'GET', `identity/entity/id/${e1}`)).data().group_ids).toEqual([]);
    const read = await call(ref, 'GET', `identity/group/name/${name}`);
    expect(read.data()).toMatchObject({ id, name, type: 'internal', policies: ['ops'], member_entity_ids: [e2], metadata: { tier: '1' }, namespace_id: 'root' });
    expect((await call(ref, 'GET', `identity/group/id/${id}`)).data().name).toBe(name);
    expect((await call(ref, 'POST', 'identity/group', { body: { name: `bad-${uid()}`, member_entity_ids: ['nope'] } })).json().errors).toEqual(['invalid entity ID "nope"']);
    const list = await call(ref, 'LIST', 'identity/group/name');
    expect(list.data().keys).toContain(name);
    expect(list.data().key_info[id]).toEqual({ name, num_member_entities: 1, num_parent_groups: 0 });
    // Deleting a member entity takes it out of the group (handleEntityDeleteCommon).
    await call(ref, 'DELETE', `identity/entity/id/${e2}`);
    expect((await call(ref, 'GET', `identity/group/id/${id}`)).data().member_entity_ids).toEqual([]);
    expect((await call(ref, 'DELETE', `identity/group/name/${name}`)).status).toBe(204);
    expect((await call(ref, 'GET', `identity/group/id/${id}`)).status).toBe(404);
    await call(ref, 'DELETE', `identity/entity/id/${e1}`);
  });

  it('sys/policies/acl stores policies: PUT 204, GET {name, policy}, LIST with default first and root last, default and root undeletable (policy_store.go)', async () => {
    const name = `pol-${uid()}`;
    const text = 'path "secret/*" { capabilities = ["read"] }';
    expect((await call(ref, 'PUT', `sys/policies/acl/${name}`, { body: { policy: text } })).status).toBe(204);
    expect((await call(ref, 'GET', `sys/policies/acl/${name}`)).data()).toEqual({ name, policy: text });
    const keys = (await call(ref, 'LIST', 'sys/policies/acl')).data().keys as string[];
    expect(keys[0]).toBe('default');
    expect(keys.at(-1)).toBe('root');
    expect(keys).toContain(name);
    expect((await call(ref, 'POST', `sys/policies/acl/${name}`, { body: { policy: Buffer.from('path "x" {}').toString('base64') } })).status).toBe(204);
    expect((await call(ref, 'GET', `sys/policies/acl/${name}`)).data().policy).toBe('path "x" {}');
    expect((await call(ref, 'PUT', `sys/policies/acl/${name}`, { body: {} })).json().errors).toEqual(["'policy' parameter not supplied or empty"]);
    expect((await call(ref, 'DELETE', 'sys/policies/acl/default')).json().errors).toEqual(['cannot delete default policy']);
    expect((await call(ref, 'DELETE', 'sys/policies/acl/root')).json().errors).toEqual(['cannot delete root policy']);
    expect((await call(ref, 'PUT', 'sys/policies/acl/root', { body: { policy: 'x' } })).json().errors).toEqual(['cannot update root policy']);
    expect((await call(ref, 'DELETE', `sys/policies/acl/${name}`)).status).toBe(204);
    expect((await call(ref, 'GET', `sys/policies/acl/${name}`)).status).toBe(404);
  });

  it('identity/oidc/key: create 204, read, list; a client may name it; delete refused while a client uses it and for default (identity_store_oidc.go)', async () => {
    const key = `key-${uid()}`;
    expect((await call(ref, 'POST', `identity/oidc/key/${key}`, { body: { algorithm: 'ES256', allowed_client_ids: ['*'], rotation_period: '1h', verification_ttl: 3600 } })).status).toBe(204);
    expect((await call(ref, 'GET', `identity/oidc/key/${key}`)).data()).toEqual({ rotation_period: 3600, verification_ttl: 3600, algorithm: 'ES256', allowed_client_ids: ['*'] });
    expect((await call(ref, 'LIST', 'identity/oidc/key')).data().keys).toEqual(expect.arrayContaining(['default', key]));
    expect((await call(ref, 'POST', `identity/oidc/key/k-${uid()}`, { body: { rotation_period: 30 } })).json().errors).toEqual(['rotation_period must be at least one minute']);
    expect((await call(ref, 'POST', `identity/oidc/key/k-${uid()}`, { body: { algorithm: 'HS256' } })).json().errors).toEqual(['unknown signing algorithm "HS256"']);
    const client = `c-${uid()}`;
    // The key's verification_ttl bounds the client's id_token_ttl.
    expect((await call(ref, 'POST', `identity/oidc/client/${client}`, { body: { key, id_token_ttl: 7200 } })).status).toBe(400);
    expect((await call(ref, 'POST', `identity/oidc/client/${client}`, { body: { key, id_token_ttl: 600 } })).status).toBe(204);
    expect((await call(ref, 'DELETE', `identity/oidc/key/${key}`)).json().errors).toEqual([`unable to delete key "${key}" because it is currently referenced by these clients: ${client}`]);
    expect((await call(ref, 'DELETE', 'identity/oidc/key/default')).json().errors).toEqual(['deletion of key "default" not allowed']);
    expect((await call(ref, 'DELETE', `identity/oidc/client/${client}`)).status).toBe(204);
    expect((await call(ref, 'DELETE', `identity/oidc/key/${key}`)).status).toBe(204);
    expect((await call(ref, 'GET', `identity/oidc/key/${key}`)).status).toBe(404);
  });

  it('a key made without allowed_client_ids signs for no client: the token endpoint answers invalid_client (identity_store_oidc_provider.go pathOIDCToken)', async () => {
    const key = `closed-${uid()}`;
    expect((await call(ref, 'POST', `identity/oidc/key/${key}`, { body: {} })).status).toBe(204);
    expect((await call(ref, 'GET', `identity/oidc/key/${key}`)).data().allowed_client_ids).toEqual([]);
    const m = `up-${uid()}`;
    await call(ref, 'POST', `sys/auth/${m}`, { body: { type: 'userpass' } });
    await call(ref, 'POST', `auth/${m}/users/erin`, { body: { password: 'pw' } });
    const login = (await call(ref, 'POST', `auth/${m}/login/erin`, { token: null, body: { password: 'pw' } })).json().auth;
    const client = `c-${uid()}`;
    const redirect = 'https://rp.example.com/cb';
    await call(ref, 'POST', `identity/oidc/client/${client}`, { body: { key, redirect_uris: [redirect], assignments: ['allow_all'] } });
    const c = (await call(ref, 'GET', `identity/oidc/client/${client}`)).data();
    const provider = `p-${uid()}`;
    await call(ref, 'POST', `identity/oidc/provider/${provider}`, { body: { allowed_client_ids: [c.client_id] } });
    const q = new URLSearchParams({ client_id: c.client_id, redirect_uri: redirect, scope: 'openid', response_type: 'code' });
    const code = (await call(ref, 'GET', `identity/oidc/provider/${provider}/authorize?${q}`, { token: login.client_token })).json().code as string;
    const res = await fetch(`${ref.secrets.url}/v1/identity/oidc/provider/${provider}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirect }).toString(),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'invalid_client', error_description: 'client is not authorized to use the key' });
    for (const path of [`identity/oidc/provider/${provider}`, `identity/oidc/client/${client}`, `identity/oidc/key/${key}`, `sys/auth/${m}`, `identity/entity/id/${login.entity_id}`]) await call(ref, 'DELETE', path);
  });

  it('sys/namespaces: create {id, path, custom_metadata}, nested through the header and the path prefix, list, refuse deleting a parent (Enterprise API, OpenBao port)', async () => {
    const a = `ns-${uid()}`;
    const made = await call(ref, 'POST', `sys/namespaces/${a}`, { body: {} });
    expect(made.status).toBe(200);
    expect(made.data()).toEqual({ id: expect.stringMatching(/^[A-Za-z0-9]{5}$/), path: `${a}/`, custom_metadata: {} });
    expect((await call(ref, 'POST', 'sys/namespaces/b', { namespace: a, body: { custom_metadata: { owner: 'x' } } })).data()).toMatchObject({ path: `${a}/b/`, custom_metadata: { owner: 'x' } });
    expect((await call(ref, 'POST', `${a}/sys/namespaces/c`, { body: {} })).data().path).toBe(`${a}/c/`);
    expect((await call(ref, 'POST', `sys/namespaces/${a}/d`, { body: {} })).json().errors).toEqual(['"/" is not allowed in namespace names']);
    const list = await call(ref, 'LIST', 'sys/namespaces', { namespace: a });
    expect(list.data().keys).toEqual(['b/', 'c/']);
    expect(list.data().key_info['b/']).toMatchObject({ path: `${a}/b/` });
    expect((await call(ref, 'GET', `sys/namespaces/${a}`)).data().path).toBe(`${a}/`);
    // A new namespace has only its system and identity mounts, as in Vault Enterprise.
    expect(Object.keys((await call(ref, 'GET', 'sys/mounts', { namespace: `${a}/b` })).data()).sort()).toEqual(['identity/', 'sys/']);
    const refused = await call(ref, 'DELETE', `sys/namespaces/${a}`);
    expect(refused.status).toBe(400);
    expect(refused.json().errors).toEqual([`cannot delete namespace ("${a}/") containing child namespaces`]);
    expect((await call(ref, 'DELETE', 'sys/namespaces/b', { namespace: a })).status).toBe(200);
    expect((await call(ref, 'DELETE', `${a}/sys/namespaces/c`)).status).toBe(200);
    expect((await call(ref, 'LIST', 'sys/namespaces', { namespace: a })).status).toBe(404);
    const gone = await call(ref, 'DELETE', `sys/namespaces/${a}`);
    expect(gone.status).toBe(200);
    expect(gone.json().warnings).toHaveLength(1);
    expect((await call(ref, 'GET', `sys/namespaces/${a}`)).status).toBe(404);
    expect((await call(ref, 'DELETE', `sys/namespaces/${a}`)).status).toBe(204);
  });

  it('keeps the control listener working: its entities are the identity API\'s entities', async () => {
    const res = await fetch(`${ref.control!.url}/v1/control/secrets/entities`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ref.control!.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `ctl-${uid()}`, metadata: { k: 'v' }, groups: [`cg-${uid()}`] }),
    });
    expect(res.status).toBe(200);
    const made = (await res.json()) as { id: string; groups: { id: string }[] };
    const read = await call(ref, 'GET', `identity/entity/id/${made.id}`);
    expect(read.data()).toMatchObject({ metadata: { k: 'v' }, group_ids: [made.groups[0]!.id] });
    expect((await call(ref, 'GET', `identity/group/id/${made.groups[0]!.id}`)).data().member_entity_ids).toEqual([made.id]);
  });
});

describe('the spec dialect has no admin API', () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startReference();
  });
  afterAll(async () => ref.stop());

  it('answers 404 on every admin path', async () => {
    const get = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${ref.secrets.url}/v1/${path}`, { method, headers: { 'X-Service-Token': ref.secrets.token, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      await res.text();
      return res.status;
    };
    expect(await get('GET', 'sys/mounts')).toBe(404);
    expect(await get('POST', 'sys/mounts/x', { type: 'kv' })).toBe(404);
    expect(await get('GET', 'sys/auth')).toBe(404);
    expect(await get('POST', 'sys/namespaces/x', {})).toBe(404);
    expect(await get('LIST', 'sys/policies/acl')).toBe(404);
    expect(await get('POST', 'identity/entity', { name: 'x' })).toBe(404);
    expect(await get('POST', 'identity/group', { name: 'x' })).toBe(404);
    expect(await get('POST', 'identity/entity-alias', { name: 'x' })).toBe(404);
    expect(await get('POST', 'identity/oidc/key/x', {})).toBe(404);
    expect(await get('GET', 'identity/oidc/key/default')).toBe(404);
  });
});

describe('the upstream behaviour is Vault CE: no namespaces', () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp', behavior: 'upstream' });
  });
  afterAll(async () => ref.stop());

  it('answers sys/namespaces with 404 "unsupported path" like Vault CE (hashicorp/vault#19668); the rest of sys/ works', async () => {
    for (const [method, path] of [['LIST', 'sys/namespaces'], ['GET', 'sys/namespaces/x'], ['POST', 'sys/namespaces/x'], ['DELETE', 'sys/namespaces/x']] as const) {
      const res = await call(ref, method, path, { body: method === 'POST' ? {} : undefined });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json()).toEqual({ errors: ['1 error occurred:\n\t* unsupported path\n\n'] });
    }
    expect((await call(ref, 'GET', 'sys/mounts')).data()['secret/'].options).toEqual({ version: '2' });
  });
});
