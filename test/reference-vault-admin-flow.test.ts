import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../src/reference/reference.ts';

/**
 * What the upstream provisioner does on a real Vault, end to end against the reference in the
 * hashicorp dialect: fixtures through Vault's admin API only (no control listener), a userpass
 * login whose token authorizes at an OIDC provider and whose entity, metadata and group show in
 * the ID token and userinfo, a KV v2 mount, nested namespaces with a KV v1 mount inside, a second
 * signing key; then everything is removed in the cleanup's order and the listings are back.
 */
interface CallInit {
  body?: unknown;
  token?: string | null;
  namespace?: string;
  headers?: Record<string, string>;
}

async function call(ref: RunningReference, method: string, path: string, init: CallInit = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...init.headers };
  if (init.token !== null) headers['X-Vault-Token'] = init.token ?? ref.secrets.token;
  if (init.namespace) headers['X-Vault-Namespace'] = init.namespace;
  const body = init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
  const res = await fetch(`${ref.secrets.url}/v1/${path}`, { method, headers, body });
  const text = await res.text();
  const json = () => JSON.parse(text) as Record<string, any>;
  return { status: res.status, text, json, data: () => json().data as Record<string, any> };
}

const uid = () => Math.random().toString(36).slice(2, 8);

/** What the reference lists in one namespace, to compare before and after a run. */
async function listings(ref: RunningReference, namespace?: string): Promise<Record<string, unknown>> {
  const keysOf = async (path: string) => {
    const res = await call(ref, 'LIST', path, { namespace });
    return res.status === 404 ? [] : ((res.data().keys as string[]) ?? []).slice().sort();
  };
  const table = async (path: string) => Object.keys((await call(ref, 'GET', path, { namespace })).data()).sort();
  return {
    mounts: await table('sys/mounts'),
    auth: await table('sys/auth'),
    policies: await keysOf('sys/policies/acl'),
    entities: await keysOf('identity/entity/id'),
    groups: await keysOf('identity/group/id'),
    keys: await keysOf('identity/oidc/key'),
    providers: await keysOf('identity/oidc/provider'),
    clients: await keysOf('identity/oidc/client'),
    scopes: await keysOf('identity/oidc/scope'),
    assignments: await keysOf('identity/oidc/assignment'),
    namespaces: await keysOf('sys/namespaces'),
  };
}

describe('the upstream provisioner\'s flow through Vault\'s admin API (hashicorp dialect)', () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp' });
  });
  afterAll(async () => ref.stop());

  it('provisions, logs in, runs the OIDC flow with a second key, uses KV v2 and nested namespaces, and cleans up to the listings it started from', async () => {
    const before = await listings(ref);
    const run = `sp-${uid()}`;
    const n = (what: string) => `${run}-${what}`;

    // Auth method, policy, user, entity with metadata, alias on the userpass accessor, group.
    expect((await call(ref, 'POST', `sys/auth/${n('up')}`, { body: { type: 'userpass', description: 'run fixture' } })).status).toBe(204);
    const accessor = (await call(ref, 'GET', 'sys/auth')).data()[`${n('up')}/`].accessor as string;
    expect((await call(ref, 'PUT', `sys/policies/acl/${n('pol')}`, { body: { policy: 'path "secret/*" { capabilities = ["read"] }' } })).status).toBe(204);
    expect((await call(ref, 'POST', `auth/${n('up')}/users/${n('user')}`, { body: { password: 'correct horse', token_policies: [n('pol')] } })).status).toBe(204);
    const entityId = (await call(ref, 'POST', 'identity/entity', { body: { name: n('ent'), metadata: { team: 'blue', email: 'user@example.com' } } })).data().id as string;
    expect((await call(ref, 'POST', 'identity/entity-alias', { body: { name: n('user'), canonical_id: entityId, mount_accessor: accessor } })).data().canonical_id).toBe(entityId);
    const groupId = (await call(ref, 'POST', 'identity/group', { body: { name: n('grp'), member_entity_ids: [entityId], policies: [n('pol')] } })).data().id as string;

    // A second signing key, and an OIDC provider whose client signs with it.
    expect((await call(ref, 'POST', `identity/oidc/key/${n('key')}`, { body: { algorithm: 'RS256', allowed_client_ids: ['*'], rotation_period: '24h', verification_ttl: '24h' } })).status).toBe(204);
    const template = '{"team": {{identity.entity.metadata.team}}, "groups": {{identity.entity.groups.names}}}';
    expect((await call(ref, 'POST', `identity/oidc/scope/${n('scope')}`, { body: { template, description: 'team and groups' } })).status).toBe(204);
    expect((await call(ref, 'POST', `identity/oidc/assignment/${n('asg')}`, { body: { group_ids: [groupId] } })).status).toBe(204);
    const redirectUri = 'https://app.example.com/callback';
    expect((await call(ref, 'POST', `identity/oidc/client/${n('client')}`, { body: { key: n('key'), redirect_uris: [redirectUri], assignments: [n('asg')], client_type: 'confidential' } })).status).toBe(204);
    const client = (await call(ref, 'GET', `identity/oidc/client/${n('client')}`)).data();
    expect((await call(ref, 'POST', `identity/oidc/provider/${n('prov')}`, { body: { allowed_client_ids: [client.client_id], scopes_supported: [n('scope')] } })).status).toBe(204);

    // The login is tied to the entity of the alias, with the group's policy among its identity policies.
    const login = await call(ref, 'POST', `auth/${n('up')}/login/${n('user')}`, { token: null, body: { password: 'correct horse' } });
    expect(login.status).toBe(200);
    const auth = login.json().auth;
    expect(auth.entity_id).toBe(entityId);
    expect(auth.token_policies).toEqual(['default', n('pol')]);
    expect(auth.identity_policies).toEqual([n('pol')]);

    // The user's token authorizes at the provider; the code is exchanged; the ID token verifies against the provider's key set.
    const query = new URLSearchParams({ client_id: client.client_id, redirect_uri: redirectUri, scope: `openid ${n('scope')}`, response_type: 'code', state: 'st-1', nonce: 'nonce-1' });
    const authorize = await call(ref, 'GET', `identity/oidc/provider/${n('prov')}/authorize?${query}`, { token: auth.client_token });
    expect(authorize.status, authorize.text).toBe(200);
    expect(authorize.json().state).toBe('st-1');
    const basic = Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64');
    const exchange = await call(ref, 'POST', `identity/oidc/provider/${n('prov')}/token`, {
      token: null,
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: authorize.json().code, redirect_uri: redirectUri }).toString(),
    });
    expect(exchange.status, exchange.text).toBe(200);
    const tokens = exchange.json();
    const jwks = (await call(ref, 'GET', `identity/oidc/provider/${n('prov')}/.well-known/keys`, { token: null })).json() as unknown as JSONWebKeySet;
    expect(jwks.keys).toHaveLength(1);
    expect(decodeProtectedHeader(tokens.id_token).kid).toBe(jwks.keys[0]!.kid);
    const { payload } = await jwtVerify(tokens.id_token, createLocalJWKSet(jwks), { audience: client.client_id, issuer: `${ref.secrets.url}/v1/identity/oidc/provider/${n('prov')}` });
    expect(payload).toMatchObject({ sub: entityId, team: 'blue', groups: [n('grp')], nonce: 'nonce-1' });
    const userinfo = await call(ref, 'GET', `identity/oidc/provider/${n('prov')}/userinfo`, { token: null, headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(userinfo.status, userinfo.text).toBe(200);
    expect(userinfo.json()).toEqual({ sub: entityId, team: 'blue', groups: [n('grp')] });

    // A KV v2 mount at a new path, used with the user's token.
    expect((await call(ref, 'POST', `sys/mounts/${n('kv2')}`, { body: { type: 'kv', options: { version: '2' } } })).status).toBe(204);
    expect((await call(ref, 'POST', `${n('kv2')}/data/app`, { token: auth.client_token, body: { data: { k: 'v' } } })).status).toBe(200);
    expect((await call(ref, 'GET', `${n('kv2')}/data/app`, { token: auth.client_token })).data().data).toEqual({ k: 'v' });
    expect((await call(ref, 'LIST', `${n('kv2')}/metadata/`)).data().keys).toEqual(['app']);

    // Namespaces a/ and a/b/, a KV v1 mount in a/b/, an auth method and entity of its own: isolation holds.
    const a = n('a');
    expect((await call(ref, 'POST', `sys/namespaces/${a}`, { body: {} })).data().path).toBe(`${a}/`);
    expect((await call(ref, 'POST', 'sys/namespaces/b', { namespace: a, body: {} })).data().path).toBe(`${a}/b/`);
    const ab = `${a}/b`;
    expect((await call(ref, 'POST', 'sys/mounts/kv1', { namespace: ab, body: { type: 'kv', options: { version: '1' } } })).status).toBe(204);
    expect((await call(ref, 'POST', 'kv1/secret', { namespace: ab, body: { inner: 'yes' } })).status).toBe(204);
    expect((await call(ref, 'GET', `${ab}/kv1/secret`)).data()).toEqual({ inner: 'yes' });
    expect((await call(ref, 'GET', 'kv1/secret', { namespace: a })).status).toBe(404);
    expect((await call(ref, 'GET', 'kv1/secret')).status).toBe(404);
    expect(Object.keys((await call(ref, 'GET', 'sys/mounts', { namespace: a })).data())).not.toContain('kv1/');
    expect((await call(ref, 'POST', 'sys/auth/up', { namespace: ab, body: { type: 'userpass' } })).status).toBe(204);
    expect((await call(ref, 'POST', 'auth/up/users/inner', { namespace: ab, body: { password: 'pw' } })).status).toBe(204);
    const inner = await call(ref, 'POST', 'auth/up/login/inner', { namespace: ab, token: null, body: { password: 'pw' } });
    const innerEntity = inner.json().auth.entity_id as string;
    expect((await call(ref, 'GET', `identity/entity/id/${innerEntity}`, { namespace: ab })).data().namespace_id).toMatch(/^[A-Za-z0-9]{5}$/);
    expect((await call(ref, 'GET', `identity/entity/id/${innerEntity}`)).status).toBe(404);
    // The inner token works inside a/b/ and nowhere above it.
    expect((await call(ref, 'GET', 'kv1/secret', { namespace: ab, token: inner.json().auth.client_token })).status).toBe(200);
    expect((await call(ref, 'GET', `${n('kv2')}/data/app`, { token: inner.json().auth.client_token })).status).toBe(403);
    // An alias in a/b/ may not use a root mount's accessor.
    expect((await call(ref, 'POST', 'identity/entity-alias', { namespace: ab, body: { name: 'x', mount_accessor: accessor } })).status).toBe(403);

    // Cleanup in the order Vault accepts: providers, clients, assignments and scopes, keys; then identity,
    // policies, auth methods, mounts; namespaces last, children first. The key is refused while the client lives.
    expect((await call(ref, 'DELETE', `identity/oidc/key/${n('key')}`)).status).toBe(400);
    expect((await call(ref, 'DELETE', `identity/oidc/scope/${n('scope')}`)).status).toBe(400);
    for (const path of [`provider/${n('prov')}`, `client/${n('client')}`, `assignment/${n('asg')}`, `scope/${n('scope')}`, `key/${n('key')}`]) {
      expect((await call(ref, 'DELETE', `identity/oidc/${path}`)).status, path).toBe(204);
    }
    expect((await call(ref, 'DELETE', `identity/group/name/${n('grp')}`)).status).toBe(204);
    expect((await call(ref, 'DELETE', `identity/entity/name/${n('ent')}`)).status).toBe(204);
    expect((await call(ref, 'DELETE', `sys/policies/acl/${n('pol')}`)).status).toBe(204);
    expect((await call(ref, 'DELETE', `sys/auth/${n('up')}`)).status).toBe(204);
    expect((await call(ref, 'DELETE', `sys/mounts/${n('kv2')}`)).status).toBe(204);
    expect((await call(ref, 'DELETE', `sys/namespaces/${a}`)).status).toBe(400);
    expect((await call(ref, 'DELETE', 'sys/namespaces/b', { namespace: a })).status).toBe(200);
    expect((await call(ref, 'DELETE', `sys/namespaces/${a}`)).status).toBe(200);
    // Everything in the namespaces went with them, the inner token included.
    expect((await call(ref, 'GET', `${ab}/kv1/secret`)).status).toBe(404);
    expect((await call(ref, 'GET', `${ref.secrets.kvV1Mount}x`, { token: inner.json().auth.client_token })).status).toBe(403);
    // The login token went with its auth method.
    expect((await call(ref, 'GET', `${ref.secrets.kvV1Mount}x`, { token: auth.client_token })).status).toBe(403);
    expect(await listings(ref)).toEqual(before);
  });
});
