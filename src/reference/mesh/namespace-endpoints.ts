import type { Router, RouteContext, RouteHandler } from '../http/router.ts';
import { adminRoute, authorizerOf, bodyText, pathParam, sendAdminJson, type AdminContext } from './admin-http.ts';
import type { Authorizer } from './acl.ts';
import { badRequest, notFound } from './consul-errors.ts';
import { decodeStrict, str, stringMap, uint64, type StructSpec } from './consul-json.ts';
import type { NamespaceRecord } from './namespaces.ts';

/**
 * Consul Enterprise's namespace endpoints (api/namespace.go, website/content/api-docs/namespaces.mdx),
 * registered only where the agent has namespaces; Consul CE has no such paths (404). Writes need
 * operator:write, reads operator:read. Deleting a namespace removes it and everything in it at once
 * (Consul marks it DeletedAt and removes it in the background).
 */
const LINK: StructSpec = { name: 'ACLLink', fields: { ID: str, Name: str } };
const NAMESPACE_SPEC: StructSpec = {
  name: 'Namespace',
  fields: {
    Name: str,
    Description: str,
    ACLs: { kind: 'struct', spec: { name: 'NamespaceACLConfig', fields: { PolicyDefaults: { kind: 'list', of: LINK, go: '[]structs.ACLLink' }, RoleDefaults: { kind: 'list', of: LINK, go: '[]structs.ACLLink' } } }, go: '*structs.NamespaceACLConfig' },
    Meta: stringMap,
    DeletedAt: str,
    Partition: str,
    CreateIndex: uint64,
    ModifyIndex: uint64,
  },
};
/** A DNS hostname label, as Consul Enterprise requires of a namespace name. */
const DNS_LABEL = /^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/;

interface NamespaceBody {
  Name?: string;
  Description?: string;
  ACLs?: { PolicyDefaults?: { ID?: string; Name?: string }[]; RoleDefaults?: { ID?: string; Name?: string }[] };
  Meta?: Record<string, string>;
}

export class NamespaceEndpoints {
  constructor(private readonly ctx: AdminContext) {}

  register(router: Router<RouteHandler>): void {
    const r = (fn: (route: RouteContext) => Promise<void> | void) => adminRoute(this.ctx, fn);
    router.add('PUT', '/v1/namespace', r((c) => this.write(c)));
    router.add('GET', '/v1/namespace/:name', r((c) => this.read(c)));
    router.add('PUT', '/v1/namespace/:name', r((c) => this.write(c, pathParam(c, 'name'))));
    router.add('DELETE', '/v1/namespace/:name', r((c) => this.delete(c)));
    router.add('GET', '/v1/namespaces', r((c) => this.list(c)));
  }

  private need(authz: Authorizer, level: 'read' | 'write'): void {
    if (!authz.allowedScalar('operator', level)) throw this.ctx.acl.denied(authz, `operator:${level}`);
  }

  view(n: NamespaceRecord): Record<string, unknown> {
    const defaults = this.ctx.acl.policyNames(n.policyDefaults);
    return {
      Name: n.name,
      ...(n.description ? { Description: n.description } : {}),
      ...(defaults.length ? { ACLs: { PolicyDefaults: defaults } } : {}),
      ...(n.meta && Object.keys(n.meta).length ? { Meta: n.meta } : {}),
      Partition: 'default',
      CreateIndex: n.createIndex,
      ModifyIndex: n.modifyIndex,
    };
  }

  private async write(route: RouteContext, name?: string): Promise<void> {
    const decoded = decodeStrict(await bodyText(route.req), NAMESPACE_SPEC);
    if (!decoded.ok) throw badRequest(`Request decoding failed: ${decoded.message}`);
    const body = decoded.value as NamespaceBody;
    if (name !== undefined && body.Name && body.Name !== name) throw badRequest('Namespace name in URL and payload do not match');
    const nsName = name ?? body.Name ?? '';
    const authz = authorizerOf(this.ctx, route);
    this.need(authz, 'write');
    if (nsName === '') throw badRequest('Namespace name is required');
    if (!DNS_LABEL.test(nsName)) throw badRequest(`Namespace name ${JSON.stringify(nsName)} is not a valid DNS hostname label`);
    if (body.ACLs?.RoleDefaults?.length) {
      const link = body.ACLs.RoleDefaults[0]!;
      throw badRequest(link.ID ? `No such ACL role with ID ${JSON.stringify(link.ID)}` : `No such ACL role with name ${JSON.stringify(link.Name ?? '')}`);
    }
    const prior = this.ctx.namespaces.record(nsName);
    if (name !== undefined && !prior) throw notFound(`Namespace ${JSON.stringify(nsName)} does not exist`);
    const policyDefaults = this.ctx.acl.resolvePolicyLinks(body.ACLs?.PolicyDefaults, 'default');
    const index = this.ctx.nextIndex();
    const record: NamespaceRecord = { name: nsName, description: body.Description ?? '', ...(body.Meta ? { meta: body.Meta } : {}), policyDefaults, createIndex: prior?.createIndex ?? index, modifyIndex: index };
    this.ctx.namespaces.put(record);
    sendAdminJson(this.ctx, route.res, this.view(record));
  }

  private read(route: RouteContext): void {
    const authz = authorizerOf(this.ctx, route);
    this.need(authz, 'read');
    const record = this.ctx.namespaces.record(pathParam(route, 'name'));
    if (!record) {
      // Consul answers an unknown namespace with a bare 404.
      route.res.writeHead(404, { ...this.ctx.consul.base(), 'content-length': 0 }).end();
      return;
    }
    sendAdminJson(this.ctx, route.res, this.view(record), record.modifyIndex);
  }

  private list(route: RouteContext): void {
    const authz = authorizerOf(this.ctx, route);
    const records = this.ctx.namespaces.records().filter((n) => authz.allowedScalar('operator', 'read') || authz.token.namespace === n.name);
    sendAdminJson(this.ctx, route.res, records.map((n) => this.view(n)), Math.max(1, ...records.map((n) => n.modifyIndex)));
  }

  private delete(route: RouteContext): void {
    const authz = authorizerOf(this.ctx, route);
    this.need(authz, 'write');
    const name = pathParam(route, 'name');
    if (name === 'default') throw badRequest('Deletion of the default namespace is not permitted');
    if (this.ctx.namespaces.remove(name)) {
      this.ctx.config.dropNamespace(name);
      this.ctx.acl.dropNamespace(name);
    }
    route.res.writeHead(200, { ...this.ctx.consul.base(), 'content-length': 0 }).end();
  }
}
