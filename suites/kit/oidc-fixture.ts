import { createHash } from 'node:crypto';
import { base64url, createLocalJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { expect } from 'vitest';
import type { EntityFixture } from '../../src/client/identity-fixtures.ts';
import type { HttpResponse } from '../../src/client/http-client.ts';
import type { OidcApi } from '../../src/client/oidc-api.ts';
import { clientReadSchema, discoverySchema, jwksSchema, tokenResponseSchema } from '../../src/client/schemas/oidc.ts';
import type { RuleKit } from './rule-kit.ts';
import { uniqueName } from './run-names.ts';

export { uniqueName } from './run-names.ts';

export interface OidcSetupOptions {
  clientType?: 'confidential' | 'public';
  redirectUris?: string[];
  /** Scopes to create and put on the provider, each with a template. */
  scopes?: { template: string; description?: string }[];
  /** 'self' (default): only this client; '*': all; or an explicit list (possibly empty). */
  /** 'self': the client's own client_id; a function: a list made from it (written after the client). */
  allowedClientIds?: 'self' | '*' | string[] | ((clientId: string) => string[]);
  /** Write the provider before the client (its '*' or list then names no client that existed). */
  providerFirst?: boolean;
  /** 'entity' (default): an assignment naming the entity; 'allow_all'; 'none'; or assignment names. */
  assignments?: 'entity' | 'allow_all' | 'none' | string[];
  entity?: { metadata?: Record<string, string>; groups?: string[] };
  idTokenTtl?: number | string;
  accessTokenTtl?: number | string;
  /** The key that signs the client's ID tokens; the target's default when absent. */
  key?: string;
}

export interface OidcSetup {
  api: OidcApi;
  provider: string;
  scopes: string[];
  client: { name: string; id: string; secret?: string; type: 'confidential' | 'public' };
  entity: EntityFixture;
  redirectUri: string;
}

/** Asserts a configuration write succeeded; a target that cannot be configured fails the rule. */
export function expectWritten(res: HttpResponse, what: string): void {
  expect(res.status, `${what}: ${res.exchange.method} ${res.exchange.url} succeeds (${res.text.slice(0, 200)})`).toBeLessThan(300);
}

/**
 * Configures a provider, its scopes, a client and an assignment for one entity, with unique names,
 * through the spec's endpoints (the entity itself through the profile's fixtures).
 */
export async function setupOidc(kit: RuleKit, options: OidcSetupOptions = {}): Promise<OidcSetup> {
  const api = kit.oidc();
  const entity = await kit.fixtures.entity({ name: uniqueName('entity'), metadata: options.entity?.metadata, groups: options.entity?.groups });
  const scopes: string[] = [];
  for (const s of options.scopes ?? []) {
    const name = uniqueName('scope');
    expectWritten(await api.write('scope', name, { template: s.template, description: s.description ?? 'stackproof scope' }), `create scope ${name}`);
    scopes.push(name);
  }
  let assignments: string[] = [];
  const mode = options.assignments ?? 'entity';
  if (mode === 'entity') {
    const name = uniqueName('assignment');
    expectWritten(await api.write('assignment', name, { entity_ids: [entity.id] }), `create assignment ${name}`);
    assignments = [name];
  } else if (mode === 'allow_all') assignments = ['allow_all'];
  else if (Array.isArray(mode)) assignments = mode;
  const provider = uniqueName('provider');
  const allowed = options.allowedClientIds ?? 'self';
  const allowedIds = (clientId: string) => (allowed === 'self' ? [clientId] : allowed === '*' ? ['*'] : typeof allowed === 'function' ? allowed(clientId) : allowed);
  // A provider written before its client can name no client_id: '*' or a fixed list only.
  if (options.providerFirst) {
    if (allowed === 'self' || typeof allowed === 'function') throw new Error('setupOidc: a provider written before its client cannot name its client_id');
    expectWritten(await api.write('provider', provider, { allowed_client_ids: allowedIds(''), scopes_supported: scopes }), `create provider ${provider} before its client`);
  }
  const clientName = uniqueName('client');
  const redirectUri = options.redirectUris?.[0] ?? `https://${clientName}.example.com:8443/callback`;
  const body: Record<string, unknown> = { redirect_uris: options.redirectUris ?? [redirectUri], assignments, client_type: options.clientType ?? 'confidential' };
  if (options.idTokenTtl !== undefined) body.id_token_ttl = options.idTokenTtl;
  if (options.accessTokenTtl !== undefined) body.access_token_ttl = options.accessTokenTtl;
  if (options.key !== undefined) body.key = options.key;
  expectWritten(await api.write('client', clientName, body), `create client ${clientName}`);
  const read = (await api.read('client', clientName)).parse(clientReadSchema).data;
  kit.secret(read.client_secret);
  if (!options.providerFirst) expectWritten(await api.write('provider', provider, { allowed_client_ids: allowedIds(read.client_id), scopes_supported: scopes }), `create provider ${provider}`);
  return { api, provider, scopes, client: { name: clientName, id: read.client_id, secret: read.client_secret, type: read.client_type }, entity, redirectUri };
}

export function authorizeParams(setup: OidcSetup, overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    client_id: setup.client.id,
    redirect_uri: setup.redirectUri,
    response_type: 'code',
    scope: ['openid', ...setup.scopes].join(' '),
    state: `st-${uniqueName('state')}`,
    nonce: `n-${uniqueName('nonce')}`,
    ...overrides,
  };
}

export function authorize(setup: OidcSetup, overrides: Record<string, string | undefined> = {}, method: 'GET' | 'POST' = 'GET'): Promise<HttpResponse> {
  return setup.api.authorize(setup.provider, authorizeParams(setup, overrides), setup.entity.token, method);
}

/** Takes the code out of a successful authorize answer, or fails the rule. */
export function codeOf(res: HttpResponse): string {
  expect(res.status, `authorize succeeds: ${res.text.slice(0, 300)}`).toBe(200);
  const body = res.json() as { code?: unknown };
  expect(typeof body.code, 'authorize returns a code').toBe('string');
  return body.code as string;
}

export type ClientAuth = 'basic' | 'post' | 'none';

export function exchange(
  setup: OidcSetup,
  code: string,
  options: { auth?: ClientAuth; verifier?: string; redirectUri?: string; grantType?: string; secret?: string } = {},
): Promise<HttpResponse> {
  const auth = options.auth ?? (setup.client.type === 'public' ? 'none' : 'basic');
  const secret = options.secret ?? setup.client.secret ?? '';
  const form: Record<string, string | undefined> = {
    grant_type: options.grantType ?? 'authorization_code',
    code,
    redirect_uri: options.redirectUri ?? setup.redirectUri,
    code_verifier: options.verifier,
  };
  if (auth === 'post') Object.assign(form, { client_id: setup.client.id, client_secret: secret });
  if (auth === 'none') form.client_id = setup.client.id;
  return setup.api.token(setup.provider, form, auth === 'basic' ? { id: setup.client.id, secret } : undefined);
}

/** The S256 challenge of a verifier: base64url, no padding, of its SHA-256. */
export function s256(verifier: string): string {
  return base64url.encode(createHash('sha256').update(verifier).digest());
}

/** Verifies an ID token with jose against the provider's key set and discovered issuer. */
export async function verifyIdToken(setup: OidcSetup, idToken: string): Promise<JWTPayload> {
  const discovery = (await setup.api.discovery(setup.provider)).parse(discoverySchema);
  const jwks = (await setup.api.keys(setup.provider)).parse(jwksSchema);
  const keySet = createLocalJWKSet(jwks as unknown as Parameters<typeof createLocalJWKSet>[0]);
  try {
    const { payload } = await jwtVerify(idToken, keySet, { issuer: discovery.issuer, audience: setup.client.id });
    return payload;
  } catch (err) {
    expect.fail(`the ID token does not verify against the key set and the discovered issuer ${discovery.issuer}: ${(err as Error).message}`);
  }
}

/** Runs authorize and token for a setup; returns the parsed token response. */
export async function codeFlow(setup: OidcSetup, params: Record<string, string | undefined> = {}, exchangeOptions: Parameters<typeof exchange>[2] = {}) {
  const code = codeOf(await authorize(setup, params));
  const res = await exchange(setup, code, exchangeOptions);
  expect(res.status, `the token exchange succeeds: ${res.text.slice(0, 300)}`).toBe(200);
  return { code, token: res.parse(tokenResponseSchema), response: res };
}
