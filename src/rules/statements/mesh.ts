import type { StatementMap } from './types.ts';

const DOES = 'What the service does';
const AUTHZ_REQ = 'Resources and their fields > Authorize request';
const AUTHZ_RES = 'Resources and their fields > Authorize response';
const ROOTS = 'Resources and their fields > CA roots response';
const LEAF = 'Resources and their fields > Leaf certificate response';
const ENDPOINTS = 'Endpoints';
const NS = 'Endpoints > Namespace selection (Enterprise), highest precedence first';
const AUTH = 'Authentication';
const NAMESPACES = 'namespaces';

/** The testable statements of the connect endpoints (spec 001), each with the rules that assert it or why none can. */
export const meshStatements: StatementMap = {
  system: 'mesh',
  part: 'connect endpoints (spec 001)',
  statements: [
    // What the service does
    {
      id: 'mesh.does.under-agent-connect',
      section: DOES,
      quote: 'The agent exposes local service-mesh operations under /agent/connect.',
      claim: 'Authorize, CA roots and leaf answer at their /v1/agent/connect paths.',
      rules: ['mesh.endpoints.json'],
    },
    {
      id: 'mesh.does.may-mirror',
      section: DOES,
      quote: 'They may mirror the non-agent mesh endpoints.',
      untestable: 'A permission ("may"), about endpoints this document does not describe: every answer of the agent endpoints is allowed whether or not another endpoint gives the same.',
    },
    {
      id: 'mesh.does.local-cache',
      section: DOES,
      quote: 'Most of them are answered from local cache, avoiding requests to a server.',
      untestable: 'Whether the agent asked a server is invisible to its client: the answer is the same either way, and the spec names no header that tells (the cache behaviour a client can see, a leaf returned until near expiry or a rotation, is asserted under Leaf behaviour).',
    },
    {
      id: 'mesh.does.authorize-tests-connection',
      section: DOES,
      quote: 'Authorize tests whether a connection between two services is permitted.',
      rules: ['mesh.authorize.intentions', 'mesh.authorize.reason', 'mesh.authorize.intention-neighbours'],
      neighbours: [
        { scope: 'another source of the same destination', rule: 'mesh.authorize.intention-neighbours', example: 'an intention A -> X allow: B -> X gets the answer of a connection no intention covers (learned from two fresh services)' },
        { scope: 'another destination of the same source', rule: 'mesh.authorize.intention-neighbours', example: 'an intention A -> X deny: A -> Y gets the no-match answer' },
        { scope: "the source's namespace", rule: 'mesh.authorize.intention-neighbours', example: 'an intention ns-a/A -> X allow: ns-b/A -> X (its leaf names ns-b) gets the no-match answer; needs namespaces' },
        { scope: "the destination's namespace", rule: 'mesh.authorize.intention-neighbours', example: 'an intention A -> ns-a/X allow: A -> ns-b/X (?ns=ns-b) gets the no-match answer; needs namespaces' },
        { scope: 'a wildcard source beside an exact one (strict profile)', rule: 'mesh.upstream.intention-precedence', example: '* -> X deny and A -> X allow: A -> X allowed, B -> X denied' },
        { scope: 'a wildcard destination beside a wildcard source (strict profile)', rule: 'mesh.upstream.intention-precedence', example: 'A -> * allow and * -> X deny: A -> X denied (precedence 8 over 6), A -> Y allowed' },
        { scope: "a wildcard source of another namespace, and an exact source of the same name there (strict profile)", rule: 'mesh.upstream.intention-precedence', example: 'ns-b/* -> X allow and ns-b/A -> Y allow: default/A -> X and default/A -> Y get the no-match answer, ns-b/A -> X allowed; needs namespaces' },
      ],
    },
    {
      id: 'mesh.does.caller-verified-cert',
      section: DOES,
      quote: 'The caller must already have verified the client TLS certificate against the current CA roots.',
      untestable: 'An obligation of the caller: the agent never sees the client certificate, only the URI and serial the caller sends, so nothing it answers can depend on whether the caller verified it.',
    },
    {
      id: 'mesh.does.roots-verify',
      section: DOES,
      quote: 'CA roots returns the trusted root certificates so that proxies can verify certificates.',
      claim: 'The roots are X.509 CA certificates, the active one is named, and every leaf verifies against it (after a rotation, against the new one).',
      rules: ['mesh.roots.documented-fields', 'mesh.leaf.chains-to-active-root', 'mesh.roots.rotation'],
    },
    {
      id: 'mesh.does.roots-fail-open',
      section: DOES,
      quote: 'It is cached locally, which gives fast answers and fail-open behaviour when the server is unavailable.',
      untestable: 'Fail-open needs the servers to be unavailable while the agent answers: a client of the agent\'s HTTP API cannot take the servers away (the fixtures only rotate the CA and make intentions, tokens and namespaces), and "fast" has no bound.',
    },
    {
      id: 'mesh.does.leaf-server-and-client',
      section: DOES,
      quote: 'Leaf certificate returns the certificate of one service, used as server certificate for inbound connections and as client certificate for outbound ones.',
      claim: 'The leaf identifies the one requested service (URI SAN), is no CA, and its key usages allow TLS server and client authentication.',
      rules: ['mesh.leaf.key-usages', 'mesh.leaf.uri-san', 'mesh.leaf.identity-neighbours'],
    },
    {
      id: 'mesh.does.leaf-signed-by-ca',
      section: DOES,
      quote: 'The agent creates a signing request locally, has it signed by the CA',
      claim: 'The leaf is signed by the CA (it chains to the active root) and comes with the private key of its public key. Where the signing request is made is not observable.',
      rules: ['mesh.leaf.chains-to-active-root', 'mesh.leaf.private-key'],
    },
    {
      id: 'mesh.does.leaf-cached-until',
      section: DOES,
      quote: 'caches the result, and returns it until near expiry or until the roots change',
      rules: ['mesh.leaf.cached', 'mesh.leaf.new-after-rotation', 'mesh.leaf.renewed-when-expired', 'mesh.leaf.blocking-wakes-on-expiry'],
    },
    {
      id: 'mesh.does.permissions-deny',
      section: DOES,
      quote: 'Authorize treats every intention that defines Permissions as a deny intention, because it only suits layer-4 integration.',
      rules: ['mesh.authorize.permissions-deny', 'mesh.authorize.intentions'],
    },
    {
      id: 'mesh.does.enforcement-advice',
      section: DOES,
      quote: "For enforcement, listing intentions for the destination and putting them into the proxy's native configuration is preferred.",
      untestable: 'Advice to integrators about how to enforce intentions in a proxy: it states nothing about what the agent answers.',
    },

    // Resources and their fields
    {
      id: 'mesh.authorize-request.target',
      section: AUTHZ_REQ,
      quote: '| Target | string | yes | Name of the requested service |',
      claim: 'Target names the destination whose intentions decide; a request without it, or with a non-string one, is refused (SHOULD: no refusal is stated).',
      rules: ['mesh.authorize.intentions', 'mesh.authorize.request-validation'],
    },
    {
      id: 'mesh.authorize-request.client-cert-uri',
      section: AUTHZ_REQ,
      quote: '| ClientCertURI | string | yes | Identifier of the requesting client; currently the URI SAN of its TLS client certificate |',
      claim: "The leaf URI of the source service identifies the source whose intention decides; a missing or non-service identifier is refused (SHOULD); under the strict profile, as Consul reads it (URL parsing, the SPIFFE forms, Consul's refusals).",
      rules: ['mesh.authorize.intentions', 'mesh.authorize.request-validation', 'mesh.upstream.authorize-refusals'],
    },
    {
      id: 'mesh.authorize-request.client-cert-serial',
      section: AUTHZ_REQ,
      quote: '| ClientCertSerial | string | yes | Colon-hex-encoded serial number of the client certificate |',
      claim: 'A missing or non-colon-hex ClientCertSerial is refused (SHOULD: the field is required, no refusal is stated).',
      rules: ['mesh.authorize.serial-format'],
    },
    {
      id: 'mesh.authorize-request.namespace',
      section: AUTHZ_REQ,
      quote: "| Namespace | string | no | Default ''. Enterprise. Takes precedence over the ns query parameter |",
      rules: ['mesh.ns.authorize-body-precedence'],
      capability: NAMESPACES,
    },
    { id: 'mesh.authorize-response.authorized', section: AUTHZ_RES, quote: '| Authorized | boolean |', rules: ['mesh.authorize.intentions', 'mesh.authorize.reason'] },
    { id: 'mesh.authorize-response.reason', section: AUTHZ_RES, quote: '| Reason | string (explains the matched intention and its action) |', rules: ['mesh.authorize.reason'] },
    {
      id: 'mesh.roots.active-root-id',
      section: ROOTS,
      quote: '| ActiveRootID | string | ID of the active root |',
      rules: ['mesh.roots.documented-fields', 'mesh.roots.rotation'],
    },
    { id: 'mesh.roots.roots-array', section: ROOTS, quote: '| Roots | array of root | |', rules: ['mesh.roots.documented-fields'] },
    {
      id: 'mesh.roots.root-fields',
      section: ROOTS,
      quote:
        'Root fields: ID (string), Name (string), SerialNumber (integer), SigningKeyID (string), ExternalTrustDomain (string), NotBefore (timestamp string, ISO 8601), NotAfter (timestamp string), RootCert (PEM string), IntermediateCerts (null or list), Active (boolean), PrivateKeyType (string), PrivateKeyBits (integer), CreateIndex (integer), ModifyIndex (integer).',
      rules: ['mesh.roots.documented-fields'],
    },
    {
      id: 'mesh.leaf.serial-number',
      section: LEAF,
      quote: '| SerialNumber | string | Monotonically increasing 64-bit serial across all certificates issued by the cluster |',
      claim: "SerialNumber is a string, the certificate's serial, below 2^64, and each new certificate's is above every earlier one across services.",
      rules: ['mesh.leaf.fields', 'mesh.leaf.serial-monotonic', 'mesh.leaf.serial-64-bit'],
    },
    { id: 'mesh.leaf.cert-pem', section: LEAF, quote: '| CertPEM | string | PEM certificate |', rules: ['mesh.leaf.fields', 'mesh.leaf.chains-to-active-root'] },
    { id: 'mesh.leaf.private-key-pem', section: LEAF, quote: '| PrivateKeyPEM | string | PEM private key |', rules: ['mesh.leaf.private-key'] },
    { id: 'mesh.leaf.service', section: LEAF, quote: '| Service | string | Service the certificate identifies |', rules: ['mesh.leaf.uri-san', 'mesh.leaf.service-need-not-exist'] },
    {
      id: 'mesh.leaf.service-uri',
      section: LEAF,
      quote: '| ServiceURI | string | URI SAN of the service |',
      rules: ['mesh.leaf.uri-san', 'mesh.leaf.identity-neighbours'],
      neighbours: [
        { scope: 'another service of the same namespace', rule: 'mesh.leaf.identity-neighbours', example: 'the leaves of S and S2: each URI (and its one URI SAN) names its own service, each its own certificate and key' },
        { scope: 'the same service in another namespace', rule: 'mesh.leaf.identity-neighbours', example: 'the leaves of default/S, ns-a/S, ns-b/S: three leaves, each URI naming its namespace, each asked again after the others still its own; needs namespaces' },
        { scope: 'a namespace and service whose names join to the same string', rule: 'mesh.leaf.identity-neighbours', example: "N/x-S beside N-x/S, N/xS beside Nx/S: each leaf names its own namespace and service, also asked again after the other; ?ns= empty names default; needs namespaces" },
        { scope: 'services whose names are joins of one another', rule: 'mesh.leaf.identity-neighbours', example: 'S, S-x, x-S, S_x, x_S, S.x, x.S, Sx, xS: nine leaves, each naming the service asked, each its own certificate (runs without namespaces too)' },
      ],
      wrongWays: [
        { kind: 'other-namespace', how: "The leaf cache keys a leaf by its namespace and service joined with '-', which both names may hold, so another namespace's leaf is handed out.", rule: 'mesh.leaf.identity-neighbours', example: 'the leaf of N/x-S, then of N-x/S: the second names N-x and S; needs namespaces', fault: 'mesh.leaf-cache-key-joined' },
      ],
    },
    { id: 'mesh.leaf.valid-after', section: LEAF, quote: '| ValidAfter | string timestamp | Start of validity |', rules: ['mesh.leaf.validity'] },
    { id: 'mesh.leaf.valid-before', section: LEAF, quote: '| ValidBefore | string timestamp | End of validity |', rules: ['mesh.leaf.validity'] },
    {
      id: 'mesh.leaf.namespace',
      section: LEAF,
      quote: '| Namespace | string | Namespace of the service |',
      rules: ['mesh.leaf.fields', 'mesh.ns.leaf-precedence', 'mesh.leaf.identity-neighbours'],
      capability: NAMESPACES,
    },
    { id: 'mesh.leaf.create-index', section: LEAF, quote: '| CreateIndex | integer | |', rules: ['mesh.leaf.fields'] },
    { id: 'mesh.leaf.modify-index', section: LEAF, quote: '| ModifyIndex | integer | |', rules: ['mesh.leaf.fields'] },

    // Endpoints
    { id: 'mesh.endpoints.json', section: ENDPOINTS, quote: 'All three produce application/json.', rules: ['mesh.endpoints.json'] },
    {
      id: 'mesh.endpoints.authorize-row',
      section: ENDPOINTS,
      quote: "| POST | /v1/agent/connect/authorize | ns (string, default '', Enterprise, namespace of the target service) | Authorize request | Authorize response | no | none | background refresh | service:write |",
      claim: 'POST /v1/agent/connect/authorize takes an authorize request and answers an authorize response; ?ns (Enterprise) names the target\'s namespace; service:write on the target is required. Blocking "no" and the caching column describe nothing a client can tell apart.',
      rules: ['mesh.authorize.intentions', 'mesh.acl.authorize', 'mesh.ns.authorize-body-precedence'],
    },
    {
      id: 'mesh.endpoints.roots-row',
      section: ENDPOINTS,
      quote: '| GET | /v1/agent/connect/ca/roots | none | none | CA roots response | yes | all | background refresh | none |',
      claim: 'GET /v1/agent/connect/ca/roots answers a CA roots response with no ACL token, and a blocking query returns when the roots change.',
      rules: ['mesh.roots.documented-fields', 'mesh.roots.blocking', 'mesh.roots.no-acl'],
    },
    {
      id: 'mesh.endpoints.leaf-row',
      section: ENDPOINTS,
      quote: "| GET | /v1/agent/connect/ca/leaf/:service | ns (string, default '', Enterprise, namespace of the certificate) | none | Leaf certificate response | yes | all | background refresh | service:write |",
      claim: 'GET /v1/agent/connect/ca/leaf/:service answers a leaf response; ?ns (Enterprise) is the namespace of the certificate; blocking queries are supported; service:write on the service is required.',
      rules: ['mesh.leaf.fields', 'mesh.leaf.blocking-timeout', 'mesh.acl.leaf', 'mesh.ns.leaf-precedence'],
    },
    {
      id: 'mesh.endpoints.service-need-not-exist',
      section: ENDPOINTS,
      quote: 'Path parameter: service (string, required): name of the service; it need not exist in the catalog, but ACL permission is required.',
      rules: ['mesh.leaf.service-need-not-exist', 'mesh.acl.leaf'],
    },
    {
      id: 'mesh.endpoints.leaf-non-blocking',
      section: ENDPOINTS,
      quote: 'A non-blocking query always checks that the leaf is unexpired and that the roots are unchanged; otherwise a new leaf is generated.',
      rules: ['mesh.leaf.cached', 'mesh.leaf.renewed-when-expired', 'mesh.leaf.new-after-rotation'],
    },
    {
      id: 'mesh.endpoints.leaf-blocking',
      section: ENDPOINTS,
      quote: 'A blocking query waits until a new certificate is needed (expiring, expired, or root rotation) or the query timeout elapses.',
      rules: ['mesh.leaf.blocking-wakes-on-expiry', 'mesh.leaf.blocking-wakes-on-rotation', 'mesh.leaf.blocking-timeout'],
      wrongWays: [
        { kind: 'older-index-blocks', how: 'Any query with an index blocks, even one whose index is already behind the leaf it would get (strict profile: the spec leaves the blocking parameters not shown).', rule: 'mesh.upstream.older-index-at-once', example: "the leaf's index header less one, with a 15 s wait: answered before the wait elapsed", fault: 'mesh.leaf-blocks-on-older-index' },
        { kind: 'older-index-blocks', how: 'The same on the roots (strict profile).', rule: 'mesh.upstream.older-index-at-once', example: "the roots' index header less one, with a 15 s wait: answered before the wait elapsed", fault: 'mesh.roots-blocks-on-older-index' },
      ],
    },

    // Namespace selection (Enterprise)
    {
      id: 'mesh.ns.body-register-only',
      section: NS,
      quote: 'Namespace field of the JSON body (applies to the register endpoint only).',
      untestable: "The register endpoint is not part of this document, so no request here can show this rank; authorize's own body Namespace, which its request table ranks above ?ns, is asserted there (mesh.ns.authorize-body-precedence).",
      capability: NAMESPACES,
    },
    { id: 'mesh.ns.query', section: NS, quote: '2. ns query parameter.', rules: ['mesh.ns.leaf-precedence', 'mesh.ns.authorize-body-precedence'], capability: NAMESPACES },
    { id: 'mesh.ns.header', section: NS, quote: 'X-Mesh-Namespace request header.', rules: ['mesh.ns.leaf-precedence', 'mesh.ns.authorize-body-precedence'], capability: NAMESPACES },
    {
      id: 'mesh.ns.token',
      section: NS,
      quote: "Namespace of the request's ACL token, if any.",
      rules: ['mesh.ns.leaf-precedence'],
      capability: NAMESPACES,
      neighbours: [
        { scope: 'no token namespace beside a token of namespace T', rule: 'mesh.ns.leaf-precedence', example: "the same leaf request without and with a token of T (no ?ns, no header): 'default' and T" },
        { scope: 'a token of T beside ?ns or the header naming another namespace', rule: 'mesh.ns.leaf-precedence', example: 'every subset of query, header and token: the first present wins; a token of T asked for a leaf in another namespace is refused or the leaf is in the winner' },
      ],
      wrongWays: [
        { kind: 'other-namespace', how: "The token's namespace is not used to select one: its leaf comes from 'default'.", rule: 'mesh.ns.leaf-precedence', example: "a token of namespace T with no ?ns or header: the leaf is in T", fault: 'mesh.ns-token-namespace-ignored' },
      ],
    },
    { id: 'mesh.ns.default', section: NS, quote: "The namespace 'default'.", rules: ['mesh.ns.leaf-precedence'], capability: NAMESPACES },

    // Authentication
    { id: 'mesh.auth.acls', section: AUTH, quote: 'Access is governed by ACLs.', rules: ['mesh.acl.authorize', 'mesh.acl.leaf'] },
    {
      id: 'mesh.auth.permissions',
      section: AUTH,
      quote: 'Required permissions are in the endpoint table (service:write for authorize and leaf; none for roots).',
      claim: 'Authorize and leaf (non-blocking and blocking) refuse no token, an unknown token and one without service:write on the service with a 4xx; roots answers without a token.',
      rules: ['mesh.acl.authorize', 'mesh.acl.leaf', 'mesh.roots.no-acl', 'mesh.acl.neighbours', 'mesh.acl.policy-change'],
      neighbours: [
        { scope: 'another service of the same token', rule: 'mesh.acl.neighbours', example: 'a token with write on S1 and read on S2: S1 answered on authorize and leaf, S2 refused' },
        { scope: 'read instead of write on the same service', rule: 'mesh.acl.neighbours', example: 'two tokens, write and read on S: the first answered, the second refused' },
        { scope: 'another token on the same service', rule: 'mesh.acl.neighbours', example: 'token A with write on S, token B with nothing on S: A answered, B refused' },
        { scope: "another namespace than the token's: its parent default and a sibling", rule: 'mesh.acl.neighbours', example: 'a token of ns-a with write on S: S in ns-a answered, S in default and in ns-b refused; needs namespaces' },
        { scope: 'the same token after its policy changed', rule: 'mesh.acl.policy-change', example: 'write on S revoked: authorize refused (after at most 35 s), the leaf refused or the very leaf handed before; write given: answered' },
        { scope: 'the same token after its deletion', rule: 'mesh.acl.policy-change', example: 'a deleted token: authorize refused, the leaf refused or the one held' },
        { scope: 'an exact rule under a prefix rule (strict profile)', rule: 'mesh.upstream.acl-rule-precedence', example: 'service_prefix "P" write with service "P-ab" deny: P-ab refused, P-a and P-abc answered; and the reverse' },
        { scope: 'a longer prefix under a shorter one (strict profile)', rule: 'mesh.upstream.acl-rule-precedence', example: 'service_prefix "P" deny with service_prefix "P-a" write: P-abc answered, P-b refused' },
        { scope: 'service and service_prefix of one name (strict profile)', rule: 'mesh.upstream.acl-rule-precedence', example: 'service "P-a" read with service_prefix "P-a" write: P-a refused, P-ab answered' },
        { scope: 'service:read instead of service:write for the same token and name (strict profile, hashicorp dialect: the intention check)', rule: 'mesh.upstream.acl-rule-precedence', example: 'service "P" read: the intention check towards P answered, its leaf refused; service "P" deny under service_prefix "" read: both refused' },
        { scope: 'a name just outside a prefix, and nested prefixes written longest first (strict profile)', rule: 'mesh.upstream.acl-rule-precedence', example: 'service_prefix "P-b" write: P-b answered, P-c and P-ab refused; service_prefix "P-ab" write, "P-a" read, "P" deny: P-abc answered, P-a read only, P-c refused' },
        { scope: 'a key rule of each word, list included, and the key just outside it (strict profile, hashicorp dialect: the key/value API)', rule: 'mesh.upstream.acl-rule-precedence', example: 'key_prefix "K" list: GET K/a answered (404), DELETE K/a refused; key "K/a" deny under it: both refused; K-other: both refused' },
        { scope: 'the acl word in another policy of the same token, and the operator word beside it (strict profile, hashicorp dialect: the ACL API)', rule: 'mesh.upstream.acl-rule-precedence', example: 'acl read + acl write: policies listed and a policy create passes the check; acl write + acl deny: both refused; operator write alone: both refused' },
        { scope: 'a service identity instead of a policy: its service, the sidecar proxy, a name extending the service (strict profile, hashicorp dialect)', rule: 'mesh.upstream.acl-rule-precedence', example: 'ServiceIdentities [S]: leaf and authorize of S and S-sidecar-proxy answered, of S-x refused; the intention check towards any service answered' },
        { scope: 'the same name and kind with another word in another policy of the token, in both orders (strict profile)', rule: 'mesh.upstream.acl-rule-precedence', example: 'policy 1 service "P-a" deny + policy 2 service "P-a" write: P-a refused, and with the policies the other way round; service_prefix "P-a" read + write: P-ab answered, in either order; read + read: refused' },
        { scope: 'an exact rule in one policy under a prefix rule of another (strict profile)', rule: 'mesh.upstream.acl-rule-precedence', example: 'policy 1 service "P-b" deny + policy 2 service_prefix "P" write: P-b refused, P-c answered' },
        { scope: "a policy scoped to another datacenter than the agent's (strict profile)", rule: 'mesh.upstream.acl-rule-precedence', example: 'Datacenters ["dc1x"], ["dc"], ["DC1"] on agent dc1: the policy grants and denies nothing; Datacenters ["dc1"], [], none, ["dc1x", "dc1"]: it applies' },
        { scope: "the namespace's default policies, and another namespace's token (strict profile, hashicorp dialect)", rule: 'mesh.upstream.acl-rule-precedence', example: 'namespace N with PolicyDefaults [service "S" write]: a token of N whose own policy names only O gets the leaf of N/S, not of N/O; a token of default is refused default/S; needs namespaces' },
      ],
      wrongWays: [
        { kind: 'exact-vs-prefix', how: 'An exact grant on "web" is matched as a prefix and also covers "web-x".', rule: 'mesh.acl.leaf', example: 'a token with service:write on S exactly asks for the leaf of S-x: refused', fault: 'mesh.acl-exact-rule-as-prefix' },
        { kind: 'exact-vs-prefix', how: 'The same on authorize: the Target is matched against the grant by prefix.', rule: 'mesh.acl.authorize', example: 'a token with service:write on T exactly authorizes for Target T-x: refused', fault: 'mesh.acl-exact-rule-as-prefix' },
        { kind: 'read-vs-write', how: 'Any grant on the service passes, service:read included.', rule: 'mesh.acl.leaf', example: 'a token with service:read on a service no one holds a leaf of asks for it: refused', fault: 'mesh.acl-read-grants-write' },
        { kind: 'read-vs-write', how: 'The same on authorize.', rule: 'mesh.acl.authorize', example: 'a token with service:read on the Target: refused', fault: 'mesh.acl-read-grants-write' },
        { kind: 'wrong-subject', how: "Authorize checks the client's (source) service, which the caller also names, instead of the Target.", rule: 'mesh.acl.authorize', example: "a token with service:write on the client certificate's service only: refused", fault: 'mesh.authorize-acl-on-source' },
        { kind: 'other-namespace', how: "A token's rules are applied in whatever namespace the request selects, not only the token's own.", rule: 'mesh.acl.leaf', example: 'a token of namespace A with service:write on S asks for S with ?ns=B: refused (and answered with ?ns=A); needs namespaces', fault: 'mesh.acl-token-rules-every-namespace' },
        { kind: 'other-namespace', how: 'The same on authorize.', rule: 'mesh.acl.authorize', example: 'a token of namespace A with service:write on T authorizes T with ?ns=B: refused; needs namespaces', fault: 'mesh.acl-token-rules-every-namespace' },
        { kind: 'route-or-verb-unchecked', how: 'A blocking query for a leaf the agent already holds is answered from its cache without the check.', rule: 'mesh.acl.leaf', example: 'a blocking query without a token for a held leaf: refused', fault: 'mesh.leaf-blocking-skips-acl' },
        { kind: 'first-item-only', how: "Of a token's policies naming one service, only the last linked is consulted: its word replaces the earlier one's instead of the strongest winning (strict profile: the rule language is Consul's).", rule: 'mesh.upstream.acl-rule-precedence', example: 'policy 1 service "P-a" deny + policy 2 service "P-a" write: P-a refused, in both orders', fault: 'mesh.acl-merge-last-policy-wins' },
      ],
    },
    {
      id: 'mesh.auth.caller-verified',
      section: AUTH,
      quote: 'Authorize presupposes that the caller has verified the client certificate against the current roots.',
      untestable: 'A presupposition about the caller: the agent receives only the certificate\'s URI and serial, never the certificate, so its answer cannot show whether the caller verified it.',
    },

    // Limits
    {
      id: 'mesh.limits.leaf-blocking-timeout',
      section: 'Limits',
      quote: '| Blocking query timeout on the leaf endpoint | 10 minutes |',
      claim: 'A blocking leaf query asking for a longer wait returns, unchanged, after at most 10 minutes.',
      untestable:
        'Observable only by holding a leaf query for more than 10 minutes with nothing changing: possible from outside, but it would make every conformance run and every fault-matrix run of the rule last over 10 minutes, so no rule asserts it (the reference caps waits at 10 minutes: src/reference/mesh/service.ts MAX_WAIT_MS).',
    },

    // Versioning
    { id: 'mesh.versioning.v1-prefix', section: 'Versioning', quote: 'Requests use the path prefix /v1.', claim: 'The three endpoints answer under /v1.', rules: ['mesh.endpoints.json'] },
  ],
  nonStatements: [
    { section: DOES, quote: 'Callers are proxies or native integrations.', why: 'Describes who calls the endpoint; the agent answers any client alike.' },
    { section: 'States and transitions', quote: 'No resource states are named.', why: 'Says the section is empty.' },
    { section: ENDPOINTS, quote: 'Leaf behaviour:', why: 'The heading of the two leaf statements that follow it.' },
    { section: 'Events', quote: 'No events are described for these endpoints.', why: 'Says the section is empty.' },
  ],
};
