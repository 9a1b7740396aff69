import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type ReferenceWithControl } from '../src/reference/reference.ts';

/**
 * The secrets reference in the hashicorp dialect answers like Vault where the spec leaves a choice,
 * and with the upstream behaviour also reproduces Vault's listed deviations (expectations/vault.json).
 * Each case names the upstream source it imitates.
 */
async function call(ref: ReferenceWithControl, method: string, path: string, init: { body?: string; headers?: Record<string, string>; token?: string | null } = {}) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token !== null) headers['X-Vault-Token'] = init.token ?? ref.secrets.token;
  // Bytes, so that fetch adds no Content-Type of its own (it would send text/plain for a string).
  const res = await fetch(`${ref.secrets.url}/v1/${path}`, { method, headers, body: init.body === undefined ? undefined : new TextEncoder().encode(init.body) });
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

async function entityToken(ref: ReferenceWithControl): Promise<string> {
  const res = await fetch(`${ref.control.url}/v1/control/secrets/entities`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ref.control.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `e-${Date.now().toString(36)}` }),
  });
  return ((await res.json()) as { token: string }).token;
}

describe('secrets reference, hashicorp dialect (spec behaviour): Vault where the spec leaves a choice', () => {
  let ref: ReferenceWithControl;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp' });
  });
  afterAll(async () => ref.stop());

  it('answers help with help, openapi and see_also only, for any non-empty help value (http/help.go)', async () => {
    for (const value of ['1', 'yes', 'true']) {
      const res = await call(ref, 'GET', `${ref.secrets.kvV1Mount}?help=${value}`);
      expect(res.status, value).toBe(200);
      expect(Object.keys(res.json()).sort()).toEqual(['help', 'openapi', 'see_also']);
    }
  });

  it('refuses PATCH without a media type 400, another media type 415, a merge patch 405 (http/logical.go)', async () => {
    const path = `${ref.secrets.kvV1Mount}patched`;
    expect((await call(ref, 'PATCH', path, { body: '{}' })).status).toBe(400);
    expect((await call(ref, 'PATCH', path, { body: '{}', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    expect((await call(ref, 'PATCH', path, { body: '{}', headers: { 'content-type': 'application/merge-patch+json' } })).status).toBe(405);
  });

  it('publishes only the keys of clients the provider allows (keyIDsReferencedByTargetClientIDs)', async () => {
    expect((await call(ref, 'POST', 'identity/oidc/provider/fresh', { body: '{"allowed_client_ids":["*"]}' })).status).toBeLessThan(300);
    expect((await call(ref, 'GET', 'identity/oidc/provider/fresh/.well-known/keys')).json()).toEqual({ keys: [] });
    expect((await call(ref, 'POST', 'identity/oidc/client/c1', { body: '{}' })).status).toBeLessThan(300);
    expect(((await call(ref, 'GET', 'identity/oidc/provider/fresh/.well-known/keys')).json().keys as unknown[]).length).toBe(1);
  });

  it('refuses every made-up token with 403, batch-shaped ones whose body is no base64url too', async () => {
    for (const token of ['b.a', 'b.ab!c', 'hvb.abcd', 'not-issued']) expect((await call(ref, 'GET', `${ref.secrets.kvV1Mount}x`, { token })).status, token).toBe(403);
  });

  it('keeps to the spec where Vault deviates: 400 for a broken body, the issuer as written, 404 {"errors":[]} for a deleted version', async () => {
    expect((await call(ref, 'POST', `${ref.secrets.kvV1Mount}x`, { body: '{"a":"b"}}' })).status).toBe(400);
    expect((await call(ref, 'POST', 'identity/oidc/provider/p1', { body: '{}' })).status).toBeLessThan(300);
    expect(((await call(ref, 'GET', 'identity/oidc/provider/p1')).json().data as { issuer: string }).issuer).toBe('');
    const v2 = `${ref.secrets.kvV2Mount}data/gone`;
    await call(ref, 'POST', v2, { body: '{"data":{"a":"b"}}' });
    await call(ref, 'DELETE', v2);
    const read = await call(ref, 'GET', v2);
    expect(read.status).toBe(404);
    expect(read.json()).toEqual({ errors: [] });
  });
});

describe('secrets reference, upstream behaviour: Vault\'s listed deviations', () => {
  let ref: ReferenceWithControl;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp', behavior: 'upstream' });
  });
  afterAll(async () => ref.stop());

  it('is laid out like vault server -dev: version 2 at secret/, version 1 elsewhere (command/server.go)', () => {
    expect(ref.secrets.kvV2Mount).toBe('secret/');
    expect(ref.secrets.kvV1Mount).not.toBe('secret/');
  });

  it('answers 500 for a body that begins like a JSON object and is not one value, 400 otherwise (wrapJSONLimitsHandler)', async () => {
    const path = `${ref.secrets.kvV1Mount}json`;
    for (const body of ['{', '{"a":"b"}}', '[1,2', '{"a":"b"} {}']) expect((await call(ref, 'POST', path, { body })).status, body).toBe(500);
    for (const body of ['not json', '42', '[1,2]']) expect((await call(ref, 'POST', path, { body })).status, body).toBe(400);
    expect((await call(ref, 'POST', path, { body: '  {"a":"b"}  ' })).status).toBe(204);
  });

  it('answers 500 to a batch-shaped token whose body is no base64url, before any route, as OpenBao 2.6.2 did (lookupBatchTokenInternal, PopulateTokenEntry)', async () => {
    // Each token with what OpenBao 2.6.2 answered to GET identity/oidc/provider/default with it.
    const answers: [string, number, string][] = [
      ['b.a', 500, 'error performing token check: illegal base64 data at input byte 0'],
      ['b.a=', 500, 'error performing token check: illegal base64 data at input byte 1'],
      ['b.ab!c', 500, 'error performing token check: illegal base64 data at input byte 2'],
      ['b.abcde', 500, 'error performing token check: illegal base64 data at input byte 4'],
      ['b.a-b_c', 500, 'error performing token check: illegal base64 data at input byte 4'],
      ['b.ab+c', 500, 'error performing token check: illegal base64 data at input byte 2'],
      ['b.abc', 403, 'permission denied'],
      ['b.abcdefgh', 403, 'permission denied'],
      ['hvb.abcd', 403, 'permission denied'],
      ['b.abc.def', 403, 'permission denied'],
      ['b.-_', 403, 'permission denied'],
      ['s.abc.def', 403, 'permission denied'],
      ['abcdefgh', 403, 'permission denied'],
    ];
    for (const [token, status, message] of answers) {
      const res = await call(ref, 'GET', 'identity/oidc/provider/default', { token });
      expect({ status: res.status, body: res.json() }, token).toEqual({ status, body: { errors: [message] } });
    }
    // Before any route: on a path that needs no token too, and through Authorization: Bearer.
    expect((await call(ref, 'GET', 'identity/oidc/provider/default/.well-known/keys', { token: 'b.a' })).status).toBe(500);
    expect((await call(ref, 'GET', `${ref.secrets.kvV1Mount}x`, { token: null, headers: { authorization: 'Bearer hvb.x' } })).status).toBe(500);
  });

  it('answers a version 2 read of a deleted version 404 with data and metadata, no errors (pathDataRead)', async () => {
    const path = `${ref.secrets.kvV2Mount}data/gone`;
    await call(ref, 'POST', path, { body: '{"data":{"a":"b"}}' });
    await call(ref, 'DELETE', path);
    const read = await call(ref, 'GET', path);
    expect(read.status).toBe(404);
    const body = read.json() as { data: { data: unknown; metadata: { version: number; deletion_time: string } }; errors?: unknown };
    expect(body.errors).toBeUndefined();
    expect(body.data.data).toBeNull();
    expect(body.data.metadata.version).toBe(1);
    expect(body.data.metadata.deletion_time).not.toBe('');
  });

  it('answers a destroyed version, and a deleted one asked for by number, 404 with data null and that version\'s metadata, as OpenBao 2.6.2 did', async () => {
    const path = `${ref.secrets.kvV2Mount}data/versions`;
    await call(ref, 'POST', path, { body: '{"data":{"a":"1"}}' });
    await call(ref, 'POST', path, { body: '{"data":{"a":"2"}}' });
    await call(ref, 'DELETE', path);
    await call(ref, 'POST', `${ref.secrets.kvV2Mount}destroy/versions`, { body: '{"versions":[1]}' });
    type Body = { data: { data: unknown; metadata: Record<string, unknown> } };
    const read = async (query: string) => {
      const res = await call(ref, 'GET', `${path}${query}`);
      return { status: res.status, body: res.json() as Record<string, unknown> & Body };
    };
    for (const [query, version, deleted, destroyed] of [['', 2, true, false], ['?version=2', 2, true, false], ['?version=1', 1, false, true]] as const) {
      const { status, body } = await read(query);
      expect(status, query).toBe(404);
      // OpenBao's answer, field for field: the ordinary envelope, no errors.
      expect(Object.keys(body).sort(), query).toEqual(['auth', 'data', 'lease_duration', 'lease_id', 'renewable', 'request_id', 'warnings', 'wrap_info']);
      expect(body.data.data, query).toBeNull();
      expect(Object.keys(body.data.metadata).sort(), query).toEqual(['created_time', 'custom_metadata', 'deletion_time', 'destroyed', 'version']);
      expect(body.data.metadata, query).toMatchObject({ version, destroyed, custom_metadata: null });
      expect(body.data.metadata.deletion_time !== '', query).toBe(deleted);
    }
    const never = await call(ref, 'GET', `${path}?version=3`);
    expect({ status: never.status, body: never.json() }, 'a version that never was').toEqual({ status: 404, body: { errors: [] } });
  });

  it('reads back the effective issuer (pathOIDCReadProvider)', async () => {
    await call(ref, 'POST', 'identity/oidc/provider/unset', { body: '{}' });
    await call(ref, 'POST', 'identity/oidc/provider/set', { body: '{"issuer":"https://issuer.example.com:8200"}' });
    expect(((await call(ref, 'GET', 'identity/oidc/provider/unset')).json().data as { issuer: string }).issuer).toBe(`${ref.secrets.url}/v1/identity/oidc/provider/unset`);
    expect(((await call(ref, 'GET', 'identity/oidc/provider/set')).json().data as { issuer: string }).issuer).toBe('https://issuer.example.com:8200/v1/identity/oidc/provider/set');
  });

  it('matches a loopback redirect URI whatever its port, and nothing else loosely (validRedirect)', async () => {
    const registered = 'http://127.0.0.1:8400/cb?a=1';
    await call(ref, 'POST', 'identity/oidc/client/native', { body: JSON.stringify({ redirect_uris: [registered], assignments: ['allow_all'] }) });
    const clientId = ((await call(ref, 'GET', 'identity/oidc/client/native')).json().data as { client_id: string }).client_id;
    await call(ref, 'POST', 'identity/oidc/provider/native', { body: JSON.stringify({ allowed_client_ids: [clientId] }) });
    const token = await entityToken(ref);
    const authorize = async (uri: string) => {
      const q = new URLSearchParams({ client_id: clientId, redirect_uri: uri, response_type: 'code', scope: 'openid' });
      return (await call(ref, 'GET', `identity/oidc/provider/native/authorize?${q}`, { token })).status;
    };
    for (const uri of [registered, 'http://127.0.0.1:9999/cb?a=1', 'http://127.0.0.1/cb?a=1']) expect(await authorize(uri), uri).toBe(200);
    for (const uri of ['http://127.0.0.1:8400/cb/?a=1', 'http://localhost:8400/cb?a=1', 'https://127.0.0.1:8400/cb?a=1', 'http://127.0.0.1:8400/cb?a=2']) expect(await authorize(uri), uri).toBe(400);
  });

  it('renders the groups of an entity in no group as null (identitytpl)', async () => {
    await call(ref, 'POST', 'identity/oidc/scope/groups', { body: JSON.stringify({ template: '{"groups":{{identity.entity.groups.names}}}' }) });
    await call(ref, 'POST', 'identity/oidc/client/web', { body: JSON.stringify({ redirect_uris: ['https://app.example.com/cb'], assignments: ['allow_all'] }) });
    const client = (await call(ref, 'GET', 'identity/oidc/client/web')).json().data as { client_id: string; client_secret: string };
    await call(ref, 'POST', 'identity/oidc/provider/web', { body: JSON.stringify({ allowed_client_ids: [client.client_id], scopes_supported: ['groups'] }) });
    const token = await entityToken(ref);
    const q = new URLSearchParams({ client_id: client.client_id, redirect_uri: 'https://app.example.com/cb', response_type: 'code', scope: 'openid groups' });
    const { code } = (await call(ref, 'GET', `identity/oidc/provider/web/authorize?${q}`, { token })).json() as { code: string };
    const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: 'https://app.example.com/cb', client_id: client.client_id, client_secret: client.client_secret });
    const tokenRes = await call(ref, 'POST', 'identity/oidc/provider/web/token', { token: null, body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const access = (tokenRes.json() as { access_token: string }).access_token;
    const info = await call(ref, 'GET', 'identity/oidc/provider/web/userinfo', { token: null, headers: { authorization: `Bearer ${access}` } });
    expect(info.json()).toMatchObject({ groups: null });
  });
  it('re-checks the assignments and allowed_client_ids at every userinfo call (pathOIDCUserInfo)', async () => {
    await call(ref, 'POST', 'identity/oidc/client/again', { body: JSON.stringify({ redirect_uris: ['https://again.example.com/cb'], assignments: ['allow_all'] }) });
    const client = (await call(ref, 'GET', 'identity/oidc/client/again')).json().data as { client_id: string; client_secret: string };
    const provider = (allowed: string[]) => call(ref, 'POST', 'identity/oidc/provider/again', { body: JSON.stringify({ allowed_client_ids: allowed }) });
    await provider([client.client_id]);
    const token = await entityToken(ref);
    const q = new URLSearchParams({ client_id: client.client_id, redirect_uri: 'https://again.example.com/cb', response_type: 'code', scope: 'openid' });
    const { code } = (await call(ref, 'GET', `identity/oidc/provider/again/authorize?${q}`, { token })).json() as { code: string };
    const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: 'https://again.example.com/cb', client_id: client.client_id, client_secret: client.client_secret });
    const access = ((await call(ref, 'POST', 'identity/oidc/provider/again/token', { token: null, body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } })).json() as { access_token: string }).access_token;
    const userinfo = async () => {
      const res = await call(ref, 'GET', 'identity/oidc/provider/again/userinfo', { token: null, headers: { authorization: `Bearer ${access}` } });
      return { status: res.status, error: (res.json() as { error?: string; error_description?: string }).error_description };
    };
    expect((await userinfo()).status).toBe(200);
    await provider([]);
    expect(await userinfo()).toEqual({ status: 403, error: 'client is not authorized to use the provider' });
    await provider(['*']);
    expect((await userinfo()).status).toBe(200);
    await call(ref, 'POST', 'identity/oidc/client/again', { body: JSON.stringify({ redirect_uris: ['https://again.example.com/cb'], assignments: [] }) });
    expect(await userinfo()).toEqual({ status: 403, error: 'identity entity not authorized by client assignment' });
  });
});
