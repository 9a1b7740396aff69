import type { Dialect } from '../../config/dialects.ts';

/** Whether an answer came from the agent's cache, and how old that entry is. */
export interface CacheMeta {
  hit: boolean;
  ageMs?: number;
}

/**
 * The response headers a Consul agent adds that the spec leaves unmentioned; only the hashicorp
 * dialect sends them.
 * - X-Consul-Default-ACL-Policy on every wrapped answer, errors included (agent/http.go
 *   HTTPHandlers.wrap, setACLDefaultPolicy); the reference's ACLs deny by default.
 * - X-Cache HIT|MISS, and Age in seconds on a HIT (agent/http.go setCacheMeta).
 * - X-Consul-KnownLeader and X-Consul-LastContact with query metadata (agent/http.go setMeta).
 */
export class ConsulHeaders {
  constructor(private readonly dialect: Dialect) {}

  private get on(): boolean {
    return this.dialect.name === 'hashicorp';
  }

  base(): Record<string, string> {
    return this.on ? { 'x-consul-default-acl-policy': 'deny' } : {};
  }

  cache(meta: CacheMeta): Record<string, string> {
    if (!this.on) return {};
    // Literals rather than spreads: authorize and leaf answers ask for these on every request.
    if (!meta.hit) return { 'x-consul-default-acl-policy': 'deny', 'x-cache': 'MISS' };
    return { 'x-consul-default-acl-policy': 'deny', 'x-cache': 'HIT', age: String(Math.round((meta.ageMs ?? 0) / 1000)) };
  }

  queryMeta(): Record<string, string> {
    return this.on ? { 'x-consul-knownleader': 'true', 'x-consul-lastcontact': '0' } : {};
  }
}
