import { randomUUID } from 'node:crypto';

/** A namespace capability the scheduler checks (spec 002's permissions). */
export type NamespaceCapability = 'read-job' | 'read-fs' | 'read-logs' | 'submit-job' | 'list-jobs' | 'alloc-lifecycle';

export interface SchedulerToken {
  management: boolean;
  nodeRead: boolean;
  nodeWrite: boolean;
  /** Namespaces (globs, '*' for all) with read-job. Tokens of the old control route get every capability in them. */
  readJob: string[];
  /** Namespace glob → its capabilities, for tokens made from ACL policies. */
  capabilities?: Record<string, string[]>;
}

/** Nomad's namespace globs: '*' stands for any run of characters. */
export function namespaceMatches(pattern: string, namespace: string): boolean {
  if (pattern === namespace) return true;
  if (!pattern.includes('*')) return false;
  const source = pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${source}$`).test(namespace);
}

/**
 * ACL tokens of the scheduler. Fixed tokens (the management token, the old control route's) are
 * kept here; tokens made through the ACL API are looked up through `resolve`, at every request, so
 * a deleted token or a changed policy takes effect at once.
 */
export class SchedulerAcl {
  private readonly tokens = new Map<string, SchedulerToken>();
  resolve: (secret: string) => SchedulerToken | undefined = () => undefined;

  add(token: SchedulerToken, id: string = randomUUID()): string {
    this.tokens.set(id, token);
    return id;
  }

  get(id: string | undefined): SchedulerToken | undefined {
    return id ? (this.tokens.get(id) ?? this.resolve(id)) : undefined;
  }

  /** Whether a token holds a capability in a namespace ('*': in every namespace). */
  static can(t: SchedulerToken, namespace: string, capability: NamespaceCapability): boolean {
    if (t.management) return true;
    if (t.capabilities) {
      if (namespace === '*') return Object.entries(t.capabilities).some(([pattern, caps]) => pattern === '*' && caps.includes(capability));
      const caps = SchedulerAcl.blockFor(t.capabilities, namespace);
      return caps !== undefined && caps.includes(capability) && !caps.includes('deny');
    }
    return t.readJob.includes('*') || (namespace !== '*' && t.readJob.includes(namespace));
  }

  /**
   * The one block of a token's policies that decides a namespace, as nomad/acl/acl.go
   * matchingNamespaceCapabilitySet picks it: the block named exactly for the namespace, even when it
   * grants less than a glob; else, of the matching globs, the closest (findAllMatchingWildcards:
   * the smallest len(namespace) - len(glob) + count('*')). Equally close globs: Nomad walks them in
   * byte order and sort.SliceStable with a non-strict less (findClosestMatchingGlob) puts the last
   * walked first, so the greatest name wins.
   */
  static blockFor(capabilities: Record<string, string[]>, namespace: string): string[] | undefined {
    if (Object.hasOwn(capabilities, namespace)) return capabilities[namespace];
    const difference = (glob: string) => namespace.length - glob.length + (glob.split('*').length - 1);
    const globs = Object.keys(capabilities)
      .filter((p) => p.includes('*') && namespaceMatches(p, namespace))
      .sort((a, b) => difference(a) - difference(b) || (a < b ? 1 : a > b ? -1 : 0));
    return globs.length ? capabilities[globs[0]!] : undefined;
  }

  /** Whether a token holds a capability in some namespace (the fault that checks no namespace). */
  static canAnywhere(t: SchedulerToken, capability: NamespaceCapability): boolean {
    if (t.management) return true;
    if (t.capabilities) return Object.values(t.capabilities).some((caps) => caps.includes(capability));
    return t.readJob.length > 0;
  }

  static canReadJob(t: SchedulerToken, namespace: string): boolean {
    return SchedulerAcl.can(t, namespace, 'read-job');
  }

  /**
   * Whether a token may subscribe to a topic in a namespace, as spec 002 lists the permissions.
   * The spec lists no permission for NodeDrain: `nodeDrainNeedsManagement` makes it need a
   * management token like every topic Nomad does not list (nomad/event_endpoint.go validateNsOp,
   * default case); otherwise node:read, like Node. `aclTopicsOpen` is a fault.
   */
  static canSubscribe(t: SchedulerToken, topic: string, namespace: string, options: { nodeDrainNeedsManagement?: boolean; aclTopicsOpen?: boolean } = {}): boolean {
    if (t.management) return true;
    if ((topic === 'ACLToken' || topic === 'ACLPolicy') && options.aclTopicsOpen) return true;
    if (topic === '*' || topic === 'ACLToken' || topic === 'ACLPolicy') return false;
    if (['Job', 'Allocation', 'Deployment', 'Evaluation'].includes(topic)) return SchedulerAcl.canReadJob(t, namespace);
    if (topic === 'Node') return t.nodeRead;
    if (topic === 'NodeDrain') return !options.nodeDrainNeedsManagement && t.nodeRead;
    // Topics the spec does not list need a management token, as upstream.
    return false;
  }
}
