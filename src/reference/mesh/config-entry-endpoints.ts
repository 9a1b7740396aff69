import type { Router, RouteContext, RouteHandler } from '../http/router.ts';
import { adminRoute, authorizerOf, bodyText, namespaceOf, pathParam, sendAdminJson, type AdminContext } from './admin-http.ts';
import type { Authorizer } from './acl.ts';
import { decodeConfigEntry, isKeptKind, isKnownKind, SERVICE_DEFAULTS, type ConfigKind } from './config-entries.ts';
import { badRequest, notFound } from './consul-errors.ts';
import { parseJsonText } from './consul-json.ts';

/**
 * Consul's config entry endpoints (agent/config_endpoint.go, agent/consul/config_endpoint.go):
 * `PUT /v1/config` answers true (false on a failed ?cas), `GET /v1/config/<kind>[/<name>]`, and
 * `DELETE /v1/config/<kind>/<name>` answers `{}`. service-defaults need service:read/write on the
 * name, service-intentions intention:read/write (ServiceConfigEntry / ServiceIntentionsConfigEntry
 * CanRead, CanWrite).
 */
export class ConfigEntryEndpoints {
  constructor(private readonly ctx: AdminContext) {}

  register(router: Router<RouteHandler>): void {
    const r = (fn: (route: RouteContext) => Promise<void> | void) => adminRoute(this.ctx, fn);
    router.add('PUT', '/v1/config', r((c) => this.apply(c)));
    router.add('GET', '/v1/config/:kind', r((c) => this.list(c)));
    router.add('DELETE', '/v1/config/:kind', r(() => {
      throw notFound('Must provide both a kind and name to delete');
    }));
    router.add('GET', '/v1/config/:kind/*name', r((c) => this.get(c)));
    router.add('DELETE', '/v1/config/:kind/*name', r((c) => this.delete(c)));
  }

  private permission(kind: ConfigKind, need: 'read' | 'write'): { resource: 'service' | 'intention'; word: string } {
    return kind === SERVICE_DEFAULTS ? { resource: 'service', word: `service:${need}` } : { resource: 'intention', word: `intention:${need}` };
  }

  private allowed(authz: Authorizer, kind: ConfigKind, name: string, ns: string, need: 'read' | 'write'): boolean {
    return authz.allowed(this.permission(kind, need).resource, name, need, ns);
  }

  private require(authz: Authorizer, kind: ConfigKind, name: string, ns: string, need: 'read' | 'write'): void {
    if (!this.allowed(authz, kind, name, ns, need)) throw this.ctx.acl.denied(authz, this.permission(kind, need).word, name);
  }

  /** `?cas=<index>`: the write happens only if the entry's ModifyIndex is that (0: only if absent). */
  private cas(route: RouteContext): number | undefined {
    const raw = route.url.searchParams.get('cas');
    if (raw === null || raw === '') return undefined;
    if (!/^\d+$/.test(raw)) throw badRequest(`strconv.ParseUint: parsing ${JSON.stringify(raw)}: invalid syntax`);
    return Number(raw);
  }

  private casHolds(kind: ConfigKind, ns: string, name: string, cas: number | undefined): boolean {
    if (cas === undefined) return true;
    const current = this.ctx.config.get(kind, ns, name);
    return cas === 0 ? current === undefined : current !== undefined && current.ModifyIndex === cas;
  }

  private async apply(route: RouteContext): Promise<void> {
    const parsed = parseJsonText(await bodyText(route.req));
    if (!parsed.ok) throw badRequest(`Request decoding failed: ${parsed.message}`);
    const entry = decodeConfigEntry(parsed.value, this.ctx.enterprise);
    const ns = namespaceOf(this.ctx, route, entry.namespace);
    const cas = this.cas(route);
    const authz = authorizerOf(this.ctx, route);
    const commit = this.ctx.config.prepare(entry, ns);
    this.require(authz, entry.kind, entry.name, ns, 'write');
    if (!this.casHolds(entry.kind, ns, entry.name, cas)) return sendAdminJson(this.ctx, route.res, false);
    commit();
    sendAdminJson(this.ctx, route.res, true);
  }

  private kindOf(route: RouteContext): string {
    const kind = pathParam(route, 'kind');
    if (!isKnownKind(kind)) throw badRequest(`invalid config entry kind: ${kind}`);
    return kind;
  }

  private list(route: RouteContext): void {
    const ns = namespaceOf(this.ctx, route);
    const authz = authorizerOf(this.ctx, route);
    const kind = this.kindOf(route);
    const entries = isKeptKind(kind) ? this.ctx.config.list(kind, ns).filter((e) => this.allowed(authz, kind, e.name, ns, 'read')) : [];
    sendAdminJson(this.ctx, route.res, entries.map((e) => e.view), this.ctx.config.maxIndex(kind, ns));
  }

  private get(route: RouteContext): void {
    const rawKind = pathParam(route, 'kind');
    const name = pathParam(route, 'name');
    const ns = namespaceOf(this.ctx, route);
    const authz = authorizerOf(this.ctx, route);
    const kind = this.kindOf(route);
    const missing = () => notFound(`Config entry not found for ${JSON.stringify(rawKind)} / ${JSON.stringify(name)}`);
    if (!isKeptKind(kind)) throw missing();
    this.require(authz, kind, name, ns, 'read');
    const view = this.ctx.config.get(kind, ns, name);
    if (!view) throw missing();
    sendAdminJson(this.ctx, route.res, view, view.ModifyIndex as number);
  }

  private delete(route: RouteContext): void {
    const kind = pathParam(route, 'kind');
    const name = pathParam(route, 'name');
    if (!isKnownKind(kind)) throw badRequest(`invalid config entry kind: ${kind}`);
    const ns = namespaceOf(this.ctx, route);
    const cas = this.cas(route);
    const authz = authorizerOf(this.ctx, route);
    if (!isKeptKind(kind)) return sendAdminJson(this.ctx, route.res, cas === undefined ? {} : false);
    this.require(authz, kind, name, ns, 'write');
    if (cas !== undefined && !this.casHolds(kind, ns, name, cas)) return sendAdminJson(this.ctx, route.res, false);
    this.ctx.config.delete(kind, ns, name);
    // Only a CAS delete says whether it deleted; a plain one answers an empty object (configDelete).
    sendAdminJson(this.ctx, route.res, cas === undefined ? {} : true);
  }
}
