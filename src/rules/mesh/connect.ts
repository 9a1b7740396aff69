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
    title: 'A leaf response has every documented field with its type',
    sources: [{ file, section: LEAF, quote: 'SerialNumber | string | Monotonically increasing 64-bit serial across all certificates issued by the cluster' }],
  }),
  rule({
    id: 'mesh.leaf.chains-to-active-root',
    title: 'Every leaf certificate verifies against the active root',
    sources: [
      { file, section: DOES, quote: 'The agent creates a signing request locally, has it signed by the CA, caches the result' },
      { file, section: DOES, quote: 'so that proxies can verify certificates' },
    ],
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
  }),
  rule({
    id: 'mesh.leaf.blocking-wakes-on-rotation',
    title: 'A blocking leaf query returns the new leaf when the roots rotate, before its wait elapses',
    capability: FIX,
    sources: [leafBehaviour2],
  }),
  rule({
    id: 'mesh.leaf.blocking-timeout',
    title: 'A blocking leaf query with no change returns the same leaf once its wait elapses, not before',
    sources: [leafBehaviour2],
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
    title: 'The Reason of a decision by an intention is a text that names it (its source and destination)',
    capability: FIX,
    sources: [{ file, section: 'Resources and their fields > Authorize response', quote: 'Reason | string (explains the matched intention and its action)' }],
  }),
  rule({
    id: 'mesh.authorize.request-validation',
    title: 'Authorize without Target, ClientCertURI or ClientCertSerial, or with a ClientCertURI that is not a service identifier, is refused with a 4xx',
    sources: [
      { file, section: AUTHZ, quote: 'Target | string | yes | Name of the requested service' },
      { file, section: AUTHZ, quote: 'ClientCertURI | string | yes | Identifier of the requesting client; currently the URI SAN of its TLS client certificate' },
    ],
  }),
  rule({
    id: 'mesh.authorize.serial-format',
    title: 'Authorize with a ClientCertSerial that is not colon-hex is refused with a 4xx',
    sources: [{ file, section: AUTHZ, quote: 'ClientCertSerial | string | yes | Colon-hex-encoded serial number of the client certificate' }],
  }),
  rule({
    id: 'mesh.acl.authorize',
    title: 'Authorize without a token, or with one lacking service:write on the Target, is refused; with service:write it is answered',
    capability: FIX,
    sources: [{ file, section: 'Authentication', quote: 'Required permissions are in the endpoint table (service:write for authorize and leaf; none for roots).' }],
  }),
  rule({
    id: 'mesh.acl.leaf',
    title: 'A leaf without a token, or with one lacking service:write on that service, is refused; with it the leaf is issued',
    capability: FIX,
    sources: [{ file, section: 'Authentication', quote: 'Required permissions are in the endpoint table (service:write for authorize and leaf; none for roots).' }],
  }),
  rule({
    id: 'mesh.ns.leaf-precedence',
    title: 'For every subset of ?ns, the namespace header and the token\'s namespace, the leaf is issued in the highest present, else in default',
    capability: 'namespaces',
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
    sources: [{ file, section: AUTHZ, quote: "Namespace | string | no | Default ''. Enterprise. Takes precedence over the ns query parameter" }],
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
    capability: FIX,
    title: 'With no matching intention, Reason is "Default behavior configured by ACLs"',
    sources: [{ file, section: 'Resources and their fields > Authorize response', quote: 'Reason | string (explains the matched intention and its action)' }],
    upstream: consul('agent/connect_auth.go', 'no match → Reason "Default behavior configured by ACLs"'),
  }),
];
