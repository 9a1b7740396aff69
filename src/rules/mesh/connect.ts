import type { Rule } from '../types.ts';
import { SPEC_FILES } from '../spec-files.ts';

const file = SPEC_FILES.mesh;
const LEAF = 'Resources and their fields > Leaf certificate response';
const AUTHZ = 'Resources and their fields > Authorize request';
const DOES = 'What the service does';
const ENDPOINTS = 'Endpoints';
const NS = 'Endpoints > Namespace selection (Enterprise), highest precedence first';
const FIX = 'meshFixtures';
const rule = (r: Omit<Rule, 'system' | 'level'> & { level?: Rule['level'] }): Rule => ({ system: 'mesh', level: 'MUST', ...r });
const leafBehaviour1 = { file, section: ENDPOINTS, quote: 'A non-blocking query always checks that the leaf is unexpired and that the roots are unchanged; otherwise a new leaf is generated.' };
const leafBehaviour2 = { file, section: ENDPOINTS, quote: 'A blocking query waits until a new certificate is needed (expiring, expired, or root rotation) or the query timeout elapses.' };

// Upstream citations that settled how a test judges where the spec leaves a choice (Rule.notes).
const CE_NO_NAMESPACE =
  'Consul CE leaves Namespace out of the leaf: hashicorp/consul agent/structs/connect_ca.go IssuedCert embeds acl.EnterpriseMeta, an empty struct in CE (acl/enterprisemeta_ce.go), and agent/consul/leader_connect_ca.go CAManager.SignCertificate fills it from the SPIFFE ID; so Namespace is required only when the target declares the namespaces capability';
const CHAIN_THROUGH_INTERMEDIATES =
  'Leaves may be signed by an intermediate that chains to the active root: hashicorp/consul agent/consul/leader_connect_ca.go CAManager.SignCertificate appends the root\'s IntermediateCerts to CertPEM and signs with an intermediate in secondary datacenters or with a provider that uses one (isIntermediateUsedToSignLeaf, e.g. the Vault provider); the test walks the chain from CertPEM and the root\'s IntermediateCerts to the active root';

/** Spec 001: CA roots beyond their fields, leaf certificates, authorize, ACLs and namespaces. */
export const meshConnectRules: Rule[] = [
  rule({
    id: 'mesh.roots.no-acl',
    title: 'CA roots answers without any ACL token',
    sources: [{ file, section: 'Authentication', quote: 'service:write for authorize and leaf; none for roots' }],
  }),
  rule({
    id: 'mesh.roots.rotation',
    title: 'After a root rotation, ActiveRootID names the new root, which is the only Active one',
    capability: FIX,
    sources: [
      { file, section: 'Resources and their fields > CA roots response', quote: 'ActiveRootID | string | ID of the active root' },
      { file, section: DOES, quote: 'CA roots returns the trusted root certificates so that proxies can verify certificates.' },
    ],
  }),
  rule({
    id: 'mesh.roots.blocking',
    title: 'A blocking roots query returns when the roots change (a rotation) without waiting out its wait time',
    capability: FIX,
    sources: [{ file, section: ENDPOINTS, quote: 'GET | /v1/agent/connect/ca/roots | none | none | CA roots response | yes' }],
  }),
  rule({
    id: 'mesh.endpoints.json',
    title: 'Roots, leaf and authorize answer application/json',
    sources: [{ file, section: ENDPOINTS, quote: 'All three produce application/json.' }],
  }),
  rule({
    id: 'mesh.leaf.fields',
    title: 'A leaf response has every documented field with its type (Namespace when the target declares namespaces)',
    sources: [
      { file, section: LEAF, quote: 'SerialNumber | string | Monotonically increasing 64-bit serial across all certificates issued by the cluster' },
      { file, section: LEAF, quote: 'Namespace | string | Namespace of the service' },
    ],
    notes: [CE_NO_NAMESPACE],
  }),
  rule({
    id: 'mesh.leaf.chains-to-active-root',
    title: 'Every leaf certificate verifies against the active root, directly or through the intermediates the agent hands out',
    sources: [
      { file, section: DOES, quote: 'The agent creates a signing request locally, has it signed by the CA, caches the result' },
      { file, section: DOES, quote: 'so that proxies can verify certificates' },
    ],
    notes: [CHAIN_THROUGH_INTERMEDIATES],
  }),
  rule({
    id: 'mesh.leaf.uri-san',
    title: "A leaf's URI SAN is its ServiceURI and names the requested service",
    sources: [
      { file, section: LEAF, quote: 'ServiceURI | string | URI SAN of the service' },
      { file, section: LEAF, quote: 'Service | string | Service the certificate identifies' },
    ],
  }),
  rule({
    id: 'mesh.leaf.validity',
    title: "ValidAfter and ValidBefore equal the certificate's validity",
    sources: [
      { file, section: LEAF, quote: 'ValidAfter | string timestamp | Start of validity' },
      { file, section: LEAF, quote: 'ValidBefore | string timestamp | End of validity' },
    ],
  }),
  rule({
    id: 'mesh.leaf.private-key',
    title: "PrivateKeyPEM is the private key of the certificate's public key",
    sources: [{ file, section: LEAF, quote: 'PrivateKeyPEM | string | PEM private key' }],
  }),
  rule({
    id: 'mesh.leaf.serial-monotonic',
    title: "Across many fetches for many services, each new certificate's serial is greater than every earlier one, and SerialNumber is the certificate's serial",
    capability: FIX,
    sources: [{ file, section: LEAF, quote: 'Monotonically increasing 64-bit serial across all certificates issued by the cluster' }],
    notes: [
      "Consul's built-in CA takes every serial from one cluster-wide counter (hashicorp/consul agent/connect/ca/provider_consul.go ConsulProvider.Sign and incrementAndGetNextSerialNumber); an external CA provider (Vault) picks its own serials: listed as a conditional deviation in expectations/consul.json",
    ],
  }),
  rule({
    id: 'mesh.leaf.cached',
    title: 'Without a change, repeated non-blocking fetches return the same leaf',
    sources: [leafBehaviour1, { file, section: DOES, quote: 'caches the result, and returns it until near expiry or until the roots change' }],
  }),
  rule({
    id: 'mesh.leaf.new-after-rotation',
    title: 'After a root rotation, a non-blocking fetch returns a new leaf that chains to the new root',
    capability: FIX,
    sources: [leafBehaviour1],
    notes: [
      'Consul re-issues at once on a non-blocking query (hashicorp/consul agent/leafcert/generate.go Manager.attemptLeafRefresh, the MustRevalidate branch: activeRootHasKey) — the jitter applies to blocking queries only',
      CHAIN_THROUGH_INTERMEDIATES,
    ],
  }),
  rule({
    id: 'mesh.leaf.blocking-wakes-on-rotation',
    title: 'A blocking leaf query whose wait is longer than the agent may spread re-issues over returns the new leaf after a root rotation, before its wait elapses',
    capability: FIX,
    sources: [leafBehaviour2],
    notes: [
      'The spec gives no time bound, only that the query returns once a new certificate is needed: Consul re-issues after a root change at a random point of a 30 s window (hashicorp/consul agent/leafcert/generate.go caChangeJitterWindow, Manager.attemptLeafRefresh and getJitteredCAChangeDelay), so the test blocks with a 60 s wait and asserts only that the new leaf comes before the wait elapses (a 15 s bound failed about half the runs against Consul)',
      CHAIN_THROUGH_INTERMEDIATES,
    ],
  }),
  rule({
    id: 'mesh.leaf.blocking-timeout',
    title: 'A blocking leaf query with no change returns the same leaf once its wait elapses, not before',
    sources: [leafBehaviour2],
  }),
  rule({
    id: 'mesh.leaf.key-usages',
    title: 'A leaf certificate may serve both sides of a connection: it is no CA, and its key usages allow a TLS server and a TLS client (serverAuth and clientAuth when it restricts extended key usage, digitalSignature when it restricts key usage)',
    sources: [{ file, section: DOES, quote: 'Leaf certificate returns the certificate of one service, used as server certificate for inbound connections and as client certificate for outbound ones.' }],
    notes: [
      "Consul's built-in CA signs leaves with KeyUsage DigitalSignature|KeyEncipherment|DataEncipherment|KeyAgreement and ExtKeyUsage ClientAuth and ServerAuth, BasicConstraintsValid and not CA (hashicorp/consul agent/connect/ca/provider_consul.go ConsulProvider.Sign); a certificate without the extensions is unrestricted (RFC 5280 4.2.1.3, 4.2.1.12), so absent extensions pass",
    ],
  }),
  rule({
    id: 'mesh.leaf.serial-64-bit',
    title: "For leaves of generated services, SerialNumber is the certificate's serial and fits in 64 bits (at most 8 bytes of colon-hex, a value below 2^64)",
    sources: [{ file, section: LEAF, quote: 'Monotonically increasing 64-bit serial across all certificates issued by the cluster' }],
    notes: [
      "Consul's built-in CA takes the serial from its provider state index plus one, a uint64 (hashicorp/consul agent/connect/ca/provider_consul.go ConsulProvider.Sign, sn.SetUint64(idx + 1)), and writes it with connect.EncodeSerialNumber (colon-hex of the big-endian bytes); an external provider (Vault PKI) picks random serials of up to 20 bytes: the same conditional deviation as mesh.leaf.serial-monotonic, listed in expectations/consul.json",
    ],
  }),
  rule({
    id: 'mesh.leaf.renewed-when-expired',
    title: 'A non-blocking leaf query answers an unexpired leaf: once the cached leaf has expired, the next query returns a new one that is valid now',
    capability: FIX,
    sources: [leafBehaviour1, { file, section: DOES, quote: 'caches the result, and returns it until near expiry or until the roots change' }],
    notes: [
      "The test shortens the CA configuration's LeafCertTTL through the fixtures (Consul refuses less than 1 h unless SkipValidate) and waits out the leaf. Consul backdates a leaf's NotBefore by a minute and ends it LeafCertTTL after that (hashicorp/consul agent/connect/ca/provider_consul.go ConsulProvider.Sign, effectiveNow), so the TTL is 65 s, which leaves 5 s of validity; a non-blocking query renews at a random point between 60 % and 90 % of the lifetime, and at once for a lifetime under 10 minutes (agent/leafcert/generate.go Manager.attemptLeafRefresh with MustRevalidate, agent/leafcert/util.go calculateSoftExpiry), so the test asserts nothing about when before expiry a new leaf comes, only that an expired one is never returned",
    ],
  }),
  rule({
    id: 'mesh.leaf.blocking-wakes-on-expiry',
    title: "A blocking leaf query whose wait outlasts the leaf returns a new leaf, valid now, no later than the old leaf's end of validity and before its wait elapses",
    capability: FIX,
    sources: [leafBehaviour2],
    notes: [
      "Consul wakes a blocking leaf query at a random point of the soft-expiry window (60 % to 90 % of the lifetime, at once under 10 minutes: hashicorp/consul agent/leafcert/generate.go Manager.attemptLeafRefresh, expiresTimer; agent/leafcert/util.go calculateSoftExpiry); the spec names no point before expiry, so the test asserts only the upper bound: the old leaf's ValidBefore, with the target's clock read from its Date header",
    ],
  }),
  rule({
    id: 'mesh.leaf.service-need-not-exist',
    title: 'A leaf is issued for any service name, registered or not, given the ACL permission',
    sources: [{ file, section: ENDPOINTS, quote: 'it need not exist in the catalog, but ACL permission is required' }],
  }),
  rule({
    id: 'mesh.authorize.intentions',
    title: 'For generated intentions and requests, Authorized follows the intention between the source and the target: allow or deny',
    capability: FIX,
    sources: [{ file, section: DOES, quote: 'Authorize tests whether a connection between two services is permitted.' }],
  }),
  rule({
    id: 'mesh.authorize.permissions-deny',
    title: 'An intention that defines Permissions counts as deny, even when its action is allow',
    capability: FIX,
    sources: [{ file, section: DOES, quote: 'Authorize treats every intention that defines Permissions as a deny intention' }],
  }),
  rule({
    id: 'mesh.authorize.reason',
    title: 'For an allow and a deny intention, Authorized follows its action and Reason names the intention (source and destination) and that action',
    capability: FIX,
    sources: [
      { file, section: 'Resources and their fields > Authorize response', quote: 'Reason | string (explains the matched intention and its action)' },
      { file, section: DOES, quote: 'Authorize tests whether a connection between two services is permitted.' },
    ],
    notes: [
      'Consul answers Reason "Matched L4 intention: <Intention.String()>", which names source and destination and ends with "Action: ALLOW|DENY" (older versions start with the upper-case action), and Authorized = (action == allow): hashicorp/consul agent/agent_endpoint.go AgentConnectAuthorize (agent/connect_auth.go Agent.ConnectAuthorize before 1.10), agent/structs/intention.go Intention.String; the action is matched case-insensitively as a word',
    ],
  }),
  rule({
    id: 'mesh.authorize.request-validation',
    level: 'SHOULD',
    title: 'Authorize without Target or ClientCertURI, with a ClientCertURI that is not a service identifier, or with a non-string Target, is refused with a 4xx',
    sources: [
      { file, section: AUTHZ, quote: 'Target | string | yes | Name of the requested service' },
      { file, section: AUTHZ, quote: 'ClientCertURI | string | yes | Identifier of the requesting client; currently the URI SAN of its TLS client certificate' },
    ],
    notes: [
      'SHOULD: the request table marks the fields required but the spec states no refusal. Consul refuses each case with 400 (hashicorp/consul agent/agent_endpoint.go AgentConnectAuthorize: "Target service must be specified", "ClientCertURI not a valid Connect identifier", "ClientCertURI not a valid Service identifier"; a non-string Target fails decodeBody, agent/http.go, which uses lib.DecodeJSON). ClientCertSerial is judged by mesh.authorize.serial-format',
    ],
  }),
  rule({
    id: 'mesh.authorize.serial-format',
    level: 'SHOULD',
    title: 'Authorize without a ClientCertSerial, or with one that is not colon-hex, is refused with a 4xx; with a colon-hex one of one or many octets it is answered',
    sources: [{ file, section: AUTHZ, quote: 'ClientCertSerial | string | yes | Colon-hex-encoded serial number of the client certificate' }],
    notes: [
      'SHOULD: the field is marked required and colon-hex, but the spec states no refusal. Consul never reads ClientCertSerial (hashicorp/consul agent/agent_endpoint.go AgentConnectAuthorize; structs.ConnectAuthorizeRequest): listed as a deviation in expectations/consul.json',
    ],
  }),
  rule({
    id: 'mesh.acl.authorize',
    title: "Authorize without a token, with an unknown one, or with one lacking service:write on the Target (service:read only, service:write on a shorter name or on the client's own service, or in another namespace) is refused with a 4xx and no decision; with service:write it is answered",
    capability: FIX,
    sources: [{ file, section: 'Authentication', quote: 'Required permissions are in the endpoint table (service:write for authorize and leaf; none for roots).' }],
    notes: [
      'A refusal is a 4xx, never a 5xx (a server error says nothing about the ACL check). Consul answers 403 with a plain-text "Permission denied: ..." or "ACL not found": hashicorp/consul agent/http.go HTTPHandlers.wrap (handleErr: acl.IsErrPermissionDenied or acl.IsErrNotFound -> 403), agent/agent_endpoint.go AgentConnectAuthorize (ServiceWriteAllowed on Target). Without a token Consul uses the agent\'s default token, so the target\'s anonymous policy must lack service:write for that case',
    ],
  }),
  rule({
    id: 'mesh.acl.leaf',
    title: 'A leaf without a token, or with one lacking service:write on that service (service:read only, service:write on a shorter name, or in another namespace), is refused with a 4xx and no key; with it the leaf is issued',
    capability: FIX,
    sources: [{ file, section: 'Authentication', quote: 'Required permissions are in the endpoint table (service:write for authorize and leaf; none for roots).' }],
    notes: [
      'A refusal is a 4xx, never a 5xx. Consul answers 403 "Permission denied: ... lacks permission \'service:write\' ...": hashicorp/consul agent/http.go HTTPHandlers.wrap (handleErr), agent/consul/leader_connect_ca.go CAManager.AuthorizeAndSignCertificate (ServiceWriteAllowed on the service of the CSR\'s SPIFFE ID, reached through agent/leafcert)',
      'That signing check is Consul\'s only one: from 1.16 its agent keys held leaves without the token and hands a held leaf, still fit to keep, to any caller (expectations/consul.json). The test asks for a leaf no one holds first, so that refusal is still checked on such a target',
    ],
  }),
  rule({
    id: 'mesh.ns.leaf-precedence',
    title: 'For every subset of ?ns, the namespace header and the token\'s namespace, the leaf is issued in the highest present, else in default (a token of another namespace may instead be refused)',
    capability: 'namespaces',
    notes: [
      'Consul Enterprise needs the namespaces to exist and gives a token of namespace T no service:write in another namespace Q, so the test has the fixtures make every namespace it names, and where ?ns or the header outranks the token\'s namespace it accepts a 4xx refusal as well as a leaf in the outranking namespace, never a leaf in T. Consul CE refuses ?ns and X-Consul-Namespace with 400 (hashicorp/consul agent/http_ce.go HTTPHandlers.parseEntMeta): such a target does not declare namespaces',
    ],
    sources: [
      { file, section: NS, quote: 'ns query parameter.' },
      { file, section: NS, quote: 'X-Mesh-Namespace request header.' },
      { file, section: NS, quote: "Namespace of the request's ACL token, if any." },
      { file, section: NS, quote: "The namespace 'default'." },
    ],
  }),
  rule({
    id: 'mesh.ns.authorize-body-precedence',
    title: "Authorize's body Namespace takes precedence over the ns query parameter and the header",
    capability: 'namespaces',
    notes: ['The fixtures make the three namespaces the test names first: Consul Enterprise needs them to exist. Consul CE refuses a body Namespace with 400 (agent/http.go decodeBody, lib.DecodeJSON disallows unknown fields)'],
    sources: [{ file, section: AUTHZ, quote: "Namespace | string | no | Default ''. Enterprise. Takes precedence over the ns query parameter" }],
  }),
  rule({
    id: 'mesh.acl.neighbours',
    title:
      'For generated worlds of tokens in several namespaces, each with service:write, service:read or nothing on each of several services, every token asking for every service in every namespace gets a leaf and an authorize answer exactly where it holds service:write there, and a 4xx without a key or decision elsewhere (neighbours: another service, namespace, token, read instead of write)',
    capability: FIX,
    sources: [
      { file, section: 'Authentication', quote: 'Required permissions are in the endpoint table (service:write for authorize and leaf; none for roots).' },
      { file, section: NS, quote: "Namespace of the request's ACL token, if any." },
    ],
    notes: [
      "Judged against suites/models/mesh-access.ts (mayWriteService). Tokens are made from exact service rules through the fixtures (Consul: one policy per token, `service \"name\" { policy = ... }`); a token's rules hold in its own namespace only (Consul Enterprise: a policy made in a namespace grants there; acl/policy_authorizer.go). The refused cells are asked first: Consul from 1.16 hands a held leaf to any caller (expectations/consul.json, mesh.acl.leaf). The namespace neighbours need namespaces (Consul CE has none: its worlds hold the default namespace only)",
    ],
  }),
  rule({
    id: 'mesh.acl.policy-change',
    title:
      "For generated sequences of checks, policy changes and a token's deletion, authorize follows the token's policy as it is now, and a leaf is refused, handed anew only with service:write now, or is the very leaf the same token was handed before (the agent's cache)",
    capability: FIX,
    sources: [
      { file, section: 'Authentication', quote: 'Required permissions are in the endpoint table (service:write for authorize and leaf; none for roots).' },
      { file, section: DOES, quote: 'caches the result, and returns it until near expiry or until the roots change' },
    ],
    notes: [
      'A model-based property (fc.commands, suites/models/mesh-access.ts leafOutcomes). The held leaf is allowed because Consul up to 1.15 keys its leaf cache by token and checks service:write only when signing (hashicorp/consul agent/agent_endpoint.go AgentConnectCALeafCert at v1.8.7, agent/cache-types/connect_ca_leaf.go, agent/consul/connect_ca_endpoint.go ConnectCA.Sign). An answer by the policy as it was before its last change is waited out for MESH_BOUNDS.aclChange (35 s): Consul client agents cache a resolved token for acl.token_ttl, 30 s by default (agent/consul/acl.go ACLResolver); a server, like the reference, applies a change at once, so a passing run never waits',
    ],
  }),
  rule({
    id: 'mesh.authorize.intention-neighbours',
    title:
      "For generated exact intentions between services in several namespaces, every source asks every destination: a connection an intention names follows its action, and its neighbours (another source, destination, or the source's or destination's namespace) get the answer of a connection no intention covers",
    capability: FIX,
    sources: [
      { file, section: DOES, quote: 'Authorize tests whether a connection between two services is permitted.' },
      { file, section: 'Resources and their fields > Authorize request', quote: 'ClientCertURI | string | yes | Identifier of the requesting client; currently the URI SAN of its TLS client certificate' },
    ],
    notes: [
      "Judged against suites/models/mesh-access.ts (authorizeOutcome). The spec names no answer when no intention covers a connection (Consul: the ACL default policy, agent/connect_auth.go ConnectAuthorize at v1.8.7): the test learns it from a connection between two fresh services and holds every uncovered connection of the world to it. The source's namespace is read from its leaf's URI; namespace neighbours need namespaces (Consul CE has none)",
    ],
  }),
  rule({
    id: 'mesh.leaf.identity-neighbours',
    title:
      'Leaves of several services in several namespaces each name the service and namespace asked and no other (Service, Namespace, ServiceURI, its one URI SAN), share one trust domain and datacenter, are each their own certificate and key, come back as their own when asked again after their neighbours, and are no CA (basicConstraints, no keyCertSign or cRLSign); so do leaves whose names join to the same string: (N, x<sep>S) beside (N<sep>x, S) for the separators - and none, ?ns= empty beside default, and the services S<sep>x and x<sep>S for - _ . and none',
    sources: [
      { file, section: LEAF, quote: 'Service | string | Service the certificate identifies' },
      { file, section: LEAF, quote: 'Namespace | string | Namespace of the service' },
      { file, section: LEAF, quote: 'ServiceURI | string | URI SAN of the service' },
      { file, section: DOES, quote: 'Leaf certificate returns the certificate of one service, used as server certificate for inbound connections and as client certificate for outbound ones.' },
    ],
    notes: [
      'Joined names: a namespace name is a DNS hostname label, letters, digits and - (Consul Enterprise: "is not a valid DNS hostname label"), a service name also holds _ and . (Consul 1.8.7 asked: the leaves of a-b, a.b, a_b each name their service); neither holds / (Consul 1.8.7 answers the leaf of a/b with 500, its SPIFFE ID not parsing), so a key joined with / cannot collide for names a client can ask. Without namespaces only the service joins are asked, and the run says so',
      'The URI form is the upstream SPIFFE service identifier spiffe://<trust domain>/ns/<ns>/dc/<dc>/svc/<service> (hashicorp/consul agent/connect/uri_service.go SpiffeIDService.URI; Consul CE writes ns/default); a certificate that is no CA may not assert keyCertSign (RFC 5280 4.2.1.3); Consul signs leaves with BasicConstraintsValid, IsCA false and KeyUsage DigitalSignature|KeyEncipherment|DataEncipherment|KeyAgreement (agent/connect/ca/provider_consul.go ConsulProvider.Sign). Namespace neighbours need namespaces',
      CE_NO_NAMESPACE,
    ],
  }),
];

const notes = 'shared/notes/upstream-behaviors.md § 2';
const consul = (source: string, note: string) => ({ product: 'Consul', source: `hashicorp/consul ${source}`, note: `${note} (${notes})` });

export const meshUpstreamRules: Rule[] = [
  rule({
    id: 'mesh.upstream.bad-index-400',
    level: 'UPSTREAM',
    title: 'A blocking query with an index that is not a number answers 400',
    sources: [{ file, section: ENDPOINTS, quote: 'Blocking-query request parameters and the names of the consistency modes: not shown.' }],
    upstream: consul('agent/http.go', 'bad ?index → 400 "Invalid index"; bad ?wait → 400 "Invalid wait time"'),
  }),
  rule({
    id: 'mesh.upstream.older-index-at-once',
    level: 'UPSTREAM',
    title: 'A blocking query with an index older than the current one (roots and leaf) answers at once, not after its wait',
    sources: [{ file, section: ENDPOINTS, quote: 'Blocking-query request parameters and the names of the consistency modes: not shown.' }],
    upstream: consul('agent/cache/cache.go', 'getWithIndex returns a valid cache entry at once when its index is above the query\'s minimum index; the roots and the leaf are served from the agent cache (website api/features/blocking: the request waits "for any changes subsequent to that index")'),
    notes: [
      "The roots' and a fresh leaf's index header, less one, with a 15 s wait (MESH_BOUNDS.olderIndexWait): the answer must come before the wait elapsed. A roots index header of 1 has no older index: then only the leaf is judged, and the run says so.",
    ],
  }),
  rule({
    id: 'mesh.upstream.index-header',
    level: 'UPSTREAM',
    title: 'Roots and leaf answers carry the index header, never 0',
    sources: [{ file, section: ENDPOINTS, quote: 'Blocking-query request parameters and the names of the consistency modes: not shown.' }],
    upstream: consul('agent/http.go', 'X-Consul-Index on blocking endpoints, 0 reported as 1'),
  }),
  rule({
    id: 'mesh.upstream.method-405-allow',
    level: 'UPSTREAM',
    title: 'A method an endpoint does not support answers 405 with an Allow header',
    sources: [{ file, section: 'Errors', quote: 'Error status codes and error bodies: not shown.' }],
    upstream: consul('agent/http.go', 'wrong method → 405 + Allow: OPTIONS,<methods>'),
  }),
  rule({
    id: 'mesh.upstream.default-reason',
    level: 'UPSTREAM',
    // No fixture: a request no intention matches needs none (shared/notes/upstream-audit.md).
    title: 'With no matching intention, Reason is one of the upstream default texts ("Default behavior configured by ACLs", or "Default intention policy" / "ACLs disabled, access is allowed by default" where so configured)',
    sources: [{ file, section: 'Resources and their fields > Authorize response', quote: 'Reason | string (explains the matched intention and its action)' }],
    upstream: consul(
      'agent/agent_endpoint.go AgentConnectAuthorize (agent/connect_auth.go before 1.10)',
      'no match → Reason "Default behavior configured by ACLs"; "Default intention policy" when the agent sets default_intention_policy (newest versions); "ACLs disabled, access is allowed by default" with ACLs off (versions before the inlined handler)',
    ),
  }),
  rule({
    id: 'mesh.upstream.acl-rule-precedence',
    level: 'UPSTREAM',
    title:
      'For generated tokens of one to three policies of exact and prefix service rules with write, read and deny on names that are prefixes of one another, each policy scoped to every datacenter, the agent\'s, or one that is not (a longer, shorter or upper-cased name, or another beside the agent\'s), a token gets a leaf and an authorize answer exactly where its rules give write, and (Consul\'s API) passes the intention check exactly where they give read or write: an exact rule beats any prefix, the longest prefix beats a shorter one whatever the order written, deny beats write beats read for one name and kind, also across the token\'s policies and in either order, a prefix covers no name outside it, and a policy scoped to other datacenters grants and denies nothing; and (Consul\'s API) for generated tokens of one or two policies with key and key_prefix rules (read, list, write, deny) and acl and operator words: a key is readable exactly where its rule gives read, list or write and writable exactly where it gives write, ACLs readable or writable exactly where the acl words of all the token\'s policies, merged (deny over write over read), allow it, and operator grants no acl; a token of a service identity writes its service and the sidecar proxy\'s and reads every service; where the target has namespaces, a token whose own rules say nothing of a service gets its namespace\'s default policies there, and no other namespace\'s',
    capability: FIX,
    sources: [{ file, section: 'Authentication', quote: 'The header or parameter that carries the ACL token: not shown.' }],
    upstream: {
      product: 'Consul',
      source: 'hashicorp/consul acl/policy_authorizer.go getPolicy and ServiceWrite, acl/policy_merger.go, agent/consul/acl.go filterPoliciesByScope',
      note: 'the spec names service:write but not the rule language: an exact rule for the name decides, else the longest prefix rule (radix WalkPath), else the default policy; rules of one kind for one name merge to the strongest word, deny over write over read (docs: security/acl/acl-rules, "exact match rules take precedence over prefix rules"); enforce: read grants read only, write read and write, deny neither. service:read is asked through GET /v1/connect/intentions/check (agent/consul/intention_endpoint.go Check: ServiceRead on the destination, else permission denied; api-docs/connect/intentions "ACL Required: service:read"). The other kinds (v1.8.7 asked): list is a key-rule word granting read but not write (enforce); the rules of all a token\'s policies merge, the strongest word winning per name and for the acl and operator words (policy_merger.go); acl:read lists policies and acl:write creates one (agent/consul/acl_endpoint.go PolicyList, PolicySet: the ACL check comes before validation, so a policy without a Name is a 403, else Consul 1.8.7 answers 500 "Invalid Policy: no Name is set"); a key GET or DELETE needs key:read or key:write before the key is looked up (agent/consul/kvs_endpoint.go Get, Apply); a service identity is the synthetic policy of agent/structs/acl.go ACLServiceIdentity.SyntheticPolicy (service and <service>-sidecar-proxy write, service_prefix "" and node_prefix "" read); a namespace\'s ACLs.PolicyDefaults are "the list of default policies that will be applied to all tokens created in this namespace" (api-docs/namespaces, Enterprise), asked where the token\'s own rules are silent so that merging and falling back agree. Several policies of one token (v1.8.7 asked, each order): the rules of one kind and name merge to the strongest word (policy_merger.go merge, takesPrecedenceOver), so deny in one and write in another is deny, read and write is write; a policy whose Datacenters is not empty applies only where one of them equals the agent\'s datacenter, compared exactly (filterPoliciesByScope; ACL.PolicySet accepts any name)',
    },
    notes: [
      'Judged against suites/models/mesh-access.ts (mergePolicies, policyApplies, serviceAccess, mayWriteService, mayReadService); the agent\'s datacenter is read from the client leaf\'s ServiceURI; each token gets policies of its own (Consul 1.8.7 merges a token\'s policies into the cached rules of its first policy, so a policy linked by two tokens with different companions can carry one token\'s merge into the other: the rule never shares one); the refused cells are asked first, as in mesh.acl.neighbours. The service:read pairs (the same token and name asked for read and for write) are asked in the hashicorp dialect only: spec 001 names no endpoint needing service:read, and the spec dialect\'s run notes that they were not asked',
      'The key, acl and operator kinds and the service identity are asked in the hashicorp dialect only, judged against keyAccess, mergeWords, wordGrants and serviceIdentityRules; the writes asked change nothing (DELETE of a key that is not there, PUT of a policy without a Name); their policies and tokens are made under the run prefix and removed at the end',
    ],
  }),
  rule({
    id: 'mesh.upstream.intention-precedence',
    level: 'UPSTREAM',
    title:
      'For generated exact and wildcard intentions (* as source, * as destination, and with namespaces * of every namespace), every source asking every destination gets the action of the covering intention of highest precedence: exact -> exact over * -> exact over */* -> exact over exact -> * over exact -> */*, else the no-match answer; and (Consul\'s API) the intention list gives each its precedence, in precedence order then by source namespace, source, destination namespace and destination',
    capability: FIX,
    sources: [{ file, section: 'Resources and their fields > Authorize response', quote: 'Reason | string (explains the matched intention and its action)' }],
    upstream: {
      product: 'Consul',
      source: 'hashicorp/consul agent/structs/intention.go Intention.UpdatePrecedence, agent/consul/state/intention.go IntentionMatch, agent/connect_auth.go ConnectAuthorize (v1.8.7)',
      note: 'precedence 9 for exact source and destination, 8 for a wildcard source, 6 for a wildcard destination (5 for both); the first covering intention in precedence order decides (docs: connect/intentions "Precedence and match order")',
    },
    notes: [
      'Judged against suites/models/mesh-access.ts (authorizeOutcome, precedence). Never * -> *, which would reach the services of other rules; a * -> d or s -> * of the world names the run\'s own services only',
      'Where the target has namespaces, one source has another\'s name in a second namespace and a wildcard source may be that namespace\'s: a * of one namespace covers no source of another (the intention\'s SourceNS is exact: agent/consul/state/intention.go IntentionMatch); a source or destination may also be * of every namespace (*/*), which ranks below a name wildcard (the docs\' precedence table with namespaces: */* -> exact 7, */* -> * 4, exact -> */* 3, * -> */* 2). Without namespaces (Consul CE) the world holds default only and the run notes it',
      "In the hashicorp dialect the world's intentions are also listed (GET /v1/connect/intentions, Consul's API): each with its precedence, in Consul's order (precedence, highest first, then source namespace, source, destination namespace, destination: agent/structs/intention.go IntentionPrecedenceSorter; asked of Consul 1.8.7); suites/models/mesh-access.ts listOrder",
    ],
  }),
  rule({
    id: 'mesh.upstream.authorize-refusals',
    level: 'UPSTREAM',
    title:
      "Authorize refuses a body it cannot decode, a missing Target and a ClientCertURI that is no service identifier with 400 and Consul's reason (any dialect: a 400 naming the field): a blank body, JSON null or a non-object, a field of another JSON type, an unknown field, no ClientCertURI, and URIs a URL parser or the SPIFFE forms refuse (\"not a valid Connect identifier\") or that name an agent or a CA (\"not a valid Service identifier\"); and it decides as for the service itself a URI with the scheme in upper case, a query, a fragment, no host, user info and a port, or %-escaped parts",
    capability: FIX,
    sources: [
      { file, section: 'Errors', quote: 'Error status codes and error bodies: not shown.' },
      { file, section: AUTHZ, quote: 'ClientCertURI | string | yes | Identifier of the requesting client; currently the URI SAN of its TLS client certificate' },
    ],
    upstream: {
      product: 'Consul',
      source: 'hashicorp/consul agent/agent_endpoint.go AgentConnectAuthorize, agent/connect_auth.go Agent.ConnectAuthorize (v1.8.7), agent/http.go decodeBody (lib.DecodeJSON, DisallowUnknownFields), agent/connect/uri.go ParseCertURIFromString and ParseCertURI',
      note: 'decodeBody refuses with "Request decode failed: <encoding/json error>" (EOF for a blank body; "json: cannot unmarshal <type> into Go value of type structs.ConnectAuthorizeRequest" for a non-object; "... into Go struct field ConnectAuthorizeRequest.<Field> of type string"; "json: unknown field \"<key>\""; JSON null leaves the request empty; field names match in any case); then "Target service must be specified"; then url.Parse and the SPIFFE patterns: a parse failure or no known form is "ClientCertURI not a valid Connect identifier", an agent (/agent/client/dc/<dc>/id/<id>) or signing identifier (no path, a host with a dot) "ClientCertURI not a valid Service identifier"; a service identifier\'s parts are %-unescaped (RawPath). All 400; Consul before its HTTPError (1.8.7 asked) writes "Bad request: " before the reason. Every case was asked of Consul 1.8.7',
    },
    notes: [
      "The decoder's syntax error is asked only to start with \"Request decode failed: \" (its words are Go's). In another dialect the cases that only Consul's strict decoder refuses (a blank or null body, a non-object, an unknown field, null or a lower-case field name) are not asked, and each other refusal must be a 400 whose body names the field. The accepted forms are judged by a decision: an intention from the client's service gives the answer an uncovered connection does not get",
    ],
  }),
  rule({
    id: 'mesh.upstream.rotation-cross-signed',
    level: 'UPSTREAM',
    title:
      "After a root rotation, a new leaf verifies for a peer that trusts only the old root: the new active root's IntermediateCerts hold the new root cross-signed by the old one, and the leaf's CertPEM carries it after the certificate",
    capability: FIX,
    sources: [
      { file, section: DOES, quote: 'CA roots returns the trusted root certificates so that proxies can verify certificates.' },
      {
        file,
        section: 'Resources and their fields > CA roots response',
        quote:
          'Root fields: ID (string), Name (string), SerialNumber (integer), SigningKeyID (string), ExternalTrustDomain (string), NotBefore (timestamp string, ISO 8601), NotAfter (timestamp string), RootCert (PEM string), IntermediateCerts (null or list), Active (boolean), PrivateKeyType (string), PrivateKeyBits (integer), CreateIndex (integer), ModifyIndex (integer).',
      },
    ],
    upstream: {
      product: 'Consul',
      source: 'hashicorp/consul agent/consul/leader_connect_ca.go CAManager.primaryUpdateRootCA and SignCertificate, agent/connect/ca/provider_consul.go CrossSignCA',
      note: "a rotation has the old provider cross-sign the new root (new subject and key, issued by the old root, valid 7 days) and puts it first in the new active root's IntermediateCerts, unless ForceWithoutCrossSigning; SignCertificate appends the active root's IntermediateCerts to every leaf's CertPEM, so proxies that have not yet seen the new root still verify new leaves",
    },
  }),
];
