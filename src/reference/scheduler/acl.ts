import { randomUUID } from 'node:crypto';

export interface SchedulerToken {
  management: boolean;
  nodeRead: boolean;
  nodeWrite: boolean;
  /** Namespaces with read-job (and read-fs, read-logs, submit-job); '*' for all. */
  readJob: string[];
}

/** ACL tokens of the scheduler. How they are made is outside the spec (control interface). */
export class SchedulerAcl {
  private readonly tokens = new Map<string, SchedulerToken>();

  add(token: SchedulerToken, id: string = randomUUID()): string {
    this.tokens.set(id, token);
    return id;
  }

  get(id: string | undefined): SchedulerToken | undefined {
    return id ? this.tokens.get(id) : undefined;
  }

  static canReadJob(t: SchedulerToken, namespace: string): boolean {
    return t.management || t.readJob.includes('*') || (namespace !== '*' && t.readJob.includes(namespace));
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
