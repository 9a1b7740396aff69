import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJsonObjectOr4xx } from './http/body.ts';
import { sendJsonBody, sendPlainError } from './http/plain-errors.ts';
import { Router, type RouteContext, type RouteHandler } from './http/router.ts';
import { revokeNamespaceTokens } from './secrets/namespace-tokens.ts';
import { SigningKey } from './secrets/oidc/signing-key.ts';
import { normalizeNamespace } from './secrets/namespaces.ts';
import type { SecretsService } from './secrets/service.ts';
import type { MeshService } from './mesh/service.ts';
import type { SchedulerService } from './scheduler/service.ts';

/** Where the control listener serves the scheduler's Nomad API. */
export const NOMAD_API_PREFIX = '/v1/control/scheduler/nomad';

export interface ControlOptions {
  token: string;
  secrets: SecretsService;
  mesh: MeshService;
  scheduler: SchedulerService;
}

/**
 * The reference's control interface, on a listener of its own and apart from every spec endpoint:
 * what a real deployment does by other means (creating identity entities, rotating a CA, driving
 * events). Suites reach it only when a target profile names it as the way fixtures are made.
 */
export class ControlService {
  private readonly router = new Router<RouteHandler>();

  constructor(private readonly options: ControlOptions) {
    this.router.add('POST', '/v1/control/secrets/entities', (ctx) => this.createEntity(ctx));
    this.router.add('POST', '/v1/control/secrets/groups', (ctx) => this.createGroup(ctx));
    this.router.add('PUT', '/v1/control/secrets/oidc-keys/:name', (ctx) => this.putOidcKey(ctx));
    this.router.add('DELETE', '/v1/control/secrets/oidc-keys/:name', (ctx) => this.deleteOidcKey(ctx));
    this.router.add('POST', '/v1/control/secrets/namespaces', (ctx) => this.createSecretsNamespace(ctx));
    this.router.add('DELETE', '/v1/control/secrets/namespaces/*path', (ctx) => this.deleteSecretsNamespace(ctx));
    this.router.add('POST', '/v1/control/mesh/rotate', async (ctx) => sendJsonBody(ctx.res, 200, { root_id: await options.mesh.rotate() }));
    this.router.add('POST', '/v1/control/mesh/tokens', (ctx) => this.meshToken(ctx));
    this.router.add('POST', '/v1/control/mesh/intentions', (ctx) => this.meshIntention(ctx));
    this.router.add('PUT', '/v1/control/mesh/policies/:id', (ctx) => this.meshPolicy(ctx));
    this.router.add('DELETE', '/v1/control/mesh/tokens/:accessor', (ctx) => {
      try {
        options.mesh.deleteToken(ctx.params.accessor!);
      } catch (err) {
        return sendPlainError(ctx.res, 400, `control interface: ${(err as Error).message}`);
      }
      sendJsonBody(ctx.res, 200, { accessor: ctx.params.accessor });
    });
    this.router.add('DELETE', '/v1/control/mesh/intentions/:id', (ctx) => {
      options.mesh.intentions.remove(ctx.params.id!);
      ctx.res.writeHead(204).end();
    });
    this.router.add('POST', '/v1/control/mesh/leaf-lifetime', (ctx) => this.leafLifetime(ctx));
    this.router.add('POST', '/v1/control/mesh/namespaces', (ctx) => this.meshNamespace(ctx));
    // Nomad's job, node, ACL and namespace API in every dialect: how the spec dialect gets the same
    // fixtures a real Nomad gives. The control listener holds no powers of its own here: it calls the
    // scheduler's API as a client holding the scheduler's management token, through the same ACL
    // check as every caller of the scheduler listener (only that API starts tasks).
    this.router.add(['GET', 'PUT', 'POST', 'DELETE'], `${NOMAD_API_PREFIX}/*rest`, ({ req, res, url, params }) => {
      const secret = options.scheduler.managementSecret;
      return options.scheduler.nomadApi.handle(req, res, req.method ?? 'GET', `/${params.rest ?? ''}`, url, options.scheduler.acl.get(secret), secret);
    });
  }

  /** Lets other systems add their own control routes. */
  add(method: string, path: string, handler: RouteHandler): void {
    this.router.add(method, path, handler);
  }

  async handle(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://reference.invalid');
    if (req.headers.authorization !== `Bearer ${this.options.token}`) {
      req.resume();
      return sendPlainError(res, 403, 'control interface: missing or wrong Bearer token');
    }
    const match = this.router.match(method, url.pathname);
    if (match.kind !== 'found') {
      req.resume();
      return sendPlainError(res, match.kind === 'not-found' ? 404 : 405, `control interface: no ${method} ${url.pathname}`);
    }
    await match.handler({ req, res, url, params: match.params });
  }

  private body(ctx: RouteContext): Promise<Record<string, unknown> | undefined> {
    return readJsonObjectOr4xx(ctx.req, ctx.res, 1024 * 1024);
  }

  private identityOf(ctx: RouteContext, body: Record<string, unknown>) {
    const ns = typeof body.namespace === 'string' ? body.namespace : '';
    const engine = this.options.secrets.identityEngine(ns);
    if (!engine) sendPlainError(ctx.res, 404, `control interface: no namespace "${ns}"`);
    return { engine, ns };
  }

  /** An ACL token in a namespace: service:write on the named services ('*' for all) and service:read on others, or the rules of one policy, or several policies (rules and datacenters). */
  private async meshToken(ctx: RouteContext): Promise<void> {
    const body = await this.body(ctx);
    if (!body) return;
    const names = (v: unknown) => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
    const services = names(body.service_write);
    const read = names(body.service_read);
    const ns = typeof body.namespace === 'string' && body.namespace ? body.namespace : 'default';
    if (Array.isArray(body.policies)) {
      const policies = body.policies.map((p: unknown) => (typeof p === 'object' && p !== null ? (p as Record<string, unknown>) : {}));
      if (policies.some((p) => typeof p.rules !== 'string' || (p.datacenters !== undefined && !(Array.isArray(p.datacenters) && p.datacenters.every((d) => typeof d === 'string')))))
        return sendPlainError(ctx.res, 400, 'control interface: each of policies needs rules (ACL rules, HCL) and may name datacenters (strings)');
      try {
        const made = this.options.mesh.createPoliciesToken(ns, policies.map((p) => ({ rules: p.rules as string, ...(p.datacenters ? { datacenters: p.datacenters as string[] } : {}) })));
        return sendJsonBody(ctx.res, 200, { token: made.secret, accessor: made.accessor, policy_ids: made.policyIds, namespace: ns });
      } catch (err) {
        return sendPlainError(ctx.res, 400, `control interface: ${(err as Error).message}`);
      }
    }
    if (typeof body.rules === 'string') {
      try {
        const made = this.options.mesh.createRulesToken(ns, body.rules);
        return sendJsonBody(ctx.res, 200, { token: made.secret, accessor: made.accessor, policy_id: made.policyId, namespace: ns });
      } catch (err) {
        return sendPlainError(ctx.res, 400, `control interface: ${(err as Error).message}`);
      }
    }
    sendJsonBody(ctx.res, 200, { token: this.options.mesh.createToken(ns, services, read), namespace: ns, service_write: services, service_read: read });
  }

  /** New ACL rules (HCL) for a policy a rules token was made with. */
  private async meshPolicy(ctx: RouteContext): Promise<void> {
    const body = await this.body(ctx);
    if (!body) return;
    if (typeof body.rules !== 'string') return sendPlainError(ctx.res, 400, 'control interface: rules (ACL rules, HCL) are required');
    try {
      if (!this.options.mesh.setPolicyRules(ctx.params.id!, body.rules)) return sendPlainError(ctx.res, 404, `control interface: no policy ${ctx.params.id}`);
    } catch (err) {
      return sendPlainError(ctx.res, 400, `control interface: ${(err as Error).message}`);
    }
    sendJsonBody(ctx.res, 200, { policy_id: ctx.params.id });
  }

  /** A namespace (Enterprise namespaces must exist before they are used); 400 where there are none. */
  private async meshNamespace(ctx: RouteContext): Promise<void> {
    const body = await this.body(ctx);
    if (!body) return;
    const name = typeof body.name === 'string' ? body.name : '';
    if (!this.options.mesh.createNamespace(name)) return sendPlainError(ctx.res, 400, `control interface: cannot make the namespace "${name}" (namespaces off, or not a namespace name)`);
    sendJsonBody(ctx.res, 200, { name });
  }

  private async meshIntention(ctx: RouteContext): Promise<void> {
    const body = await this.body(ctx);
    if (!body) return;
    const s = (k: string, d?: string) => (typeof body[k] === 'string' && body[k] !== '' ? (body[k] as string) : d);
    const source = s('source');
    const destination = s('destination');
    const action = s('action');
    if (!source || !destination || (action !== 'allow' && action !== 'deny')) return sendPlainError(ctx.res, 400, 'control interface: source, destination and action (allow|deny) are required');
    const intention = this.options.mesh.intentions.add({
      source,
      destination,
      action,
      sourceNs: s('source_namespace', 'default')!,
      destinationNs: s('destination_namespace', 'default')!,
      permissions: Array.isArray(body.permissions) ? body.permissions : undefined,
    });
    sendJsonBody(ctx.res, 200, { id: intention.id });
  }

  private async leafLifetime(ctx: RouteContext): Promise<void> {
    const body = await this.body(ctx);
    if (!body) return;
    const seconds = Number(body.seconds);
    if (!Number.isInteger(seconds) || seconds < 2) return sendPlainError(ctx.res, 400, 'control interface: seconds must be an integer >= 2');
    const previous_seconds = Math.round(this.options.mesh.leafLifetimeMs / 1000);
    this.options.mesh.leafLifetimeMs = seconds * 1000;
    sendJsonBody(ctx.res, 200, { seconds, previous_seconds });
  }

  /**
   * A namespace of the secrets service (parents too), laid out like the reference's own at start:
   * how the spec dialect, which has no sys/namespaces, gets the neighbour namespaces the access rules
   * need (the spec does not show how namespaces are made).
   */
  private async createSecretsNamespace(ctx: RouteContext): Promise<void> {
    const body = await this.body(ctx);
    if (!body) return;
    const path = typeof body.path === 'string' ? normalizeNamespace(body.path) : '';
    if (path === '' || !/^([\w.-]+\/)+$/.test(path)) return sendPlainError(ctx.res, 400, 'control interface: path must be a namespace path such as "team-a/app/"');
    sendJsonBody(ctx.res, 200, { path: this.options.secrets.namespaces.create(path).path });
  }

  /**
   * A named signing key and the clients it signs for, where the dialect has no identity/oidc/key
   * (the spec does not show how keys are made): an RS256 key, kept when it exists, with Vault's
   * default periods; {allowed_client_ids, namespace}.
   */
  private async putOidcKey(ctx: RouteContext): Promise<void> {
    const body = await this.body(ctx);
    if (!body) return;
    const { engine } = this.identityOf(ctx, body);
    if (!engine) return;
    const name = ctx.params.name!;
    const allowed = body.allowed_client_ids;
    if (!Array.isArray(allowed) || allowed.some((v) => typeof v !== 'string')) return sendPlainError(ctx.res, 400, 'control interface: allowed_client_ids must be a list of strings');
    if (name === 'default') return sendPlainError(ctx.res, 400, 'control interface: the default key is not changed here');
    const existing = engine.keys.get(name);
    const signing = existing?.signing ?? (await SigningKey.create(name, 'RS256'));
    engine.keys.set({ name, signing, algorithm: 'RS256', rotationPeriod: 24 * 3600, verificationTtl: 24 * 3600, allowedClientIds: allowed as string[] });
    sendJsonBody(ctx.res, 200, { name, allowed_client_ids: allowed });
  }

  private deleteOidcKey(ctx: RouteContext): void {
    const ns = ctx.url.searchParams.get('namespace') ?? '';
    const engine = this.options.secrets.identityEngine(ns);
    const name = ctx.params.name!;
    if (!engine || name === 'default' || !engine.keys.has(name)) return sendPlainError(ctx.res, 404, `control interface: no key "${name}"`);
    engine.keys.delete(name);
    ctx.res.writeHead(204).end();
  }

  /** Removes a namespace that has no children, with what is in it and the tokens made in it. */
  private deleteSecretsNamespace(ctx: RouteContext): void {
    const path = normalizeNamespace(ctx.params.path);
    const tree = this.options.secrets.namespaces;
    if (!tree.get(path) || path === '') return sendPlainError(ctx.res, 404, `control interface: no namespace "${path}"`);
    if (!tree.remove(path)) return sendPlainError(ctx.res, 400, `control interface: namespace "${path}" has child namespaces`);
    revokeNamespaceTokens(this.options.secrets.tokens, path, this.options.secrets.faults);
    ctx.res.writeHead(204).end();
  }

  /** Creates an entity (and its groups, by name) with a client token bound to it. */
  private async createEntity(ctx: RouteContext): Promise<void> {
    const body = await this.body(ctx);
    if (!body) return;
    const { engine, ns } = this.identityOf(ctx, body);
    if (!engine) return;
    const name = typeof body.name === 'string' && body.name ? body.name : `entity-${Date.now().toString(36)}`;
    const metadata = (typeof body.metadata === 'object' && body.metadata !== null ? body.metadata : {}) as Record<string, string>;
    const groups = Array.isArray(body.groups) ? body.groups.filter((g): g is string => typeof g === 'string') : [];
    const entity = engine.identity.createEntity(name, metadata, groups);
    const token = this.options.secrets.tokens.create({ policies: ['default'], namespace: engine.namespacePath, entityId: entity.id });
    sendJsonBody(ctx.res, 200, {
      id: entity.id,
      name: entity.name,
      namespace: ns,
      metadata: entity.metadata,
      token: token.id,
      groups: entity.groupIds.map((id) => ({ id, name: engine.identity.groups.get(id)!.name })),
    });
  }

  private async createGroup(ctx: RouteContext): Promise<void> {
    const body = await this.body(ctx);
    if (!body) return;
    const { engine } = this.identityOf(ctx, body);
    if (!engine) return;
    if (typeof body.name !== 'string' || !body.name) return sendPlainError(ctx.res, 400, 'control interface: name is required');
    const group = engine.identity.group(body.name);
    sendJsonBody(ctx.res, 200, { id: group.id, name: group.name });
  }
}
