import type { Router, RouteContext, RouteHandler } from '../http/router.ts';
import { adminRoute, authorizerOf, bodyText, enterpriseMeta, namespaceOf, pathParam, sendAdminJson, type AdminContext } from './admin-http.ts';
import type { Authorizer } from './acl.ts';
import { ConsulError } from './consul-errors.ts';
import { decodeStrict, str } from './consul-json.ts';
import { isCheckStatus, type CheckStatus, type LocalCheck, type LocalService, type LocalServices } from './local-services.ts';
import { parseServiceDefinition } from './service-definition.ts';

/**
 * The agent's service and check endpoints (hashicorp/consul v1.8.7 agent/agent_endpoint.go
 * AgentRegisterService, AgentDeregisterService, AgentServices, AgentChecks, AgentCheckPass/Warn/Fail,
 * AgentCheckUpdate; agent/acl.go vetServiceRegister, vetServiceUpdate, vetCheckUpdate): what
 * `consul connect proxy -register` and `consul services register` call. Registering needs
 * service:write on the service and, for a connect proxy, on its destination too (it is discovered as
 * an instance of it); deregistering and updating a check need service:write on the service the
 * check belongs to (node:write for a node check). What real Consul 1.8.7 answered is kept in
 * test/reference-consul-agent-services.test.ts.
 */

/** The address fields Consul 1.8 adds to a service registered with an address (agent.addServiceInternal). */
export function taggedAddresses(s: LocalService): Record<string, { Address: string; Port: number }> | undefined {
  const address = s.def.address;
  if (!address) return undefined;
  const v6 = address.includes(':');
  const entry = { Address: address, Port: s.def.port };
  return v6 ? { lan_ipv6: entry, wan_ipv6: entry } : { lan_ipv4: entry, wan_ipv4: entry };
}

/** structs.ConnectProxyConfig as JSON: MeshGateway and Expose always there, the rest when set. */
export function proxyView(s: LocalService): Record<string, unknown> {
  const p = s.def.proxy;
  const view: Record<string, unknown> = {};
  if (p?.DestinationServiceName) view.DestinationServiceName = p.DestinationServiceName;
  if (p?.DestinationServiceID) view.DestinationServiceID = p.DestinationServiceID;
  if (p?.LocalServiceAddress) view.LocalServiceAddress = p.LocalServiceAddress;
  if (p?.LocalServicePort) view.LocalServicePort = p.LocalServicePort;
  view.MeshGateway = {};
  view.Expose = {};
  return view;
}

export function connectView(s: LocalService): Record<string, unknown> {
  return s.def.connectNative ? { Native: true } : {};
}

export function checkView(ctx: AdminContext, node: string, c: LocalCheck, withIndexes: boolean): Record<string, unknown> {
  return {
    Node: node,
    CheckID: c.id,
    Name: c.name,
    Status: c.status,
    Notes: c.notes,
    Output: c.output,
    ServiceID: c.serviceId,
    ServiceName: c.serviceName,
    ServiceTags: c.serviceTags,
    // Every check the reference keeps is a TTL check.
    Type: 'ttl',
    Definition: {},
    ...enterpriseMeta(ctx, c.namespace),
    CreateIndex: withIndexes ? c.createIndex : 0,
    ModifyIndex: withIndexes ? c.modifyIndex : 0,
  };
}

export class AgentServiceEndpoints {
  constructor(
    private readonly ctx: AdminContext,
    private readonly local: LocalServices,
  ) {}

  register(router: Router<RouteHandler>): void {
    const r = (fn: (route: RouteContext) => Promise<void> | void) => adminRoute(this.ctx, fn);
    router.add('PUT', '/v1/agent/service/register', r((c) => this.registerService(c)));
    router.add('PUT', '/v1/agent/service/deregister/*id', r((c) => this.deregisterService(c)));
    router.add('GET', '/v1/agent/services', r((c) => this.listServices(c)));
    router.add('GET', '/v1/agent/checks', r((c) => this.listChecks(c)));
    for (const [verb, status] of [['pass', 'passing'], ['warn', 'warning'], ['fail', 'critical']] as const) {
      router.add('PUT', `/v1/agent/check/${verb}/*id`, r((c) => this.ttlVerb(c, status)));
    }
    router.add('PUT', '/v1/agent/check/update/*id', r((c) => this.checkUpdate(c)));
  }

  private empty(route: RouteContext): void {
    route.res.writeHead(200, { ...this.ctx.consul.base(), 'content-length': 0 }).end();
  }

  private mayWriteService(authz: Authorizer, name: string, ns: string): void {
    if (!authz.allowed('service', name, 'write', ns)) throw this.ctx.acl.denied(authz, 'service:write', name);
  }

  private async registerService(route: RouteContext): Promise<void> {
    const text = await bodyText(route.req);
    const def = parseServiceDefinition(text);
    const ns = namespaceOf(this.ctx, route, def.namespace);
    // vetServiceRegister: the service, the one it replaces, and a proxy's destination.
    const authz = authorizerOf(this.ctx, route);
    this.mayWriteService(authz, def.name, ns);
    const existing = this.local.service(ns, def.id);
    if (existing) this.mayWriteService(authz, existing.def.name, ns);
    if (def.kind === 'connect-proxy' && def.proxy) this.mayWriteService(authz, def.proxy.DestinationServiceName, ns);
    this.local.register(def, ns);
    this.empty(route);
  }

  private deregisterService(route: RouteContext): void {
    route.req.resume();
    const id = pathParam(route, 'id');
    const ns = namespaceOf(this.ctx, route);
    const authz = authorizerOf(this.ctx, route);
    const existing = this.local.service(ns, id);
    // vetServiceUpdate answers a plain error for an ID it does not know: 500, with the ServiceID struct printed.
    if (!existing) throw new ConsulError(500, `Unknown service {${JSON.stringify(id)} {}}`);
    this.mayWriteService(authz, existing.def.name, ns);
    this.local.deregister(ns, id);
    this.empty(route);
  }

  /** vetCheckUpdate: the check must exist (500 otherwise); service:write on its service, node:write for a node check. */
  private writableCheck(route: RouteContext): LocalCheck {
    const id = pathParam(route, 'id');
    const ns = namespaceOf(this.ctx, route);
    const authz = authorizerOf(this.ctx, route);
    const check = this.local.check(ns, id);
    if (!check) throw new ConsulError(500, `Unknown check ${JSON.stringify(id)}`);
    if (check.serviceId) this.mayWriteService(authz, check.serviceName, ns);
    else if (!authz.allowed('node', this.local.node.name, 'write', ns)) throw this.ctx.acl.denied(authz, 'node:write', this.local.node.name);
    return check;
  }

  /** updateTTLCheck on a check the token may write: its status and output, and its TTL starts again. */
  private setTtlStatus(route: RouteContext, status: CheckStatus, output: string): void {
    this.local.updateTtl(this.writableCheck(route), status, output);
    this.empty(route);
  }

  private ttlVerb(route: RouteContext, status: CheckStatus): void {
    route.req.resume();
    this.setTtlStatus(route, status, route.url.searchParams.get('note') ?? '');
  }

  private async checkUpdate(route: RouteContext): Promise<void> {
    const text = await bodyText(route.req);
    const decoded = decodeStrict(text, { name: 'checkUpdate', fields: { Status: str, Output: str } });
    if (!decoded.ok) throw new ConsulError(400, `Request decode failed: ${decoded.message}`);
    const status = (decoded.value.Status as string | undefined) ?? '';
    if (!isCheckStatus(status)) throw new ConsulError(400, `Invalid check status: '${status}'`);
    this.setTtlStatus(route, status, (decoded.value.Output as string | undefined) ?? '');
  }

  /** api.AgentService as GET /v1/agent/services shows it (Kind, TaggedAddresses, Proxy and Connect only when set). */
  private serviceView(s: LocalService): Record<string, unknown> {
    const tagged = taggedAddresses(s);
    return {
      ...(s.def.kind ? { Kind: s.def.kind } : {}),
      ID: s.def.id,
      Service: s.def.name,
      Tags: s.def.tags,
      Meta: s.def.meta,
      Port: s.def.port,
      Address: s.def.address,
      ...(tagged ? { TaggedAddresses: tagged } : {}),
      Weights: s.def.weights,
      EnableTagOverride: s.def.enableTagOverride,
      ...(s.def.kind === 'connect-proxy' ? { Proxy: proxyView(s) } : {}),
      ...(s.def.connectNative ? { Connect: connectView(s) } : {}),
      ...enterpriseMeta(this.ctx, s.namespace),
    };
  }

  /** Services the token may read (service:read), by ID. */
  private listServices(route: RouteContext): void {
    route.req.resume();
    const ns = namespaceOf(this.ctx, route);
    const authz = authorizerOf(this.ctx, route);
    const out: Record<string, unknown> = {};
    for (const s of this.local.allServices()) {
      if (s.namespace === ns && authz.allowed('service', s.def.name, 'read', ns)) out[s.def.id] = this.serviceView(s);
    }
    sendAdminJson(this.ctx, route.res, out);
  }

  /** Checks the token may read (service:read on the check's service, node:read for a node check), by ID. */
  private listChecks(route: RouteContext): void {
    route.req.resume();
    const ns = namespaceOf(this.ctx, route);
    const authz = authorizerOf(this.ctx, route);
    const out: Record<string, unknown> = {};
    for (const c of this.local.allChecks()) {
      if (c.namespace !== ns) continue;
      const readable = c.serviceId ? authz.allowed('service', c.serviceName, 'read', ns) : authz.allowed('node', this.local.node.name, 'read', ns);
      if (readable) out[c.id] = checkView(this.ctx, this.local.node.name, c, false);
    }
    sendAdminJson(this.ctx, route.res, out);
  }
}
