import type { Neighbour, Statement, StatementMap } from './types.ts';

const PROVIDER = 'Resources and their fields > OIDC provider';
const SCOPE = 'Resources and their fields > OIDC scope';
const CLIENT = 'Resources and their fields > OIDC client';
const ASSIGNMENT = 'Resources and their fields > OIDC assignment';
const CODE = 'Resources and their fields > Authorization code response';
const TOKEN = 'Resources and their fields > Token response';
const USERINFO = 'Resources and their fields > Userinfo response (claims)';
const JWKS = 'Resources and their fields > Public key set (JWKS)';
const ENDPOINTS = 'Endpoints > OIDC provider';
const AUTH = 'Authentication';
const OVERVIEW = 'What the service does';

const s = (id: string, section: string, quote: string, rules: string[], claim?: string): Statement => ({ id: `secrets.oidc.${id}`, section, quote, rules, ...(claim ? { claim } : {}) });
const untestable = (id: string, section: string, quote: string, why: string, claim?: string): Statement => ({ id: `secrets.oidc.${id}`, section, quote, untestable: why, ...(claim ? { claim } : {}) });
const r = (...names: string[]) => names.map((n) => `secrets.oidc.${n}`);

/** The testable statements of the OIDC provider (spec 000), each with the rules that assert it or why none can. */
const ownStatements: StatementMap = {
  system: 'secrets',
  part: 'OIDC provider (spec 000)',
  statements: [
    // What the service does, and Authentication: the OIDC sentences.
    s('issues-tokens-by-code-flow', OVERVIEW, 'The OIDC provider feature issues ID tokens and access tokens through the authorization code flow.', r('token-response', 'id-token-verifies', 'userinfo-sub')),
    s('configured-by-four-resources', OVERVIEW, 'It is configured with providers, scopes, clients and assignments.', r('provider-crud', 'scope-crud', 'client-crud', 'assignment-crud')),
    { ...s('config-needs-token', OVERVIEW, 'Once the service is unsealed, nearly every operation requires a client token (see Authentication).', r('config-requires-token'), 'Every OIDC configuration route (provider, scope, client, assignment: read, list, write, delete) refuses a request without a client token or with one the service did not issue, and leaks or changes nothing'), neighbours: [
      { scope: 'no token beside the run token on the same route', rule: 'secrets.oidc.config-requires-token', example: 'every kind and verb without a token: refused; the set the run token made is unchanged' },
      { scope: 'a token one character beyond the issued one', rule: 'secrets.oidc.config-requires-token', example: 'the run token with a character added, and generated forged tokens: refused, no secret shown' },
    ], wrongWays: [
      { kind: 'route-or-verb-unchecked', how: 'The configuration routes answer without a client token.', rule: 'secrets.oidc.config-requires-token', example: 'every verb on provider, scope, client and assignment without a token and with an unissued one: refused, nothing leaked or changed', fault: 'secrets.oidc-config-open' },
    ] },
    { ...s('config-needs-policy', AUTH, 'Permission policies decide access per path; a path the caller may not see can answer 404.', r('config-requires-policy'), "A token whose policies do not grant the OIDC configuration routes (an entity's token with the default policy) is refused there (403 or 404), and sees no client secret"), neighbours: [
      { scope: 'the same entity token at authorize beside the configuration routes', rule: 'secrets.oidc.config-requires-policy', example: "the entity's token gets a code at authorize through a client that admits it, and is refused on every configuration kind and verb, listed with and without the trailing slash and as GET ?list=true, and GET of the bare collection" },
      { scope: 'a login token alike but for one more policy, granting read and list under identity/oidc/', rule: 'secrets.upstream.oidc-config-policy', example: 'tokens of two cloud-identity roles alike but for token_policies [policy]: the token of default and the policy reads a scope and lists the scopes, the token of default alone is refused on each' },
    ], wrongWays: [
      { kind: 'read-vs-write', how: 'Any valid token may read and change the configuration, whatever its policies.', rule: 'secrets.oidc.config-requires-policy', example: "an entity's token with the default policy reads and writes every configuration route: refused, and no client secret shown", fault: 'secrets.oidc-config-any-token' },
    ] },
    s('authorize-with-client-token', AUTH, 'The OIDC authorize example sends a client token.', r('authorize-code-state', 'assignments-decide'), "Authorize takes the entity from the client token sent with it: an entity's token gets a code, and the entity it names decides the assignments"),
    { ...s('token-endpoint-authenticates-client', AUTH, 'The token endpoint authenticates the OIDC client (client_secret_basic, client_secret_post or none).', r('client-secret-basic', 'client-secret-post', 'public-client-none', 'token-client-auth-required')), wrongWays: [
      { kind: 'wrong-subject', how: "The secret is checked against any confidential client's, not the one the code was issued to.", rule: 'secrets.oidc.token-client-auth-required', example: "another client's valid secret with this client's code: refused", fault: 'secrets.oidc-secret-of-any-client' },
      { kind: 'route-or-verb-unchecked', how: 'A confidential client presenting no secret at all is let through.', rule: 'secrets.oidc.token-client-auth-required', example: 'client_id alone, no Basic header, no client_secret: refused', fault: 'secrets.oidc-confidential-secret-optional' },
    ] },
    { ...s('userinfo-needs-access-token', AUTH, 'The userinfo endpoint requires the access token issued by the token endpoint as a Bearer token.', r('userinfo-sub', 'userinfo-requires-access-token', 'userinfo-other-provider'), "Userinfo answers the provider's own access token as a Bearer token, and refuses no token, a client token, a made-up token and another provider's access token"), wrongWays: [
      { kind: 'wrong-subject', how: "An access token is taken at another provider's userinfo that allows the same client.", rule: 'secrets.oidc.userinfo-other-provider', example: "another provider allowing the client (by name and by '*'): the access token is refused", fault: 'secrets.oidc-access-token-any-provider' },
      { kind: 'route-or-verb-unchecked', how: 'Userinfo answers without checking the access token.', rule: 'secrets.oidc.userinfo-requires-access-token', example: 'no token, a client token and a made-up token: refused', fault: 'secrets.oidc-userinfo-no-auth' },
    ] },

    // Resources: OIDC provider.
    s('provider-name-from-url', PROVIDER, '| name | string | yes | Taken from the URL |', r('provider-crud'), 'A provider is created, read, listed and deleted under the name in its URL'),
    s('provider-issuer-origin', PROVIDER, 'Scheme://host:port part of the iss claim.', r('provider-issuer-configured')),
    s('provider-issuer-default', PROVIDER, "Default: a URL built from the service's api_addr, then path /v1/<namespace>/identity/oidc/provider/<name>.", r('provider-issuer-default')),
    untestable(
      'provider-issuer-reachable',
      PROVIDER,
      'If given it must point to a service instance reachable by clients for ID token validation.',
      "An obligation on the operator choosing the issuer, not on the service: the service cannot know which addresses its clients reach, and nothing it answers can show it checked (the iss claim's agreement with the configured issuer is secrets.oidc.provider-issuer-origin)",
    ),
    s('provider-issuer-read-empty', PROVIDER, 'Read returns the empty string when not set', r('provider-issuer-empty-when-unset')),
    { ...s('provider-allowed-client-ids', PROVIDER, "Empty list: no client allowed. Value '*': all clients allowed", r('allowed-client-ids')), wrongWays: [
      { kind: 'created-after', how: "'*' is expanded to the clients that exist when the provider is written.", rule: 'secrets.oidc.allowed-client-ids', example: "a provider with '*' written before its client: the client authenticates", fault: 'secrets.oidc-allowed-star-snapshot' },
      { kind: 'first-item-only', how: 'Only the first entry of allowed_client_ids is compared.', rule: 'secrets.oidc.allowed-client-ids', example: 'the client named second, after another client_id: allowed', fault: 'secrets.oidc-allowed-ids-first-only' },
      { kind: 'exact-vs-prefix', how: 'An entry admits every client_id it is a prefix of.', rule: 'secrets.oidc.allowed-client-ids', example: 'an entry that is the client_id less its last character: refused', fault: 'secrets.oidc-allowed-ids-prefix' },
      { kind: 'route-or-verb-unchecked', how: 'An empty list is read as no restriction.', rule: 'secrets.oidc.allowed-client-ids', example: 'an empty allowed_client_ids: refused', fault: 'secrets.oidc-allowed-clients-empty-means-all' },
    ] },
    s('provider-scopes-supported', PROVIDER, 'Scopes that may be requested on the provider', r('provider-scopes-supported', 'userinfo-claims-by-scope', 'scope-not-supported-no-claims'), "The provider's scopes are the ones its configuration advertises and whose claims a request yields; a scope it does not list gives no claims (or is refused)"),

    // Resources: OIDC scope.
    s('scope-name-from-url', SCOPE, '| name | string | yes | From URL.', r('scope-crud'), 'A scope is created, read, listed and deleted under the name in its URL'),
    s('scope-openid-reserved', SCOPE, "The name 'openid' is reserved", r('scope-openid-reserved')),
    s('scope-template', SCOPE, 'JSON template text; escaped JSON or base64-encoded JSON. May contain template expressions over identity data', r('scope-template-forms', 'userinfo-claims-by-scope')),
    s('scope-description', SCOPE, '| description | string | no | Free text |', r('scope-crud')),

    // Resources: OIDC client.
    s('client-name-from-url', CLIENT, '| name | string | yes | From URL |', r('client-crud'), 'A client is created, read, listed and deleted under the name in its URL'),
    s('client-key-default', CLIENT, "Default 'default' (built-in default key).", r('client-defaults')),
    s('client-key-signs', CLIENT, "Names the key that signs the client's ID tokens.", r('client-key-signs')),
    s('client-key-immutable', CLIENT, "Names the key that signs the client's ID tokens. Cannot be changed after creation", r('client-key-immutable'), "A client's key cannot be changed after creation"),
    s('client-redirect-uris-exact', CLIENT, 'One value must exactly equal the redirect_uri of each authentication request', r('redirect-uri-exact')),
    { ...s('client-assignments-limit', CLIENT, 'Names of assignments limiting which entities and groups may authenticate through the client.', r('assignments-decide')), wrongWays: [
      { kind: 'first-item-only', how: "Only the client's first assignment is consulted.", rule: 'secrets.oidc.assignments-decide', example: 'generated clients with several assignments, the admitting one in any position', fault: 'secrets.oidc-only-first-assignment' },
      { kind: 'wrong-subject', how: "Assignments match the entity's id only, never its groups.", rule: 'secrets.oidc.assignments-decide', example: "an entity admitted only through a group's membership", fault: 'secrets.oidc-assignment-groups-ignored' },
    ] },
    s('client-no-assignments', CLIENT, 'By default no entities are allowed.', r('client-no-assignments-denies', 'client-defaults')),
    s('client-allow-all', CLIENT, "The built-in assignment 'allow_all' allows all entities", r('assignment-allow-all')),
    s('client-type-default', CLIENT, "'confidential' (default) or 'public'.", r('client-defaults', 'client-credentials')),
    s('client-type-immutable', CLIENT, "'confidential' (default) or 'public'. Cannot be changed after creation", r('client-type-immutable'), "A client's client_type cannot be changed after creation"),
    s('client-id-token-ttl-forms', CLIENT, 'integer seconds or duration string (e.g. 30m, 6h)', r('client-ttl-forms', 'id-token-ttl'), "id_token_ttl is given as integer seconds or a duration string, and sets the ID token's lifetime"),
    s('client-id-token-ttl-default', CLIENT, "Default '24h'. Should be less than verification_ttl of the key", r('client-defaults'), 'id_token_ttl defaults to 24h'),
    untestable(
      'client-id-token-ttl-below-key',
      CLIENT,
      'Should be less than verification_ttl of the key',
      "The spec defines no key resource: a client can neither see nor set a key's verification_ttl, so it cannot pick an id_token_ttl above it (Vault refuses one, through its identity/oidc/key API, which the spec does not describe)",
    ),
    // The one OIDC row of Limits: mapped here, not in the core part.
    s('limits-default-ttls', 'Limits', '| Default id_token_ttl and access_token_ttl | 24h |', r('client-defaults')),
    s('client-access-token-ttl', CLIENT, "| access_token_ttl | integer seconds or duration string | no | Default '24h' |", r('client-defaults', 'client-ttl-forms', 'token-response', 'access-token-expires'), "access_token_ttl is given as integer seconds or a duration string, defaults to 24h, and is the access token's lifetime: expires_in says it, and userinfo refuses the token after it"),
    s('client-id-read', CLIENT, '| client_id | string | read only | Returned on read |', r('client-credentials')),
    s('client-secret-read', CLIENT, '| client_secret | string | read only | Returned on read for confidential clients; public clients have none |', r('client-credentials')),
    s('client-ttls-read-as-seconds', CLIENT, 'TTLs are returned by read as integer seconds.', r('client-ttl-forms', 'client-defaults')),
    s(
      'confidential-clients',
      CLIENT,
      'Client types: confidential clients can keep credentials secret, have a client secret, authenticate with client_secret_basic or client_secret_post, and may use PKCE.',
      r('client-credentials', 'client-secret-basic', 'client-secret-post', 'token-client-auth-required', 'pkce-verifier'),
      'A confidential client has a secret, authenticates with it by Basic header or form (and with nothing else), and may use PKCE',
    ),
    s('public-clients', CLIENT, "Public clients have no secret, authenticate with method 'none', and must use PKCE.", r('client-credentials', 'public-client-none', 'pkce-public-requires-challenge', 'pkce-verifier')),

    // Resources: OIDC assignment.
    s('assignment-name-from-url', ASSIGNMENT, '| name | string | yes (URL) |', r('assignment-crud'), 'An assignment is created, read, listed and deleted under the name in its URL'),
    s('assignment-entity-ids', ASSIGNMENT, '| entity_ids | array of string | no |', r('assignment-crud', 'assignments-decide'), 'entity_ids reads back as written, and the entities it names may authenticate through a client naming the assignment'),
    s('assignment-group-ids', ASSIGNMENT, '| group_ids | array of string | no |', r('assignment-crud', 'assignments-decide'), "group_ids reads back as written, and the groups' members may authenticate through a client naming the assignment"),

    // Resources: the flow's answers.
    s('code-response-code', CODE, '| code | string |', r('authorize-code-state'), 'Authorize answers a code (a string)'),
    s('code-response-state', CODE, '| state | string (echo of request state) |', r('authorize-code-state')),
    s('token-response-access-token', TOKEN, '| access_token | string | |', r('token-response', 'userinfo-sub'), 'The token response has an access_token, which userinfo accepts'),
    s('token-response-id-token', TOKEN, '| id_token | string | JWT |', r('id-token-verifies')),
    s('token-response-type', TOKEN, "| token_type | string | 'Bearer' |", r('token-response')),
    s('token-response-expires-in', TOKEN, '| expires_in | integer | seconds |', r('token-response', 'access-token-expires'), "expires_in is the access token's lifetime in integer seconds"),
    s('userinfo-sub', USERINFO, '| sub | string |', r('userinfo-sub')),
    s('userinfo-username', USERINFO, '| username | string |', r('userinfo-claims-by-scope')),
    s('userinfo-groups', USERINFO, '| groups | array of string |', r('userinfo-claims-by-scope')),
    s('userinfo-contact', USERINFO, '| contact | object with email (string) and phone_number (string) |', r('userinfo-claims-by-scope')),
    s('userinfo-claims-by-scope', USERINFO, 'Claims present depend on the scopes of the provider.', r('userinfo-claims-by-scope', 'scope-template-forms')),
    s(
      'jwks-fields',
      JWKS,
      "Object with 'keys': array of objects with use (string, 'sig'), kty (string), kid (string), alg (string), n (string, base64url), e (string, base64url).",
      r('jwks-fields', 'id-token-verifies'),
    ),

    // Endpoints: configuration routes.
    s('provider-write', ENDPOINTS, '| POST | identity/oidc/provider/:name | issuer, allowed_client_ids, scopes_supported (all optional) | see above |', r('provider-crud', 'provider-issuer-empty-when-unset'), 'A provider is created with issuer, allowed_client_ids and scopes_supported, each optional (an empty body too)'),
    s('provider-read', ENDPOINTS, '| GET | identity/oidc/provider/:name | none | {data:{allowed_client_ids, issuer, scopes_supported}} |', r('provider-crud')),
    s('provider-list', ENDPOINTS, '| LIST | identity/oidc/provider | none | {data:{keys:[names]}} |', r('provider-crud')),
    s('provider-delete', ENDPOINTS, '| DELETE | identity/oidc/provider/:name | none | see above |', r('provider-crud')),
    s('scope-write', ENDPOINTS, '| POST | identity/oidc/scope/:name | template, description | see above |', r('scope-crud')),
    s('scope-read', ENDPOINTS, '| GET | identity/oidc/scope/:name | none | {data:{description, template}} |', r('scope-crud')),
    s('scope-list', ENDPOINTS, '| LIST | identity/oidc/scope | none | {data:{keys}} |', r('scope-crud')),
    s('scope-delete', ENDPOINTS, '| DELETE | identity/oidc/scope/:name | none | see above |', r('scope-crud')),
    s('client-write', ENDPOINTS, '| POST | identity/oidc/client/:name | key, redirect_uris, assignments, client_type, id_token_ttl, access_token_ttl | see above |', r('client-crud', 'client-ttl-forms', 'client-key-signs')),
    s('client-read', ENDPOINTS, '| GET | identity/oidc/client/:name | none | {data:{access_token_ttl, assignments, client_id, client_secret, client_type, id_token_ttl, key, redirect_uris}} |', r('client-crud')),
    s('client-list', ENDPOINTS, '| LIST | identity/oidc/client | none | {data:{keys}} |', r('client-crud')),
    s('client-delete', ENDPOINTS, '| DELETE | identity/oidc/client/:name | none | see above |', r('client-crud')),
    s('assignment-write', ENDPOINTS, '| POST | identity/oidc/assignment/:name | entity_ids, group_ids | see above |', r('assignment-crud')),
    s('assignment-read', ENDPOINTS, '| GET | identity/oidc/assignment/:name | none | {data:{entity_ids, group_ids}} |', r('assignment-crud')),
    s('assignment-list', ENDPOINTS, '| LIST | identity/oidc/assignment | none | {data:{keys}} |', r('assignment-crud')),
    s('assignment-delete', ENDPOINTS, '| DELETE | identity/oidc/assignment/:name | none | see above |', r('assignment-crud')),

    // Endpoints: the flow.
    s('discovery-route', ENDPOINTS, '| GET | identity/oidc/provider/:name/.well-known/openid-configuration | none | OpenID Provider Configuration (below) |', r('discovery-fields')),
    s('keys-route', ENDPOINTS, '| GET | identity/oidc/provider/:name/.well-known/keys | none | JWKS |', r('jwks-fields')),
    s('authorize-route', ENDPOINTS, '| GET or POST | identity/oidc/provider/:name/authorize | parameters below | {code, state} |', r('authorize-code-state')),
    s('token-route', ENDPOINTS, '| POST | identity/oidc/provider/:name/token | form parameters below | token response |', r('token-response')),
    s('userinfo-route', ENDPOINTS, 'POST (an example request uses GET) | identity/oidc/provider/:name/userinfo | Authorization: Bearer <ACCESS_TOKEN> header | claims.', r('userinfo-methods', 'userinfo-sub'), 'Userinfo answers POST, and GET as the example does, with the access token in Authorization: Bearer'),
    s('well-known-no-token', ENDPOINTS, 'The well-known configuration and the key set need no token in their examples.', r('discovery-no-token')),
    s(
      'discovery-fields',
      ENDPOINTS,
      "OpenID configuration fields: issuer (string), jwks_uri, authorization_endpoint (an address of the interface's authorize page for the provider), token_endpoint, userinfo_endpoint (strings), request_parameter_supported (boolean, false), request_uri_parameter_supported (boolean, false), id_token_signing_alg_values_supported (RS256, RS384, RS512, ES256, ES384, ES512, EdDSA), response_types_supported (code), scopes_supported (array of string; includes openid), subject_types_supported (public), grant_types_supported (authorization_code), token_endpoint_auth_methods_supported (client_secret_basic, client_secret_post, none).",
      r('discovery-fields', 'provider-scopes-supported'),
    ),
    s('authorize-query-for-get', ENDPOINTS, 'Authorize parameters (query for GET):', r('authorize-code-state'), 'Authorize by GET takes its parameters in the query'),
    s('authorize-scope', ENDPOINTS, "| scope | string | yes | Space-delimited; must include 'openid' |", r('authorize-scope-openid', 'userinfo-claims-by-scope')),
    s('authorize-response-type', ENDPOINTS, "| response_type | string | yes | Only 'code' |", r('authorize-response-type-code')),
    s('authorize-client-id', ENDPOINTS, '| client_id | string | yes | |', r('authorize-unknown-client'), 'Authorize names the client by client_id; one the service did not issue is refused'),
    s('authorize-redirect-uri', ENDPOINTS, '| redirect_uri | string | yes | |', r('redirect-uri-exact'), 'Authorize names a redirect_uri, which must be one of the client\'s'),
    s('authorize-state', ENDPOINTS, '| state | string | no | Echoed back |', r('authorize-code-state')),
    s('authorize-nonce', ENDPOINTS, '| nonce | string | no | Returned in the ID token nonce claim; recommended |', r('id-token-nonce')),
    s('authorize-max-age', ENDPOINTS, '| max_age | integer | no | Allowed seconds since the user last actively authenticated |', r('authorize-max-age')),
    s('authorize-code-challenge', ENDPOINTS, '| code_challenge | string | no | PKCE challenge; optional for confidential, required for public clients |', r('pkce-public-requires-challenge', 'pkce-verifier')),
    s('authorize-code-challenge-method', ENDPOINTS, "| code_challenge_method | string | no | 'plain' (default) or 'S256' |", r('pkce-default-plain', 'pkce-verifier')),
    s('token-form', ENDPOINTS, 'Token parameters (content type application/x-www-form-urlencoded):', r('token-response', 'client-secret-post'), 'The token endpoint takes its parameters form-encoded'),
    s('token-code', ENDPOINTS, '| code | string | yes | Code from authorize |', r('code-single-use', 'token-response')),
    s('token-grant-type', ENDPOINTS, "| grant_type | string | yes | Only 'authorization_code' |", r('grant-type')),
    s('token-redirect-uri', ENDPOINTS, '| redirect_uri | string | yes | Must equal the one used when the code was generated |', r('token-redirect-uri-repeat', 'redirect-uri-exact')),
    s('token-client-id', ENDPOINTS, '| client_id | string | conditional | Required for public clients and for confidential clients using client_secret_post |', r('public-client-none', 'client-secret-post', 'token-client-auth-required')),
    s('token-client-secret', ENDPOINTS, '| client_secret | string | conditional | Required for confidential clients using client_secret_post |', r('client-secret-post', 'token-client-auth-required')),
    s('token-code-verifier', ENDPOINTS, '| code_verifier | string | conditional | Required for codes granted with PKCE and for public clients |', r('pkce-verifier-required', 'public-client-none', 'pkce-verifier')),
    s('token-basic-header', ENDPOINTS, "Header 'Authorization: Basic <base64(client_id:client_secret)>' is required only for confidential clients using client_secret_basic.", r('client-secret-basic', 'client-secret-post', 'token-client-auth-required')),
  ],
};

const AUTHZ = 'secrets.oidc.access-authorize-neighbours';
const TOKEN_N = 'secrets.oidc.access-token-neighbours';
const LIFE = 'secrets.oidc.access-code-lifecycle';
const BINDING = 'secrets.oidc.access-code-binding';
const n = (scope: string, rule: string, example: string): Neighbour => ({ scope, rule, example });

/**
 * The neighbouring scopes each access statement is asked from (issue 47), by the rules that judge
 * a generated world against the access model (suites/models/oidc-access.ts): four providers, two
 * confidential clients and a public one, three entities (one named by an assignment, one in an
 * assigned group, one in neither), two scopes on different providers.
 */
const NEIGHBOURS: Record<string, Neighbour[]> = {
  'provider-allowed-client-ids': [
    n('another provider, one that does not list the client', AUTHZ, "client A at provider C (lists client B only) or D (an empty list): refused; at A (lists it) and B ('*'): granted"),
    n('another client at the same provider', AUTHZ, 'client B at provider A, which lists clients A and P: refused'),
    n('the token endpoint after the provider stopped allowing the client', LIFE, "a code of client P at provider B, then B's allowed_client_ids set to client A only: the exchange is refused; back to '*', authorize grants again"),
  ],
  'client-assignments-limit': [
    n('another entity through the same client', AUTHZ, 'e1 (named by an assignment) through client A: granted; e3 (in a group no assignment names): refused'),
    n('an entity in an assigned group beside one that is not', AUTHZ, "e2 through client B (which names e2's group): granted; e1 through B: refused"),
    n('the same entity through another client', AUTHZ, 'e1 through client A: granted; through client B: refused'),
    n('the exchange after the client\'s assignments changed', LIFE, "a code for e1, then client A's assignments set to the group one only: the exchange is refused"),
  ],
  'client-redirect-uris-exact': [
    n('a near miss of a registered URI', AUTHZ, 'the registered URI with a query added, a trailing slash, another port, no port, upper-case host or path, a path prefix or extension, a fragment, http: refused'),
    n("another client's registered URI", AUTHZ, "client A with client P's own redirect URI: refused; with the URI both register: granted"),
  ],
  'token-redirect-uri': [
    n('a near miss of the URI the code was issued for', TOKEN_N, 'the token call with a query added (or any near miss) to the authorize redirect_uri: refused'),
    n("the client's other registered URI", TOKEN_N, 'a code issued for the shared URI exchanged with the client\'s own URI: refused'),
  ],
  'token-endpoint-authenticates-client': [
    n("another client's own credentials", TOKEN_N, "client A's code with client B's client_id and secret (Basic or form) or client P's client_id: refused"),
    n('a near miss of the secret', TOKEN_N, "each confidential client's code with its own client_id and its secret in another letter case (upper, lower, swapped, one letter), less its first or last character or half, with a character added at either end, one character changed at the start, middle or end, a space added, empty, or the other client's secret, over Basic and the form: refused"),
    n('Basic credentials of one client beside the form fields of another', TOKEN_N, "client B's code with client A's Basic credentials and client_id=B (or client_secret of B, or client_id=B with a wrong secret) in the form, and B in the Basic header with a wrong secret beside A's form credentials: refused"),
    n('method none for a confidential client', TOKEN_N, "client A's code with its client_id alone: refused"),
    n('after the client was deleted', LIFE, "a code of client B, then client B deleted: the exchange with B's old credentials is refused, and authorize with its client_id too"),
  ],
  'token-code': [
    n('another provider\'s token endpoint', TOKEN_N, "a code from provider B's authorize at provider A's token endpoint (which allows the client): refused"),
    n('a token where the code goes', TOKEN_N, 'the access token or the ID token of an earlier exchange as the code: refused'),
    n('the code a second time', LIFE, 'a code exchanged once, then again by the same client: refused'),
    n('the code made just before it, for a request that differs in one attribute', BINDING, "codes for clients A and B (provider B, the shared redirect URI, e2), for e1 and e2, for scopes [openid] and [openid sA], [openid sA] and [openid sB], PKCE S256 and plain, made in the order a, b, a, b, b, a: each exchanges by its own client for tokens with its own aud, scope claims and subject"),
  ],
  'userinfo-needs-access-token': [
    n("another provider's userinfo", TOKEN_N, "provider A's access token at provider B's userinfo: refused"),
    n('the ID token or the code as the Bearer token', TOKEN_N, 'userinfo with the ID token, or with the authorization code, as Bearer: refused'),
    n("the same token after its provider or client changed (strict profile)", 'secrets.upstream.oidc-userinfo-rechecks-access', "client A's access token after provider A's allowed_client_ids became [] or [B], after client A's assignments dropped the entity, after client A was deleted: refused 403; clients P and B's tokens beside it keep answering"),
  ],
  'provider-scopes-supported': [
    n('a scope another provider supports', AUTHZ, 'authorize at provider A asking for scope sB (supported on B only): refused or granted'),
    n('its claims in the ID token', TOKEN_N, 'a code of provider A that asked for sA and sB: the ID token has sA\'s claim and not sB\'s'),
  ],
  'authorize-scope': [n('the same request without openid', AUTHZ, 'scope [sA] instead of [openid sA]: refused')],
  'public-clients': [
    n('a public client without a code_challenge', AUTHZ, 'client P without code_challenge: refused; with one: granted'),
    n('another verifier', TOKEN_N, "client P's code with another verifier or the challenge itself: refused"),
  ],
};

/** Each statement with its neighbours and the rules that ask from them. */
export const secretsOidcStatements: StatementMap = {
  ...ownStatements,
  statements: ownStatements.statements.map((st) => {
    const neighbours = NEIGHBOURS[st.id.replace(/^secrets\.oidc\./, '')];
    if (!neighbours) return st;
    return { ...st, rules: [...new Set([...(st.rules ?? []), ...neighbours.map((x) => x.rule)])], neighbours };
  }),
};
