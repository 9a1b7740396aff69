import type { Router, RouteContext, RouteHandler } from '../http/router.ts';
import { readBody, BodyError } from '../http/body.ts';
import { sendJsonBody } from '../http/plain-errors.ts';
import { adminRoute, authorizerOf, namespaceOf, sendAdminJson, type AdminContext } from './admin-http.ts';
import type { Authorizer } from './acl.ts';
import { ConsulError, PERMISSION_DENIED } from './consul-errors.ts';

/**
 * Consul's key/value store, as far as a client writing, listing and removing its own keys needs it:
 * GET, PUT and DELETE /v1/kv/<key> with `?recurse`, `?keys` (and `separator`), `?raw`, `?cas` and
 * `?flags` (hashicorp/consul v1.8.7 agent/kvs_endpoint.go KVSEndpoint, KVSGet, KVSGetKeys, KVSPut,
 * KVSDelete; agent/consul/kvs_endpoint.go kvsPreApply, Get, List, ListKeys; the state store's
 * KVSSetCAS/KVSDeleteCAS). What real Consul 1.8.7 answered, by request, is kept in
 * test/reference-consul-kv.test.ts. Sessions (`?acquire`, `?release`) are not kept: the reference
 * has none, so like a Consul without that session it refuses them (500).
 *
 * ACLs: reading a key needs key:read on it (a recursive read or a key listing leaves out what the
 * token may not read, and answers 404 when nothing is left), writing or deleting needs key:write,
 * a recursive delete key:write on every key under the prefix (KeyWritePrefix). Refusals are
 * acl.ErrPermissionDenied: 403 "Permission denied".
 */

/** kv_max_value_size's default (agent/config/default.go): a larger body is refused with 413. */
const KV_MAX_VALUE_SIZE = 512 * 1024;

interface KvEntry {
  key: string;
  value: Buffer | null;
  flags: bigint;
  createIndex: number;
  modifyIndex: number;
}

export class KvEndpoints {
  /** By namespace, then key (one namespace, "default", on Consul CE). */
  private readonly entries = new Map<string, Map<string, KvEntry>>();
  /** The KV table's index: the last write or delete (a read with nothing to show still reports it). */
  private tableIndex = 0;

  constructor(private readonly ctx: AdminContext) {}

  register(router: Router<RouteHandler>): void {
    const r = (fn: (route: RouteContext) => Promise<void> | void) => adminRoute(this.ctx, fn);
    router.add('GET', '/v1/kv/*key', r((c) => this.get(c)));
    router.add('PUT', '/v1/kv/*key', r((c) => this.put(c)));
    router.add('DELETE', '/v1/kv/*key', r((c) => this.delete(c)));
  }

  private table(namespace: string): Map<string, KvEntry> {
    let t = this.entries.get(namespace);
    if (!t) this.entries.set(namespace, (t = new Map()));
    return t;
  }

  /** The key after /v1/kv/, as Consul takes it from the decoded path. */
  private keyOf(route: RouteContext): string {
    const raw = route.params.key ?? '';
    try {
      return decodeURIComponent(raw);
    } catch {
      throw new ConsulError(400, `invalid path encoding: ${raw}`);
    }
  }

  private readable(authz: Authorizer, key: string, ns: string): boolean {
    return authz.allowed('key', key, 'read', ns);
  }

  private view(e: KvEntry): Record<string, unknown> {
    // DirEntry: Session is omitempty; a value written empty is nil, shown as null.
    return { LockIndex: 0, Key: e.key, Flags: Number(e.flags), Value: e.value && e.value.length ? e.value.toString('base64') : null, CreateIndex: e.createIndex, ModifyIndex: e.modifyIndex };
  }

  private notFound(route: RouteContext, index: number): void {
    route.req.resume();
    route.res.writeHead(404, { ...this.ctx.consul.base(), ...this.ctx.consul.queryMeta(), 'x-consul-index': String(Math.max(1, index)), 'content-length': 0 }).end();
  }

  private sorted(ns: string, prefix: string): KvEntry[] {
    return [...this.table(ns).values()].filter((e) => e.key.startsWith(prefix)).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  private get(route: RouteContext): void {
    route.req.resume();
    const key = this.keyOf(route);
    const q = route.url.searchParams;
    const ns = namespaceOf(this.ctx, route);
    const authz = authorizerOf(this.ctx, route);
    if (q.has('keys')) {
      const sep = q.has('separator') ? (q.get('separator') ?? '') : q.has('seperator') ? (q.get('seperator') ?? '') : '';
      const keys: string[] = [];
      for (const e of this.sorted(ns, key).filter((e) => this.readable(authz, e.key, ns))) {
        const at = sep ? e.key.indexOf(sep, key.length) : -1;
        const k = at === -1 ? e.key : e.key.slice(0, at + sep.length);
        if (keys[keys.length - 1] !== k) keys.push(k);
      }
      // No keys under a prefix is a 404; the root answers an empty list (KVSGetKeys).
      if (!keys.length && key !== '') return this.notFound(route, this.tableIndex);
      return sendAdminJson(this.ctx, route.res, keys, this.tableIndex);
    }
    if (q.has('recurse')) {
      const found = this.sorted(ns, key).filter((e) => this.readable(authz, e.key, ns));
      if (!found.length) return this.notFound(route, this.tableIndex);
      return sendAdminJson(this.ctx, route.res, found.map((e) => this.view(e)), this.tableIndex);
    }
    if (key === '') throw new ConsulError(400, 'Missing key name');
    const entry = this.table(ns).get(key);
    if (!this.readable(authz, key, ns)) throw new ConsulError(403, PERMISSION_DENIED);
    if (!entry) return this.notFound(route, this.tableIndex);
    if (q.has('raw')) {
      const body = entry.value ?? Buffer.alloc(0);
      route.res.writeHead(200, { ...this.ctx.consul.base(), ...this.ctx.consul.queryMeta(), 'x-consul-index': String(entry.modifyIndex), 'content-type': 'text/plain', 'x-content-type-options': 'nosniff', 'content-security-policy': 'sandbox', 'content-length': body.length }).end(body);
      return;
    }
    sendAdminJson(this.ctx, route.res, [this.view(entry)], entry.modifyIndex);
  }

  /** conflictingFlags: two of these at once are refused with 400 "Conflicting flags: <the query, encoded>". */
  private conflicting(route: RouteContext, flags: string[]): void {
    if (flags.filter((f) => route.url.searchParams.has(f)).length > 1) {
      const sorted = new URLSearchParams([...route.url.searchParams].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      throw new ConsulError(400, `Conflicting flags: ${sorted.toString()}`);
    }
  }

  /** strconv.ParseUint's refusal, which the handler returns as a plain error (500). */
  private uint(name: string, value: string): bigint {
    if (!/^[0-9]+$/.test(value) || BigInt(value) > 0xffffffffffffffffn) throw new ConsulError(500, `strconv.ParseUint: parsing ${JSON.stringify(value)}: ${/^[0-9]+$/.test(value) ? 'value out of range' : 'invalid syntax'}`);
    void name;
    return BigInt(value);
  }

  private async put(route: RouteContext): Promise<void> {
    const key = this.keyOf(route);
    const q = route.url.searchParams;
    const ns = namespaceOf(this.ctx, route);
    if (key === '') throw new ConsulError(400, 'Missing key name');
    this.conflicting(route, ['cas', 'acquire', 'release']);
    const flags = q.has('flags') ? this.uint('flags', q.get('flags') ?? '') : 0n;
    const cas = q.has('cas') ? this.uint('cas', q.get('cas') ?? '') : undefined;
    if (q.has('acquire') || q.has('release')) {
      route.req.resume();
      throw new ConsulError(500, 'failed session lookup: index error: UUID must be 36 characters');
    }
    const declared = Number(route.req.headers['content-length'] ?? -1);
    if (declared > KV_MAX_VALUE_SIZE) {
      route.req.resume();
      throw new ConsulError(413, `Request body(${declared} bytes) too large, max size: ${KV_MAX_VALUE_SIZE} bytes. See https://www.consul.io/docs/agent/options.html#kv_max_value_size.`);
    }
    let body: Buffer;
    try {
      body = await readBody(route.req, KV_MAX_VALUE_SIZE);
    } catch (err) {
      if (err instanceof BodyError) throw new ConsulError(err.status === 413 ? 413 : err.status, err.message);
      throw err;
    }
    const authz = authorizerOf(this.ctx, route);
    if (!authz.allowed('key', key, 'write', ns)) throw new ConsulError(403, PERMISSION_DENIED);
    const table = this.table(ns);
    const existing = table.get(key);
    // KVSSetCAS: 0 writes only a key that does not exist, any other index only a key with that ModifyIndex.
    if (cas !== undefined && (cas === 0n ? existing !== undefined : existing?.modifyIndex !== Number(cas))) return sendJsonBody(route.res, 200, false, this.ctx.consul.base());
    const index = this.ctx.nextIndex();
    this.tableIndex = index;
    table.set(key, { key, value: body.length ? body : null, flags, createIndex: existing?.createIndex ?? index, modifyIndex: index });
    sendJsonBody(route.res, 200, true, this.ctx.consul.base());
  }

  private delete(route: RouteContext): void {
    route.req.resume();
    const key = this.keyOf(route);
    const q = route.url.searchParams;
    const ns = namespaceOf(this.ctx, route);
    this.conflicting(route, ['recurse', 'cas']);
    const recurse = q.has('recurse');
    if (!recurse && key === '') throw new ConsulError(400, 'Missing key name');
    const cas = q.has('cas') ? this.uint('cas', q.get('cas') ?? '') : undefined;
    const authz = authorizerOf(this.ctx, route);
    const table = this.table(ns);
    if (recurse) {
      const under = this.sorted(ns, key);
      // KeyWritePrefix: write on the prefix and on every key under it.
      if (!authz.allowed('key', key, 'write', ns) || under.some((e) => !authz.allowed('key', e.key, 'write', ns))) throw new ConsulError(403, PERMISSION_DENIED);
      if (under.length) {
        for (const e of under) table.delete(e.key);
        this.tableIndex = this.ctx.nextIndex();
      }
      return sendJsonBody(route.res, 200, true, this.ctx.consul.base());
    }
    if (!authz.allowed('key', key, 'write', ns)) throw new ConsulError(403, PERMISSION_DENIED);
    const existing = table.get(key);
    // KVSDeleteCAS: a key already gone is a success (Consul 1.8.7 answers true for any index then).
    if (cas !== undefined && existing && existing.modifyIndex !== Number(cas)) return sendJsonBody(route.res, 200, false, this.ctx.consul.base());
    if (existing) {
      table.delete(key);
      this.tableIndex = this.ctx.nextIndex();
    }
    sendJsonBody(route.res, 200, true, this.ctx.consul.base());
  }
}
