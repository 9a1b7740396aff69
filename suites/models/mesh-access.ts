/**
 * The service-mesh agent's access decisions (spec 001), as plain functions of plain data: which
 * token may get a leaf or ask authorize for which service in which namespace, what authorize answers
 * for a connection given the intentions, and which identity a leaf carries. Written from the spec's
 * sentences; where the spec names a thing without its rules (the ACL rule language, intention
 * precedence) the model follows the upstream documentation it rewrites, cited beside the decision,
 * and the rules that judge those parts are UPSTREAM. Where the spec leaves a choice the model
 * returns every allowed outcome.
 */

/** Spec 001, Authentication 1: "Access is governed by ACLs." The words a service rule can give. */
export type Access = 'read' | 'write' | 'deny';

/**
 * One rule of a token's policy: `service "name"` (exact) or `service_prefix "name"` (every name
 * that starts with it). The rule language is Consul's (developer.hashicorp.com/consul/docs/security/acl/acl-rules):
 * the spec only names the permission, "service:write".
 */
export interface ServiceRule {
  name: string;
  prefix: boolean;
  access: Access;
}

/** A token: the namespace it was made in and the service rules of its policy (none once deleted). */
export interface TokenModel {
  namespace: string;
  rules: ServiceRule[];
  deleted?: boolean;
}

const STRENGTH: Access[] = ['deny', 'write', 'read'];
const strongest = (a: Access, b: Access): Access => (STRENGTH.indexOf(a) <= STRENGTH.indexOf(b) ? a : b);

/**
 * The access the rules give a service name, or 'none' when no rule covers it (then the agent's
 * default policy decides: deny in every world the rules build). Upstream ACL rules: "exact matches
 * take precedence over prefix matches", and among prefixes "the longest prefix match" wins; where
 * two rules of the same kind name the same thing, deny beats write beats read.
 */
export function serviceAccess(rules: readonly ServiceRule[], service: string): Access | 'none' {
  const exact = rules.filter((r) => !r.prefix && r.name === service);
  if (exact.length > 0) return exact.map((r) => r.access).reduce(strongest);
  const prefixes = rules.filter((r) => r.prefix && service.startsWith(r.name));
  if (prefixes.length === 0) return 'none';
  const longest = Math.max(...prefixes.map((r) => r.name.length));
  return prefixes.filter((r) => r.name.length === longest).map((r) => r.access).reduce(strongest);
}

/**
 * One policy a token links: its service rules and the datacenters it is scoped to. Upstream (Consul's
 * ACL policy API, "Datacenters": "the datacenters the policy is valid within"; agent/consul/acl.go
 * filterPoliciesByScope): a policy without datacenters applies in every one, else only in those it
 * names; elsewhere the token holds it as if it were not linked.
 */
export interface PolicyModel {
  rules: ServiceRule[];
  datacenters?: string[];
}

/** Whether a policy applies in the agent's datacenter. */
export function policyApplies(policy: PolicyModel, datacenter: string): boolean {
  return !policy.datacenters || policy.datacenters.length === 0 || policy.datacenters.includes(datacenter);
}

/**
 * The rules of a token that links several policies, merged as Consul does (acl/policy_merger.go
 * MergePolicies, asked of Consul 1.8.7): the policies that apply in the datacenter, in any order,
 * give one rule per kind (exact or prefix) and name, whose word is the strongest any of them gives
 * it: deny over write over read (takesPrecedenceOver). An exact and a prefix rule of one name stay
 * apart (serviceRules and servicePrefixRules), and which applies to a service is then serviceAccess's
 * choice, as for a single policy. The order the policies are linked in decides nothing.
 */
export function mergePolicies(policies: readonly PolicyModel[], datacenter: string): ServiceRule[] {
  const merged = new Map<string, ServiceRule>();
  for (const rule of policies.filter((p) => policyApplies(p, datacenter)).flatMap((p) => p.rules)) {
    const key = `${rule.prefix ? 'prefix' : 'exact'}:${rule.name}`;
    const prior = merged.get(key);
    merged.set(key, prior ? { ...prior, access: strongest(prior.access, rule.access) } : { ...rule });
  }
  return [...merged.values()];
}

/**
 * Spec 001, Endpoints table, "ACL required: service:write" for authorize (on the Target) and the
 * leaf (on the path's service); Authentication 1: "Required permissions are in the endpoint table
 * (service:write for authorize and leaf; none for roots)." Namespace selection 4: the request's
 * namespace may come from its token, and a token's rules are those of its namespace (Consul
 * Enterprise: a policy made in a namespace grants only there). A deleted or unknown token grants
 * nothing; service:read is not service:write.
 */
export function mayWriteService(token: TokenModel | undefined, namespace: string, service: string): boolean {
  if (!token || token.deleted) return false;
  if (token.namespace !== namespace) return false;
  return serviceAccess(token.rules, service) === 'write';
}

/**
 * service:read, which spec 001 names for no endpoint (the upstream intention check needs it on the
 * destination: developer.hashicorp.com/consul/api-docs/connect/intentions, "Check Intention Result":
 * "ACL Required: service:read"). Upstream ACL rules: "read" allows reading, "write" reading and
 * writing, "deny" neither (acl/policy_authorizer.go enforce); the rule that applies is the one
 * serviceAccess picks, the same as for write. Only the token's namespace, as for write.
 */
export function mayReadService(token: TokenModel | undefined, namespace: string, service: string): boolean {
  if (!token || token.deleted || token.namespace !== namespace) return false;
  const access = serviceAccess(token.rules, service);
  return access === 'read' || access === 'write';
}

/**
 * The other kinds of rule a policy holds (hashicorp dialect only: spec 001 names none of them).
 * Upstream ACL rules (developer.hashicorp.com/consul/docs/security/acl/acl-rules): a `key` or
 * `key_prefix` rule takes "read", "write", "deny" or "list" (key rules only); `acl` and `operator` are
 * one word each for the whole policy. Where a token's policies name the same thing, "deny" beats
 * "write" beats "list" beats "read" (acl/policy_merger.go); "list" grants reading a key but not
 * writing it, like "read" (acl/policy_authorizer.go enforce).
 */
export type RuleWord = 'read' | 'list' | 'write' | 'deny';

const WORD_STRENGTH: RuleWord[] = ['deny', 'write', 'list', 'read'];

/** The word that wins where several policies name one thing; 'none' where none does. */
export function mergeWords(words: readonly (RuleWord | 'none')[]): RuleWord | 'none' {
  const present = words.filter((w): w is RuleWord => w !== 'none');
  return present.length ? present.reduce((a, b) => (WORD_STRENGTH.indexOf(a) <= WORD_STRENGTH.indexOf(b) ? a : b)) : 'none';
}

/** What a word grants: write grants read and write, read and list grant read, deny and no rule nothing. */
export function wordGrants(word: RuleWord | 'none', need: 'read' | 'write'): boolean {
  if (need === 'write') return word === 'write';
  return word === 'read' || word === 'list' || word === 'write';
}

/** One key rule: `key "name"` (that key) or `key_prefix "name"` (every key that starts with it). */
export interface KeyRule {
  name: string;
  prefix: boolean;
  access: RuleWord;
}

/** The word the key rules give a key: the exact rule's, else the longest prefix's, as for services. */
export function keyAccess(rules: readonly KeyRule[], key: string): RuleWord | 'none' {
  const exact = rules.filter((r) => !r.prefix && r.name === key);
  if (exact.length > 0) return mergeWords(exact.map((r) => r.access));
  const prefixes = rules.filter((r) => r.prefix && key.startsWith(r.name));
  if (prefixes.length === 0) return 'none';
  const longest = Math.max(...prefixes.map((r) => r.name.length));
  return mergeWords(prefixes.filter((r) => r.name.length === longest).map((r) => r.access));
}

/**
 * The service rules a token's service identity gives (Consul's API; spec 001 names no identities).
 * Upstream (developer.hashicorp.com/consul/docs/security/acl/acl-roles, "Service identities"): the
 * synthetic policy grants service:write on the service and on its sidecar proxy
 * (`<name>-sidecar-proxy`), and service:read (with node:read) on every service, through
 * `service_prefix ""` read.
 */
export function serviceIdentityRules(service: string): ServiceRule[] {
  return [
    { name: service, prefix: false, access: 'write' },
    { name: `${service}-sidecar-proxy`, prefix: false, access: 'write' },
    { name: '', prefix: true, access: 'read' },
  ];
}

/** What a leaf request may answer: a new leaf, the very leaf the same token already holds, or a 4xx. */
export type LeafOutcome = 'issued' | 'held' | 'refused';

/**
 * The leaf after the token's grant may have changed. Spec 001, What the service does 5: the agent
 * "caches the result, and returns it until near expiry or until the roots change"; 2: "Most of them
 * are answered from local cache". So a leaf the same token was handed before may come again from
 * the cache (Consul up to 1.15 keys its leaf cache by token and checks the ACL only when it signs:
 * agent/agent_endpoint.go AgentConnectCALeafCert, agent/consul/connect_ca_endpoint.go Sign), but a
 * new certificate needs the permission now. Without a held leaf, only the permission decides.
 */
export function leafOutcomes(allowedNow: boolean, holdsLeaf: boolean): LeafOutcome[] {
  if (allowedNow) return holdsLeaf ? ['held', 'issued'] : ['issued'];
  return holdsLeaf ? ['refused', 'held'] : ['refused'];
}

/** A service as an intention or a connection names it; `name` may be '*' in an intention. */
export interface ServiceRef {
  namespace: string;
  name: string;
}

export interface IntentionModel {
  source: ServiceRef;
  destination: ServiceRef;
  action: 'allow' | 'deny';
}

const WILDCARD = '*';
/** A side of an intention covers a service where its namespace and its name are each the service's or '*'. */
const covers = (pattern: ServiceRef, service: ServiceRef) => (pattern.namespace === WILDCARD || pattern.namespace === service.namespace) && (pattern.name === WILDCARD || pattern.name === service.name);

/** How many of a side's namespace and name are exact: '*' as namespace comes only with '*' as name (Consul refuses an exact name after it). */
const exactParts = (side: ServiceRef) => (side.namespace === WILDCARD ? 0 : side.name === WILDCARD ? 1 : 2);

/**
 * Upstream intention precedence (developer.hashicorp.com/consul/docs/connect/intentions, "Precedence
 * and match order", the table with namespaces): the destination's exactness first, then the
 * source's: exact -> exact 9, * -> exact 8, * /* -> exact 7, exact -> * 6, * -> * 5, * /* -> * 4,
 * exact -> * /* 3, * -> * /* 2, * /* -> * /* 1 (a namespace wildcard only where the target has
 * namespaces).
 */
export function precedence(i: IntentionModel): number {
  return [3, 6, 9][exactParts(i.destination)]! - (2 - exactParts(i.source));
}

/**
 * The order in which the upstream lists intentions (Consul's API; spec 001 names no listing):
 * precedence, highest first, then source namespace, source, destination namespace and destination,
 * each in byte order (hashicorp/consul agent/structs/intention.go IntentionPrecedenceSorter, which
 * Intention.List sorts by; asked of Consul 1.8.7). Negative when `a` comes first.
 */
export function listOrder(a: IntentionModel, b: IntentionModel): number {
  if (precedence(a) !== precedence(b)) return precedence(b) - precedence(a);
  const key = (i: IntentionModel) => [i.source.namespace, i.source.name, i.destination.namespace, i.destination.name];
  const [ka, kb] = [key(a), key(b)];
  const at = ka.findIndex((part, k) => part !== kb[k]);
  return at < 0 ? 0 : ka[at]! < kb[at]! ? -1 : 1;
}

/** The outcome of authorize: the allowed values of Authorized, and the intention that decided, if any. */
export interface AuthorizeOutcome {
  authorized: boolean[];
  matched?: IntentionModel;
}

/**
 * Spec 001, What the service does 3: "Authorize tests whether a connection between two services is
 * permitted." An intention covers a connection only when its source covers the client (its namespace
 * included: the client's identity names it) and its destination covers the Target in its
 * namespace; the one of highest precedence decides by its action (Authorize response: Reason
 * "explains the matched intention and its action"). When none covers the connection the spec names
 * no answer: the target's default decides, the same for every connection no intention covers
 * (`noMatch`, learned from the target by a connection nothing can cover).
 */
export function authorizeOutcome(intentions: readonly IntentionModel[], source: ServiceRef, destination: ServiceRef, noMatch: boolean): AuthorizeOutcome {
  const matching = intentions.filter((i) => covers(i.source, source) && covers(i.destination, destination));
  if (matching.length === 0) return { authorized: [noMatch] };
  const top = Math.max(...matching.map(precedence));
  const winners = matching.filter((i) => precedence(i) === top);
  // Two intentions of one precedence cover a connection only if they name the same pair, which the
  // upstream stores keep as one; should a world hold both, either may decide.
  const authorized = [...new Set(winners.map((i) => i.action === 'allow'))];
  return { authorized, matched: winners.length === 1 ? winners[0] : undefined };
}

/** What a leaf must say about whom it identifies. */
export interface LeafIdentity {
  Service: string;
  /** Required only where the target has namespaces (Consul CE leaves it out). */
  Namespace?: string;
  /** The namespace and service the ServiceURI must name ('default' where there are no namespaces). */
  uri: { namespace: string; service: string };
}

/**
 * Spec 001, Leaf certificate response: Service "Service the certificate identifies", Namespace
 * "Namespace of the service", ServiceURI "URI SAN of the service"; Endpoints: ns is the "namespace
 * of the certificate". The URI's path is the upstream SPIFFE form .../ns/<ns>/dc/<dc>/svc/<service>
 * (agent/connect/uri_service.go SpiffeIDService.URI); its trust domain and datacenter are the
 * cluster's, the same for every leaf it issues.
 */
export function leafIdentity(namespace: string, service: string, namespaces: boolean): LeafIdentity {
  return {
    Service: service,
    ...(namespaces ? { Namespace: namespace } : {}),
    uri: { namespace: namespaces ? namespace : 'default', service },
  };
}

/** The parts of a SPIFFE service URI, or undefined when it is not one. */
export function parseServiceUri(uri: string): { trustDomain: string; namespace: string; datacenter: string; service: string } | undefined {
  const m = /^spiffe:\/\/([^/]+)\/ns\/([^/]+)\/dc\/([^/]+)\/svc\/([^/]+)$/.exec(uri);
  return m ? { trustDomain: m[1]!, namespace: m[2]!, datacenter: m[3]!, service: m[4]! } : undefined;
}
