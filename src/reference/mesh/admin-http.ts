import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyError, readBody } from '../http/body.ts';
import { sendJsonBody, sendPlainError } from '../http/plain-errors.ts';
import type { RouteContext, RouteHandler } from '../http/router.ts';
import type { AclTokens, Authorizer } from './acl.ts';
import type { ConfigEntryStore } from './config-entries.ts';
import { ConsulError } from './consul-errors.ts';
import type { ConsulHeaders } from './consul-headers.ts';
import type { MeshNamespaces } from './namespaces.ts';

/** What the admin endpoints (intentions, config entries, ACL, namespaces) share. */
export interface AdminContext {
  acl: AclTokens;
  namespaces: MeshNamespaces;
  config: ConfigEntryStore;
  consul: ConsulHeaders;
  nextIndex: () => number;
  /** Consul Enterprise: namespaces exist and the JSON carries Namespace/Partition fields. */
  enterprise: boolean;
}

const BODY_LIMIT = 1024 * 1024;

/** Wraps an admin handler: a ConsulError becomes Consul's plain-text answer with its status. */
export function adminRoute(ctx: AdminContext, handler: (route: RouteContext) => Promise<void> | void): RouteHandler {
  return async (route) => {
    try {
      await handler(route);
    } catch (err) {
      if (!(err instanceof ConsulError)) throw err;
      route.req.resume();
      sendPlainError(route.res, err.status, err.message, ctx.consul.base());
    }
  };
}

/** The request body as text; an oversized or unreadable one is refused. */
export async function bodyText(req: IncomingMessage): Promise<string> {
  try {
    return (await readBody(req, BODY_LIMIT)).toString('utf8');
  } catch (err) {
    if (err instanceof BodyError) throw new ConsulError(err.status, err.message);
    throw err;
  }
}

/** A JSON answer with the headers Consul puts on a read (setMeta: index, known leader, last contact). */
export function sendAdminJson(ctx: AdminContext, res: ServerResponse, body: unknown, index?: number): void {
  const headers: Record<string, string> = { ...ctx.consul.base() };
  if (index !== undefined) Object.assign(headers, ctx.consul.queryMeta(), { 'x-consul-index': String(Math.max(1, index)) });
  sendJsonBody(res, 200, body, headers);
}

/** The request's authorizer: its token's, the anonymous token's without one; 403 "ACL not found" for an unknown token. */
export function authorizerOf(ctx: AdminContext, route: RouteContext): Authorizer {
  return ctx.acl.authorize(ctx.acl.secretOf(route.req, route.url));
}

/**
 * The namespace a request addresses (`?ns`, then the namespace header, then the token's): CE refuses
 * either parameter with 400 (agent/http_ce.go parseEntMeta); Enterprise needs the namespace to exist,
 * or to be `*` where Consul reads it with parseEntMeta rather than parseEntMetaNoWildcard (listings).
 */
export function namespaceOf(ctx: AdminContext, route: RouteContext, bodyNamespace?: string, wildcardOk = false): string {
  // The token's namespace is the default (ResolveTokenAndDefaultMeta); an unknown token is refused later.
  const token = ctx.acl.resolve(ctx.acl.secretOf(route.req, route.url));
  const choice = ctx.namespaces.select(route.req, route.url, token?.namespace);
  if (!choice.ok) throw new ConsulError(choice.status, choice.message);
  const ns = ctx.enterprise && bodyNamespace ? bodyNamespace : choice.namespace;
  if (!(wildcardOk && ns === '*') && !ctx.namespaces.has(ns)) throw new ConsulError(400, `Namespace ${JSON.stringify(ns)} does not exist`);
  return ns;
}

/** Path parameters arrive encoded. */
export function pathParam(route: RouteContext, name: string): string {
  const raw = route.params[name] ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ConsulError(400, `invalid path encoding: ${raw}`);
  }
}

/** Enterprise JSON carries the namespace (and the one partition) of what it describes; CE carries neither. */
export function enterpriseMeta(ctx: AdminContext, namespace: string): Record<string, string> {
  return ctx.enterprise ? { Namespace: namespace, Partition: 'default' } : {};
}
