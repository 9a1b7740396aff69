/**
 * The scheduler's access decisions (spec 002), as pure functions: which token may use which client
 * endpoint on an allocation of which namespace, and which event-stream subscription it may open.
 *
 * Written from spec 002's sentences (quoted beside each decision). Where the spec leaves a choice,
 * a decision is the set of allowed outcomes: `ALLOWS_BOTH`. The spec does not show the policy
 * language; decisions that depend on it (namespace globs, which of several matching entries wins,
 * `policy` shorthands, `deny`) follow Nomad's documented semantics (hashicorp/nomad acl/policy.go,
 * acl/acl.go) and are marked `upstream`: the rules judge them under the strict profile only.
 */

/** A namespace capability of spec 002's "ACL required" column. */
export type Capability = 'read-job' | 'read-fs' | 'read-logs' | 'submit-job';

/**
 * Nomad's other namespace capabilities (hashicorp/nomad acl/policy.go isNamespaceCapabilityValid,
 * the ones both 1.6.1 and 2.0.5 accept). None is one of spec 002's: a token holding only these
 * holds no capability an endpoint of the table requires. gc-allocation (2.0.5 only) is left out:
 * 2.0.5's client/alloc_endpoint.go GarbageCollect takes it beside submit-job.
 */
export const OTHER_CAPABILITIES = [
  'list-jobs', 'parse-job', 'dispatch-job', 'alloc-exec', 'alloc-node-exec', 'alloc-lifecycle', 'csi-register-plugin', 'csi-write-volume', 'csi-read-volume',
  'csi-list-volume', 'csi-mount-volume', 'list-scaling-policies', 'read-scaling-policy', 'read-job-scaling', 'scale-job', 'submit-recommendation', 'sentinel-override',
] as const;
export type OtherCapability = (typeof OTHER_CAPABILITIES)[number];

/** One namespace block of a policy: a name or glob, a shorthand policy and/or explicit capabilities. */
export interface NamespaceRule {
  pattern: string;
  policy?: 'deny' | 'read' | 'write';
  capabilities?: (Capability | OtherCapability | 'deny')[];
}

/** A token: a management token, or the union of its policies' blocks. */
export interface TokenModel {
  management?: boolean;
  namespaces: NamespaceRule[];
  node?: 'deny' | 'read' | 'write';
}

/** The answers a decision may get: {true}, {false}, or both where the spec leaves it open. */
export type Outcomes = ReadonlySet<boolean>;
export const GRANTED: Outcomes = new Set([true]);
export const REFUSED: Outcomes = new Set([false]);
export const ALLOWS_BOTH: Outcomes = new Set([true, false]);
const outcome = (b: boolean): Outcomes => (b ? GRANTED : REFUSED);

/**
 * Whether judging the token needs Nomad's policy language beyond exact names and explicit
 * capabilities (a glob, a shorthand, a deny): such decisions are UPSTREAM, not the spec's.
 */
export function usesUpstreamLanguage(t: TokenModel): boolean {
  const spec = new Set<string>(['read-job', 'read-fs', 'read-logs', 'submit-job']);
  return t.node === 'deny' || t.namespaces.some((r) => r.pattern.includes('*') || r.policy !== undefined || (r.capabilities ?? []).some((c) => !spec.has(c)));
}

/**
 * A token made of several policies, in the order the token lists them. Spec 002 names
 * capabilities and policies but does not show how a token's policies combine; Nomad
 * (acl/acl.go NewACL, 1.6.1 and 2.0.5) compiles them all into one ACL: the namespace blocks of
 * every policy that name the same pattern merge (capabilities union, "Deny always takes
 * precedence" whatever the order), and the node policy is maxPrivilege of them all: deny over
 * write over read. So the token is its policies' blocks side by side, and the node policy ranked.
 */
export function mergePolicies(policies: TokenModel[]): TokenModel {
  const nodes = policies.map((p) => p.node);
  const node = nodes.includes('deny') ? 'deny' : nodes.includes('write') ? 'write' : nodes.includes('read') ? 'read' : undefined;
  return { namespaces: policies.flatMap((p) => p.namespaces), ...(node ? { node } : {}) };
}

/**
 * nomad/acl/policy.go expandNamespacePolicy: `read` stands for read-job (and listing), not read-fs
 * nor read-logs; `write` adds submit-job, read-logs and read-fs. Only the capabilities spec 002 names.
 */
const SHORTHAND: Record<'deny' | 'read' | 'write', (Capability | OtherCapability | 'deny')[]> = {
  deny: ['deny'],
  read: ['read-job'],
  write: ['read-job', 'submit-job', 'read-logs', 'read-fs'],
};

/** Nomad's namespace glob (ryanuber/go-glob): '*' stands for any run of characters, anywhere. */
export function globMatches(pattern: string, name: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === name;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!name.startsWith(first) || name.length < first.length + last.length || !name.endsWith(last)) return false;
  let at = first.length;
  for (const middle of parts.slice(1, -1)) {
    const found = name.indexOf(middle, at);
    if (found === -1 || found + middle.length > name.length - last.length) return false;
    at = found + middle.length;
  }
  return true;
}

/** The capabilities one pattern's blocks grant together: a deny in any of them clears the rest (acl/acl.go NewACL: "Deny always takes precedence"). */
function capabilitiesOf(blocks: NamespaceRule[]): Set<Capability | OtherCapability> {
  const all = blocks.flatMap((b) => [...(b.policy ? SHORTHAND[b.policy] : []), ...(b.capabilities ?? [])]);
  return all.includes('deny') ? new Set() : new Set(all.filter((c): c is Capability | OtherCapability => c !== 'deny'));
}

/**
 * The capability sets a token may hold in a namespace: one, or several where equally close globs
 * tie (the policy language is not the spec's, so either may win).
 * - Spec 002 (Endpoints, ACL required): "namespace:read-fs" and so on: a capability in a namespace.
 * - Upstream (acl/acl.go matchingNamespaceCapabilitySet): a block named exactly for the namespace
 *   wins over every glob; otherwise the matching glob with the smallest difference
 *   len(namespace) - len(glob) + count('*') (findAllMatchingWildcards, findClosestMatchingGlob).
 *   `nomadTies`: of equally close globs, the greatest name (byte order) wins: Nomad walks the
 *   matching globs in byte order (iradix) and sort.SliceStable with the non-strict less
 *   `difference <= difference` moves the last walked first. Nomad 2.0.5 and 1.6.1 answer so.
 */
export function capabilitySets(t: TokenModel, namespace: string, nomadTies = false): Set<Capability | OtherCapability>[] {
  const exact = t.namespaces.filter((r) => r.pattern === namespace);
  if (exact.length) return [capabilitiesOf(exact)];
  const globs = new Map<string, NamespaceRule[]>();
  for (const r of t.namespaces) if (r.pattern.includes('*') && globMatches(r.pattern, namespace)) globs.set(r.pattern, [...(globs.get(r.pattern) ?? []), r]);
  if (!globs.size) return [new Set()];
  const difference = (g: string) => namespace.length - g.length + (g.split('*').length - 1);
  const best = Math.min(...[...globs.keys()].map(difference));
  const closest = [...globs].filter(([g]) => difference(g) === best).sort(([a], [b]) => (a < b ? 1 : -1));
  return (nomadTies ? closest.slice(0, 1) : closest).map(([, blocks]) => capabilitiesOf(blocks));
}

/**
 * Spec 002, Endpoints: "GET | /v1/client/fs/logs/:alloc_id | text/plain | namespace:read-logs or
 * namespace:read-fs": an endpoint needs any one of its capabilities, in the allocation's namespace.
 */
export function mayUseNamespaced(t: TokenModel, allocNamespace: string, anyOf: Capability[], nomadTies = false): Outcomes {
  if (t.management) return GRANTED;
  const answers = new Set(capabilitySets(t, allocNamespace, nomadTies).map((set) => anyOf.some((c) => set.has(c))));
  return answers;
}

/**
 * A client endpoint asked with `?namespace=<queried>` about an allocation of `allocNamespace`. The
 * spec lists no namespace parameter for client endpoints and grants by the allocation's namespace,
 * so a token without the capability there is refused whatever the parameter names; one that holds
 * it may be served (the parameter changes nothing: Nomad, client/fs_endpoint.go and
 * client/alloc_endpoint.go check alloc.Namespace) or refused (a server that takes the mismatch as
 * "not found"): `strictUpstream` picks Nomad's answer.
 */
export function mayUseWithQueryNamespace(t: TokenModel, allocNamespace: string, queried: string, anyOf: Capability[], strictUpstream = false): Outcomes {
  const own = mayUseNamespaced(t, allocNamespace, anyOf, strictUpstream);
  if (queried === allocNamespace || strictUpstream || !own.has(true)) return own;
  return ALLOWS_BOTH;
}

/**
 * Spec 002, Endpoints: node:read for GET metadata and stats, node:write for POST metadata and GC of
 * all. Whether node:write includes node:read the spec does not say (Nomad's does: acl/acl.go
 * AllowNodeRead), so a write token on a read endpoint may go either way.
 */
export function mayUseNode(t: TokenModel, need: 'read' | 'write'): Outcomes {
  if (t.management) return GRANTED;
  if (need === 'read' && t.node === 'write') return ALLOWS_BOTH;
  return outcome(t.node === need);
}

const NAMESPACED_TOPICS = new Set(['Job', 'Allocation', 'Deployment', 'Evaluation']);

/**
 * Whether a token may subscribe to a topic with a namespace parameter (spec 002, Authentication 2:
 * "Event stream permissions per topic: '*' (all topics, which is the default when no topic is
 * given): management; ACLToken, ACLPolicy: management; Job, Allocation, Deployment, Evaluation:
 * namespace:read-job; Node: node:read."; Event stream parameters, namespace: "'*' means all
 * namespaces ...; needs a management token or a policy applying to all namespaces").
 * A policy applying to all namespaces: one whose '*' glob grants read-job and that nothing closer
 * takes back. `existing` are namespaces known to exist: one where the token is refused read-job
 * makes namespace=* refused; a token naming namespaces one by one may go either way (what "all" is
 * on a shared target the client cannot know).
 */
export function maySubscribe(t: TokenModel, topic: string, namespace = 'default', existing: string[] = ['default']): Outcomes {
  if (t.management) return GRANTED;
  if (topic === '*' || topic === 'ACLToken' || topic === 'ACLPolicy') return REFUSED;
  if (topic === 'Node') return t.node === 'read' ? GRANTED : t.node === 'write' ? ALLOWS_BOTH : REFUSED;
  // The list names no permission for NodeDrain (nor for topics it does not list): either answer.
  if (!NAMESPACED_TOPICS.has(topic)) return ALLOWS_BOTH;
  if (namespace !== '*') return mayUseNamespaced(t, namespace, ['read-job']);
  if (existing.some((ns) => !mayUseNamespaced(t, ns, ['read-job']).has(true))) return REFUSED;
  const star = t.namespaces.filter((r) => r.pattern === '*');
  return star.length && capabilitiesOf(star).has('read-job') && star.length === t.namespaces.length ? GRANTED : ALLOWS_BOTH;
}

/**
 * Whether a subscription to several topics at once receives the events of one of them (`topic`).
 * The permissions are given per topic: holding every topic's permission, the subscription is
 * granted; a topic it is refused never reaches it. One refused topic beside a permitted one may
 * refuse the whole subscription (Nomad: nomad/event_endpoint.go validateNsOp checks every topic)
 * or leave it served without that topic: the spec does not say, so either answer.
 */
export function mayReceiveAmong(t: TokenModel, topic: string, topics: string[], namespace = 'default', existing: string[] = ['default']): Outcomes {
  const own = maySubscribe(t, topic, namespace, existing);
  const granted = (o: Outcomes) => o.size === 1 && o.has(true);
  if (!own.has(true) || topics.every((other) => granted(maySubscribe(t, other, namespace, existing)))) return own;
  return ALLOWS_BOTH;
}

/** Whether an outcome the target gave is one the model allows. */
export const allows = (o: Outcomes, got: boolean): boolean => o.has(got);

/** "granted", "refused" or "granted or refused", for failure messages. */
export const describeOutcomes = (o: Outcomes): string => (o.size === 2 ? 'granted or refused' : o.has(true) ? 'granted' : 'refused');
