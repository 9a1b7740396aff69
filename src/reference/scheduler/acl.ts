/** A namespace capability the scheduler checks (spec 002's permissions). */
export type NamespaceCapability = 'read-job' | 'read-fs' | 'read-logs' | 'submit-job' | 'list-jobs' | 'alloc-lifecycle';

/** What a token may do, resolved from its ACL policies (acl-policies.ts AclStore.grantsOf) at each request. */
export interface SchedulerToken {
  management: boolean;
  nodeRead: boolean;
  nodeWrite: boolean;
  /** Namespace name or glob → its capabilities ('deny' among them clears the block). Empty for a management token. */
  capabilities: Record<string, string[]>;
}

/**
 * Nomad's namespace globs: '*' stands for any run of characters. A pattern holds only
 * [a-zA-Z0-9-*] (acl-policies.ts refuses any other label, as nomad/acl/policy.go validNamespace),
 * so no character of it but '*' means anything to a regular expression.
 */
export function namespaceMatches(pattern: string, namespace: string): boolean {
  return new RegExp(`^${pattern.replaceAll('*', '.*')}$`).test(namespace);
}

/**
 * The scheduler's ACL. Every token, the management token among them, is resolved through
 * `resolve` at every request, so a deleted token or a changed policy takes effect at once.
 */
export class SchedulerAcl {
  resolve: (secret: string) => SchedulerToken | undefined = () => undefined;

  get(secret: string | undefined): SchedulerToken | undefined {
    return secret ? this.resolve(secret) : undefined;
  }

  /**
   * Whether a token holds a capability in a namespace. Namespace '*' (the event stream's "all
   * namespaces") is decided by the block named '*': a policy applying to all namespaces.
   */
  static can(t: SchedulerToken, namespace: string, capability: NamespaceCapability): boolean {
    if (t.management) return true;
    const caps = SchedulerAcl.blockFor(t.capabilities, namespace);
    return caps !== undefined && caps.includes(capability) && !caps.includes('deny');
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
      // A name without '*' matches only itself, and that block was taken above.
      .filter((p) => namespaceMatches(p, namespace))
      .sort((a, b) => difference(a) - difference(b) || (a < b ? 1 : a > b ? -1 : 0));
    return globs.length ? capabilities[globs[0]!] : undefined;
  }

  static canReadJob(t: SchedulerToken, namespace: string): boolean {
    return SchedulerAcl.can(t, namespace, 'read-job');
  }

  /**
   * Whether a token may subscribe to a topic in a namespace, as spec 002 lists the permissions:
   * namespace:read-job for Job, Allocation, Deployment and Evaluation, node:read for Node, a
   * management token for '*', ACLToken and ACLPolicy. The spec lists no permission for NodeDrain
   * nor for any other topic: they need a management token, as in Nomad
   * (nomad/event_endpoint.go validateNsOp, default case).
   */
  static canSubscribe(t: SchedulerToken, topic: string, namespace: string): boolean {
    if (t.management) return true;
    if (['Job', 'Allocation', 'Deployment', 'Evaluation'].includes(topic)) return SchedulerAcl.canReadJob(t, namespace);
    if (topic === 'Node') return t.nodeRead;
    return false;
  }
}
