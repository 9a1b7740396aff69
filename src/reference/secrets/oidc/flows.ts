import { createHash, timingSafeEqual } from 'node:crypto';
import type { FaultSet } from '../../faults/types.ts';
import type { SecretsFlavor } from '../flavor.ts';
import type { EngineRequest } from '../engine.ts';
import { decodeStdBase64 } from '../go-base64.ts';
import type { IdentityStore } from '../identity-store.ts';
import { FieldError } from '../named-collection.ts';
import type { EngineResult } from '../respond.ts';
import type { TokenStore } from '../token-store.ts';
import { base62, randomCode, type Client, type OidcConfig, type Provider } from './config.ts';
import { CodeGrants } from './code-grants.ts';
import type { SigningKey } from './signing-key.ts';
import { keyAllowsClient, type OidcKeyRing } from './key-ring.ts';
import { redirectAllowed, redirectRepeated } from './redirect-match.ts';

/** An authorization code is valid for five minutes and for one exchange. */
const CODE_TTL_MS = 5 * 60 * 1000;
const ALGS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

export interface OidcFlowContext {
  faults: FaultSet;
  flavor: SecretsFlavor;
  config: OidcConfig;
  identity: IdentityStore;
  tokens: TokenStore;
  /** The namespace's named signing keys. */
  keys: OidcKeyRing;
  /** The service's address (api_addr). */
  apiAddr: () => string;
  /** The namespace path ('' for root, else ending in '/'). */
  namespace: string;
}

/** An OAuth error; the spec leaves the OIDC endpoints' error format "not shown", so it follows upstream. */
class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

function b64urlHash(value: string, half = false): string {
  const digest = createHash('sha256').update(value).digest();
  return (half ? digest.subarray(0, digest.length / 2) : digest).toString('base64url');
}

function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/**
 * The OIDC provider's endpoints: discovery, key set, authorize, token and userinfo, for the
 * authorization code flow with client_secret_basic, client_secret_post or none, and PKCE.
 */
export class OidcFlows {
  private readonly codes: CodeGrants;

  constructor(private readonly ctx: OidcFlowContext) {
    this.codes = new CodeGrants({
      sharedIgnoresClient: ctx.faults.has('secrets.oidc-code-grant-client-shared'),
      sharedIgnoresAuthTime: ctx.faults.has('secrets.oidc-code-grant-auth-time-shared'),
    });
  }

  issuer(name: string, provider: Provider): string {
    const f = this.ctx.faults;
    const base = provider.issuer !== '' && !f.has('secrets.oidc-issuer-ignored') ? provider.issuer.replace(/\/$/, '') : this.ctx.apiAddr();
    return `${base}${f.has('secrets.oidc-issuer-default-no-v1') ? '' : '/v1'}/${this.ctx.namespace}identity/oidc/provider/${name}`;
  }

  /** Synchronous but for the token endpoint: authorize is a load test's hot path. */
  handle(name: string, endpoint: string, req: EngineRequest): EngineResult | Promise<EngineResult> {
    try {
      const answer = this.route(name, endpoint, req);
      return answer instanceof Promise ? answer.catch((err: unknown) => this.failed(err, endpoint, req)) : answer;
    } catch (err) {
      return this.failed(err, endpoint, req);
    }
  }

  private route(name: string, endpoint: string, req: EngineRequest): EngineResult | Promise<EngineResult> {
    const provider = this.ctx.config.providers.items.get(name);
    switch (endpoint) {
      case '.well-known/openid-configuration':
        if (req.operation !== 'read') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
        return provider ? { kind: 'raw', status: 200, body: this.discovery(name, provider), headers: { 'cache-control': 'max-age=3600' } } : { kind: 'error', status: 404, errors: ['provider not found'] };
      case '.well-known/keys':
        if (req.operation !== 'read') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
        return provider ? this.keys(provider).then((body): EngineResult => ({ kind: 'raw', status: 200, body, headers: { 'cache-control': 'max-age=3600' } })) : { kind: 'error', status: 404, errors: ['provider not found'] };
      case 'authorize':
        if (req.operation !== 'read' && req.operation !== 'create-or-update') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
        return this.authorize(name, provider, req);
      case 'token':
        if (req.operation !== 'create-or-update') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
        return this.token(name, provider, req);
      case 'userinfo':
        if (req.operation === 'read' && this.ctx.faults.has('secrets.oidc-userinfo-get-405')) return { kind: 'error', status: 405, errors: ['unsupported operation'] };
        if (req.operation !== 'read' && req.operation !== 'create-or-update') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
        return this.userinfo(name, provider, req);
      default:
        return { kind: 'error', status: 404, errors: [`unsupported path: identity/oidc/provider/${name}/${endpoint}`] };
    }
  }

  /** An OAuth or field error as the endpoint's error answer; anything else is thrown on. */
  private failed(err: unknown, endpoint: string, req: EngineRequest): EngineResult {
    if (err instanceof OAuthError) return this.oauthError(err, endpoint, endpoint === 'authorize' ? str(params(req).state) : undefined);
    if (err instanceof FieldError) return this.oauthError(new OAuthError(400, 'invalid_request', err.message), endpoint);
    throw err;
  }

  private oauthError(err: OAuthError, endpoint: string, state?: string): EngineResult {
    const f = this.ctx.faults;
    if (endpoint === 'authorize' && f.has('secrets.oidc-authorize-errors-plain')) return { kind: 'error', status: 400, errors: [err.message] };
    let status = err.status;
    let headers = err.headers;
    if (err.error === 'invalid_client' && f.has('secrets.oidc-token-invalid-client-400')) {
      status = 400;
      headers = {};
    }
    if (err.error === 'invalid_token' && f.has('secrets.oidc-userinfo-bad-token-403')) status = 403;
    const body: Record<string, unknown> = { error: err.error, error_description: err.message };
    if (state !== undefined && err.error !== 'request_not_supported' && err.error !== 'request_uri_not_supported') body.state = state;
    const extra: Record<string, string> = endpoint === 'token' ? { 'cache-control': 'no-store', pragma: 'no-cache' } : {};
    return { kind: 'raw', status, body, headers: { ...extra, ...headers } };
  }

  private discovery(name: string, provider: Provider): Record<string, unknown> {
    const f = this.ctx.faults;
    const iss = this.issuer(name, provider);
    const doc: Record<string, unknown> = {
      issuer: iss,
      jwks_uri: `${iss}/.well-known/keys`,
      authorization_endpoint: `${iss.replace('/v1/', '/ui/vault/')}/authorize`,
      token_endpoint: `${iss}/token`,
      userinfo_endpoint: `${iss}/userinfo`,
      request_parameter_supported: false,
      request_uri_parameter_supported: false,
      id_token_signing_alg_values_supported: ALGS,
      response_types_supported: ['code'],
      scopes_supported: f.has('secrets.oidc-discovery-scopes-without-openid') ? [...provider.scopes_supported] : [...provider.scopes_supported, 'openid'],
      claims_supported: [],
      subject_types_supported: ['public'],
      grant_types_supported: ['authorization_code'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      code_challenge_methods_supported: ['plain', 'S256'],
    };
    if (f.has('secrets.oidc-discovery-missing-grant-types')) delete doc.grant_types_supported;
    return doc;
  }

  /**
   * The provider's key set. The spec does not say which keys it holds; Vault publishes the keys of
   * the clients the provider allows, all clients' keys for '*' (hashicorp/vault
   * vault/identity_store_oidc_provider.go keyIDsReferencedByTargetClientIDs), so a fresh provider
   * has none. The spec dialect publishes every signing key.
   */
  private signingKeys(provider: Provider): SigningKey[] {
    if (!this.ctx.flavor.vaultChoices) return this.ctx.keys.values().map((k) => k.signing);
    const clients = [...this.ctx.config.clients.items.values()];
    const allowed = provider.allowed_client_ids.includes('*') ? clients : clients.filter((c) => provider.allowed_client_ids.includes(c.client_id));
    const names = new Set(allowed.map((c) => c.key));
    return [...names].map((n) => this.ctx.keys.get(n)?.signing).filter((k): k is SigningKey => k !== undefined);
  }

  private async keys(provider: Provider): Promise<Record<string, unknown>> {
    const published = await Promise.all(this.signingKeys(provider).map((k) => k.publicJwk()));
    const keys = published.map((publicJwk) => {
      const jwk: Record<string, unknown> = { ...publicJwk };
      if (this.ctx.faults.has('secrets.oidc-jwks-missing-use')) delete jwk.use;
      return jwk;
    });
    return { keys };
  }

  private authorize(name: string, provider: Provider | undefined, req: EngineRequest): EngineResult {
    const f = this.ctx.faults;
    const p = params(req);
    const clientId = str(p.client_id);
    if (!clientId) throw new OAuthError(400, 'invalid_client_id', 'client_id parameter is required');
    const found = this.ctx.config.clientById(clientId);
    if (!found && !f.has('secrets.oidc-unknown-client-allowed')) throw new OAuthError(400, 'invalid_client_id', 'client with client_id not found');
    const client = found?.client;
    const redirectUri = str(p.redirect_uri);
    if (!redirectUri) throw new OAuthError(400, 'invalid_request', 'redirect_uri parameter is required');
    if (client && !redirectAllowed(redirectUri, client.redirect_uris, f, this.ctx.flavor)) {
      throw new OAuthError(400, 'invalid_redirect_uri', 'redirect_uri is not allowed for the client');
    }
    if (!provider) throw new OAuthError(400, 'invalid_request', 'provider not found');
    if (client && !this.providerAllows(provider, clientId)) throw new OAuthError(400, 'unauthorized_client', 'client is not authorized to use the provider');
    if (p.request !== undefined) throw new OAuthError(400, 'request_not_supported', 'request parameter is not supported');
    if (p.request_uri !== undefined) throw new OAuthError(400, 'request_uri_not_supported', 'request_uri parameter is not supported');
    const scopes = (str(p.scope) ?? '').split(' ').filter(Boolean);
    if (!scopes.includes('openid') && !f.has('secrets.oidc-openid-scope-optional')) throw new OAuthError(400, 'invalid_request', 'scope parameter must contain the "openid" value');
    const responseType = str(p.response_type);
    if (!responseType) throw new OAuthError(400, 'invalid_request', 'response_type parameter is required');
    if (responseType !== 'code' && !f.has('secrets.oidc-any-response-type')) throw new OAuthError(400, 'unsupported_response_type', 'unsupported response_type value');
    const entityId = req.token?.entityId;
    const entity = entityId ? this.ctx.identity.entities.get(entityId) : undefined;
    if (!entity) throw new OAuthError(400, 'access_denied', 'identity entity must be associated with the request');
    if (client && !this.assigned(client, entity.id)) throw new OAuthError(400, 'access_denied', 'identity entity not authorized by client assignment');
    const challenge = str(p.code_challenge);
    if (client?.client_type === 'public' && !challenge && !f.has('secrets.oidc-public-pkce-optional')) throw new OAuthError(400, 'invalid_request', 'PKCE is required for public clients');
    const rawMethod = str(p.code_challenge_method) || (f.has('secrets.oidc-pkce-default-s256') ? 'S256' : 'plain');
    if (rawMethod !== 'plain' && rawMethod !== 'S256') throw new OAuthError(400, 'invalid_request', 'invalid code_challenge_method');
    if (challenge && (challenge.length < 43 || challenge.length > 128)) throw new OAuthError(400, 'invalid_request', 'invalid code_challenge');
    let authTime: number | undefined;
    if (p.max_age !== undefined) {
      const maxAge = Number(p.max_age);
      if (!Number.isInteger(maxAge) || maxAge < 1) throw new OAuthError(400, 'invalid_request', 'max_age must be greater than zero');
      const created = req.token?.createdAt ?? Date.now();
      authTime = Math.floor(created / 1000);
      // Whole seconds since the token was made, as Vault counts them (identity_store_oidc_provider.go pathOIDCAuthorize).
      const elapsed = f.has('secrets.oidc-max-age-millis') ? Date.now() - created : Math.floor((Date.now() - created) / 1000);
      if (elapsed > maxAge && !f.has('secrets.oidc-max-age-ignored')) throw new OAuthError(400, 'max_age_violation', 'active re-authentication is required by max_age');
    }
    const code = randomCode();
    this.codes.add(code, {
      clientId,
      provider: name,
      redirectUri,
      entityId: entity.id,
      scopes,
      nonce: str(p.nonce),
      challenge,
      method: challenge ? rawMethod : undefined,
      authTime,
      expiresAt: Date.now() + CODE_TTL_MS,
    });
    const body: Record<string, unknown> = { code };
    const state = str(p.state);
    if (!f.has('secrets.oidc-state-not-echoed')) body.state = state ?? '';
    return { kind: 'raw', status: 200, body };
  }

  private providerAllows(provider: Provider, clientId: string): boolean {
    const f = this.ctx.faults;
    const ids = provider.allowed_client_ids;
    if (ids.length === 0) return f.has('secrets.oidc-allowed-clients-empty-means-all');
    if (ids.includes('*')) return provider.starSnapshot ? provider.starSnapshot.includes(clientId) : true;
    if (f.has('secrets.oidc-allowed-ids-first-only')) return ids[0] === clientId;
    if (f.has('secrets.oidc-allowed-ids-prefix')) return ids.some((id) => clientId.startsWith(id));
    if (f.has('secrets.oidc-allowed-ids-case-folded')) return ids.some((id) => id.toLowerCase() === clientId.toLowerCase());
    return ids.includes(clientId);
  }

  /** An entity may authenticate through a client when one of the client's assignments names it or one of its groups. */
  private assigned(client: Client, entityId: string): boolean {
    const f = this.ctx.faults;
    if (client.assignments.length === 0) return f.has('secrets.oidc-empty-assignments-allow-all');
    const entity = this.ctx.identity.entities.get(entityId);
    if (!entity || entity.disabled) return false;
    const consulted = f.has('secrets.oidc-only-first-assignment') ? client.assignments.slice(0, 1) : client.assignments;
    return consulted.some((name) => {
      if (name === 'allow_all' && this.ctx.config.assignments.items.has('allow_all')) return true;
      const a = this.ctx.config.assignments.items.get(name);
      if (!a) return false;
      if (a.entity_ids.includes(entity.id)) return true;
      return !f.has('secrets.oidc-assignment-groups-ignored') && a.group_ids.some((g) => entity.groupIds.includes(g));
    });
  }

  private async token(name: string, provider: Provider | undefined, req: EngineRequest): Promise<EngineResult> {
    const f = this.ctx.faults;
    const p = req.data;
    if (!provider) throw new OAuthError(400, 'invalid_request', 'provider not found');
    const basic = basicCredentials(req.headers.authorization);
    let clientId: string | undefined;
    let secret: string | undefined;
    let viaBasic = false;
    if (basic) {
      [clientId, secret] = basic;
      viaBasic = true;
    } else {
      clientId = str(p.client_id);
      secret = f.has('secrets.oidc-post-auth-unsupported') ? undefined : str(p.client_secret);
    }
    if (!clientId) throw new OAuthError(400, 'invalid_request', 'client_id parameter is required');
    const invalidClient = (why: string) => new OAuthError(401, 'invalid_client', why, { 'www-authenticate': 'Basic' });
    const found = this.ctx.config.clientById(clientId);
    if (!found) throw invalidClient('client failed to authenticate');
    const client = found.client;
    if (client.client_type === 'confidential') {
      const skip = (viaBasic && f.has('secrets.oidc-basic-secret-unchecked')) || (!secret && f.has('secrets.oidc-confidential-secret-optional'));
      if (!skip && !this.secretMatches(client, secret)) throw invalidClient('client failed to authenticate');
    } else if (f.has('secrets.oidc-public-requires-secret') && !secret) {
      throw invalidClient('client failed to authenticate');
    }
    if (!this.providerAllows(provider, clientId)) throw invalidClient('client is not authorized to use the provider');
    // A key made through identity/oidc/key signs only for the clients it lists (identity_store_oidc_provider.go pathOIDCToken).
    const key = this.ctx.keys.get(client.key);
    // The fault lets a key's allowed_client_ids entry admit every client_id it is a prefix of.
    const prefixAdmits = this.ctx.faults.has('secrets.oidc-key-allowed-ids-prefix') && key?.allowedClientIds.some((id) => clientId.startsWith(id));
    if (key && !keyAllowsClient(key, clientId) && !prefixAdmits) throw invalidClient('client is not authorized to use the key');
    const grantType = str(p.grant_type);
    if (!grantType) throw new OAuthError(400, 'invalid_request', 'grant_type parameter is required');
    if (grantType !== 'authorization_code' && !f.has('secrets.oidc-grant-type-unchecked')) throw new OAuthError(400, 'unsupported_grant_type', 'unsupported grant_type value');
    const code = str(p.code);
    if (!code) throw new OAuthError(400, 'invalid_request', 'code parameter is required');
    // Upstream burns the code as soon as it is looked up, whatever happens next.
    const grant = this.codes.lookup(code, !f.has('secrets.oidc-code-reusable'));
    if (!grant || grant.expiresAt < Date.now()) {
      throw f.has('secrets.oidc-token-reused-code-invalid-request')
        ? new OAuthError(400, 'invalid_request', 'authorization grant is invalid or expired')
        : new OAuthError(400, 'invalid_grant', 'authorization grant is invalid or expired');
    }
    // The fault takes the client the code is for from the form's client_id over the Basic credentials.
    const grantClient = f.has('secrets.oidc-code-client-from-form') ? (str(p.client_id) ?? clientId) : clientId;
    if (grant.clientId !== grantClient && !f.has('secrets.oidc-code-any-client')) throw new OAuthError(400, 'invalid_grant', 'authorization code was not issued to the client');
    if (grant.provider !== name && !f.has('secrets.oidc-code-any-provider')) throw new OAuthError(400, 'invalid_grant', 'authorization code was not issued by the provider');
    const redirectUri = str(p.redirect_uri);
    if (!redirectUri) throw new OAuthError(400, 'invalid_request', 'redirect_uri parameter is required');
    if (!redirectRepeated(redirectUri, grant.redirectUri, f)) {
      throw new OAuthError(400, 'invalid_grant', 'redirect_uri does not match the redirect_uri used in the authorization request');
    }
    const entity = this.ctx.identity.entities.get(grant.entityId);
    if (!entity) throw new OAuthError(400, 'invalid_request', 'identity entity associated with the request not found');
    if (!this.assigned(client, entity.id) && !f.has('secrets.oidc-token-assignments-unchecked')) throw new OAuthError(400, 'invalid_request', 'identity entity not authorized by client assignment');
    const verifier = str(p.code_verifier);
    if (client.client_type === 'public' && !grant.challenge && !f.has('secrets.oidc-public-pkce-optional')) throw new OAuthError(400, 'invalid_request', 'PKCE is required for public clients');
    if (!grant.challenge && verifier) throw new OAuthError(400, 'invalid_request', 'unexpected code_verifier for token exchange');
    if (grant.challenge) {
      if (!verifier) {
        if (!f.has('secrets.oidc-pkce-verifier-optional')) throw new OAuthError(400, 'invalid_request', 'expected code_verifier for token exchange');
      } else {
        const computed = grant.method === 'S256' && !f.has('secrets.oidc-pkce-s256-as-plain') ? b64urlHash(verifier) : verifier;
        if (!safeEqual(computed, grant.challenge)) throw new OAuthError(400, 'invalid_grant', 'invalid code_verifier for token exchange');
      }
    }
    const claims = this.scopeClaims(provider, grant.scopes, entity.id);
    const now = Math.floor(Date.now() / 1000);
    const access = this.ctx.tokens.create({
      prefix: 'hvb.',
      policies: ['oidc-userinfo'],
      namespace: this.ctx.namespace,
      entityId: entity.id,
      // Only the issuing provider's userinfo, as Vault's inline policy on the access token (pathOIDCToken).
      allowedPath: f.has('secrets.oidc-access-token-any-provider') ? ANY_USERINFO : userinfoPathOf(name),
      expiresAt: f.has('secrets.oidc-access-token-never-expires') ? undefined : Date.now() + client.access_token_ttl * 1000,
      oidc: { provider: name, clientId, scopes: grant.scopes },
    });
    const idTtl = f.has('secrets.oidc-id-token-ttl-ignored') ? 86_400 : client.id_token_ttl;
    const payload: Record<string, unknown> = {
      ...claims,
      iss: this.issuer(name, provider),
      namespace: this.ctx.namespace === '' ? 'root' : this.ctx.namespace.replace(/\/$/, ''),
      sub: entity.id,
      aud: f.has('secrets.oidc-id-token-aud-provider') ? name : clientId,
      iat: now,
      exp: now + idTtl,
      at_hash: b64urlHash(access.id, true),
      c_hash: b64urlHash(code, true),
    };
    if (grant.nonce && !f.has('secrets.oidc-nonce-dropped')) payload.nonce = grant.nonce;
    if (grant.authTime !== undefined) payload.auth_time = grant.authTime;
    const signer = f.has('secrets.oidc-client-key-ignored') ? undefined : this.ctx.keys.get(client.key);
    let idToken = await (signer ?? this.ctx.keys.get('default')!).signing.sign(payload);
    if (f.has('secrets.oidc-id-token-wrong-kid')) {
      const [h, b, s] = idToken.split('.');
      const header = JSON.parse(Buffer.from(h!, 'base64url').toString()) as Record<string, unknown>;
      header.kid = base62(16);
      idToken = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${b}.${s}`;
    }
    const headers: Record<string, string> = f.has('secrets.oidc-token-cacheable') ? {} : { 'cache-control': 'no-store', pragma: 'no-cache' };
    return {
      kind: 'raw',
      status: 200,
      body: {
        token_type: f.has('secrets.oidc-token-type-lowercase') ? 'bearer' : 'Bearer',
        access_token: access.id,
        id_token: idToken,
        // The access token's lifetime, which is the client's access_token_ttl.
        expires_in: f.has('secrets.oidc-expires-in-default') ? 86_400 : f.has('secrets.oidc-expires-in-id-token-ttl') ? client.id_token_ttl : client.access_token_ttl,
      },
      headers,
    };
  }

  /** Whether a presented secret is the client's own (a fault takes any confidential client's). */
  private secretMatches(client: Client, secret: string | undefined): boolean {
    if (!secret) return false;
    if (this.ctx.faults.has('secrets.oidc-secret-of-any-client')) {
      return [...this.ctx.config.clients.items.values()].some((c) => c.client_secret !== undefined && safeEqual(secret, c.client_secret));
    }
    if (this.ctx.faults.has('secrets.oidc-secret-prefix')) return client.client_secret !== undefined && client.client_secret.startsWith(secret);
    if (this.ctx.faults.has('secrets.oidc-secret-case-folded')) return client.client_secret !== undefined && safeEqual(secret.toLowerCase(), client.client_secret.toLowerCase());
    return client.client_secret !== undefined && safeEqual(secret, client.client_secret);
  }

  /** Claims from the templates of the requested scopes that the provider supports ('openid' adds none). */
  private scopeClaims(provider: Provider, requested: string[], entityId: string): Record<string, unknown> {
    const entity = this.ctx.identity.entities.get(entityId)!;
    // Vault renders an empty group list as null (a Go nil slice: hashicorp/vault
    // sdk/helper/identitytpl PopulateString, jsonTemplateHandler); the spec leaves absent vs null open.
    const subject = { entity, groupNames: this.ctx.identity.groupNames(entity), emptyListAsNull: this.ctx.flavor.vaultChoices };
    const f = this.ctx.faults;
    const names = f.has('secrets.oidc-userinfo-all-scopes') ? provider.scopes_supported : f.has('secrets.oidc-unsupported-scope-rendered') ? requested : requested.filter((s) => provider.scopes_supported.includes(s));
    const claims: Record<string, unknown> = {};
    for (const name of names) {
      const scope = this.ctx.config.scopes.items.get(name);
      if (!scope || scope.template === '') continue;
      if (this.ctx.faults.has('secrets.oidc-template-base64-unsupported') && !/^\s*[{[]/.test(scope.template)) continue;
      const rendered = this.ctx.config.templates.render(scope.template, subject);
      for (const [k, v] of Object.entries(rendered)) {
        if (k in claims) throw new OAuthError(400, 'invalid_request', `found scopes with conflicting top-level claim: ${k}`);
        claims[k] = v;
      }
    }
    return claims;
  }

  private userinfo(name: string, provider: Provider | undefined, req: EngineRequest): EngineResult {
    const f = this.ctx.faults;
    if (f.has('secrets.oidc-userinfo-no-auth') && !req.token) return { kind: 'raw', status: 200, body: {} };
    const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
    const bearerHeaders = (error: string, description: string) => ({ 'www-authenticate': `Bearer error="${error}",error_description="${description}"` });
    if (!bearer || !req.token || bearer !== req.token.id) {
      throw new OAuthError(401, 'invalid_token', 'access token must be sent as a Bearer token', bearerHeaders('invalid_token', 'access token must be sent as a Bearer token'));
    }
    const oidc = req.token.oidc;
    if (!oidc || (oidc.provider !== name && !f.has('secrets.oidc-access-token-any-provider'))) throw new OAuthError(401, 'invalid_token', 'access token is malformed or invalid', bearerHeaders('invalid_token', 'access token is malformed or invalid'));
    if (!provider) throw new OAuthError(400, 'invalid_request', 'provider not found');
    const found = this.ctx.config.clientById(oidc.clientId);
    if (!found) throw new OAuthError(403, 'access_denied', 'client not found');
    const entityId = req.token.entityId!;
    // Re-checked at every call, as upstream does (openbao/openbao internal/vault/identity/
    // store_oidc_provider.go pathOIDCUserInfo): the entity against the client's assignments, then the
    // client against the provider's allowed_client_ids.
    if (!this.assigned(found.client, entityId) && !f.has('secrets.oidc-userinfo-access-not-rechecked')) throw new OAuthError(403, 'access_denied', 'identity entity not authorized by client assignment');
    if (!this.providerAllows(provider, oidc.clientId) && !f.has('secrets.oidc-userinfo-access-not-rechecked')) throw new OAuthError(403, 'access_denied', 'client is not authorized to use the provider');
    const claims = this.scopeClaims(provider, oidc.scopes, entityId);
    return { kind: 'raw', status: 200, body: { ...claims, sub: f.has('secrets.oidc-userinfo-sub-client') ? oidc.clientId : entityId } };
  }
}

/** Authorize parameters: the query for GET, the body (JSON or form) for POST. */
function params(req: EngineRequest): Record<string, unknown> {
  if (req.operation !== 'read') return req.data;
  // forEach rather than Object.fromEntries(query.entries()): URLSearchParams' iterator made a tenth
  // of an authorize's own CPU. The last of a repeated name wins, as with fromEntries.
  const out: Record<string, unknown> = {};
  req.query.forEach((value, name) => {
    // An own property, as fromEntries makes it, not the object's prototype.
    if (name === '__proto__') Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
    else out[name] = value;
  });
  return out;
}

const ANY_USERINFO = /^identity\/oidc\/provider\/[^/]+\/userinfo$/;
/** One pattern per provider, shared by all its access tokens (every token exchange makes one token, and they live their TTL). */
const userinfoPaths = new Map<string, RegExp>();
function userinfoPathOf(provider: string): RegExp {
  let re = userinfoPaths.get(provider);
  if (!re) {
    if (userinfoPaths.size >= 1024) userinfoPaths.clear();
    userinfoPaths.set(provider, (re = new RegExp(`^identity/oidc/provider/${provider.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/userinfo$`)));
  }
  return re;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : v === undefined || v === null ? undefined : String(v);
}

/**
 * client_secret_basic as Vault and OpenBao read it (vault/identity_store_oidc_provider.go basicAuth:
 * net/http Request.BasicAuth): "Basic " in any case, one space, standard base64 with its padding,
 * split at the first colon; anything else is no Basic credentials, and the token endpoint reads the
 * form instead. The ID and secret are compared as they come, not URL-decoded: the spec's header is
 * `Basic <base64(client_id:client_secret)>`, and a client that form-urlencodes them first (RFC 6749
 * 2.3.1, as openid-client v6 does: the secret's `_` becomes `%5F`) is refused 401 invalid_client by
 * OpenBao 2.6.2.
 */
export function basicCredentials(header: string | undefined): [id: string, secret: string] | undefined {
  if (!header || header.length < 6 || header.slice(0, 6).toLowerCase() !== 'basic ') return undefined;
  const decoded = decodeStdBase64(header.slice(6))?.toString('utf8');
  const colon = decoded?.indexOf(':') ?? -1;
  return decoded === undefined || colon < 0 ? undefined : [decoded.slice(0, colon), decoded.slice(colon + 1)];
}
