import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Dialect } from '../../config/dialects.ts';

export interface AclToken {
  /** Shown in denials, like Consul's AccessorID; the secret is the key of the store. */
  accessor: string;
  namespace: string;
  /** Services the token may write; '*' for all. */
  serviceWrite: string[];
  /** The management token: service:write in every namespace. */
  global: boolean;
}

/** Consul's anonymous token, what a request without a token is judged as. */
const ANONYMOUS_ACCESSOR = '00000000-0000-0000-0000-000000000002';

/** Why a request was refused; `status` is always a 4xx. */
export interface Denial {
  status: 403;
  message: string;
}

/**
 * The agent's ACL tokens. A token made in a namespace holds service:write only there, as in
 * Consul Enterprise (a namespaced token's policies apply to its own namespace); the management
 * token holds it everywhere.
 */
export class AclTokens {
  private readonly tokens = new Map<string, AclToken>();

  constructor(private readonly dialect: Dialect) {}

  addManagement(secret: string): void {
    this.tokens.set(secret, { accessor: randomUUID(), namespace: 'default', serviceWrite: ['*'], global: true });
  }

  create(namespace: string, serviceWrite: string[]): string {
    const secret = randomUUID();
    this.tokens.set(secret, { accessor: randomUUID(), namespace, serviceWrite, global: false });
    return secret;
  }

  /**
   * The secret a request carries. Consul reads `?token=` first, then X-Consul-Token, then
   * `Authorization: Bearer` (agent/http.go parseTokenInternal); the spec dialect's carrier is Bearer.
   */
  secretOf(req: IncomingMessage, url: URL): string | undefined {
    if (this.dialect.name === 'hashicorp') {
      const fromQuery = url.searchParams.get('token');
      if (fromQuery) return fromQuery;
    }
    const carrier = this.dialect.mesh.token;
    const raw = req.headers[carrier.header.toLowerCase()];
    const fromCarrier = typeof raw === 'string' && raw.trim() !== '' ? (carrier.scheme ? /^Bearer\s+(\S+)/i.exec(raw)?.[1] : raw.trim()) : undefined;
    const bearer = /^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')?.[1];
    return fromCarrier ?? bearer;
  }

  resolve(secret: string | undefined): AclToken | undefined {
    return secret ? this.tokens.get(secret) : undefined;
  }

  canWrite(token: AclToken | undefined, namespace: string, service: string): boolean {
    if (!token) return false;
    if (!token.global && token.namespace !== namespace) return false;
    return token.serviceWrite.includes('*') || token.serviceWrite.includes(service);
  }

  /**
   * Checks service:write; a refusal is a 403 in Consul's words (acl/errors.go
   * PermissionDeniedError.Error, and "ACL not found" for an unknown token).
   */
  checkServiceWrite(secret: string | undefined, namespace: string, service: string): Denial | undefined {
    const token = this.resolve(secret);
    if (secret && !token) return { status: 403, message: 'ACL not found' };
    if (this.canWrite(token, namespace, service)) return undefined;
    const accessor = token?.accessor ?? ANONYMOUS_ACCESSOR;
    return { status: 403, message: `Permission denied: token with AccessorID '${accessor}' lacks permission 'service:write' on ${JSON.stringify(service)}` };
  }
}
