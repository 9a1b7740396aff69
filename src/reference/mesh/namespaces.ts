import type { IncomingMessage } from 'node:http';
import type { Dialect } from '../../config/dialects.ts';
import type { FaultSet } from '../faults/types.ts';

export type NamespaceChoice = { ok: true; namespace: string } | { ok: false; status: 400; message: string };

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** A namespace as Consul Enterprise keeps it (api/namespace.go Namespace). */
export interface NamespaceRecord {
  name: string;
  description: string;
  meta?: Record<string, string>;
  /** IDs of the policies the namespace applies to its tokens by default (ACLs.PolicyDefaults). */
  policyDefaults: string[];
  createIndex: number;
  modifyIndex: number;
}

/**
 * The namespaces of the agent and how a request selects one. With namespaces off the agent acts
 * like Consul CE: it has only 'default', and a namespace header or `?ns` is refused with 400
 * (agent/http_ce.go HTTPHandlers.parseEntMeta, which checks the header first).
 */
export class MeshNamespaces {
  private readonly known = new Map<string, NamespaceRecord>([['default', { name: 'default', description: 'Builtin Default Namespace', policyDefaults: [], createIndex: 1, modifyIndex: 1 }]]);

  constructor(
    readonly enabled: boolean,
    private readonly dialect: Dialect,
    private readonly faults: FaultSet,
  ) {}

  /** Reference setup: makes a namespace. Refused (false) with namespaces off or a bad name. */
  create(name: string): boolean {
    if (!this.enabled || !NAME.test(name)) return false;
    if (!this.known.has(name)) this.known.set(name, { name, description: '', policyDefaults: [], createIndex: 1, modifyIndex: 1 });
    return true;
  }

  list(): string[] {
    return [...this.known.keys()];
  }

  has(name: string): boolean {
    return this.known.has(name);
  }

  record(name: string): NamespaceRecord | undefined {
    return this.known.get(name);
  }

  records(): NamespaceRecord[] {
    return [...this.known.values()];
  }

  /** Creates or replaces a namespace record (the admin API's write; the caller validated it). */
  put(record: NamespaceRecord): void {
    this.known.set(record.name, record);
  }

  /** Removes a namespace; 'default' stays. */
  remove(name: string): boolean {
    return name !== 'default' && this.known.delete(name);
  }

  policyDefaults(name: string): string[] {
    return this.known.get(name)?.policyDefaults ?? [];
  }

  /**
   * Namespace precedence (spec 001, Namespace selection): the body's Namespace (authorize only),
   * then `?ns`, then the namespace header, then the token's namespace, then 'default'.
   */
  select(req: IncomingMessage, url: URL, tokenNamespace: string | undefined, bodyNamespace?: string): NamespaceChoice {
    const headerName = this.dialect.mesh.namespaceHeader;
    const h = req.headers[headerName.toLowerCase()];
    const fromHeader = typeof h === 'string' && h !== '' ? h : undefined;
    const fromQuery = url.searchParams.get('ns') || undefined;
    if (!this.enabled) {
      if (fromHeader) return { ok: false, status: 400, message: `Invalid header: "${headerName}" - Namespaces are a Consul Enterprise feature` };
      if (fromQuery) return { ok: false, status: 400, message: 'Invalid query parameter: "ns" - Namespaces are a Consul Enterprise feature' };
      return { ok: true, namespace: 'default' };
    }
    const fromBody = bodyNamespace && !this.faults.has('mesh.ns-body-ignored') ? bodyNamespace : undefined;
    const ordered = this.faults.has('mesh.ns-header-over-query') ? [fromBody, fromHeader, fromQuery] : [fromBody, fromQuery, fromHeader];
    const fromToken = this.faults.has('mesh.ns-token-namespace-ignored') ? undefined : tokenNamespace;
    return { ok: true, namespace: ordered.find(Boolean) ?? fromToken ?? 'default' };
  }
}
