import type { IncomingMessage } from 'node:http';
import type { Dialect } from '../../config/dialects.ts';
import type { FaultSet } from '../faults/types.ts';

export type NamespaceChoice = { ok: true; namespace: string } | { ok: false; status: 400; message: string };

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/**
 * The namespaces of the agent and how a request selects one. With namespaces off the agent acts
 * like Consul CE: it has only 'default', and a namespace header or `?ns` is refused with 400
 * (agent/http_ce.go HTTPHandlers.parseEntMeta, which checks the header first).
 */
export class MeshNamespaces {
  private readonly known = new Set(['default']);

  constructor(
    readonly enabled: boolean,
    private readonly dialect: Dialect,
    private readonly faults: FaultSet,
  ) {}

  /** Reference setup: makes a namespace. Refused (false) with namespaces off or a bad name. */
  create(name: string): boolean {
    if (!this.enabled || !NAME.test(name)) return false;
    this.known.add(name);
    return true;
  }

  list(): string[] {
    return [...this.known];
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
    return { ok: true, namespace: ordered.find(Boolean) ?? tokenNamespace ?? 'default' };
  }
}
