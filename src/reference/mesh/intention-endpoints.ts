import { randomUUID } from 'node:crypto';
import type { Router, RouteContext, RouteHandler } from '../http/router.ts';
import { adminRoute, authorizerOf, bodyText, namespaceOf, pathParam, sendAdminJson, type AdminContext } from './admin-http.ts';
import type { Authorizer } from './acl.ts';
import { badRequest, forbidden, multierrorText, notFound, PERMISSION_DENIED, rpcError } from './consul-errors.ts';
import { bool, decodeStrict, int, str, stringList, stringMap, uint64, anyValue, type StructSpec } from './consul-json.ts';
import { precedenceOf, type Intention } from './intentions.ts';

/**
 * Consul's intention endpoints (agent/intentions_endpoint.go, agent/consul/intention_endpoint.go):
 * upsert, read and delete by name through `/v1/connect/intentions/exact` (what Consul >= 1.9 offers,
 * stored as sources of the destination's service-intentions entry), the list, and the legacy
 * ID-based calls. Writes need intention:write on the destination, reads intention:read on either end.
 */
const HEADER_SPEC: StructSpec = { name: 'IntentionHTTPHeaderPermission', fields: { Name: str, Present: bool, Exact: str, Prefix: str, Suffix: str, Regex: str, Invert: bool } };
const HTTP_SPEC: StructSpec = { name: 'IntentionHTTPPermission', fields: { PathExact: str, PathPrefix: str, PathRegex: str, Header: { kind: 'list', of: HEADER_SPEC, go: '[]structs.IntentionHTTPHeaderPermission' }, Methods: stringList } };
const PERMISSION_SPEC: StructSpec = { name: 'IntentionPermission', fields: { Action: { kind: 'string', go: 'structs.IntentionAction' }, HTTP: { kind: 'struct', spec: HTTP_SPEC, go: '*structs.IntentionHTTPPermission' }, JWT: anyValue } };
const INTENTION_SPEC: StructSpec = {
  name: 'Intention',
  fields: {
    ID: str,
    Description: str,
    SourceNS: str,
    SourceName: str,
    DestinationNS: str,
    DestinationName: str,
    SourcePartition: str,
    DestinationPartition: str,
    SourcePeer: str,
    SourceSamenessGroup: str,
    SourceType: { kind: 'string', go: 'structs.IntentionSourceType' },
    Action: { kind: 'string', go: 'structs.IntentionAction' },
    Permissions: { kind: 'list', of: PERMISSION_SPEC, go: '[]*structs.IntentionPermission' },
    JWT: anyValue,
    DefaultAddr: str,
    DefaultPort: int,
    Meta: stringMap,
    Precedence: int,
    CreatedAt: str,
    UpdatedAt: str,
    Hash: str,
    CreateIndex: uint64,
    ModifyIndex: uint64,
  },
};

interface IntentionBody {
  ID?: string;
  Description?: string;
  SourceNS?: string;
  SourceName?: string;
  DestinationNS?: string;
  DestinationName?: string;
  SourcePartition?: string;
  DestinationPartition?: string;
  SourcePeer?: string;
  SourceSamenessGroup?: string;
  SourceType?: string;
  Action?: string;
  Permissions?: Record<string, unknown>[];
  JWT?: unknown;
  Meta?: Record<string, string>;
}

interface Side {
  partition: string;
  ns: string;
  name: string;
}

/** structs metaMaxKeyPairs, metaKeyMaxLength, metaValueMaxLength (agent/structs/structs.go). */
const META_MAX_PAIRS = 64;
const META_KEY_MAX = 128;
const META_VALUE_MAX = 512;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** structs.Intention as JSON (MarshalJSON: times only when set; ID only on legacy intentions). */
export function intentionView(i: Intention, enterprise: boolean): Record<string, unknown> {
  const layer7 = (i.permissions?.length ?? 0) > 0;
  return {
    ...(i.createdAt ? { CreatedAt: i.createdAt.toISOString() } : {}),
    ...(i.updatedAt ? { UpdatedAt: i.updatedAt.toISOString() } : {}),
    ...(i.id ? { ID: i.id } : {}),
    ...(i.description ? { Description: i.description } : {}),
    SourceNS: i.sourceNs,
    SourceName: i.source,
    DestinationNS: i.destinationNs,
    DestinationName: i.destination,
    ...(enterprise ? { SourcePartition: 'default', DestinationPartition: 'default' } : {}),
    SourceType: 'consul',
    ...(!layer7 && i.action ? { Action: i.action } : {}),
    ...(layer7 ? { Permissions: i.permissions } : {}),
    ...(i.meta ? { Meta: i.meta } : {}),
    Precedence: i.precedence,
    CreateIndex: i.createIndex,
    ModifyIndex: i.modifyIndex,
  };
}

export class IntentionEndpoints {
  constructor(private readonly ctx: AdminContext) {}

  register(router: Router<RouteHandler>): void {
    const r = (fn: (route: RouteContext) => Promise<void> | void) => adminRoute(this.ctx, fn);
    router.add('GET', '/v1/connect/intentions', r((c) => this.list(c)));
    router.add('POST', '/v1/connect/intentions', r((c) => this.legacyCreate(c)));
    router.add('GET', '/v1/connect/intentions/exact', r((c) => this.getExact(c)));
    router.add('PUT', '/v1/connect/intentions/exact', r((c) => this.putExact(c)));
    router.add('DELETE', '/v1/connect/intentions/exact', r((c) => this.deleteExact(c)));
    // Exact routes of their own in Consul (agent/http_oss.go): never read as an intention ID.
    router.add('GET', '/v1/connect/intentions/check', r((c) => this.check(c)));
    router.add('GET', '/v1/connect/intentions/match', r((c) => this.match(c)));
    router.add('GET', '/v1/connect/intentions/:id', r((c) => this.legacyGet(c)));
    router.add('PUT', '/v1/connect/intentions/:id', r((c) => this.legacyUpdate(c)));
    router.add('DELETE', '/v1/connect/intentions/:id', r((c) => this.legacyDelete(c)));
  }

  private canRead(authz: Authorizer, i: Intention): boolean {
    return authz.allowed('intention', i.source, 'read', i.sourceNs) || authz.allowed('intention', i.destination, 'read', i.destinationNs);
  }

  private requireWrite(authz: Authorizer, destNs: string, dest: string): void {
    if (!dest || !authz.allowed('intention', dest, 'write', destNs)) throw forbidden(PERMISSION_DENIED);
  }

  /** Namespace and partition as Consul CE or Enterprise accepts them on an intention's side. */
  private checkSide(what: 'Source' | 'Destination', side: Side): void {
    if (side.partition !== '' && side.partition !== 'default') {
      throw badRequest(this.ctx.enterprise ? `Invalid ${what}Partition(${side.partition}): the reference has only the default partition` : `Invalid ${what}Partition(${side.partition}): Partitions is a Consul Enterprise feature`);
    }
    if (!this.ctx.enterprise) {
      if (side.ns !== 'default') throw badRequest(`Invalid ${what}NS(${side.ns}): Namespaces is a Consul Enterprise feature`);
      return;
    }
    if (side.ns !== '*' && !this.ctx.namespaces.has(side.ns)) throw badRequest(`Namespace ${JSON.stringify(side.ns)} does not exist`);
  }

  /** parseIntentionStringComponent: `name`, `ns/name` or `partition/ns/name`; the request's namespace fills a missing one. */
  private parseSide(input: string, defaultNs: string, allowPeer: boolean): Side {
    if (input.startsWith('peer:') && !allowPeer) throw new Error('cannot specify a peer here');
    const parts = input.split('/');
    if (parts.length === 1) {
      if (parts[0]!.startsWith('peer:')) throw new Error('need to specify the service name as well');
      return { partition: '', ns: defaultNs, name: parts[0]! };
    }
    if (parts[0]!.startsWith('peer:')) throw new Error('the reference has no cluster peers');
    if (parts.length === 2) return { partition: '', ns: parts[0]!, name: parts[1]! };
    if (parts.length === 3) return { partition: parts[0]!, ns: parts[1]!, name: parts[2]! };
    throw new Error("input can contain at most two '/'");
  }

  /** parseIntentionQueryExact: both parameters exactly once and, for writes, not empty. */
  private exactQuery(route: RouteContext, defaultNs: string, write: boolean): { source: Side; destination: Side } {
    const q = route.url.searchParams;
    const sides: Side[] = [];
    for (const name of ['source', 'destination'] as const) {
      const values = q.getAll(name);
      if (values.length !== 1 || (write && values[0] === '')) throw badRequest(`required query parameter '${name}' not set`);
      try {
        sides.push(this.parseSide(values[0]!, defaultNs, !write && name === 'source'));
      } catch (err) {
        throw badRequest(`${name} ${JSON.stringify(values[0])} is invalid: ${(err as Error).message}`);
      }
    }
    const [source, destination] = sides as [Side, Side];
    this.checkSide('Source', source);
    this.checkSide('Destination', destination);
    return { source, destination };
  }

  private async body(route: RouteContext, prefix: string): Promise<IntentionBody> {
    const decoded = decodeStrict(await bodyText(route.req), INTENTION_SPEC);
    if (!decoded.ok) throw badRequest(`${prefix}${decoded.message}`);
    return decoded.value as IntentionBody;
  }

  private list(route: RouteContext): void {
    const authz = authorizerOf(this.ctx, route);
    const ns = namespaceOf(this.ctx, route, undefined, true);
    const all = this.ctx.config.intentions.list().filter((i) => (ns === '*' || i.destinationNs === ns) && this.canRead(authz, i));
    sendAdminJson(this.ctx, route.res, all.map((i) => intentionView(i, this.ctx.enterprise)), Math.max(1, ...all.map((i) => i.modifyIndex)));
  }

  private getExact(route: RouteContext): void {
    const authz = authorizerOf(this.ctx, route);
    const ns = namespaceOf(this.ctx, route);
    const { source, destination } = this.exactQuery(route, ns, false);
    const found = this.ctx.config.intentions.exact(source.ns, source.name, destination.ns, destination.name);
    if (!found) throw notFound('Intention not found');
    if (!this.canRead(authz, found)) throw forbidden(PERMISSION_DENIED);
    sendAdminJson(this.ctx, route.res, intentionView(found, this.ctx.enterprise), found.modifyIndex);
  }

  /**
   * agent/intentions_endpoint.go IntentionCheck, agent/consul/intention_endpoint.go Check: would a
   * connection from source to destination be allowed? service:read on the destination is all it
   * needs; no intention matching is the ACL default, which is deny here (as the agent's with
   * default_policy "deny"). A missing parameter is a plain error, 500, as Consul answers it.
   */
  private check(route: RouteContext): void {
    const authz = authorizerOf(this.ctx, route);
    const ns = namespaceOf(this.ctx, route);
    const q = route.url.searchParams;
    const sourceType = q.get('source-type') ?? 'consul';
    const sides: Side[] = [];
    for (const name of ['source', 'destination'] as const) {
      const values = q.getAll(name);
      if (values.length !== 1) throw rpcError(`required query parameter '${name}' not set`);
      try {
        sides.push(this.parseSide(values[0]!, ns, false));
      } catch (err) {
        throw rpcError(`${name} ${JSON.stringify(values[0])} is invalid: ${(err as Error).message}`);
      }
    }
    const [source, destination] = sides as [Side, Side];
    if (sourceType !== 'consul') throw rpcError(`unsupported SourceType: ${JSON.stringify(sourceType)}`);
    if (!authz.allowed('service', destination.name, 'read', destination.ns)) throw forbidden(PERMISSION_DENIED);
    const found = this.ctx.config.intentions.match(source.ns, source.name, destination.ns, destination.name);
    // An L7 intention decides by request, which a check has none of: not allowed, as authorize says.
    const allowed = found !== undefined && !(found.permissions?.length) && found.action === 'allow';
    sendAdminJson(this.ctx, route.res, { Allowed: allowed });
  }

  /**
   * IntentionMatch: for each `name`, the intentions whose destination (by=destination) or source
   * (by=source) is that name, or a wildcard of its namespace or of all, highest precedence first, keyed by the
   * name as given; intention:read on every name. Missing or wrong parameters are plain errors, 500.
   */
  private match(route: RouteContext): void {
    const authz = authorizerOf(this.ctx, route);
    const ns = namespaceOf(this.ctx, route);
    const q = route.url.searchParams;
    const by = q.getAll('by');
    if (by.length !== 1) throw rpcError("required query parameter 'by' not set");
    if (by[0] !== 'source' && by[0] !== 'destination') throw rpcError("'by' parameter must be one of 'source' or 'destination'");
    const names = q.getAll('name');
    if (names.length === 0) throw rpcError("required query parameter 'name' not set");
    const sides = names.map((raw) => {
      try {
        return { raw, side: this.parseSide(raw, ns, false) };
      } catch (err) {
        throw rpcError(`name ${JSON.stringify(raw)} is invalid: ${(err as Error).message}`);
      }
    });
    for (const { side } of sides) if (!authz.allowed('intention', side.name, 'read', side.ns)) throw forbidden(PERMISSION_DENIED);
    const all = this.ctx.config.intentions.list();
    const fits = (pattern: string, value: string) => pattern === '*' || pattern === value;
    const out: Record<string, unknown> = {};
    for (const { raw, side } of sides) {
      const hits = all.filter((i) => (by[0] === 'destination' ? fits(i.destinationNs, side.ns) && fits(i.destination, side.name) : fits(i.sourceNs, side.ns) && fits(i.source, side.name)));
      // The state store leaves a name with no intention nil: null in JSON.
      out[raw] = hits.length ? hits.map((i) => intentionView(i, this.ctx.enterprise)) : null;
    }
    sendAdminJson(this.ctx, route.res, out);
  }

  private async putExact(route: RouteContext): Promise<void> {
    const ns = namespaceOf(this.ctx, route);
    const { source, destination } = this.exactQuery(route, ns, true);
    const body = await this.body(route, 'Request decode failed: ');
    const authz = authorizerOf(this.ctx, route);
    // Intention.Apply (agent/consul/intention_endpoint.go, read at 38bfb245): an RPC error, so 500.
    if (body.SourcePeer) throw rpcError('SourcePeer field is not supported on this endpoint. Use config entries instead');
    // computeApplyChangesUpsert: the ID first, then the ACL check, then Meta; each an RPC error (500).
    if (body.ID) throw rpcError('ID must not be specified');
    this.requireWrite(authz, destination.ns, destination.name);
    if (body.JWT !== undefined) throw badRequest('the reference does not implement JWT requirements on intentions');
    const existing = this.ctx.config.intentions.entry(destination.ns, destination.name);
    if (body.Meta && Object.keys(body.Meta).length > 0) {
      const same = existing?.meta && JSON.stringify(Object.entries(existing.meta).sort()) === JSON.stringify(Object.entries(body.Meta).sort());
      if (!existing) throw rpcError('Meta must not be specified');
      if (!same) throw rpcError('Meta must not be specified, or should be unchanged during an update.');
    }
    this.ctx.config.upsertIntention(destination.ns, destination.name, {
      name: source.name,
      namespace: source.ns,
      action: body.Action ?? '',
      ...(body.Permissions?.length ? { permissions: body.Permissions } : {}),
      ...(body.Description ? { description: body.Description } : {}),
      type: body.SourceType || 'consul',
    });
    sendAdminJson(this.ctx, route.res, true);
  }

  private deleteExact(route: RouteContext): void {
    const authz = authorizerOf(this.ctx, route);
    const ns = namespaceOf(this.ctx, route);
    const { source, destination } = this.exactQuery(route, ns, true);
    this.requireWrite(authz, destination.ns, destination.name);
    this.ctx.config.intentions.deleteSource(destination.ns, destination.name, source.ns, source.name);
    sendAdminJson(this.ctx, route.res, true);
  }

  /**
   * Intention.Validate (legacy writes; hashicorp/consul agent/structs/intention.go, read at 6813a990 and
   * as shipped in v1.8.7): every problem at once, as a multierror, in Consul's order — names set,
   * wildcard rules per side, Description and Meta limits, Action, SourceType. The namespaces are
   * always set here (the request's fills an empty one), so "SourceNS must be set" cannot arise.
   * computeApplyChangesLegacyCreate / LegacyUpdate return it from the Intention.Apply RPC: 500
   * (real Consul 1.8.7: 500 "1 error occurred:\n\t* Action must be set to 'allow' or 'deny'\n\n").
   */
  private validateLegacy(i: IntentionBody & { SourceNS: string; DestinationNS: string }): void {
    const errors: string[] = [];
    if (!i.SourceName) errors.push('SourceName must be set');
    if (!i.DestinationName) errors.push('DestinationName must be set');
    for (const [field, ns, name] of [['Source', i.SourceNS, i.SourceName ?? ''], ['Destination', i.DestinationNS, i.DestinationName ?? '']] as const) {
      if (ns !== '*' && ns.includes('*')) errors.push(`${field}NS: wildcard character '*' cannot be used with partial values`);
      if (name !== '*') {
        if (name.includes('*')) errors.push(`${field}Name: wildcard character '*' cannot be used with partial values`);
        if (ns === '*') errors.push(`${field}Name: exact value cannot follow wildcard namespace`);
      }
    }
    if ((i.Description ?? '').length > META_VALUE_MAX) errors.push(`Description exceeds maximum length ${META_VALUE_MAX}`);
    const meta = i.Meta ?? {};
    if (Object.keys(meta).length > META_MAX_PAIRS) errors.push(`Meta exceeds maximum element count ${META_MAX_PAIRS}`);
    for (const [k, v] of Object.entries(meta)) {
      if (k.length > META_KEY_MAX) errors.push(`Meta key ${JSON.stringify(k)} exceeds maximum length ${META_KEY_MAX}`);
      if (v.length > META_VALUE_MAX) errors.push(`Meta value for key ${JSON.stringify(k)} exceeds maximum length ${META_VALUE_MAX}`);
    }
    if (i.Action !== 'allow' && i.Action !== 'deny') errors.push("Action must be set to 'allow' or 'deny'");
    if (i.Permissions?.length) errors.push('Permissions must not be set when using the legacy APIs');
    if ((i.SourceType || 'consul') !== 'consul') errors.push("SourceType must be set to 'consul'");
    if (errors.length) throw rpcError(multierrorText(errors));
  }

  private async legacyCreate(route: RouteContext): Promise<void> {
    const authz = authorizerOf(this.ctx, route);
    const ns = namespaceOf(this.ctx, route);
    const body = await this.body(route, 'Failed to decode request body: ');
    const i = { ...body, SourceNS: body.SourceNS || ns, DestinationNS: body.DestinationNS || ns };
    this.checkSide('Source', { partition: body.SourcePartition ?? '', ns: i.SourceNS, name: i.SourceName ?? '' });
    this.checkSide('Destination', { partition: body.DestinationPartition ?? '', ns: i.DestinationNS, name: i.DestinationName ?? '' });
    this.requireWrite(authz, i.DestinationNS, i.DestinationName ?? '');
    // computeApplyChangesLegacyCreate: after the ACL check, an RPC error (500; Consul 1.8.7 answers the same).
    if (body.ID) throw rpcError('ID must be empty when creating a new intention');
    this.validateLegacy(i);
    const store = this.ctx.config.intentions;
    const entry = store.entry(i.DestinationNS, i.DestinationName!);
    if (entry?.sources.some((s) => s.name === i.SourceName && s.namespace === i.SourceNS)) {
      throw rpcError(`Sources[${entry.sources.length}] defines ${JSON.stringify(i.SourceNS === 'default' ? i.SourceName : `${i.SourceNS}/${i.SourceName}`)} more than once`);
    }
    const id = randomUUID();
    const now = new Date();
    store.upsertSource(i.DestinationNS, i.DestinationName!, {
      name: i.SourceName!,
      namespace: i.SourceNS,
      action: i.Action as 'allow' | 'deny',
      precedence: precedenceOf(i.DestinationNS, i.DestinationName!, i.SourceNS, i.SourceName!),
      ...(i.Description ? { description: i.Description } : {}),
      legacyId: id,
      legacyMeta: i.Meta ?? {},
      legacyCreateTime: now,
      legacyUpdateTime: now,
    });
    sendAdminJson(this.ctx, route.res, { ID: id });
  }

  /** The intention with this legacy ID: a malformed ID is a 400 naming the UUID problem, as Consul's lookup does. */
  private byId(route: RouteContext, missing: (id: string) => Error): Intention {
    const id = pathParam(route, 'id');
    if (!UUID.test(id)) throw badRequest(`UUID must be 36 characters`);
    const found = this.ctx.config.intentions.byId(id);
    if (!found) throw missing(id);
    return found;
  }

  private legacyGet(route: RouteContext): void {
    const authz = authorizerOf(this.ctx, route);
    const found = this.byId(route, () => notFound('Intention not found'));
    if (!this.canRead(authz, found)) throw forbidden(PERMISSION_DENIED);
    sendAdminJson(this.ctx, route.res, intentionView(found, this.ctx.enterprise), found.modifyIndex);
  }

  private async legacyUpdate(route: RouteContext): Promise<void> {
    const authz = authorizerOf(this.ctx, route);
    const ns = namespaceOf(this.ctx, route);
    const body = await this.body(route, 'Request decode failed: ');
    const found = this.byId(route, (id) => rpcError(`Cannot modify non-existent intention: '${id}'`));
    this.requireWrite(authz, found.destinationNs, found.destination);
    const i = { ...body, SourceNS: body.SourceNS || ns, DestinationNS: body.DestinationNS || ns };
    if (i.DestinationNS !== found.destinationNs || i.DestinationName !== found.destination) throw rpcError('Cannot modify Destination partition/namespace/name for an intention once it exists.');
    this.checkSide('Source', { partition: body.SourcePartition ?? '', ns: i.SourceNS, name: i.SourceName ?? '' });
    this.validateLegacy(i);
    const store = this.ctx.config.intentions;
    store.remove(found.id);
    store.upsertSource(found.destinationNs, found.destination, {
      name: i.SourceName!,
      namespace: i.SourceNS,
      action: i.Action as 'allow' | 'deny',
      precedence: precedenceOf(found.destinationNs, found.destination, i.SourceNS, i.SourceName!),
      ...(i.Description ? { description: i.Description } : {}),
      legacyId: found.id,
      legacyMeta: i.Meta ?? {},
      ...(found.createdAt ? { legacyCreateTime: found.createdAt } : {}),
      legacyUpdateTime: new Date(),
    });
    sendAdminJson(this.ctx, route.res, { ID: found.id });
  }

  private legacyDelete(route: RouteContext): void {
    const authz = authorizerOf(this.ctx, route);
    const found = this.byId(route, (id) => rpcError(`Cannot delete non-existent intention: '${id}'`));
    this.requireWrite(authz, found.destinationNs, found.destination);
    this.ctx.config.intentions.remove(found.id);
    sendAdminJson(this.ctx, route.res, true);
  }
}
