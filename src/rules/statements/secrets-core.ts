import type { StatementMap } from './types.ts';

const DOES = 'What the service does';
const AUTH = 'Authentication';
const ERRORS = 'Errors';

/**
 * The testable statements of the core conventions of spec 000 (everything but the OIDC provider
 * and the cloud-identity auth method): each with the rules that assert it or why none can. The
 * OIDC- and cloud-identity-specific sentences of these sections are in their own parts.
 */
export const secretsCoreStatements: StatementMap = {
  system: 'secrets',
  part: 'core conventions, key-value engine, authentication, errors, limits, versioning (spec 000)',
  statements: [
    // What the service does
    {
      id: 'secrets.core.api-controls-everything',
      section: DOES,
      quote: 'Its HTTP API controls every aspect of it, and the command-line client uses the same API.',
      untestable: 'A claim about the product as a whole and its command-line client: no response of the API can show that some aspect is not controlled through it, and the client is no part of a target.',
    },
    {
      id: 'secrets.core.mounted-at-paths',
      section: DOES,
      quote: 'Secrets engines and auth methods are mounted at paths.',
      claim: 'An engine answers under the path it is mounted at (the key-value engine at secret/, the auth method under auth/<mount>/).',
      rules: ['secrets.core.kv-mounted-at-secret', 'secrets.kv.v1-model'],
    },
    { id: 'secrets.core.kv-at-secret', section: DOES, quote: 'A key-value engine is mounted at secret/ on a fresh install.', rules: ['secrets.core.kv-mounted-at-secret'] },
    {
      id: 'secrets.core.json-bodies',
      section: DOES,
      quote: 'Request and response bodies are normally JSON.',
      claim: 'A write whose body is no JSON object is refused; every answer of the suites is parsed as JSON with a schema.',
      rules: ['secrets.errors.malformed-json-400', 'secrets.errors.trailing-json-400'],
    },
    { id: 'secrets.core.content-type-set', section: DOES, quote: 'The service sets Content-Type on responses', rules: ['secrets.core.content-type-set'] },
    { id: 'secrets.core.content-type-not-required', section: DOES, quote: 'does not require it on requests', rules: ['secrets.core.content-type-not-required', 'secrets.upstream.json-body-under-form-type'] },
    {
      id: 'secrets.core.token-required',
      section: DOES,
      quote: 'Once the service is unsealed, nearly every operation requires a client token (see Authentication).',
      claim: 'Reads, lists, writes, deletes and help of the core and key-value paths are refused without a valid client token (the OIDC and cloud-identity parts map their own paths).',
      rules: ['secrets.auth.token-required', 'secrets.auth.bad-token-refused', 'secrets.core.help-no-leak'],
      neighbours: [
        { scope: 'the same request without the token', rule: 'secrets.auth.token-required', example: 'a secret written with the token, then read, listed, written and deleted without one on the version 1 and version 2 engines: refused, the secret intact' },
        { scope: 'a token one character off the issued one', rule: 'secrets.auth.bad-token-refused', example: 'the issued token with one character changed, one added, the first cut, its case flipped: every verb refused, nothing changed' },
        { scope: 'help without the token beside help with it', rule: 'secrets.core.help-no-leak', example: '?help=1 on the same path: answered with the token, refused and showing nothing of the path without' },
      ],
      wrongWays: [
        { kind: 'route-or-verb-unchecked', how: "One engine's paths (the version 2 engine's data/) are served without a token.", rule: 'secrets.auth.token-required', example: 'read, list, write and delete without a token on the version 1 and version 2 engines: refused, nothing changed', fault: 'secrets.kv2-data-unauthenticated' },
        { kind: 'route-or-verb-unchecked', how: 'Help (?help=1) is answered without a token.', rule: 'secrets.core.help-no-leak', example: 'help without a token: refused, and shows nothing of the path', fault: 'secrets.help-unauthenticated' },
        { kind: 'wrong-subject', how: 'A token is checked for presence, not for having been issued.', rule: 'secrets.auth.bad-token-refused', example: 'every verb with a token the service did not issue: refused, nothing changed', fault: 'secrets.auth-any-token-accepted' },
        { kind: 'route-or-verb-unchecked', how: 'A request without a token is served as the root token.', rule: 'secrets.auth.token-required', example: 'every verb without a token: refused', fault: 'secrets.auth-missing-token-allowed' },
      ],
    },
    {
      id: 'secrets.core.verbs',
      section: DOES,
      quote: 'Verbs: GET reads; POST and PUT are synonyms and write; DELETE deletes; LIST (or GET with query parameter list=true) lists.',
      rules: ['secrets.kv.v1-model', 'secrets.core.post-put-synonyms', 'secrets.core.list-verb-equals-query', 'secrets.core.list-empty-404'],
    },
    {
      id: 'secrets.core.existence-check',
      section: DOES,
      quote: 'Engines may run an existence check to decide whether a write is a create or an update, so that permissions can distinguish them.',
      untestable: 'Optional ("may"), and only permissions could show it: the policy language and the capability per endpoint are not shown, so a client cannot make a token that tells create from update.',
    },
    {
      id: 'secrets.core.query-non-sensitive',
      section: DOES,
      quote: 'GET query strings are used only for non-sensitive parameters.',
      untestable: 'A design convention of the routes: no route of this spec takes a sensitive value in a GET query, and nothing says what a server does with one sent there.',
    },
    {
      id: 'secrets.core.post-body-parameters',
      section: DOES,
      quote: 'Most POST endpoints take their parameters in the body.',
      claim: 'A POST of the key-value engine takes the secret in its JSON body.',
      rules: ['secrets.kv.v1-model', 'secrets.kv.v2-data-path', 'secrets.core.post-put-synonyms'],
    },
    {
      id: 'secrets.kv.v1-read',
      section: DOES,
      quote: 'In the version 1 key-value engine a secret is read with GET /v1/secret/<key>',
      rules: ['secrets.kv.v1-model', 'secrets.core.content-type-not-required'],
    },
    {
      id: 'secrets.kv.v1-list-directories',
      section: DOES,
      quote: 'listing is allowed on directories only and returns the keys at the path',
      rules: ['secrets.kv.list-keys-at-path', 'secrets.kv.v1-model'],
    },
    {
      id: 'secrets.kv.v2-data-path',
      section: DOES,
      quote: "In the version 2 engine the path has 'data/' between the mount and the secret name, e.g. POST /v1/secret/data/<key> with body {data:{<name>:<value>}}.",
      rules: ['secrets.kv.v2-data-path', 'secrets.kv.v2-model'],
      capability: 'kvV2',
    },
    {
      id: 'secrets.core.help',
      section: DOES,
      quote:
        "Help: appending ?help=1 to any URL returns, if the caller may access the path, an attribute 'help' (markdown text) and an attribute 'openapi' (a small OpenAPI 3 document for that path and paths beneath it; paths inside it are relative to the queried path).",
      claim: 'On key-value, identity and auth paths alike: help and an OpenAPI 3 document describing the queried path and what lies beneath it, relative to it; nothing without access.',
      rules: ['secrets.core.help-openapi', 'secrets.core.help-no-leak'],
    },

    // Resources and their fields
    {
      id: 'secrets.errors.error-body-field',
      section: 'Resources and their fields > Error body',
      quote: '| errors | array of string | Returned for every HTTP status >= 400. An empty list yields {errors:[]} |',
      claim: 'Every answer with status >= 400 carries errors, an array of strings; an empty list is {"errors":[]} exactly.',
      rules: ['secrets.errors.body-on-every-error', 'secrets.core.list-empty-404'],
    },
    {
      id: 'secrets.core.list-result',
      section: 'Resources and their fields > List result',
      quote: '| data.keys | array of string (names at the path) |',
      claim: 'A list answers data.keys, the names at the path.',
      rules: ['secrets.kv.list-keys-at-path', 'secrets.core.list-verb-equals-query'],
    },

    // Endpoints
    {
      id: 'secrets.versioning.v1-prefix',
      section: 'Endpoints',
      quote: 'All paths below are under {base_url}/v1/.',
      claim: 'The routes answer under /v1/ and nowhere else.',
      rules: ['secrets.versioning.v1-only'],
    },
    {
      id: 'secrets.core.name-one-segment',
      section: 'Endpoints',
      quote: "':name' is a path segment.",
      claim: 'A name is one segment: a write to <collection>/a/b makes no resource named a/b.',
      rules: ['secrets.core.name-one-segment'],
    },
    {
      id: 'secrets.core.trailing-period',
      section: 'Endpoints',
      quote: 'Path parameters must not end with a period; otherwise the service answers 404 (unsupported path).',
      claim: 'Every :name route (read, write, delete, list; the provider’s discovery, key set, authorize, token and userinfo; cloud-identity roles) answers 404 for a name ending in a period, even when the name without the period exists, and changes nothing.',
      rules: ['secrets.core.path-param-trailing-period-404', 'secrets.core.path-param-trailing-period-flows-404'],
    },
    {
      id: 'secrets.core.success-status',
      section: 'Endpoints',
      quote: 'Success is 200 with a body or 204 without; a 204 operation may return 200 when warnings arise.',
      rules: ['secrets.core.success-status'],
    },
    { id: 'secrets.core.help-route', section: 'Endpoints > Core', quote: '| GET | <any path>?help=1 | Returns help and openapi attributes |', rules: ['secrets.core.help-openapi'] },
    {
      id: 'secrets.core.list-route',
      section: 'Endpoints > Core',
      quote: '| LIST or GET with list=true | <path>/ | Returns data.keys. When the result is empty the status is 404 with {errors:[]} |',
      rules: ['secrets.core.list-empty-404', 'secrets.core.list-verb-equals-query'],
    },
    {
      id: 'secrets.core.write-route',
      section: 'Endpoints > Core',
      quote: '| POST or PUT | <path> | JSON body of the target endpoint |',
      rules: ['secrets.core.post-put-synonyms', 'secrets.errors.malformed-json-400'],
    },

    // Authentication
    {
      id: 'secrets.auth.token-headers',
      section: AUTH,
      quote: "A client token is sent in header X-Service-Token or in header 'Authorization: Bearer <token>'.",
      rules: ['secrets.auth.token-headers-equivalent'],
      neighbours: [
        { scope: 'the other header with the same token', rule: 'secrets.auth.token-headers-equivalent', example: 'each KV write, read and list and each OIDC scope operation through the token header and through Authorization: Bearer: the same answer' },
      ],
      wrongWays: [
        { kind: 'route-or-verb-unchecked', how: 'Bearer is read on the KV paths only; identity, auth-method and help routes need the token header.', rule: 'secrets.auth.token-headers-equivalent', example: 'an OIDC scope written, read, listed, asked for help and deleted through Bearer alone, each answered as through the token header', fault: 'secrets.auth-bearer-kv-only' },
        { kind: 'route-or-verb-unchecked', how: 'Bearer is not read at all.', rule: 'secrets.auth.token-headers-equivalent', example: 'generated KV writes, reads and lists through Bearer, compared with the token header', fault: 'secrets.auth-bearer-ignored' },
      ],
    },
    {
      id: 'secrets.auth.login-unauthenticated',
      section: AUTH,
      quote: 'Each auth method has one or more login endpoints reachable without authentication; they return a token in JSON (for the cloud-identity method: auth.client_token).',
      claim: "The spec's one auth method, cloud identity, logs in without a client token and returns auth.client_token.",
      rules: ['secrets.cloudauth.login-no-token', 'secrets.cloudauth.login-response'],
    },
    {
      id: 'secrets.auth.login-token-either-header',
      section: AUTH,
      quote: 'The token is then sent in either header.',
      rules: ['secrets.cloudauth.token-works', 'secrets.auth.token-headers-equivalent'],
    },
    {
      id: 'secrets.ns.relative-to-header',
      section: AUTH,
      quote: 'Namespaces: the request path is relative to the X-Service-Namespace header.',
      rules: ['secrets.ns.isolation', 'secrets.ns.header-path-equivalence', 'secrets.ns.neighbour-paths', 'secrets.upstream.ns-admin-tree'],
      capability: 'namespaces',
      wrongWays: [
        { kind: 'other-namespace', how: 'All namespaces share one set of engines.', rule: 'secrets.ns.isolation', example: 'a secret written in one namespace is not seen from another', fault: 'secrets.ns-shared-storage' },
        { kind: 'other-namespace', how: 'The header is ignored and the path taken from the root.', rule: 'secrets.ns.header-path-equivalence', example: 'the same secret through the header, the full path and a split between them', fault: 'secrets.ns-header-ignored' },
        { kind: 'exact-vs-prefix', how: "The header is joined to the path as written, without its trailing slash.", rule: 'secrets.ns.neighbour-paths', example: "header 'a' and path 'b/kv/x' read namespace ab/", fault: 'secrets.ns-header-joined-without-slash' },
        { kind: 'exact-vs-prefix', how: 'A token is taken in every namespace whose path begins like its own.', rule: 'secrets.upstream.ns-token-reach', example: 'a token of a/ reads ab/ (strict profile: the spec does not say what a token reaches)', fault: 'secrets.ns-token-reaches-prefix-sibling' },
        { kind: 'other-namespace', how: 'A token is taken in its parent namespaces.', rule: 'secrets.upstream.ns-token-reach', example: 'a token of a/c/ reads a/ (strict profile)', fault: 'secrets.ns-child-token-reaches-parent' },
      ],
      neighbours: [
        { scope: 'a namespace whose name begins like another (a/ and ab/)', rule: 'secrets.ns.neighbour-paths', example: "header 'ab/' reads ab/'s secret; header 'a' with path 'b/kv/x' names a/b/, which does not exist: 404, never ab/'s secret" },
        { scope: 'the header/path cut one character over, inside a segment', rule: 'secrets.ns.neighbour-paths', example: "header 'a/' + path 'c/kv/x' reads a/c/'s secret; header 'a/c' + path '/kv/x' is not sent (the cut moves past the slash)" },
        { scope: 'the header without its trailing slash', rule: 'secrets.ns.neighbour-paths', example: "header 'a' and header 'a/' read the same secret of a/" },
        { scope: 'the child and the parent namespace', rule: 'secrets.ns.neighbour-paths', example: "header 'a/c/' reads a/c/'s secret, header 'a/' a/'s, never each other's" },
        { scope: "a token of the namespace's parent, child or prefix-named sibling", rule: 'secrets.upstream.ns-token-reach', example: 'a token of a/ reads a/ and a/c/, is refused (403 or 404) in the root, ab/ and, for a token of a/c/, in a/ (strict profile)' },
        { scope: 'the same namespace path deleted and made again', rule: 'secrets.upstream.ns-token-reach', example: 'the old secret is 404 and the old token refused in the new namespace; a new token reads the new secret (strict profile)' },
        { scope: "the namespace's grandchild and its prefix-named sibling, in the namespace list", rule: 'secrets.upstream.ns-admin-tree', example: "LIST sys/namespaces in the root names a/ and ab/, never a/c/; in a/ exactly c/; in a/c/ and ab/ 404 (strict profile)" },
        { scope: 'the child read from the parent and from the root', rule: 'secrets.upstream.ns-admin-tree', example: 'GET sys/namespaces/c in a/ reads a/c/; in the root it is 404 or 400, and so is sys/namespaces/a/c (strict profile)' },
        { scope: 'the header written with extra slashes', rule: 'secrets.upstream.ns-admin-tree', example: "header '//a//' names a/, header '/' the root (strict profile)" },
      ],
    },
    {
      id: 'secrets.ns.effective-path',
      section: AUTH,
      quote: "With path secret/foo and header 'ns1/ns2/' the effective path is ns1/ns2/secret/foo.",
      rules: ['secrets.ns.header-path-equivalence', 'secrets.ns.neighbour-paths'],
      capability: 'namespaces',
    },
    {
      id: 'secrets.ns.split-equivalent',
      section: AUTH,
      quote: 'Using the full path without the header, or splitting the namespace between header and path, is equivalent.',
      rules: ['secrets.ns.header-path-equivalence', 'secrets.ns.neighbour-paths'],
      capability: 'namespaces',
    },
    {
      id: 'secrets.proxy.request-header',
      section: AUTH,
      quote: 'A proxy configured to require a request header rejects requests without X-Service-Request; the examples set it to the text true.',
      rules: ['secrets.proxy.request-header-required'],
      capability: 'requestHeaderProxy',
    },
    {
      id: 'secrets.proxy.clients-send-header',
      section: AUTH,
      quote: 'The command-line client and the SDK always send it.',
      untestable: 'About the command-line client and the SDK, not the service: neither is part of a target.',
    },
    {
      id: 'secrets.auth.tls',
      section: AUTH,
      quote: 'Transport: TLS is expected at all times with a verified certificate, though listeners can be configured without TLS.',
      untestable: 'A deployment expectation with an explicit allowance for listeners without TLS: a target over plain HTTP conforms, so nothing a client sees can break it.',
    },
    {
      id: 'secrets.auth.policies-404',
      section: AUTH,
      quote: 'Permission policies decide access per path; a path the caller may not see can answer 404.',
      claim: 'A refusal for lack of access may be 404 as well as 403, and shows nothing of the path.',
      rules: ['secrets.core.help-no-leak'],
    },

    // Errors
    { id: 'secrets.errors.body', section: ERRORS, quote: 'For status >= 400 the body is {errors:[<message>, ...]}.', rules: ['secrets.errors.body-on-every-error'] },
    { id: 'secrets.errors.200', section: ERRORS, quote: '| 200 | Success with data |', rules: ['secrets.core.success-status'] },
    { id: 'secrets.errors.204', section: ERRORS, quote: '| 204 | Success, no data |', rules: ['secrets.core.success-status'] },
    {
      id: 'secrets.errors.400',
      section: ERRORS,
      quote: '| 400 | Invalid request, missing or invalid data |',
      rules: ['secrets.errors.malformed-json-400', 'secrets.errors.trailing-json-400'],
    },
    { id: 'secrets.errors.403-authentication', section: ERRORS, quote: '403 | Forbidden: wrong authentication', rules: ['secrets.auth.token-required', 'secrets.auth.bad-token-refused'] },
    {
      id: 'secrets.errors.403-feature',
      section: ERRORS,
      quote: 'no access to the feature',
      untestable: 'Which features a target may lack (licensing) is not described, so no request can be made that must meet it.',
    },
    {
      id: 'secrets.errors.403-cors',
      section: ERRORS,
      quote: '(with CORS enabled) a cross-origin request from a disallowed origin',
      untestable: 'Only with CORS enabled, and how CORS is enabled and its allowed origins set is not part of this spec: a client cannot know or make a disallowed origin.',
    },
    {
      id: 'secrets.errors.404',
      section: ERRORS,
      quote: '| 404 | Invalid path, or no permission to see it (used to avoid leaking state); empty LIST result; path parameter ending in a period |',
      rules: ['secrets.errors.unknown-path-404', 'secrets.core.list-empty-404', 'secrets.core.path-param-trailing-period-404', 'secrets.core.path-param-trailing-period-flows-404', 'secrets.core.help-no-leak'],
    },
    { id: 'secrets.errors.405', section: ERRORS, quote: '| 405 | Method not supported on the path |', rules: ['secrets.errors.method-not-allowed-405'] },
    {
      id: 'secrets.errors.412',
      section: ERRORS,
      quote: '| 412 | Enterprise: required eventually consistent data missing; retry with backoff |',
      untestable: 'Needs replication lag between Enterprise nodes, which a client of one node cannot bring about.',
    },
    {
      id: 'secrets.errors.429',
      section: ERRORS,
      quote: '| 429 | Default health code of standby nodes |',
      untestable: 'A health endpoint is not part of this spec, and a target is one active node a client cannot make a standby.',
    },
    {
      id: 'secrets.errors.472',
      section: ERRORS,
      quote: '| 472 | Default code for disaster recovery replication secondary and active |',
      untestable: 'Needs a disaster-recovery replication secondary, which a client cannot set up; the health endpoint is not part of this spec.',
    },
    {
      id: 'secrets.errors.473',
      section: ERRORS,
      quote: '| 473 | Default health code of performance standby nodes |',
      untestable: 'Needs a performance standby node, which a client cannot make; the health endpoint is not part of this spec.',
    },
    { id: 'secrets.errors.500', section: ERRORS, quote: '| 500 | Internal error |', untestable: 'No request is defined to cause an internal error: a conforming target has none to show.' },
    {
      id: 'secrets.errors.501',
      section: ERRORS,
      quote: '| 501 | Service not initialized |',
      untestable: 'A target under test is initialised, and initialisation is not part of this spec: no client can see it uninitialised.',
    },
    {
      id: 'secrets.errors.502',
      section: ERRORS,
      quote: '| 502 | A third party that the service called answered with an error |',
      untestable: 'The only third party of this spec is the cloud behind the cloud-identity login, and the spec says which condition of a login yields which status is not shown.',
    },
    {
      id: 'secrets.errors.503',
      section: ERRORS,
      quote: '| 503 | Down for maintenance or sealed |',
      untestable: 'Sealing and maintenance are not part of this spec; taking the target down would end the run.',
    },

    // Limits
    {
      id: 'secrets.limits.max-request-size',
      section: 'Limits',
      quote: '| Maximum request size | 32 MB; tunable per listener in the server configuration |',
      rules: ['secrets.limits.max-request-size'],
    },

    // Versioning
    { id: 'secrets.versioning.v1-only', section: 'Versioning', quote: 'All routes carry the prefix /v1/; version 1 is the only version.', rules: ['secrets.versioning.v1-only'] },
  ],
  nonStatements: [
    { section: DOES, quote: 'The service is a secrets-management service.', why: 'Describes the product.' },
    { section: 'States and transitions', quote: 'No states are named for any resource in this document.', why: 'States nothing: no state to observe.' },
    { section: 'Events', quote: 'No event kinds are described for these endpoints.', why: 'States nothing: no event to observe.' },
    { section: 'Versioning', quote: 'No backward-compatibility promise is made even within v1.', why: 'The absence of a promise: nothing a target must do.' },
    {
      section: 'Versioning',
      quote: 'Core system routes change rarely; engines and auth methods sometimes change in minor ways for new features.',
      why: 'Describes how the product evolves over releases, not what one target answers.',
    },
  ],
};
