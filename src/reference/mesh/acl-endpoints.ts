import type { Router, RouteContext, RouteHandler } from '../http/router.ts';
import { adminRoute, authorizerOf, bodyText, enterpriseMeta, namespaceOf, pathParam, sendAdminJson, type AdminContext } from './admin-http.ts';
import type { AclPolicy, AclToken, Authorizer, PolicyInput, TokenInput } from './acl.ts';
import { badRequest, forbidden, notFound } from './consul-errors.ts';
import { anyValue, bool, decodeStrict, str, stringList, uint64, type GoType, type StructSpec } from './consul-json.ts';

/**
 * Consul's ACL endpoints for policies and tokens (agent/acl_endpoint.go, agent/consul/acl_endpoint.go).
 * Reads need acl:read, writes acl:write; `token/self` needs only the token itself. Tokens are
 * honoured by leaf and authorize at once, and a deleted one is refused at once.
 */
const LINK: StructSpec = { name: 'ACLTokenPolicyLink', fields: { ID: str, Name: str } };
const SERVICE_IDENTITY: StructSpec = { name: 'ACLServiceIdentity', fields: { ServiceName: str, Datacenters: stringList } };
const NODE_IDENTITY: StructSpec = { name: 'ACLNodeIdentity', fields: { NodeName: str, Datacenter: str } };

function withEnterprise(spec: StructSpec, enterprise: boolean, extra: Record<string, GoType> = {}): StructSpec {
  return enterprise ? { ...spec, fields: { ...spec.fields, Namespace: str, Partition: str, ...extra } } : spec;
}

const POLICY_SPEC: StructSpec = { name: 'ACLPolicy', fields: { ID: str, Name: str, Description: str, Rules: str, Datacenters: stringList, Hash: str, CreateIndex: uint64, ModifyIndex: uint64 } };
const TOKEN_SPEC: StructSpec = {
  name: 'ACLToken',
  fields: {
    AccessorID: str,
    SecretID: str,
    Description: str,
    Policies: { kind: 'list', of: LINK, go: '[]structs.ACLTokenPolicyLink' },
    Roles: { kind: 'list', of: { ...LINK, name: 'ACLTokenRoleLink' }, go: '[]structs.ACLTokenRoleLink' },
    ServiceIdentities: { kind: 'list', of: SERVICE_IDENTITY, go: 'structs.ACLServiceIdentities' },
    NodeIdentities: { kind: 'list', of: NODE_IDENTITY, go: 'structs.ACLNodeIdentities' },
    TemplatedPolicies: anyValue,
    Local: bool,
    AuthMethod: str,
    ExpirationTime: str,
    ExpirationTTL: anyValue,
    CreateTime: str,
    Hash: str,
    CreateIndex: uint64,
    ModifyIndex: uint64,
  },
};

/** Consul's redactedToken: what a token without acl:write sees in place of a SecretID. */
const REDACTED = '<hidden>';

export class AclEndpoints {
  constructor(private readonly ctx: AdminContext) {}

  register(router: Router<RouteHandler>): void {
    const r = (fn: (route: RouteContext) => Promise<void> | void) => adminRoute(this.ctx, fn);
    router.add('GET', '/v1/acl/policies', r((c) => this.listPolicies(c)));
    router.add('PUT', '/v1/acl/policy', r((c) => this.writePolicy(c)));
    router.add('GET', '/v1/acl/policy/name/:name', r((c) => this.readPolicy(c, 'name')));
    router.add('GET', '/v1/acl/policy/:id', r((c) => this.readPolicy(c, 'id')));
    router.add('PUT', '/v1/acl/policy/:id', r((c) => this.writePolicy(c, pathParam(c, 'id'))));
    router.add('DELETE', '/v1/acl/policy/:id', r((c) => this.deletePolicy(c)));
    router.add('GET', '/v1/acl/tokens', r((c) => this.listTokens(c)));
    router.add('PUT', '/v1/acl/token', r((c) => this.writeToken(c)));
    router.add('GET', '/v1/acl/token/self', r((c) => this.self(c)));
    router.add('PUT', '/v1/acl/token/:accessor/clone', r((c) => this.cloneToken(c)));
    router.add('GET', '/v1/acl/token/:accessor', r((c) => this.readToken(c)));
    router.add('PUT', '/v1/acl/token/:accessor', r((c) => this.writeToken(c, pathParam(c, 'accessor'))));
    router.add('DELETE', '/v1/acl/token/:accessor', r((c) => this.deleteToken(c)));
  }

  private need(authz: Authorizer, level: 'read' | 'write'): void {
    if (!authz.allowedScalar('acl', level)) throw this.ctx.acl.denied(authz, `acl:${level}`);
  }

  /** lib.DecodeJSON with the CE rewording of an Enterprise field (rewordUnknownEnterpriseFieldError). */
  private async decode(route: RouteContext, spec: StructSpec, what: 'Policy' | 'Token'): Promise<Record<string, unknown>> {
    const decoded = decodeStrict(await bodyText(route.req), withEnterprise(spec, this.ctx.enterprise, what === 'Token' ? { AuthMethodNamespace: str } : {}));
    if (decoded.ok) return decoded.value;
    const reworded = decoded.message === 'json: unknown field "Namespace"' ? `${decoded.message} - Namespaces are a Consul Enterprise feature` : decoded.message;
    throw badRequest(`${what} decoding failed: ${reworded}`);
  }

  private notExist(what: 'policy' | 'token', ns: string): Error {
    return notFound(this.ctx.enterprise && ns !== 'default' ? `Requested ${what} not found in namespace ${ns}: ACL not found` : `Requested ${what} does not exist: ACL not found`);
  }

  policyView(p: AclPolicy): Record<string, unknown> {
    return { ID: p.id, Name: p.name, Description: p.description, Rules: p.rules, ...(p.datacenters ? { Datacenters: p.datacenters } : {}), Hash: p.hash, ...enterpriseMeta(this.ctx, p.namespace), CreateIndex: p.createIndex, ModifyIndex: p.modifyIndex };
  }

  /** ACLPolicyListStub: no Rules, and Datacenters without omitempty (null when unset). */
  private policyStub(p: AclPolicy): Record<string, unknown> {
    return { ID: p.id, Name: p.name, Description: p.description, Datacenters: p.datacenters ?? null, Hash: p.hash, CreateIndex: p.createIndex, ModifyIndex: p.modifyIndex, ...enterpriseMeta(this.ctx, p.namespace) };
  }

  tokenView(t: AclToken, showSecret: boolean): Record<string, unknown> {
    const policies = this.ctx.acl.policyNames(t.policyIds);
    return {
      AccessorID: t.accessor,
      SecretID: showSecret ? t.secret : REDACTED,
      Description: t.description,
      ...(policies.length ? { Policies: policies } : {}),
      ...(t.serviceIdentities.length ? { ServiceIdentities: t.serviceIdentities } : {}),
      ...(t.nodeIdentities.length ? { NodeIdentities: t.nodeIdentities } : {}),
      Local: t.local,
      ...(t.expirationTime ? { ExpirationTime: t.expirationTime.toISOString() } : {}),
      CreateTime: t.createTime.toISOString(),
      Hash: t.hash,
      ...enterpriseMeta(this.ctx, t.namespace),
      CreateIndex: t.createIndex,
      ModifyIndex: t.modifyIndex,
    };
  }

  private listPolicies(route: RouteContext): void {
    const ns = namespaceOf(this.ctx, route);
    const authz = authorizerOf(this.ctx, route);
    this.need(authz, 'read');
    const policies = this.ctx.acl.listPolicies(ns);
    sendAdminJson(this.ctx, route.res, policies.map((p) => this.policyStub(p)), Math.max(1, ...policies.map((p) => p.modifyIndex)));
  }

  private readPolicy(route: RouteContext, by: 'id' | 'name'): void {
    const ns = namespaceOf(this.ctx, route);
    const authz = authorizerOf(this.ctx, route);
    this.need(authz, 'read');
    const policy = by === 'id' ? this.ctx.acl.policy(pathParam(route, 'id')) : this.ctx.acl.policyByName(pathParam(route, 'name'), ns);
    if (!policy || policy.namespace !== ns) throw this.notExist('policy', ns);
    sendAdminJson(this.ctx, route.res, this.policyView(policy), policy.modifyIndex);
  }

  private async writePolicy(route: RouteContext, id?: string): Promise<void> {
    const queryNs = namespaceOf(this.ctx, route);
    const body = (await this.decode(route, POLICY_SPEC, 'Policy')) as PolicyInput & { Namespace?: string };
    if (id === undefined && body.ID) throw badRequest('Cannot specify the ID when creating a new policy');
    if (id !== undefined && body.ID && body.ID !== id) throw badRequest('Policy ID in URL and payload do not match');
    const ns = body.Namespace || queryNs;
    if (!this.ctx.namespaces.has(ns)) throw badRequest(`Namespace ${JSON.stringify(ns)} does not exist`);
    const authz = authorizerOf(this.ctx, route);
    this.need(authz, 'write');
    sendAdminJson(this.ctx, route.res, this.policyView(this.ctx.acl.setPolicy(body, ns, id)));
  }

  private deletePolicy(route: RouteContext): void {
    namespaceOf(this.ctx, route);
    const authz = authorizerOf(this.ctx, route);
    this.need(authz, 'write');
    this.ctx.acl.deletePolicy(pathParam(route, 'id'));
    sendAdminJson(this.ctx, route.res, true);
  }

  private listTokens(route: RouteContext): void {
    const ns = namespaceOf(this.ctx, route);
    const authz = authorizerOf(this.ctx, route);
    this.need(authz, 'read');
    const showSecret = authz.allowedScalar('acl', 'write');
    const policy = route.url.searchParams.get('policy');
    const service = route.url.searchParams.get('servicename');
    const tokens = this.ctx.acl.listTokens(ns).filter((t) => (!policy || t.policyIds.includes(policy)) && (!service || t.serviceIdentities.some((s) => s.ServiceName === service)));
    sendAdminJson(this.ctx, route.res, tokens.map((t) => this.tokenView(t, showSecret)), Math.max(1, ...tokens.map((t) => t.modifyIndex)));
  }

  private self(route: RouteContext): void {
    const secret = this.ctx.acl.secretOf(route.req, route.url);
    const token = this.ctx.acl.resolve(secret ?? '');
    if (!token) throw notFound('Supplied token does not exist');
    sendAdminJson(this.ctx, route.res, this.tokenView(token, true), token.modifyIndex);
  }

  private readToken(route: RouteContext): void {
    const ns = namespaceOf(this.ctx, route);
    const authz = authorizerOf(this.ctx, route);
    this.need(authz, 'read');
    const token = this.ctx.acl.tokenByAccessor(pathParam(route, 'accessor'));
    if (!token || token.namespace !== ns) throw this.notExist('token', ns);
    sendAdminJson(this.ctx, route.res, this.tokenView(token, authz.allowedScalar('acl', 'write')), token.modifyIndex);
  }

  private async writeToken(route: RouteContext, accessor?: string): Promise<void> {
    const queryNs = namespaceOf(this.ctx, route);
    const body = (await this.decode(route, TOKEN_SPEC, 'Token')) as TokenInput & { Namespace?: string };
    if (accessor !== undefined) {
      body.AccessorID ||= accessor;
      if (body.AccessorID !== accessor) throw badRequest('Token Accessor ID in URL and payload do not match');
    }
    const ns = body.Namespace || queryNs;
    if (!this.ctx.namespaces.has(ns)) throw badRequest(`Namespace ${JSON.stringify(ns)} does not exist`);
    const authz = authorizerOf(this.ctx, route);
    this.need(authz, 'write');
    const token = accessor === undefined ? this.ctx.acl.createToken(body, ns) : this.ctx.acl.updateToken(accessor, body, ns);
    sendAdminJson(this.ctx, route.res, this.tokenView(token, true));
  }

  /** ACL.TokenClone: a new token with the links of another; the body may only change the Description. */
  private async cloneToken(route: RouteContext): Promise<void> {
    const ns = namespaceOf(this.ctx, route);
    const body = (await this.decode(route, TOKEN_SPEC, 'Token')) as TokenInput;
    const authz = authorizerOf(this.ctx, route);
    this.need(authz, 'write');
    const source = this.ctx.acl.tokenByAccessor(pathParam(route, 'accessor'));
    // acl.ErrNotFound: Consul answers it as a refusal (403), like an unknown token.
    if (!source || source.namespace !== ns) throw forbidden('ACL not found');
    const clone = this.ctx.acl.createToken(
      {
        Description: body.Description || source.description,
        Policies: source.policyIds.map((ID) => ({ ID })),
        ServiceIdentities: source.serviceIdentities,
        NodeIdentities: source.nodeIdentities,
        Local: source.local,
        ...(source.expirationTime ? { ExpirationTime: source.expirationTime.toISOString() } : {}),
      },
      ns,
    );
    sendAdminJson(this.ctx, route.res, this.tokenView(clone, true));
  }

  private deleteToken(route: RouteContext): void {
    namespaceOf(this.ctx, route);
    const secret = this.ctx.acl.secretOf(route.req, route.url);
    const authz = authorizerOf(this.ctx, route);
    this.need(authz, 'write');
    this.ctx.acl.deleteToken(pathParam(route, 'accessor'), secret);
    sendAdminJson(this.ctx, route.res, true);
  }
}
