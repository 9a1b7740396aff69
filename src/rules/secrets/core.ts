import type { Rule } from '../types.ts';
import { SPEC_FILES } from '../spec-files.ts';

const file = SPEC_FILES.secrets;
const rule = (r: Omit<Rule, 'system'>): Rule => ({ system: 'secrets', ...r });

/** Spec 000: core HTTP conventions (What the service does, Core, Authentication, Errors, Limits). */
export const secretsCoreRules: Rule[] = [
  rule({
    id: 'secrets.core.list-empty-404',
    title: 'A LIST with no results answers 404 with {"errors":[]}, through the LIST verb and GET ?list=true',
    level: 'MUST',
    sources: [
      { file, section: 'Endpoints > Core', quote: 'When the result is empty the status is 404 with {errors:[]}' },
      { file, section: 'Errors', quote: 'empty LIST result' },
      { file, section: 'What the service does', quote: 'LIST (or GET with query parameter list=true) lists' },
    ],
  }),
  rule({
    id: 'secrets.core.kv-mounted-at-secret',
    title: 'A key-value engine (version 1 or 2) is mounted at secret/: a secret written there reads back',
    level: 'MUST',
    sources: [{ file, section: 'What the service does', quote: 'A key-value engine is mounted at secret/ on a fresh install.' }],
    notes: [
      'The spec names no version: `vault server -dev` mounts version 2 at secret/ (hashicorp/vault command/server.go, enableDev), so the probe (POST secret/data/<key> with {data:{...}}, fields read back under data.data) passes on either version.',
      'A Vault server not started in dev mode mounts nothing at secret/ (hashicorp/vault vault/mount.go defaultMountTable): listed in expectations/vault.json as a conditional deviation.',
    ],
  }),
  rule({
    id: 'secrets.core.content-type-set',
    judgedOnEveryExchange: true,
    title: 'Every response with a body carries a Content-Type header',
    level: 'MUST',
    sources: [{ file, section: 'What the service does', quote: 'The service sets Content-Type on responses' }],
  }),
  rule({
    id: 'secrets.core.content-type-not-required',
    title: 'A JSON write without a Content-Type header, or with one naming another type (text/plain), is accepted like one with it',
    level: 'MUST',
    sources: [{ file, section: 'What the service does', quote: 'does not require it on requests' }],
  }),
  rule({
    id: 'secrets.core.post-put-synonyms',
    title: 'POST and PUT are interchangeable for any key and value',
    level: 'MUST',
    sources: [{ file, section: 'What the service does', quote: 'POST and PUT are synonyms and write' }],
  }),
  rule({
    id: 'secrets.core.list-verb-equals-query',
    title: 'LIST and GET ?list=true give identical answers for any tree of secrets',
    level: 'MUST',
    sources: [
      { file, section: 'What the service does', quote: 'LIST (or GET with query parameter list=true) lists' },
      { file, section: 'Endpoints > Core', quote: 'LIST or GET with list=true | <path>/ | Returns data.keys' },
    ],
  }),
  rule({
    id: 'secrets.core.success-status',
    judgedOnEveryExchange: true,
    title: 'Every success is 200 with a body or 204 without one',
    level: 'MUST',
    sources: [{ file, section: 'Endpoints', quote: 'Success is 200 with a body or 204 without' }],
  }),
  rule({
    id: 'secrets.core.help-openapi',
    title: '?help=1 returns help (markdown) and openapi, an OpenAPI 3 document about the queried path and what lies beneath it, with paths relative to the queried path',
    level: 'MUST',
    sources: [
      {
        file,
        section: 'What the service does',
        quote:
          "Help: appending ?help=1 to any URL returns, if the caller may access the path, an attribute 'help' (markdown text) and an attribute 'openapi' (a small OpenAPI 3 document for that path and paths beneath it; paths inside it are relative to the queried path).",
      },
    ],
    notes: [
      'A path parameter of the document may stand for any text, slashes and the empty text included: Vault documents a key-value version 1 mount as /{path} and /{path}/ (hashicorp/vault sdk/framework/openapi.go documentPath; sdk/framework/backend.go handleRootHelp for the mount, Path.helpCallback beneath it).',
      'The queried path must be described, and reading a secret beneath it (GET): an unrelated but well-formed document fails.',
      'Vault answers help with {help, openapi, see_also} and no response envelope (hashicorp/vault http/help.go handleHelp, respondOk(w, resp.Data)); any non-empty help value means help (wrapHelpHandler). The hashicorp dialect of the reference answers the same.',
    ],
  }),
  rule({
    id: 'secrets.core.help-no-leak',
    title: '?help=1 on a path the caller may not access (no valid token) is refused and shows no help',
    level: 'MUST',
    sources: [
      { file, section: 'What the service does', quote: 'if the caller may access the path' },
      { file, section: 'Authentication', quote: 'a path the caller may not see can answer 404' },
    ],
  }),
  rule({
    id: 'secrets.core.path-param-trailing-period-404',
    title: 'A name ending in periods answers 404 on every :name route (read, write, delete, list) of providers, scopes, clients, assignments and cloud-identity roles, even when the name without the periods exists, and changes nothing',
    level: 'MUST',
    sources: [
      { file, section: 'Endpoints', quote: 'Path parameters must not end with a period; otherwise the service answers 404 (unsupported path).' },
      { file, section: 'Errors', quote: 'path parameter ending in a period' },
    ],
    notes: [
      'Each resource exists under the name without the periods before the probes, so a 404 cannot come from "not found": a target that drops the periods reaches that resource and answers 200, 204 or 405.',
      'Vault matches every such name against one pattern, a word character first and last (hashicorp/vault sdk/framework/path.go GenericNameRegex; vault/identity_store_oidc_provider.go oidcProviderPaths; vault-plugin-auth-azure path_role.go): a name ending in a period matches no route, ErrUnsupportedPath, 404.',
      'Key-value keys are no :name parameter (the spec writes <key>; Vault matches them with framework.MatchAllRegex), so they are left out.',
    ],
  }),
  rule({
    id: 'secrets.core.path-param-trailing-period-flows-404',
    title: "A provider name ending in periods answers 404 on the provider's discovery, key set, authorize, token and userinfo routes, while the same requests on the provider's own name succeed",
    level: 'MUST',
    sources: [
      { file, section: 'Endpoints', quote: 'Path parameters must not end with a period; otherwise the service answers 404 (unsupported path).' },
      { file, section: 'Errors', quote: 'path parameter ending in a period' },
    ],
    notes: [
      'Every request is first made on the working provider (discovery and keys 200, a code from authorize, tokens from the token endpoint, claims from userinfo), then the same request with the periods appended to its name must answer 404.',
      'Userinfo with the periods is sent with the client token rather than the access token: a token whose policy names only the provider\'s own userinfo path may be refused with 403 before routing ("a path the caller may not see" may answer either way), while a client token reaches routing. Vault lists oidc/provider/+/.well-known/* and +/token as unauthenticated, and + matches a name with a period, so those reach routing too (vault/identity_store.go PathsSpecial).',
    ],
  }),
  rule({
    id: 'secrets.core.name-one-segment',
    title: 'A name is one path segment: a write, read or delete of <collection>/<name>/<more> on scopes, clients, assignments and cloud-identity roles is refused and makes, reads or removes no resource named <name> or <name>/<more>',
    level: 'MUST',
    sources: [{ file, section: 'Endpoints', quote: "':name' is a path segment." }],
    notes: [
      'The refusal status is not asserted (404 or 405 both say the route does not exist); what is asserted is that nothing is made under either name and an existing <name> is neither read through the longer path nor changed or deleted by it. Vault anchors every route pattern at its end (sdk/framework/path.go: "The pattern will automatically have a ^ prepended and a $ appended"), so such a path matches no route: 404.',
      "Provider names are left out: the provider has routes beneath its name (authorize, token, ...), and the trailing-period rules probe those.",
    ],
  }),
  rule({
    id: 'secrets.versioning.v1-only',
    title: 'Only /v1/ serves the routes: the same path under another version prefix (/v2/, /v0/, /V1/, none) neither reads nor writes a secret',
    level: 'MUST',
    sources: [
      { file, section: 'Versioning', quote: 'All routes carry the prefix /v1/; version 1 is the only version.' },
      { file, section: 'Endpoints', quote: 'All paths below are under {base_url}/v1/.' },
    ],
    notes: [
      'The status is not asserted: Vault serves only /v1/ from its API handler and answers other paths with the Go mux\'s 404, or with a redirect to /ui/ when the UI is enabled (hashicorp/vault http/handler.go handler). What is asserted is that no secret is read, written or changed through them.',
    ],
  }),
  rule({
    id: 'secrets.limits.max-request-size',
    title: 'A request over the maximum request size (32 MB by default) is refused (not 2xx) with the error body and stores nothing; one just under it is accepted',
    level: 'MUST',
    sources: [{ file, section: 'Limits', quote: 'Maximum request size | 32 MB; tunable per listener in the server configuration' }],
    notes: [
      'The oversized body is made of fields under 1 MB each: Vault 1.20.3 and later check JSON limits first and answer a string value over max_json_string_value_length (1 MiB) with 500 (hashicorp/vault http/util.go wrapJSONLimitsHandler, sdk/helper/jsonutil VerifyMaxDepthStreaming); the size limit itself answers 413 (wrapMaxRequestSizeHandler, http.MaxBytesReader; sdk/logical AdjustErrorStatusCode).',
      'The body just under the limit is whitespace before a small object, so no storage entry limit (Raft max_entry_size) comes into play.',
      'Refused means not 2xx: the spec names the limit, not the status of the refusal (issue 53: refusals are "not 2xx" wherever the spec names no code).',
    ],
  }),
];

/** Spec 000, Authentication and the 403 status. */
export const secretsAuthRules: Rule[] = [
  rule({
    id: 'secrets.auth.token-required',
    title: 'Without a client token no operation on a secret succeeds (read, LIST, GET ?list=true, write, delete; on the version 2 engine too where the target has one): 403 with the error body, no data, nothing changed',
    level: 'MUST',
    sources: [
      { file, section: 'What the service does', quote: 'nearly every operation requires a client token' },
      { file, section: 'Errors', quote: 'Forbidden: wrong authentication' },
    ],
  }),
  rule({
    id: 'secrets.auth.bad-token-refused',
    title: 'A token the service did not issue is refused with 403 and reads no data',
    level: 'MUST',
    sources: [{ file, section: 'Errors', quote: 'Forbidden: wrong authentication' }],
    notes: [
      'Generated tokens leave out the shape Vault and OpenBao read as a batch token ("b." or "hvb." and a base64url body); three such tokens are sent last, on purpose: hvb.<base64url>, b.<base64url>, then b.<not base64url>. The products answer the last one 500 "error performing token check: illegal base64 data at input byte N" (vault/token_store.go lookupBatchTokenInternal, request_handling.go PopulateTokenEntry), listed in expectations/vault.json and openbao.json; checked last so that everything else is judged first.',
    ],
  }),
  rule({
    id: 'secrets.auth.token-headers-equivalent',
    title: 'The token works in X-Service-Token and in Authorization: Bearer, with the same answers',
    level: 'MUST',
    sources: [{ file, section: 'Authentication', quote: "A client token is sent in header X-Service-Token or in header 'Authorization: Bearer <token>'." }],
  }),
  rule({
    id: 'secrets.proxy.request-header-required',
    title: 'A proxy that requires the request header refuses requests without X-Service-Request and passes those with it',
    level: 'MUST',
    capability: 'requestHeaderProxy',
    sources: [{ file, section: 'Authentication', quote: 'A proxy configured to require a request header rejects requests without X-Service-Request; the examples set it to the text true.' }],
  }),
];

/** Spec 000, Errors. */
export const secretsErrorRules: Rule[] = [
  rule({
    id: 'secrets.errors.body-on-every-error',
    judgedOnEveryExchange: true,
    title: 'Every answer with status >= 400 has the body {"errors":[...]} (checked on every exchange of every rule)',
    level: 'MUST',
    sources: [
      { file, section: 'Errors', quote: 'For status >= 400 the body is {errors:[<message>, ...]}.' },
      { file, section: 'Resources and their fields > Error body', quote: 'Returned for every HTTP status >= 400' },
    ],
    notes: [
      'The OAuth endpoints (authorize, token, userinfo) are left out: the spec leaves the status and body of each OIDC condition "not shown", and Vault answers OAuth error bodies there (hashicorp/vault vault/identity_store_oidc_provider.go authResponse, tokenResponse, userInfoResponse).',
      'Vault answers a version 2 read of a deleted version with 404 and data and metadata, no errors (vault-plugin-secrets-kv path_data.go pathDataRead, logical.RespondWithStatusCode): listed in expectations/vault.json.',
    ],
  }),
  rule({
    id: 'secrets.errors.method-not-allowed-405',
    title: 'A method the spec gives no operation for on a path (DELETE or POST on the well-known documents, GET or DELETE on the token endpoint, DELETE on authorize) answers 405',
    level: 'MUST',
    sources: [{ file, section: 'Errors', quote: '405 | Method not supported on the path' }],
    notes: [
      'Not PATCH: Vault supports PATCH (JSON merge patch) and answers one without Content-Type 400, another media type 415 (hashicorp/vault http/logical.go buildLogicalRequestNoAuth). An operation a path does not define is ErrUnsupportedOperation, 405 (sdk/framework/backend.go Backend.HandleRequest, sdk/logical/response_util.go RespondErrorCommon); the OIDC paths define only the operations the spec lists (vault/identity_store_oidc_provider.go oidcProviderPaths).',
    ],
  }),
  rule({
    id: 'secrets.errors.unknown-path-404',
    title: 'A path no engine serves answers 404',
    level: 'MUST',
    sources: [{ file, section: 'Errors', quote: '404 | Invalid path, or no permission to see it' }],
  }),
  rule({
    id: 'secrets.errors.malformed-json-400',
    title: 'A write whose body is no JSON object (not JSON, JSON cut short, JSON of another type) answers 400',
    level: 'MUST',
    sources: [
      { file, section: 'Errors', quote: '400 | Invalid request, missing or invalid data' },
      { file, section: 'What the service does', quote: 'Request and response bodies are normally JSON.' },
    ],
    notes: [
      'Every fixed case runs on every run, so the verdict never depends on the seed; bodies that are a complete object followed by more text are a rule of their own (secrets.errors.trailing-json-400).',
      'Vault 1.20.3 and later answer 500 for a body that begins with { or [ and is not one JSON value (hashicorp/vault http/util.go wrapJSONLimitsHandler, sdk/helper/jsonutil VerifyMaxDepthStreaming): listed in expectations/vault.json as a conditional deviation.',
    ],
  }),
  rule({
    id: 'secrets.errors.trailing-json-400',
    title: 'A write whose body is a JSON object followed by more text (a second brace, another object, a stray character) answers 400 and stores nothing',
    level: 'MUST',
    sources: [
      { file, section: 'Errors', quote: '400 | Invalid request, missing or invalid data' },
      { file, section: 'What the service does', quote: 'Request and response bodies are normally JSON.' },
    ],
    notes: [
      'Vault before 1.20.3 decodes the first JSON value and never reads the rest, so such a write succeeds (hashicorp/vault sdk/helper/jsonutil DecodeJSONFromReader, http/logical.go parseJSONRequest); 1.20.3 and later answer 500 (http/util.go wrapJSONLimitsHandler). Listed in expectations/vault.json.',
    ],
  }),
];

/** Spec 000, namespaces (an Enterprise capability the target declares). */
export const secretsNamespaceRules: Rule[] = [
  rule({
    id: 'secrets.ns.header-path-equivalence',
    title: 'Any split of a namespace path between X-Service-Namespace and the request path gives the same result',
    level: 'MUST',
    capability: 'namespaces',
    sources: [
      {
        file,
        section: 'Authentication',
        quote: 'Using the full path without the header, or splitting the namespace between header and path, is equivalent.',
      },
      { file, section: 'Authentication', quote: "With path secret/foo and header 'ns1/ns2/' the effective path is ns1/ns2/secret/foo." },
    ],
    notes: [
      'Namespaces are a Vault Enterprise feature whose request handling is not in the public source; the public part trims the namespace resolved for the request from the path (hashicorp/vault http/logical.go buildLogicalRequestNoAuth, namespace.Namespace.TrimmedPath), and header + path joining is documented and confirmed in hashicorp/vault issue 12675. Splits are cut at segment boundaries only, and every namespace the profile lists needs the version 1 engine at kv.v1Mount.',
    ],
  }),
  rule({
    id: 'secrets.ns.isolation',
    title: 'A secret written in one namespace is not found at the same relative path in another',
    level: 'MUST',
    capability: 'namespaces',
    sources: [{ file, section: 'Authentication', quote: 'Namespaces: the request path is relative to the X-Service-Namespace header.' }],
  }),
  rule({
    id: 'secrets.ns.neighbour-paths',
    title:
      "For generated reads of a namespace's secret and of its neighbours (a namespace whose name begins like another's, its child, a header/path cut inside a segment or one character over, a header without its trailing slash), each answer is exactly what the namespace the header and path name together holds",
    level: 'MUST',
    capability: 'namespaces',
    sources: [
      { file, section: 'Authentication', quote: "With path secret/foo and header 'ns1/ns2/' the effective path is ns1/ns2/secret/foo." },
      { file, section: 'Authentication', quote: 'Using the full path without the header, or splitting the namespace between header and path, is equivalent.' },
      { file, section: 'Errors', quote: '404 | Invalid path, or no permission to see it' },
    ],
    notes: [
      'Judged against suites/models/secrets-namespaces.ts: the header is a namespace path (a header without its trailing slash names the same namespace, so a cut inside a segment names a namespace that does not exist, never the prefix-named one), and the path resolves in the deepest namespace whose segments begin it. Each read is asked beside a neighbour that differs in one attribute.',
      'The spec does not show how namespaces are made: the rule makes `a`, `ab` and `a/c` (under the run prefix) through sys/namespaces, as Vault Enterprise, OpenBao 2.3+ (openbao/openbao vault/logical_system_namespaces.go) and the reference serve it, each with a version 1 engine at kv.v1Mount, and removes them at the end; SKIP where sys/namespaces answers 404.',
    ],
  }),
  rule({
    id: 'secrets.upstream.ns-admin-tree',
    title:
      "sys/namespaces makes, reads, lists and deletes a namespace's direct children: a list names exactly the namespaces one segment below the request's namespace, a read finds a child by its name in its parent only, a name with '/' or a wildcard, a name taken by a mount's first segment and the deletion of a namespace with children are refused (400), and a refused request changes nothing",
    level: 'UPSTREAM',
    capability: 'namespaces',
    sources: [
      { file, section: 'Authentication', quote: 'Namespaces: the request path is relative to the X-Service-Namespace header.' },
      { file, section: 'Endpoints', quote: 'Returns data.keys. When the result is empty the status is 404 with {errors:[]}' },
    ],
    upstream: {
      product: 'OpenBao 2.3+, Vault Enterprise',
      source: 'openbao/openbao vault/logical_system_namespaces.go (handleNamespacesList, handleNamespacesRead, handleNamespacesSet, handleNamespacesDelete), vault/namespace_store.go (ListNamespaces, DeleteNamespace)',
      note: 'the spec does not show how namespaces are made; Vault Enterprise documents sys/namespaces (developer.hashicorp.com/vault/api-docs/system/namespaces) and OpenBao serves it since 2.3. Confirmed on OpenBao 2.6.2',
    },
    notes: [
      "Judged against suites/models/secrets-namespaces.ts (childKeys); keys are compared as sets (OpenBao lists them unsorted). Where sys/namespaces answers 404 or 405 (the spec dialect, Vault CE, OpenBao before 2.3) only the namespace header with extra slashes is asked, in a namespace made through the control interface where the profile names one (else SKIP); except on a target whose sys/health says \"enterprise\": true in the hashicorp dialect: Vault Enterprise always serves sys/namespaces, so there it FAILs.",
      "Where the products differ, every answer passes: a read of a name with '/' is 400 (OpenBao) or 404; the delete of a missing namespace is 200 with a warning (OpenBao) or 204; a write without custom_metadata over an existing namespace is not asked (OpenBao empties it). Error texts differ between the products and are not compared: a refusal (400) carries a message that is not empty (and names custom_metadata when that field is wrong), an operation the path lacks is 405 \"unsupported operation\" and the path beside sys/namespaces 404 \"unsupported path\", as both OpenBao and Vault's framework word them.",
      'Also asks the namespace header with extra slashes ("//a//") and "/" alone (the root): OpenBao canonicalises both (helper/namespace Canonicalize after the header is trimmed), as the model\'s normalizeNamespace does.',
    ],
  }),
  rule({
    id: 'secrets.upstream.ns-token-reach',
    title:
      'A token made in a namespace reaches that namespace and those below it, never its parent, a sibling or a namespace whose name begins like its own; a namespace deleted and made again holds nothing of the old one, and the old tokens reach nothing in it',
    level: 'UPSTREAM',
    capability: 'namespaces',
    sources: [{ file, section: 'Authentication', quote: 'Namespaces: the request path is relative to the X-Service-Namespace header.' }],
    upstream: {
      product: 'OpenBao, Vault Enterprise',
      source: 'openbao/openbao vault/request_handling.go (CheckToken), vault/namespace_store.go (DeleteNamespace)',
      note: "a token is refused (403 permission denied) outside its own namespace and those below it; deleting a namespace revokes its tokens (Vault Enterprise: documented, source closed)",
    },
    notes: [
      'The spec does not say what a namespaced token may reach. Vault Enterprise documents that a token is tied to the namespace it was made in and is usable there and in its child namespaces (developer.hashicorp.com/vault/docs/enterprise/namespaces); OpenBao refuses a token whose namespace is neither the request\'s nor an ancestor of it (openbao/openbao vault/request_handling.go CheckToken: "permission denied"), and deleting a namespace revokes its tokens (vault/namespace_store.go DeleteNamespace). Confirmed on OpenBao 2.6.2.',
      'Tokens: an entity\'s token from the identity fixtures where the profile has them; on a product driven by the upstream provisioner, a token made through auth/token/create in the namespace with a policy of that namespace granting read on "*", so only the namespace boundary decides. Judged against suites/models/secrets-namespaces.ts; a refusal is 403 or 404 (Authentication 7: "a path the caller may not see can answer 404").',
    ],
  }),
];
