import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../src/reference/reference.ts';

/**
 * The hashicorp dialect's auth/token/lookup-self (hashicorp/vault vault/token_store.go,
 * pathLookupSelf → handleLookup): what a client asks to learn whether its token is good, and what
 * stackproof's preflight asks before a run. Vault mounts the token method in every namespace and
 * lists it in sys/auth as token/.
 */
describe('reference, hashicorp dialect: auth/token/lookup-self', () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp', control: false });
  });
  afterAll(async () => ref?.stop());
  const get = (path: string, token?: string, method = 'GET') => fetch(`${ref.secrets.url}${path}`, { method, headers: token ? { 'X-Vault-Token': token } : {} });

  it('answers the root token as a dev server\'s: root policy, no TTL, path auth/token/root, by GET and by POST', async () => {
    for (const method of ['GET', 'POST']) {
      const res = await get('/v1/auth/token/lookup-self', ref.secrets.token, method);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: Record<string, unknown> };
      expect(body.data).toMatchObject({ id: ref.secrets.token, policies: ['root'], path: 'auth/token/root', display_name: 'root', ttl: 0, expire_time: null, orphan: true, type: 'service', num_uses: 0 });
      expect(typeof body.data.accessor).toBe('string');
      expect(typeof body.data.creation_time).toBe('number');
    }
  });

  it('refuses an unknown token, and a request without one, with 403 permission denied', async () => {
    for (const token of ['hvs.not-a-token', undefined]) {
      const res = await get('/v1/auth/token/lookup-self', token);
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ errors: ['permission denied'] });
    }
  });

  it('creates a token of the namespace the request is made in (token_store.go handleCreateCommon): default added, ttl kept, a bad ttl 400', async () => {
    const call = (method: string, path: string, body: unknown, ns?: string, token = ref.secrets.token) =>
      fetch(`${ref.secrets.url}${path}`, { method, headers: { 'X-Vault-Token': token, ...(ns ? { 'X-Vault-Namespace': ns } : {}) }, body: JSON.stringify(body) });
    expect((await call('POST', '/v1/sys/namespaces/tok-a', {})).status).toBe(200);
    const made = await call('POST', '/v1/auth/token/create', { policies: ['reader'], ttl: '15m' }, 'tok-a/');
    expect(made.status).toBe(200);
    const auth = ((await made.json()) as { auth: { client_token: string; policies: string[]; lease_duration: number } }).auth;
    expect(auth.policies).toEqual(['default', 'reader']);
    expect(auth.lease_duration).toBe(900);
    const self = await fetch(`${ref.secrets.url}/v1/auth/token/lookup-self`, { headers: { 'X-Vault-Token': auth.client_token, 'X-Vault-Namespace': 'tok-a/' } });
    expect(self.status, 'the token works in its namespace').toBe(200);
    const root = await fetch(`${ref.secrets.url}/v1/auth/token/lookup-self`, { headers: { 'X-Vault-Token': auth.client_token } });
    expect(root.status, 'and not in the root namespace').toBe(403);
    expect((await call('POST', '/v1/auth/token/create', { ttl: 'soon' })).status).toBe(400);
  });

  it('lists the token method in sys/auth, as Vault does', async () => {
    const res = await get('/v1/sys/auth', ref.secrets.token);
    const body = (await res.json()) as Record<string, { type?: string }>;
    expect(body['token/']?.type).toBe('token');
  });

  it('serves nothing else under auth/token/ (404)', async () => {
    expect((await get('/v1/auth/token/lookup-other', ref.secrets.token)).status).toBe(404);
  });
});

describe('reference, spec dialect: no auth/token/ (spec 000 shows no such route)', () => {
  it('answers 404 for lookup-self', async () => {
    const ref = await startReference({ dialect: 'spec', control: false });
    try {
      const res = await fetch(`${ref.secrets.url}/v1/auth/token/lookup-self`, { headers: { 'X-Service-Token': ref.secrets.token } });
      expect(res.status).toBe(404);
    } finally {
      await ref.stop();
    }
  });
});

describe('reference, hashicorp dialect: auth/token/lookup (handleLookup)', () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp', control: false });
  });
  afterAll(async () => ref?.stop());
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${ref.secrets.url}/v1/auth/token/${path}`, { method, headers: { 'X-Vault-Token': ref.secrets.token, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });

  it('looks up the token given as {"token"} (hvac auth.token.lookup, vault token lookup <token>), the caller without one', async () => {
    const given = await call('POST', 'lookup', { token: ref.secrets.token });
    expect(given.status).toBe(200);
    expect(((await given.json()) as { data: { id: string; policies: string[] } }).data).toMatchObject({ id: ref.secrets.token, policies: ['root'] });
    const self = await call('GET', 'lookup');
    expect(((await self.json()) as { data: { id: string } }).data.id).toBe(ref.secrets.token);
  });

  it('answers a token it does not know with 403 "bad token", and a path the method does not have with the wrapped unsupported path', async () => {
    const bad = await call('POST', 'lookup', { token: 'hvs.nothing-like-it' });
    expect(bad.status).toBe(403);
    expect(await bad.json()).toEqual({ errors: ['bad token'] });
    // GET lookup/<token> is gone from Vault (the path pattern is anchored): unsupported.
    const byPath = await call('GET', `lookup/${ref.secrets.token}`);
    expect(byPath.status).toBe(404);
    expect(await byPath.json()).toEqual({ errors: ['1 error occurred:\n\t* unsupported path\n\n'] });
  });
});
