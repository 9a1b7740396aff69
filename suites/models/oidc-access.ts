/**
 * The access decisions of the secrets service's OIDC provider (spec 000), as the spec states them:
 * who may get a code at authorize, who may exchange it at the token endpoint, what userinfo takes.
 * Written from the spec's sentences, never from the reference it judges. Pure and synchronous.
 *
 * Where the spec leaves a choice, a decision is the set of outcomes it allows: a target passes when
 * its answer is in the set. 'grant' is a 2xx with a code or tokens or claims; 'refuse' is anything
 * else (the spec shows no status per OIDC condition: "Which condition of each individual OIDC or
 * login operation yields which status: not shown.", Errors).
 */

export type Outcome = 'grant' | 'refuse';
export type Decision = ReadonlySet<Outcome>;

export const GRANT: Decision = new Set<Outcome>(['grant']);
export const REFUSE: Decision = new Set<Outcome>(['refuse']);
export const EITHER: Decision = new Set<Outcome>(['grant', 'refuse']);

export interface ModelProvider {
  name: string;
  allowedClientIds: string[];
  scopesSupported: string[];
}

export interface ModelClient {
  name: string;
  clientId: string;
  type: 'confidential' | 'public';
  /** Confidential clients only. */
  secret?: string;
  redirectUris: string[];
  assignments: string[];
}

export interface ModelAssignment {
  entityIds: string[];
  groupIds: string[];
}

export interface ModelEntity {
  id: string;
  groupIds: string[];
}

/** The configuration a decision is taken in: what exists at the moment of the request. */
export interface OidcWorld {
  providers: ModelProvider[];
  clients: ModelClient[];
  /** By name; 'allow_all' is built in and need not be listed. */
  assignments: Record<string, ModelAssignment>;
  entities: ModelEntity[];
}

export interface AuthorizeRequest {
  provider: string;
  clientId: string;
  redirectUri: string;
  /** The scope parameter, space-delimited. */
  scope: string;
  responseType: string;
  /** The entity the client token sent with the request belongs to. */
  entityId: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
}

/** What an authorize that granted a code bound it to. */
export interface CodeGrant {
  provider: string;
  clientId: string;
  redirectUri: string;
  entityId: string;
  scopes: string[];
  codeChallenge?: string;
  codeChallengeMethod?: 'plain' | 'S256';
}

/**
 * What is presented where a code or a bearer token is expected. A code carries its grant and
 * whether a token call named it before (and whether that call was granted).
 */
export type Presented =
  | { kind: 'code'; grant: CodeGrant; earlier: 'none' | 'granted' | 'refused' }
  | { kind: 'access-token'; provider: string; clientId: string; entityId: string }
  | { kind: 'id-token' }
  | { kind: 'client-token' }
  | { kind: 'nothing' };

export interface ClientAuth {
  method: 'basic' | 'post' | 'none';
  clientId?: string;
  secret?: string;
  /** With method 'basic': form client_id and client_secret sent beside the Basic header (another client's, or its secret). */
  form?: { clientId?: string; secret?: string };
}

export interface TokenRequest {
  provider: string;
  grantType: string;
  code: Presented;
  redirectUri: string;
  auth: ClientAuth;
  codeVerifier?: string;
  /** The S256 transform of a verifier (base64url of its SHA-256), given by the caller: the model does no I/O nor crypto. */
  s256?: (verifier: string) => string;
}

export interface UserinfoRequest {
  provider: string;
  bearer: Presented;
}

const providerOf = (w: OidcWorld, name: string) => w.providers.find((p) => p.name === name);
const clientOf = (w: OidcWorld, clientId: string | undefined) => (clientId === undefined ? undefined : w.clients.find((c) => c.clientId === clientId));

/**
 * Provider, allowed_client_ids: "Empty list: no client allowed. Value '*': all clients allowed"
 * (Resources and their fields > OIDC provider). Otherwise the listed client_ids, each compared whole.
 */
export function providerAllows(provider: ModelProvider, clientId: string): boolean {
  return provider.allowedClientIds.includes('*') || provider.allowedClientIds.includes(clientId);
}

/**
 * Client, assignments: "Names of assignments limiting which entities and groups may authenticate
 * through the client. By default no entities are allowed. The built-in assignment 'allow_all' allows
 * all entities" (Resources and their fields > OIDC client). An assignment names entities
 * (entity_ids) and groups (group_ids) (OIDC assignment): an entity is admitted when it is named, or
 * one of its groups is.
 */
export function assignmentsAdmit(world: OidcWorld, client: ModelClient, entityId: string): boolean {
  const entity = world.entities.find((e) => e.id === entityId);
  return client.assignments.some((name) => {
    if (name === 'allow_all') return true;
    const a = world.assignments[name];
    if (!a) return false;
    return a.entityIds.includes(entityId) || (entity?.groupIds ?? []).some((g) => a.groupIds.includes(g));
  });
}

/**
 * Client, redirect_uris: "One value must exactly equal the redirect_uri of each authentication
 * request" (OIDC client). Exactly: string equality, no normalisation of case, port, slash or query.
 */
export function redirectRegistered(client: ModelClient, redirectUri: string): boolean {
  return client.redirectUris.includes(redirectUri);
}

const scopesOf = (scope: string) => scope.split(' ').filter((s) => s !== '');

/** Authorize (Endpoints > OIDC provider, Authorize parameters). */
export function authorizeDecision(world: OidcWorld, req: AuthorizeRequest): Decision {
  // client_id | string | yes: a client the service issued.
  const client = clientOf(world, req.clientId);
  if (!client) return REFUSE;
  // "One value must exactly equal the redirect_uri of each authentication request" (OIDC client).
  if (!redirectRegistered(client, req.redirectUri)) return REFUSE;
  // The provider in the path, and "Empty list: no client allowed. Value '*': all clients allowed" (OIDC provider).
  const provider = providerOf(world, req.provider);
  if (!provider || !providerAllows(provider, client.clientId)) return REFUSE;
  // scope: "Space-delimited; must include 'openid'".
  const scopes = scopesOf(req.scope);
  if (!scopes.includes('openid')) return REFUSE;
  // response_type: "Only 'code'".
  if (req.responseType !== 'code') return REFUSE;
  // "Names of assignments limiting which entities and groups may authenticate through the client."
  if (!assignmentsAdmit(world, client, req.entityId)) return REFUSE;
  // code_challenge: "optional for confidential, required for public clients".
  if (client.type === 'public' && !req.codeChallenge) return REFUSE;
  // code_challenge_method: "'plain' (default) or 'S256'".
  if (req.codeChallengeMethod !== undefined && req.codeChallengeMethod !== 'plain' && req.codeChallengeMethod !== 'S256') return REFUSE;
  // scopes_supported: "Scopes that may be requested on the provider". Another scope may be refused
  // or ignored (then it yields no claims: claimScopes); the spec does not say which.
  if (scopes.some((s) => s !== 'openid' && !provider.scopesSupported.includes(s))) return EITHER;
  return GRANT;
}

/** The grant an authorize that the model allows binds its code to. */
export function grantOf(req: AuthorizeRequest): CodeGrant {
  const method = req.codeChallenge ? (req.codeChallengeMethod === 'S256' ? 'S256' : 'plain') : undefined;
  return {
    provider: req.provider,
    clientId: req.clientId,
    redirectUri: req.redirectUri,
    entityId: req.entityId,
    scopes: scopesOf(req.scope),
    ...(req.codeChallenge ? { codeChallenge: req.codeChallenge, codeChallengeMethod: method } : {}),
  };
}

/**
 * Client authentication at the token endpoint: "The token endpoint authenticates the OIDC client
 * (client_secret_basic, client_secret_post or none)" (Authentication 6); "confidential clients ...
 * have a client secret, authenticate with client_secret_basic or client_secret_post ... Public
 * clients have no secret, authenticate with method 'none'" (OIDC client). Returns the client that
 * authenticated, or the outcomes allowed when the spec leaves it open.
 */
export function authenticatedClient(world: OidcWorld, auth: ClientAuth): { client: ModelClient; decision: Decision } | undefined {
  const client = clientOf(world, auth.clientId);
  if (!client) return undefined;
  if (client.type === 'confidential') {
    // The secret is the client's own, compared whole: a prefix, an extension or another client's is not it.
    if (auth.method === 'none' || auth.secret === undefined || client.secret === undefined || auth.secret !== client.secret) return undefined;
    return { client, decision: GRANT };
  }
  // A public client uses method 'none'; what a secret it sends anyway does is not shown.
  return { client, decision: auth.method === 'none' && auth.secret === undefined ? GRANT : EITHER };
}

/**
 * Basic credentials and form client_id / client_secret in one request: the spec names the three
 * methods (Authentication 6) and not which one a provider takes when a request carries two, nor
 * whether it refuses it (RFC 6749 2.3: "The client MUST NOT use more than one authentication method
 * in each request"). Whichever it takes, the client it takes must have authenticated by that method
 * alone: a code is exchanged only for a client whose id and secret (a public client: its id) one of
 * the two presented, and then the provider may still refuse.
 */
function clientOfEither(world: OidcWorld, auth: ClientAuth, codeClientId: string | undefined): { client: ModelClient; decision: Decision } | undefined {
  const byBasic = authenticatedClient(world, { method: 'basic', clientId: auth.clientId, secret: auth.secret });
  const f = auth.form ?? {};
  const byForm = f.clientId === undefined ? undefined : authenticatedClient(world, { method: f.secret === undefined ? 'none' : 'post', clientId: f.clientId, secret: f.secret });
  const found = [byBasic, byForm].find((a) => a !== undefined && a.client.clientId === codeClientId);
  return found && { client: found.client, decision: EITHER };
}

/** Token (Endpoints > OIDC provider, Token parameters). */
export function tokenDecision(world: OidcWorld, req: TokenRequest): Decision {
  // grant_type: "Only 'authorization_code'".
  if (req.grantType !== 'authorization_code') return REFUSE;
  const authed = req.auth.form ? clientOfEither(world, req.auth, req.code.kind === 'code' ? req.code.grant.clientId : undefined) : authenticatedClient(world, req.auth);
  if (!authed) return REFUSE;
  const { client } = authed;
  // The token endpoint is the provider's own; "Empty list: no client allowed" holds at every use of it.
  const provider = providerOf(world, req.provider);
  if (!provider || !providerAllows(provider, client.clientId)) return REFUSE;
  // code: "Code from authorize": an authorization code, not a token; the one authorize issued to
  // this client ("issues ID tokens and access tokens through the authorization code flow", What the
  // service does 5) at this provider (identity/oidc/provider/:name/authorize and .../token).
  const code = req.code;
  if (code.kind !== 'code') return REFUSE;
  const g = code.grant;
  if (g.provider !== provider.name || g.clientId !== client.clientId) return REFUSE;
  // A code works once (the authorization code flow): after a granted exchange it is spent. After a
  // refused one the spec does not say whether it is spent.
  if (code.earlier === 'granted') return REFUSE;
  // redirect_uri: "Must equal the one used when the code was generated".
  if (req.redirectUri !== g.redirectUri) return REFUSE;
  // The entity still authenticates through the client: "assignments limiting which entities and
  // groups may authenticate through the client" (OIDC client), judged when the ID token is issued.
  if (!assignmentsAdmit(world, client, g.entityId)) return REFUSE;
  // code_verifier: "Required for codes granted with PKCE and for public clients".
  if (g.codeChallenge !== undefined) {
    if (req.codeVerifier === undefined) return REFUSE;
    const computed = g.codeChallengeMethod === 'S256' ? req.s256?.(req.codeVerifier) : req.codeVerifier;
    if (computed !== g.codeChallenge) return REFUSE;
  } else if (client.type === 'public') return REFUSE;
  const open = authed.decision.size > 1 || code.earlier === 'refused' || (g.codeChallenge === undefined && req.codeVerifier !== undefined);
  return open ? EITHER : GRANT;
}

/**
 * Userinfo: "The userinfo endpoint requires the access token issued by the token endpoint as a
 * Bearer token" (Authentication 6): an access token, not a code, an ID token or a client token;
 * issued by this provider's token endpoint (the routes are per provider). Whether it still works
 * after its client or the configuration changed is not shown.
 */
export function userinfoDecision(world: OidcWorld, req: UserinfoRequest, upstream = false): Decision {
  const b = req.bearer;
  if (b.kind !== 'access-token' || b.provider !== req.provider) return REFUSE;
  const provider = providerOf(world, req.provider);
  const client = clientOf(world, b.clientId);
  if (provider && client && providerAllows(provider, client.clientId) && assignmentsAdmit(world, client, b.entityId)) return GRANT;
  // Strict profile only (an UPSTREAM rule): Vault and OpenBao look the client up, check the
  // entity against its assignments and the provider's allowed_client_ids at every userinfo call
  // (openbao/openbao internal/vault/identity/store_oidc_provider.go pathOIDCUserInfo).
  return upstream ? REFUSE : EITHER;
}

/**
 * The scopes whose claims a token of a grant may carry at a provider: "Claims present depend on the
 * scopes of the provider" (Userinfo response), and scopes_supported are the "Scopes that may be
 * requested on the provider". 'openid' names no template.
 */
export function claimScopes(provider: ModelProvider, requested: string[]): string[] {
  return requested.filter((s) => s !== 'openid' && provider.scopesSupported.includes(s));
}

/** Whether an answer is one the decision allows. */
export function allows(decision: Decision, outcome: Outcome): boolean {
  return decision.has(outcome);
}

/** The decision in words, for failure messages. */
export function describe(decision: Decision): string {
  return decision.size > 1 ? 'grant or refuse (the spec leaves it open)' : decision.has('grant') ? 'grant' : 'refuse';
}
