import type { Router, RouteContext, RouteHandler } from '../http/router.ts';
import { adminRoute, authorizerOf, enterpriseMeta, namespaceOf, pathParam, sendAdminJson, type AdminContext } from './admin-http.ts';
import type { Authorizer } from './acl.ts';
import { ConsulError } from './consul-errors.ts';
import { readBlockingParams } from './durations.ts';
import { checkView, connectView, proxyView, taggedAddresses } from './agent-service-endpoints.ts';
import type { LocalService, LocalServices } from './local-services.ts';

/**
 * The catalog and health reads of the services registered with this agent (hashicorp/consul v1.8.7
 * agent/catalog_endpoint.go CatalogServiceNodes, agent/health_endpoint.go HealthServiceNodes and
 * HealthConnectServiceNodes; agent/consul/health_endpoint.go ServiceNodes, serviceNodesConnect):
 * what Consul's built-in proxy asks to find an upstream (`GET /v1/health/connect/<service>?passing`)
 * and to see whether it is registered already (`GET /v1/catalog/service/<proxy>`).
 *
 * The connect form answers the connect proxies whose destination is the service, and the service's
 * own instances when they are Connect native. ACLs as Consul's: a connect query needs service:read
 * on the service asked for (an empty list otherwise), and every entry is shown only where the token
 * may read its node (node:read) and its service (service:read). `?passing` leaves out an instance
 * with any check not passing. Blocking queries (`?index`, `?wait`) wait for a change of the catalog.
 */

export class HealthEndpoints {
  constructor(
    private readonly ctx: AdminContext,
    private readonly local: LocalServices,
  ) {}

  register(router: Router<RouteHandler>): void {
    const r = (fn: (route: RouteContext) => Promise<void> | void) => adminRoute(this.ctx, fn);
    router.add('GET', '/v1/catalog/service/:name', r((c) => this.catalogService(c)));
    router.add('GET', '/v1/health/service/:name', r((c) => this.health(c, c.url.searchParams.has('connect') && c.url.searchParams.get('connect') !== 'false')));
    router.add('GET', '/v1/health/connect/:name', r((c) => this.health(c, true)));
  }

  /** Waits while the catalog's index is not past the one the client has seen, up to the wait or the client leaving. */
  private async waitPast(route: RouteContext): Promise<boolean> {
    const b = readBlockingParams(route.url, { hashicorp: true });
    if (!b.ok) throw new ConsulError(400, b.message);
    const { index, waitMs } = b;
    if (index === undefined || index < this.local.index || index === 0) return true;
    return new Promise((resolve) => {
      const done = (open: boolean) => () => {
        clearTimeout(timer);
        this.local.changes.off('change', onChange);
        route.res.off('close', onClose);
        resolve(open);
      };
      const onChange = () => {
        if (this.local.index > index) done(true)();
      };
      const onClose = done(false);
      const timer = setTimeout(done(true), waitMs);
      this.local.changes.on('change', onChange);
      // The response's close: the request's fires as soon as its (empty) body has been read.
      route.res.once('close', onClose);
    });
  }

  /** getBoolQueryParam: present without a value is true; otherwise strconv.ParseBool. */
  private passingOnly(route: RouteContext): boolean {
    const q = route.url.searchParams;
    if (!q.has('passing')) return false;
    const v = q.get('passing') ?? '';
    if (v === '') return true;
    if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
    if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
    throw new ConsulError(400, 'Invalid value for ?passing');
  }

  private visible(authz: Authorizer, s: LocalService): boolean {
    return authz.allowed('node', this.local.node.name, 'read', s.namespace) && authz.allowed('service', s.def.name, 'read', s.namespace);
  }

  private nodeView(): Record<string, unknown> {
    const n = this.local.node;
    return { ID: n.id, Node: n.name, Address: n.address, Datacenter: n.datacenter, TaggedAddresses: null, Meta: null, CreateIndex: n.createIndex, ModifyIndex: n.createIndex };
  }

  private serfHealth(): Record<string, unknown> {
    const n = this.local.node;
    return { Node: n.name, CheckID: 'serfHealth', Name: 'Serf Health Status', Status: 'passing', Notes: '', Output: 'Agent alive and reachable', ServiceID: '', ServiceName: '', ServiceTags: [], Type: '', Definition: {}, CreateIndex: n.createIndex, ModifyIndex: n.createIndex };
  }

  private async catalogService(route: RouteContext): Promise<void> {
    route.req.resume();
    const name = pathParam(route, 'name');
    const ns = namespaceOf(this.ctx, route);
    const authz = authorizerOf(this.ctx, route);
    if (!(await this.waitPast(route))) return;
    const tag = route.url.searchParams.get('tag');
    const n = this.local.node;
    const out = this.local
      .allServices()
      .filter((s) => s.namespace === ns && s.def.name === name && (!tag || s.def.tags.includes(tag)) && this.visible(authz, s))
      .map((s) => {
        const tagged = taggedAddresses(s);
        return {
          ID: n.id,
          Node: n.name,
          Address: n.address,
          Datacenter: n.datacenter,
          TaggedAddresses: null,
          NodeMeta: null,
          ServiceKind: s.def.kind,
          ServiceID: s.def.id,
          ServiceName: s.def.name,
          ServiceTags: s.def.tags,
          ServiceAddress: s.def.address,
          ...(tagged ? { ServiceTaggedAddresses: tagged } : {}),
          ServiceWeights: s.def.weights,
          ServiceMeta: s.def.meta,
          ServicePort: s.def.port,
          ServiceEnableTagOverride: s.def.enableTagOverride,
          ServiceProxy: proxyView(s),
          ServiceConnect: connectView(s),
          ...enterpriseMeta(this.ctx, s.namespace),
          CreateIndex: s.createIndex,
          ModifyIndex: s.modifyIndex,
        };
      });
    sendAdminJson(this.ctx, route.res, out, this.local.index);
  }

  private async health(route: RouteContext, connect: boolean): Promise<void> {
    route.req.resume();
    const name = pathParam(route, 'name');
    const ns = namespaceOf(this.ctx, route);
    const authz = authorizerOf(this.ctx, route);
    const passing = this.passingOnly(route);
    if (!(await this.waitPast(route))) return;
    // A connect query for a service the token may not read answers nothing (ServiceNodes returns early).
    if (connect && !authz.allowed('service', name, 'read', ns)) return sendAdminJson(this.ctx, route.res, [], this.local.index);
    const tag = route.url.searchParams.get('tag');
    const matches = (s: LocalService) =>
      connect ? (s.def.kind === 'connect-proxy' && s.def.proxy?.DestinationServiceName === name) || (s.def.kind === '' && s.def.connectNative && s.def.name === name) : s.def.name === name;
    const out = this.local
      .allServices()
      .filter((s) => s.namespace === ns && matches(s) && (!tag || s.def.tags.includes(tag)) && this.visible(authz, s))
      .filter((s) => !passing || this.local.statusOf(s) === 'passing')
      .map((s) => {
        const tagged = taggedAddresses(s);
        return {
          Node: this.nodeView(),
          Service: {
            ...(s.def.kind ? { Kind: s.def.kind } : {}),
            ID: s.def.id,
            Service: s.def.name,
            Tags: s.def.tags,
            Address: s.def.address,
            ...(tagged ? { TaggedAddresses: tagged } : {}),
            // The catalog keeps an empty Meta as nil: null here, {} in the catalog's own view.
            Meta: Object.keys(s.def.meta).length ? s.def.meta : null,
            Port: s.def.port,
            Weights: s.def.weights,
            EnableTagOverride: s.def.enableTagOverride,
            Proxy: proxyView(s),
            Connect: connectView(s),
            ...enterpriseMeta(this.ctx, s.namespace),
            CreateIndex: s.createIndex,
            ModifyIndex: s.modifyIndex,
          },
          Checks: [this.serfHealth(), ...this.local.checksOf(s).map((c) => checkView(this.ctx, this.local.node.name, c, true))],
        };
      });
    sendAdminJson(this.ctx, route.res, out, this.local.index);
  }
}
