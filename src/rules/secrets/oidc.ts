import type { Rule } from '../types.ts';
import { SPEC_FILES } from '../spec-files.ts';

const file = SPEC_FILES.secrets;
const PROVIDER = 'Resources and their fields > OIDC provider';
const SCOPE = 'Resources and their fields > OIDC scope';
const CLIENT = 'Resources and their fields > OIDC client';
const ASSIGNMENT = 'Resources and their fields > OIDC assignment';
const ENDPOINTS = 'Endpoints > OIDC provider';
const AUTH = 'Authentication';
const FIXTURES = 'identityFixtures';
const OVERVIEW_SECTION = 'What the service does';

const rule = (r: Omit<Rule, 'system' | 'level'> & { level?: Rule['level'] }): Rule => ({ system: 'secrets', level: 'MUST', ...r });

/** Spec 000: the OIDC provider's configuration resources. */
export const secretsOidcConfigRules: Rule[] = [
  rule({
    id: 'secrets.oidc.provider-crud',
    title: 'A provider can be created, read back with allowed_client_ids, issuer and scopes_supported, listed and deleted',
    sources: [
      { file, section: ENDPOINTS, quote: 'GET | identity/oidc/provider/:name | none | {data:{allowed_client_ids, issuer, scopes_supported}}' },
      { file, section: ENDPOINTS, quote: 'LIST | identity/oidc/provider | none | {data:{keys:[names]}}' },
    ],
    notes: [
      'Vault reads back the effective issuer instead: the configured issuer or api_addr, followed by /v1/<namespace>identity/oidc/provider/<name>, never the empty string (hashicorp/vault vault/identity_store_oidc_provider.go pathOIDCReadProvider, getOIDCProvider; PR 13058, in 1.9.x on). Checked last, so the rest of the rule is judged first; listed in expectations/vault.json.',
      'Arrays compare as sets: Vault sorts and de-duplicates allowed_client_ids and scopes_supported (strutil.RemoveDuplicates in pathOIDCCreateUpdateProvider); the spec says nothing of order.',
    ],
  }),
  rule({
    id: 'secrets.oidc.provider-issuer-empty-when-unset',
    title: 'A provider created without an issuer reads back issuer as the empty string',
    sources: [{ file, section: PROVIDER, quote: 'Read returns the empty string when not set' }],
    notes: [
      'Vault reads back the effective issuer instead: the configured issuer or api_addr, followed by /v1/<namespace>identity/oidc/provider/<name>, never the empty string (hashicorp/vault vault/identity_store_oidc_provider.go pathOIDCReadProvider, getOIDCProvider; PR 13058, in 1.9.x on). Checked last, so the rest of the rule is judged first; listed in expectations/vault.json.',
    ],
  }),
  rule({
    id: 'secrets.oidc.provider-issuer-default',
    title: "Without an issuer, the discovered issuer is the service's address followed by /v1/<namespace>/identity/oidc/provider/<name>",
    sources: [{ file, section: PROVIDER, quote: "Default: a URL built from the service's api_addr, then path /v1/<namespace>/identity/oidc/provider/<name>." }],
  }),
  rule({
    id: 'secrets.oidc.provider-issuer-configured',
    title: 'A configured issuer (scheme://host:port) is read back and is the scheme, host and port of the iss claim',
    sources: [{ file, section: PROVIDER, quote: 'Scheme://host:port part of the iss claim.' }],
    notes: [
      'Vault reads back the effective issuer instead: the configured issuer or api_addr, followed by /v1/<namespace>identity/oidc/provider/<name>, never the empty string (hashicorp/vault vault/identity_store_oidc_provider.go pathOIDCReadProvider, getOIDCProvider; PR 13058, in 1.9.x on). Checked last, so the rest of the rule is judged first; listed in expectations/vault.json.',
    ],
  }),
  rule({
    id: 'secrets.oidc.provider-scopes-supported',
    title: "The configuration's scopes_supported lists the provider's scopes and openid",
    sources: [
      { file, section: ENDPOINTS, quote: 'scopes_supported (array of string; includes openid)' },
      { file, section: PROVIDER, quote: 'Scopes that may be requested on the provider' },
    ],
  }),
  rule({
    id: 'secrets.oidc.scope-crud',
    title: 'A scope can be created with template and description, read back, listed and deleted',
    sources: [
      { file, section: ENDPOINTS, quote: 'GET | identity/oidc/scope/:name | none | {data:{description, template}}' },
      { file, section: ENDPOINTS, quote: 'LIST | identity/oidc/scope | none | {data:{keys}}' },
    ],
  }),
  rule({
    id: 'secrets.oidc.scope-openid-reserved',
    title: "A scope named 'openid' cannot be created",
    sources: [{ file, section: SCOPE, quote: "The name 'openid' is reserved" }],
  }),
  rule({
    id: 'secrets.oidc.scope-template-forms',
    title: 'A scope template given as JSON text and the same template base64-encoded yield the same claims',
    capability: FIXTURES,
    sources: [{ file, section: SCOPE, quote: 'JSON template text; escaped JSON or base64-encoded JSON. May contain template expressions over identity data' }],
    notes: [
      'Each form is compared with what it renders for its own entity (name, group names, email), not with the other form: with entities made beforehand (static fixtures) the two setups get different entities. Vault decodes a base64 template when it is written (hashicorp/vault vault/identity_store_oidc_provider.go pathOIDCCreateUpdateScope).',
    ],
  }),
  rule({
    id: 'secrets.oidc.client-crud',
    title: 'A client can be created, read back with every documented field, listed and deleted',
    sources: [
      { file, section: ENDPOINTS, quote: 'GET | identity/oidc/client/:name | none | {data:{access_token_ttl, assignments, client_id, client_secret, client_type, id_token_ttl, key, redirect_uris}}' },
      { file, section: ENDPOINTS, quote: 'LIST | identity/oidc/client | none | {data:{keys}}' },
    ],
  }),
  rule({
    id: 'secrets.oidc.client-defaults',
    title: "A client created with no fields has key 'default', client_type 'confidential', TTLs of 24h (86400 s) and no assignments",
    sources: [
      { file, section: CLIENT, quote: "Default 'default' (built-in default key)." },
      { file, section: CLIENT, quote: "'confidential' (default) or 'public'." },
      { file, section: CLIENT, quote: "Default '24h'." },
      { file, section: 'Limits', quote: 'Default id_token_ttl and access_token_ttl | 24h' },
    ],
  }),
  rule({
    id: 'secrets.oidc.client-ttl-forms',
    title: 'TTLs given as integer seconds or as duration strings read back as integer seconds',
    sources: [
      { file, section: CLIENT, quote: 'integer seconds or duration string (e.g. 30m, 6h)' },
      { file, section: CLIENT, quote: 'TTLs are returned by read as integer seconds.' },
    ],
  }),
  rule({
    id: 'secrets.oidc.client-key-immutable',
    title: "A client's key cannot be changed after creation",
    sources: [{ file, section: CLIENT, quote: 'Names the key that signs the client\'s ID tokens. Cannot be changed after creation' }],
  }),
  rule({
    id: 'secrets.oidc.client-type-immutable',
    title: "A client's client_type cannot be changed after creation",
    sources: [{ file, section: CLIENT, quote: "'confidential' (default) or 'public'. Cannot be changed after creation" }],
  }),
  rule({
    id: 'secrets.oidc.client-credentials',
    title: 'A client gets a client_id that does not change on update; a confidential client gets a client_secret, a public one none',
    sources: [
      { file, section: CLIENT, quote: 'client_id | string | read only | Returned on read' },
      { file, section: CLIENT, quote: 'Returned on read for confidential clients; public clients have none' },
    ],
  }),
  rule({
    id: 'secrets.oidc.assignment-crud',
    title: 'An assignment can be created with entity_ids and group_ids, read back, listed and deleted',
    sources: [
      { file, section: ENDPOINTS, quote: 'GET | identity/oidc/assignment/:name | none | {data:{entity_ids, group_ids}}' },
      { file, section: ASSIGNMENT, quote: 'entity_ids | array of string | no' },
    ],
  }),
  rule({
    id: 'secrets.oidc.assignment-allow-all',
    title: "The built-in assignment 'allow_all' exists and lets any entity authenticate through a client that names it",
    capability: FIXTURES,
    sources: [{ file, section: CLIENT, quote: "The built-in assignment 'allow_all' allows all entities" }],
  }),
  rule({
    id: 'secrets.oidc.client-no-assignments-denies',
    title: 'A client with no assignments lets no entity authenticate',
    capability: FIXTURES,
    sources: [{ file, section: CLIENT, quote: 'By default no entities are allowed.' }],
  }),
  rule({
    id: 'secrets.oidc.allowed-client-ids',
    title: "A provider's allowed_client_ids decides which clients may use it: empty allows none, '*' allows all, otherwise exactly the listed ones (an entry that is the client_id shortened at either end, extended, with one character changed or in the other letter case admits nothing)",
    capability: FIXTURES,
    sources: [{ file, section: PROVIDER, quote: "Empty list: no client allowed. Value '*': all clients allowed" }],
  }),
  rule({
    id: 'secrets.oidc.assignments-decide',
    title: "For generated entities, groups and assignments, an entity may authenticate through a client exactly when one of the client's assignments names it or one of its groups",
    capability: FIXTURES,
    sources: [{ file, section: CLIENT, quote: 'Names of assignments limiting which entities and groups may authenticate through the client.' }],
    notes: [
      'Group ids always come from the groups the fixtures report for the entities, so static fixtures (entities made beforehand) exercise group matching too instead of never matching made-up names.',
      'The granting assignment sits in any of up to three positions, the others naming another entity: an implementation that reads only the first assignment fails. Vault checks every assignment (hashicorp/vault vault/identity_store_oidc_provider.go entityHasAssignment).',
    ],
  }),
  rule({
    id: 'secrets.oidc.config-requires-token',
    title: 'For every configuration route (provider, scope, client, assignment; read, list, write, delete), a request without a client token or with a token the service did not issue is refused, reveals nothing and changes nothing',
    sources: [
      { file, section: 'What the service does', quote: 'Once the service is unsealed, nearly every operation requires a client token (see Authentication).' },
      { file, section: 'Errors', quote: '403 | Forbidden: wrong authentication' },
    ],
    notes: [
      'Refused means 403 or 404: the spec lets a path the caller may not see answer 404. The names exist beforehand, so a 404 cannot come from "not found" alone being mistaken for a refusal of a missing thing; the read with the real token afterwards shows nothing changed. Vault answers 403 permission denied (vault/request_handling.go CheckToken).',
      'The made-up tokens are never shaped like batch tokens ("b." or "hvb." first), which Vault and OpenBao decode before any route and answer 500 when the body is no base64url: that shape is secrets.auth.bad-token-refused\'s to judge, where it is sent on purpose and listed; met here by chance, it made the verdict depend on the seed (OpenBao 2.6.2, seed 1210883866).',
    ],
  }),
  rule({
    id: 'secrets.oidc.config-requires-policy',
    title: "An entity's client token, whose policies grant the authorize endpoint and nothing of the configuration, is refused on every configuration route (read, list, write, delete) and can read no client secret",
    capability: FIXTURES,
    sources: [
      { file, section: AUTH, quote: 'Permission policies decide access per path; a path the caller may not see can answer 404.' },
      { file, section: 'Errors', quote: '404 | Invalid path, or no permission to see it (used to avoid leaking state)' },
    ],
    notes: [
      "The entity tokens the fixtures make carry only the 'default' policy, which in Vault grants identity/oidc/provider/+/authorize and nothing else under identity/oidc (hashicorp/vault vault/policy_store.go defaultPolicy), so that authorize works and the configuration is out of reach. Entities listed in a profile (made beforehand) may carry any policy, so with them the rule is SKIP.",
    ],
  }),
];

/** Spec 000: discovery, key set, authorize, token, userinfo. */
export const secretsOidcFlowRules: Rule[] = [
  rule({
    id: 'secrets.oidc.discovery-fields',
    title: 'The OpenID configuration has every documented field with the documented values',
    sources: [
      {
        file,
        section: ENDPOINTS,
        quote:
          'OpenID configuration fields: issuer (string), jwks_uri, authorization_endpoint (an address of the interface\'s authorize page for the provider), token_endpoint, userinfo_endpoint (strings), request_parameter_supported (boolean, false), request_uri_parameter_supported (boolean, false), id_token_signing_alg_values_supported (RS256, RS384, RS512, ES256, ES384, ES512, EdDSA), response_types_supported (code), scopes_supported (array of string; includes openid), subject_types_supported (public), grant_types_supported (authorization_code), token_endpoint_auth_methods_supported (client_secret_basic, client_secret_post, none).',
      },
    ],
  }),
  rule({
    id: 'secrets.oidc.discovery-no-token',
    title: 'The well-known configuration and the key set answer without a token',
    sources: [{ file, section: ENDPOINTS, quote: 'The well-known configuration and the key set need no token in their examples.' }],
  }),
  rule({
    id: 'secrets.oidc.jwks-fields',
    title: "The key set's keys have use 'sig', kty, kid, alg, n and e (base64url)",
    sources: [{ file, section: 'Resources and their fields > Public key set (JWKS)', quote: "Object with 'keys': array of objects with use (string, 'sig'), kty (string), kid (string), alg (string), n (string, base64url), e (string, base64url)." }],
    notes: [
      "A client the provider allows is made first: the spec does not say which keys the set holds, Vault publishes those of the clients the provider allows and creates the default key's material with the first client (hashicorp/vault vault/identity_store_oidc_provider.go pathOIDCReadProviderPublicKeys, keyIDsReferencedByTargetClientIDs, lazyGenerateDefaultKey), so a fresh provider's set is {\"keys\":[]}.",
    ],
  }),
  rule({
    id: 'secrets.oidc.authorize-code-state',
    title: 'Authorize by GET and by POST answers {code, state} with the request state echoed',
    capability: FIXTURES,
    sources: [
      { file, section: ENDPOINTS, quote: 'GET or POST | identity/oidc/provider/:name/authorize | parameters below | {code, state}' },
      { file, section: 'Resources and their fields > Authorization code response', quote: 'state | string (echo of request state)' },
    ],
  }),
  rule({
    id: 'secrets.oidc.authorize-scope-openid',
    title: "Authorize with a scope that does not include 'openid' is refused",
    capability: FIXTURES,
    sources: [{ file, section: ENDPOINTS, quote: "Space-delimited; must include 'openid'" }],
  }),
  rule({
    id: 'secrets.oidc.authorize-response-type-code',
    title: "Authorize with a response_type other than 'code' is refused",
    capability: FIXTURES,
    sources: [{ file, section: ENDPOINTS, quote: "response_type | string | yes | Only 'code'" }],
  }),
  rule({
    id: 'secrets.oidc.authorize-unknown-client',
    title: 'Authorize with a client_id the service did not issue is refused',
    capability: FIXTURES,
    sources: [{ file, section: ENDPOINTS, quote: 'client_id | string | yes' }],
  }),
  rule({
    id: 'secrets.oidc.redirect-uri-exact',
    title: 'For generated near misses of a registered redirect URI (trailing slash, case, query, port, path, fragment), of a loopback one too, authorize is refused, and so is the token call for a near miss of the URI the code was issued for',
    capability: FIXTURES,
    sources: [{ file, section: CLIENT, quote: 'One value must exactly equal the redirect_uri of each authentication request' }],
    notes: [
      'Also near misses of loopback URIs (http://127.0.0.1:<port>/..., http://localhost:<port>/..., http://[::1]:<port>/..., one client holding the three), with a character before the scheme and a bracket inside the host name among them, port ones last and all asked before judging them, and near misses at the token endpoint for a code issued for the registered URI. A target that forgives the port for some loopback hosts and not others fails with a message of its own: the spec refuses all, and Vault forgives all three alike.',
      'Vault ignores the port of a loopback redirect URI (localhost, 127.0.0.1, ::1; RFC 8252 section 7.3) where the spec says exactly equal (hashicorp/vault vault/identity_store_oidc_provider_util.go validRedirect): listed in expectations/vault.json. At the token endpoint Vault compares exactly (vault/identity_store_oidc_provider.go pathOIDCToken).',
    ],
  }),
  rule({
    id: 'secrets.oidc.token-redirect-uri-repeat',
    title: 'The token call must repeat the redirect_uri used at authorize; another registered one is refused',
    capability: FIXTURES,
    sources: [{ file, section: ENDPOINTS, quote: 'redirect_uri | string | yes | Must equal the one used when the code was generated' }],
  }),
  rule({
    id: 'secrets.oidc.token-response',
    title: "The token response has access_token, id_token, token_type 'Bearer' and expires_in in integer seconds: for generated TTLs, the client's access_token_ttl (not its id_token_ttl)",
    capability: FIXTURES,
    sources: [
      { file, section: 'Resources and their fields > Token response', quote: "token_type | string | 'Bearer'" },
      { file, section: 'Resources and their fields > Token response', quote: 'expires_in | integer | seconds' },
      { file, section: CLIENT, quote: "access_token_ttl | integer seconds or duration string | no | Default '24h'" },
    ],
    notes: [
      "expires_in is the access token's lifetime (RFC 6749 section 5.1), which the client's access_token_ttl sets: Vault answers exactly access_token_ttl (hashicorp/vault vault/identity_store_oidc_provider.go pathOIDCToken); up to 10 s less is allowed for the time the exchange takes.",
    ],
  }),
  rule({
    id: 'secrets.oidc.access-token-expires',
    title: "An access token lives the client's access_token_ttl: userinfo takes it at once and refuses it once that many seconds (expires_in) have passed",
    capability: FIXTURES,
    sources: [
      { file, section: CLIENT, quote: "access_token_ttl | integer seconds or duration string | no | Default '24h'" },
      { file, section: 'Resources and their fields > Token response', quote: 'expires_in | integer | seconds' },
    ],
    notes: [
      "expires_in is the access token's lifetime (RFC 6749 section 5.1). Vault's access token is a batch token whose TTL is access_token_ttl, and a batch token past its TTL is no token (hashicorp/vault vault/identity_store_oidc_provider.go pathOIDCToken; vault/token_store.go lookupBatchTokenInternal, read in the OpenBao fork at internal/vault/token_store.go). A 2 s TTL is used and the refusal checked 4 s later, leaving a second for clocks that count whole seconds.",
    ],
  }),
  rule({
    id: 'secrets.oidc.id-token-verifies',
    title: "The ID token verifies against the key set: signature, iss equal to the discovered issuer, aud the client's client_id, exp after iat, a sub",
    capability: FIXTURES,
    sources: [
      { file, section: 'Resources and their fields > Token response', quote: 'id_token | string | JWT' },
      { file, section: PROVIDER, quote: 'If given it must point to a service instance reachable by clients for ID token validation.' },
    ],
  }),
  rule({
    id: 'secrets.oidc.client-key-signs',
    title: "The client's key signs its ID tokens: clients naming different keys get ID tokens with different kids, each in the provider's key set and verifying",
    capability: FIXTURES,
    sources: [{ file, section: CLIENT, quote: "Names the key that signs the client's ID tokens." }],
    notes: ["Needs a second signing key the profile names (oidcAltKey); the spec shows no way to make keys. Vault signs with the client's named key (hashicorp/vault vault/identity_store_oidc_provider.go pathOIDCToken, key.signPayload)."],
  }),
  rule({
    id: 'secrets.oidc.authorize-max-age',
    title: 'Authorize with a max_age shorter than the time since the entity authenticated is refused; with one longer than that it succeeds',
    capability: FIXTURES,
    sources: [{ file, section: ENDPOINTS, quote: 'max_age | integer | no | Allowed seconds since the user last actively authenticated' }],
    notes: [
      "The user last authenticated when its client token was made (the login): Vault compares the seconds since the token's creation time with max_age and refuses with max_age_violation when they exceed it (hashicorp/vault vault/identity_store_oidc_provider.go pathOIDCAuthorize). The accepting half needs a fresh entity (fixtures made on demand); with entities made beforehand only the refusing half is checked.",
    ],
  }),
  rule({
    id: 'secrets.oidc.id-token-nonce',
    title: 'The nonce of the authorize request comes back in the ID token nonce claim',
    capability: FIXTURES,
    sources: [{ file, section: ENDPOINTS, quote: 'Returned in the ID token nonce claim; recommended' }],
  }),
  rule({
    id: 'secrets.oidc.id-token-ttl',
    title: "The ID token's lifetime (exp - iat) is the client's id_token_ttl",
    capability: FIXTURES,
    sources: [{ file, section: CLIENT, quote: 'id_token_ttl | integer seconds or duration string (e.g. 30m, 6h)' }],
  }),
  rule({
    id: 'secrets.oidc.code-single-use',
    title: 'An authorization code works once; a second exchange is refused',
    capability: FIXTURES,
    sources: [{ file, section: ENDPOINTS, quote: 'code | string | yes | Code from authorize' }],
  }),
  rule({
    id: 'secrets.oidc.client-secret-basic',
    title: 'A confidential client authenticates with client_secret_basic; a wrong secret is refused',
    capability: FIXTURES,
    sources: [
      { file, section: ENDPOINTS, quote: "Header 'Authorization: Basic <base64(client_id:client_secret)>' is required only for confidential clients using client_secret_basic." },
      { file, section: AUTH, quote: 'The token endpoint authenticates the OIDC client (client_secret_basic, client_secret_post or none).' },
    ],
  }),
  rule({
    id: 'secrets.oidc.token-client-auth-required',
    title: 'For generated ways of not authenticating (no secret, an empty secret, a wrong secret, another client\'s secret, by form or Basic header), the token endpoint refuses a confidential client; a public client sending no client_id is refused too',
    capability: FIXTURES,
    sources: [
      { file, section: AUTH, quote: 'The token endpoint authenticates the OIDC client (client_secret_basic, client_secret_post or none).' },
      { file, section: CLIENT, quote: 'confidential clients can keep credentials secret, have a client secret, authenticate with client_secret_basic or client_secret_post' },
      { file, section: ENDPOINTS, quote: 'client_id | string | conditional | Required for public clients and for confidential clients using client_secret_post' },
    ],
    notes: [
      "Method 'none' is for public clients only: a confidential client authenticates with its secret (hashicorp/vault vault/identity_store_oidc_provider.go pathOIDCToken compares the presented secret with the client's in constant time, an absent one included).",
      'Each attempt uses a fresh code, since a refused exchange may burn the code it names; a code that a refused attempt did not burn must still work afterwards for its own client, so the refusal is about the client and not the code.',
    ],
  }),
  rule({
    id: 'secrets.oidc.client-secret-post',
    title: 'A confidential client authenticates with client_id and client_secret in the form, without a Basic header; a wrong secret is refused',
    capability: FIXTURES,
    sources: [{ file, section: ENDPOINTS, quote: 'client_secret | string | conditional | Required for confidential clients using client_secret_post' }],
  }),
  rule({
    id: 'secrets.oidc.public-client-none',
    title: 'A public client exchanges its code with method none: client_id and code_verifier, no secret',
    capability: FIXTURES,
    sources: [{ file, section: CLIENT, quote: "Public clients have no secret, authenticate with method 'none', and must use PKCE." }],
  }),
  rule({
    id: 'secrets.oidc.grant-type',
    title: "The token endpoint refuses a grant_type other than 'authorization_code'",
    capability: FIXTURES,
    sources: [{ file, section: ENDPOINTS, quote: "grant_type | string | yes | Only 'authorization_code'" }],
  }),
  rule({
    id: 'secrets.oidc.pkce-verifier',
    title: 'For generated verifiers (43 to 128 unreserved characters) with plain and S256, the right verifier succeeds and any other fails',
    capability: FIXTURES,
    sources: [
      { file, section: ENDPOINTS, quote: "code_challenge_method | string | no | 'plain' (default) or 'S256'" },
      { file, section: ENDPOINTS, quote: 'code_verifier | string | conditional | Required for codes granted with PKCE and for public clients' },
    ],
  }),
  rule({
    id: 'secrets.oidc.pkce-public-requires-challenge',
    title: 'Authorize for a public client without a code_challenge is refused',
    capability: FIXTURES,
    sources: [{ file, section: ENDPOINTS, quote: 'PKCE challenge; optional for confidential, required for public clients' }],
  }),
  rule({
    id: 'secrets.oidc.pkce-verifier-required',
    title: 'A code granted with PKCE is refused at the token endpoint without a code_verifier',
    capability: FIXTURES,
    sources: [{ file, section: ENDPOINTS, quote: 'Required for codes granted with PKCE and for public clients' }],
  }),
  rule({
    id: 'secrets.oidc.pkce-default-plain',
    title: 'Without code_challenge_method the challenge is plain: the verifier equal to the challenge succeeds',
    capability: FIXTURES,
    sources: [{ file, section: ENDPOINTS, quote: "'plain' (default) or 'S256'" }],
  }),
  rule({
    id: 'secrets.oidc.userinfo-sub',
    title: "Userinfo with the access token as a Bearer token returns claims whose sub is the ID token's sub",
    capability: FIXTURES,
    sources: [
      { file, section: AUTH, quote: 'The userinfo endpoint requires the access token issued by the token endpoint as a Bearer token.' },
      { file, section: 'Resources and their fields > Userinfo response (claims)', quote: 'sub | string' },
    ],
  }),
  rule({
    id: 'secrets.oidc.userinfo-claims-by-scope',
    title: "Userinfo carries the claims of the requested scopes' templates rendered for the entity (username, groups, contact), and none of scopes not requested",
    capability: FIXTURES,
    sources: [{ file, section: 'Resources and their fields > Userinfo response (claims)', quote: 'Claims present depend on the scopes of the provider.' }],
    notes: [
      'An entity in no group may get groups: null: the spec leaves absent vs null open, and Vault renders an empty group list as a Go nil slice, null (hashicorp/vault sdk/helper/identitytpl PopulateString, jsonTemplateHandler).',
    ],
  }),
  rule({
    id: 'secrets.oidc.userinfo-other-provider',
    title: "An access token issued by one provider's token endpoint is refused at another provider's userinfo, even one that allows the same client",
    capability: FIXTURES,
    sources: [{ file, section: AUTH, quote: 'The userinfo endpoint requires the access token issued by the token endpoint as a Bearer token.' }],
    notes: ["The token endpoint is the provider's own (identity/oidc/provider/:name/token). Vault's access token carries an inline policy for the issuing provider's userinfo path alone (hashicorp/vault vault/identity_store_oidc_provider.go pathOIDCToken), so another provider's answers 403."],
  }),
  rule({
    id: 'secrets.oidc.scope-not-supported-no-claims',
    title: "A scope that exists but is not among the provider's scopes_supported, when requested, is refused or gives no claims (in the ID token or userinfo)",
    capability: FIXTURES,
    sources: [{ file, section: PROVIDER, quote: 'Scopes that may be requested on the provider' }],
    notes: ['Refused or ignored: the spec does not say which. Vault ignores it: pathOIDCAuthorize keeps only the requested scopes the provider supports (hashicorp/vault vault/identity_store_oidc_provider.go).'],
  }),
  rule({
    id: 'secrets.oidc.userinfo-methods',
    title: 'Userinfo answers POST and GET alike',
    capability: FIXTURES,
    sources: [{ file, section: ENDPOINTS, quote: 'POST (an example request uses GET) | identity/oidc/provider/:name/userinfo' }],
  }),
  rule({
    id: 'secrets.oidc.userinfo-requires-access-token',
    title: 'Userinfo without the access token, or with a client token instead of it, returns no claims',
    capability: FIXTURES,
    sources: [{ file, section: AUTH, quote: 'The userinfo endpoint requires the access token issued by the token endpoint as a Bearer token.' }],
  }),
  rule({
    id: 'secrets.oidc.access-authorize-neighbours',
    title: 'In a generated world of providers, confidential and public clients, entities, groups, assignments and scopes, authorize answers as the access model says for each granted request and its neighbour that differs in one attribute: another provider, client, entity, a near miss of the redirect URI (a query added, a trailing slash, port, case, path), another client\'s redirect URI, a scope the provider does not support, no openid, another response_type, no PKCE',
    capability: FIXTURES,
    sources: [
      { file, section: PROVIDER, quote: "Empty list: no client allowed. Value '*': all clients allowed" },
      { file, section: PROVIDER, quote: 'Scopes that may be requested on the provider' },
      { file, section: CLIENT, quote: 'One value must exactly equal the redirect_uri of each authentication request' },
      { file, section: CLIENT, quote: "Names of assignments limiting which entities and groups may authenticate through the client. By default no entities are allowed. The built-in assignment 'allow_all' allows all entities" },
      { file, section: ENDPOINTS, quote: "Space-delimited; must include 'openid'" },
      { file, section: ENDPOINTS, quote: 'PKCE challenge; optional for confidential, required for public clients' },
    ],
    notes: [
      'The model is suites/models/oidc-access.ts, written from the spec (test/model-oidc-access.test.ts). A scope the provider does not support may be refused or ignored: both pass (Vault drops it, hashicorp/vault vault/identity_store_oidc_provider.go pathOIDCAuthorize).',
      'No loopback redirect URIs are generated: how their port is matched is secrets.oidc.redirect-uri-exact\'s to judge (Vault ignores it, listed in expectations/vault.json).',
    ],
  }),
  rule({
    id: 'secrets.oidc.access-token-neighbours',
    title: "A code exchanged by its own client at its own provider with its redirect URI succeeds, and the same exchange is refused with one attribute changed: another client's credentials, another provider's token endpoint, every near miss of the secret over client_secret_basic and client_secret_post (letter case changed, cut short at either end, extended at either end, one character changed, a space added, empty, another client's secret), method none for a confidential client, Basic credentials of one client beside the form client_id or client_secret of another (both ways round), a near miss or another registered redirect URI, the access or ID token as the code, the code a second time, another PKCE verifier; the access token works at its provider's userinfo only, and the ID token and the code are no Bearer tokens there",
    capability: FIXTURES,
    sources: [
      { file, section: OVERVIEW_SECTION, quote: 'The OIDC provider feature issues ID tokens and access tokens through the authorization code flow.' },
      { file, section: AUTH, quote: 'The token endpoint authenticates the OIDC client (client_secret_basic, client_secret_post or none). The userinfo endpoint requires the access token issued by the token endpoint as a Bearer token.' },
      { file, section: ENDPOINTS, quote: 'code | string | yes | Code from authorize' },
      { file, section: ENDPOINTS, quote: 'redirect_uri | string | yes | Must equal the one used when the code was generated' },
      { file, section: CLIENT, quote: 'confidential clients can keep credentials secret, have a client secret, authenticate with client_secret_basic or client_secret_post' },
      { file, section: 'Resources and their fields > Userinfo response (claims)', quote: 'Claims present depend on the scopes of the provider.' },
    ],
    notes: [
      'Each side of a pair uses a fresh code: a refused exchange may burn the code it names (Vault deletes it once looked up, hashicorp/vault vault/identity_store_oidc_provider.go pathOIDCToken), which the spec does not rule on.',
      'The ID token of a code that also asked for a scope the provider does not support carries no claim of it (when authorize did not refuse it).',
      "Two methods in one request (Basic credentials and form client_id/client_secret): the spec does not say which a provider takes or whether it refuses (RFC 6749 2.3: a client MUST NOT use more than one); the model lets it refuse or take either, never a client no method authenticated. Vault and OpenBao take the Basic header and ignore the form (openbao/openbao internal/vault/identity/store_oidc_provider.go pathOIDCToken, basicAuth first).",
    ],
  }),
  rule({
    id: 'secrets.oidc.access-code-binding',
    title: "Codes made back to back (and again after each other) for authorize requests that differ in exactly one attribute (the client, the entity, the scope list, the PKCE method) each exchange, by their own client with their own verifier, for tokens of their own request: the ID token's aud is that client, its claims those of its scopes, its subject its entity's",
    capability: FIXTURES,
    sources: [
      { file, section: OVERVIEW_SECTION, quote: 'The OIDC provider feature issues ID tokens and access tokens through the authorization code flow.' },
      { file, section: ENDPOINTS, quote: 'code | string | yes | Code from authorize' },
      { file, section: ENDPOINTS, quote: "code_challenge_method | string | no | 'plain' (default) or 'S256'" },
      { file, section: 'Resources and their fields > Userinfo response (claims)', quote: 'Claims present depend on the scopes of the provider.' },
    ],
    notes: [
      "A provider that keeps what many codes share once (the reference does, to keep load cheap) must not hand one code's client, entity, scopes or PKCE method to the next: each pair is asked in the order a, b, a, b, b, a, then sent at once in three rounds, so that its codes still arrive back to back while other rules use the provider beside it. aud as the client's client_id is what secrets.oidc.id-token-verifies asks of every ID token; the subject is compared between codes (one per entity, different between entities), not with a value the spec does not give.",
    ],
  }),
  rule({
    id: 'secrets.oidc.access-code-lifecycle',
    title: "For generated sequences of authorize, token exchange (by the code's client, another client, at another provider), userinfo, and changes of a client's assignments, a client's deletion and a provider's allowed_client_ids, every answer is the access model's: a code works once, and not after its entity was unassigned, its client deleted or its provider stopped allowing the client",
    capability: FIXTURES,
    sources: [
      { file, section: OVERVIEW_SECTION, quote: 'The OIDC provider feature issues ID tokens and access tokens through the authorization code flow.' },
      { file, section: PROVIDER, quote: "Empty list: no client allowed. Value '*': all clients allowed" },
      { file, section: CLIENT, quote: 'Names of assignments limiting which entities and groups may authenticate through the client.' },
      { file, section: AUTH, quote: 'The token endpoint authenticates the OIDC client (client_secret_basic, client_secret_post or none).' },
    ],
    notes: [
      'Model-based (fc.commands, fc.asyncModelRun): each property run builds its own world. The model lets a code named by a refused exchange be spent or not, and an access token keep working or not after its client or provider changed: the spec does not say. Vault re-checks the provider, the client and the assignments at the token endpoint (hashicorp/vault vault/identity_store_oidc_provider.go pathOIDCToken), as the model requires.',
    ],
  }),
];

const notes = 'shared/notes/upstream-behaviors.md § 1b';
const upstream = (source: string, note: string) => ({ product: 'Vault', source: `hashicorp/vault ${source}`, note: `${note} (${notes})` });

/** What the spec leaves "not shown" for the OIDC endpoints and the upstream product does; strict profile only. */
export const secretsOidcUpstreamRules: Rule[] = [
  rule({
    id: 'secrets.upstream.oidc-authorize-errors',
    level: 'UPSTREAM',
    capability: FIXTURES,
    title: 'Authorize errors are 400 with {error, error_description} and the OAuth codes (invalid_redirect_uri, invalid_request, unsupported_response_type, invalid_client_id)',
    sources: [{ file, section: 'Errors', quote: 'Which condition of each individual OIDC or login operation yields which status: not shown.' }],
    upstream: upstream('vault/identity_store_oidc_provider.go', 'authorize errors: 400 JSON {error, error_description, state}'),
  }),
  rule({
    id: 'secrets.upstream.oidc-token-invalid-client',
    level: 'UPSTREAM',
    capability: FIXTURES,
    title: 'A wrong client secret at the token endpoint answers 401 invalid_client with WWW-Authenticate',
    sources: [{ file, section: 'Errors', quote: 'Which condition of each individual OIDC or login operation yields which status: not shown.' }],
    upstream: upstream('vault/identity_store_oidc_provider.go', 'invalid_client → 401 + WWW-Authenticate: Basic'),
  }),
  rule({
    id: 'secrets.upstream.oidc-token-invalid-grant',
    level: 'UPSTREAM',
    capability: FIXTURES,
    title: 'A reused authorization code answers 400 invalid_grant',
    sources: [{ file, section: 'Errors', quote: 'Which condition of each individual OIDC or login operation yields which status: not shown.' }],
    upstream: upstream('vault/identity_store_oidc_provider.go', 'code unknown/expired/reused → invalid_grant'),
  }),
  rule({
    id: 'secrets.upstream.oidc-token-no-store',
    level: 'UPSTREAM',
    capability: FIXTURES,
    title: 'Token responses carry Cache-Control: no-store and Pragma: no-cache',
    sources: [{ file, section: ENDPOINTS, quote: 'POST | identity/oidc/provider/:name/token | form parameters below | token response' }],
    upstream: upstream('vault/identity_store_oidc_provider.go', 'token endpoint headers always Cache-Control: no-store, Pragma: no-cache'),
  }),
  rule({
    id: 'secrets.upstream.oidc-auth-time',
    level: 'UPSTREAM',
    capability: FIXTURES,
    title: 'An ID token carries auth_time (the login time, whole seconds, not after iat) exactly when its authorize request gave max_age; codes made one after the other with and without max_age each keep their own',
    sources: [{ file, section: ENDPOINTS, quote: 'max_age | integer | no | Allowed seconds since the user last actively authenticated' }],
    upstream: upstream(
      'vault/identity_store_oidc_provider.go',
      "pathOIDCAuthorize sets the code's authTime to the client token's creation time only when max_age is given; pathOIDCToken adds the auth_time claim when authTime is not zero (openbao/openbao internal/vault/identity/store_oidc_provider.go, same code)",
    ),
    notes: [
      'The spec names max_age and shows no claim. The codes alternate without, with, without, with max_age for one client, entity and scope list, so a provider that keeps what codes share once per grant must still tell them apart by auth time.',
    ],
  }),
  rule({
    id: 'secrets.upstream.oidc-userinfo-invalid-token',
    level: 'UPSTREAM',
    capability: FIXTURES,
    title: 'Userinfo with the access token outside the Authorization: Bearer header answers 401 invalid_token',
    sources: [{ file, section: AUTH, quote: 'The userinfo endpoint requires the access token issued by the token endpoint as a Bearer token.' }],
    upstream: upstream('vault/identity_store_oidc_provider.go', 'token not sent via Authorization: Bearer → 401 invalid_token'),
  }),
  rule({
    id: 'secrets.upstream.oidc-access-token-reach',
    level: 'UPSTREAM',
    capability: FIXTURES,
    title: "An access token reaches its provider's userinfo and nothing else: as a client token it is refused (403) a read, a list (either way), a write and a delete of a secret, the OIDC configuration routes and its own lookup-self, and the secret is left as it was",
    sources: [{ file, section: AUTH, quote: 'The userinfo endpoint requires the access token issued by the token endpoint as a Bearer token.' }],
    upstream: {
      product: 'Vault, OpenBao',
      source: 'hashicorp/vault vault/identity_store_oidc_provider.go pathOIDCToken; openbao/openbao internal/vault/identity/store_oidc_provider.go pathOIDCToken',
      note: 'the access token is a batch token with no identity policies and one inline policy, read and update on identity/oidc/provider/<name>/userinfo; every other path is permission denied (403). Asked of OpenBao 2.6.2',
    },
    notes: [
      'The spec names the access token only as userinfo\'s bearer token; what else it may reach is not shown, hence UPSTREAM. Held-out audit 47b, miss 07: an access token refused only for reads and writes still listed and deleted secrets.',
    ],
  }),
  rule({
    id: 'secrets.upstream.oidc-key-allowed-client-ids',
    level: 'UPSTREAM',
    capability: FIXTURES,
    title: "A signing key's allowed_client_ids decide which clients it signs for: the token call of a client whose key lists it (first or second), or '*', succeeds; one whose key lists nothing, or only an entry near its client_id (shortened at either end, extended, one character changed, the other letter case), is refused with a 4xx",
    sources: [{ file, section: CLIENT, quote: "Names the key that signs the client's ID tokens. Cannot be changed after creation" }],
    upstream: {
      product: 'Vault, OpenBao',
      source: 'hashicorp/vault vault/identity_store_oidc_provider.go pathOIDCToken ("client is not authorized to use the key"); openbao/openbao internal/vault/identity/store_oidc_provider.go pathOIDCToken',
      note: 'the key named by the client must list the client_id or "*" (strutil.StrListContains: exact), else 401 invalid_client. Asked of OpenBao 2.6.2',
    },
    notes: [
      'The spec does not show how keys are made, nor their allowed_client_ids: the rule makes one through identity/oidc/key, or where that route is not served through the profile\'s control interface (the embedded reference\'s spec dialect: PUT /v1/control/secrets/oidc-keys/<name>), and SKIPs where it has neither. Held-out audit 47b, miss 04: a key that matched client_ids by prefix.',
    ],
  }),
  rule({
    id: 'secrets.upstream.oidc-userinfo-rechecks-access',
    level: 'UPSTREAM',
    capability: FIXTURES,
    title: "An access token stops working at userinfo (403 access_denied) as soon as its provider's allowed_client_ids no longer allow its client (emptied, or naming another client), its client's assignments no longer admit its entity, or its client is deleted, and works again when the provider or the assignments allow it again; the tokens of the other clients and providers keep working",
    sources: [
      { file, section: AUTH, quote: 'The userinfo endpoint requires the access token issued by the token endpoint as a Bearer token.' },
      { file, section: PROVIDER, quote: "Empty list: no client allowed. Value '*': all clients allowed" },
      { file, section: CLIENT, quote: 'Names of assignments limiting which entities and groups may authenticate through the client.' },
    ],
    upstream: {
      product: 'Vault',
      source: 'hashicorp/vault vault/identity_store_oidc_provider.go pathOIDCUserInfo; openbao/openbao internal/vault/identity/store_oidc_provider.go pathOIDCUserInfo',
      note: "userinfo looks the token's client up (client not found → access_denied), checks the entity against the client's assignments and the client against the provider's allowed_client_ids at every call, each refusal 403 access_denied (asked of OpenBao 2.6.2)",
    },
    notes: [
      "The spec does not say whether an access token keeps working after its client or its provider changed (secrets.oidc.access-code-lifecycle lets it go either way); this rule asks the upstream answer from a world of three tokens (clients A and P at provider A, client B at provider B), each change followed by a userinfo call with every token, so each change has the tokens it must not touch beside the one it must.",
    ],
  }),
];
