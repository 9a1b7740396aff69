import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import type { ServiceDefinition } from './service-definition.ts';

/**
 * The services and health checks registered with this agent, and the node they run on: what
 * Consul's local state holds and its anti-entropy syncs to the catalog (hashicorp/consul v1.8.7
 * agent/local/state.go, agent/agent.go AddService, RemoveService, updateTTLCheck). The reference is
 * its own one-node catalog, so a registration is in the catalog at once.
 *
 * Checks are TTL checks (agent/checks/check.go CheckTTL): a check not updated within its TTL turns
 * critical with the output "TTL expired".
 */

export type CheckStatus = 'passing' | 'warning' | 'critical';

/** structs.ValidStatus: the three statuses a check may be given. */
export function isCheckStatus(s: string): s is CheckStatus {
  return s === 'passing' || s === 'warning' || s === 'critical';
}

export interface LocalService {
  def: ServiceDefinition;
  namespace: string;
  createIndex: number;
  modifyIndex: number;
}

export interface LocalCheck {
  id: string;
  name: string;
  status: CheckStatus;
  notes: string;
  output: string;
  serviceId: string;
  serviceName: string;
  serviceTags: string[];
  namespace: string;
  ttlMs: number;
  timer?: NodeJS.Timeout;
  createIndex: number;
  modifyIndex: number;
}

export interface AgentNode {
  id: string;
  name: string;
  address: string;
  datacenter: string;
  createIndex: number;
}

const STATUS_ORDER: Record<CheckStatus, number> = { passing: 0, warning: 1, critical: 2 };

export class LocalServices {
  readonly node: AgentNode;
  private readonly services = new Map<string, LocalService>();
  private readonly checks = new Map<string, LocalCheck>();
  /** The catalog's index: the last registration, deregistration or check change. */
  private lastIndex: number;
  /** 'change' on every write, for blocking catalog and health queries. */
  readonly changes = new EventEmitter();

  constructor(
    datacenter: string,
    private readonly nextIndex: () => number,
  ) {
    this.changes.setMaxListeners(0);
    this.lastIndex = nextIndex();
    this.node = { id: randomUUID(), name: hostname(), address: '127.0.0.1', datacenter, createIndex: this.lastIndex };
  }

  get index(): number {
    return this.lastIndex;
  }

  private key(namespace: string, id: string): string {
    return `${namespace}\u0000${id}`;
  }

  private changed(): number {
    this.lastIndex = this.nextIndex();
    this.changes.emit('change');
    return this.lastIndex;
  }

  service(namespace: string, id: string): LocalService | undefined {
    return this.services.get(this.key(namespace, id));
  }

  check(namespace: string, id: string): LocalCheck | undefined {
    return this.checks.get(this.key(namespace, id));
  }

  allServices(): LocalService[] {
    return [...this.services.values()];
  }

  allChecks(): LocalCheck[] {
    return [...this.checks.values()];
  }

  checksOf(s: LocalService): LocalCheck[] {
    return this.allChecks().filter((c) => c.namespace === s.namespace && c.serviceId === s.def.id);
  }

  /** The worst status of a service's checks (passing when it has none). */
  statusOf(s: LocalService): CheckStatus {
    let worst: CheckStatus = 'passing';
    for (const c of this.checksOf(s)) if (STATUS_ORDER[c.status] > STATUS_ORDER[worst]) worst = c.status;
    return worst;
  }

  /**
   * Adds or replaces a service and adds its checks (agent.AddService): a check without an ID is
   * "service:<id>", numbered ":1", ":2"… when the registration has several; without a name it is
   * "Service '<name>' check"; it starts as its Status says, critical when none. A check that exists
   * keeps its status and output when the service is registered again.
   */
  register(def: ServiceDefinition, namespace: string): void {
    const index = this.changed();
    const existing = this.service(namespace, def.id);
    this.services.set(this.key(namespace, def.id), { def, namespace, createIndex: existing?.createIndex ?? index, modifyIndex: index });
    def.checks.forEach((c, i) => {
      const id = c.id ?? `service:${def.id}${def.checks.length > 1 ? `:${i + 1}` : ''}`;
      const prior = this.check(namespace, id);
      if (prior?.timer) clearTimeout(prior.timer);
      const check: LocalCheck = {
        id,
        name: c.name ?? `Service '${def.name}' check`,
        status: prior ? prior.status : ((c.status as CheckStatus | undefined) ?? 'critical'),
        notes: c.notes,
        output: prior?.output ?? '',
        serviceId: def.id,
        serviceName: def.name,
        serviceTags: def.tags,
        namespace,
        ttlMs: c.ttlMs,
        createIndex: prior?.createIndex ?? index,
        modifyIndex: index,
      };
      this.checks.set(this.key(namespace, id), check);
      this.armTtl(check);
    });
  }

  /** Removes a service and its checks; false when there is none by that ID. */
  deregister(namespace: string, id: string): boolean {
    const s = this.service(namespace, id);
    if (!s) return false;
    for (const c of this.checksOf(s)) {
      if (c.timer) clearTimeout(c.timer);
      this.checks.delete(this.key(namespace, c.id));
    }
    this.services.delete(this.key(namespace, id));
    this.changed();
    return true;
  }

  /** A TTL check's update (agent.updateTTLCheck): its status and output, and its TTL starts again. */
  updateTtl(check: LocalCheck, status: CheckStatus, output: string): void {
    const moved = check.status !== status || check.output !== output;
    check.status = status;
    check.output = output;
    this.armTtl(check);
    if (moved) check.modifyIndex = this.changed();
  }

  private armTtl(check: LocalCheck): void {
    if (check.timer) clearTimeout(check.timer);
    check.timer = setTimeout(() => {
      check.timer = undefined;
      if (check.status === 'critical' && check.output === 'TTL expired') return;
      check.status = 'critical';
      check.output = 'TTL expired';
      check.modifyIndex = this.changed();
    }, check.ttlMs);
    check.timer.unref();
  }

  /** Stops every TTL timer (the reference is stopping). */
  close(): void {
    for (const c of this.checks.values()) if (c.timer) clearTimeout(c.timer);
  }
}
