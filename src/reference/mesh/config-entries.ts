import { createHash } from 'node:crypto';
import { badRequest, multierrorText, rpcError } from './consul-errors.ts';
import { IntentionStore, precedenceOf, type ServiceIntentionsEntry, type SourceIntention } from './intentions.ts';
import { mapstructureErrorText, weakDecode, type WeakField, type WeakStruct } from './weak-decode.ts';

/**
 * Config entries (agent/structs/config_entry.go, config_entry_intentions.go): the reference keeps
 * `service-defaults` (a service's protocol) and `service-intentions` (every intention, one entry per
 * destination). Other kinds Consul knows are refused on write with a plain reason and list empty.
 */
export const SERVICE_DEFAULTS = 'service-defaults';
export const SERVICE_INTENTIONS = 'service-intentions';
export type ConfigKind = typeof SERVICE_DEFAULTS | typeof SERVICE_INTENTIONS;

/** structs.AllConfigEntryKinds: the kinds MakeConfigEntry knows. */
const KNOWN_KINDS = [
  'service-defaults', 'proxy-defaults', 'service-router', 'service-splitter', 'service-resolver', 'ingress-gateway', 'terminating-gateway', 'service-intentions', 'mesh',
  'exported-services', 'sameness-group', 'api-gateway', 'bound-api-gateway', 'http-route', 'tcp-route', 'file-system-certificate', 'inline-certificate', 'control-plane-request-limit', 'jwt-provider',
];

/** Limits of structs/config_entry.go validateConfigEntryMeta and of opaque values. */
const META_MAX_PAIRS = 64;
const META_KEY_MAX = 128;
const META_VALUE_MAX = 512;
const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE'];
/** structs.IsProtocolHTTPLike. */
const HTTP_LIKE = ['http', 'http2', 'grpc'];

const ent = (enterprise: boolean): Record<string, WeakField> => (enterprise ? { Namespace: { type: 'string' }, Partition: { type: 'string' } } : {});

function serviceDefaultsSpec(enterprise: boolean): WeakStruct {
  return {
    fields: {
      Kind: { type: 'string' },
      Name: { type: 'string' },
      Protocol: { type: 'string' },
      Mode: { type: 'string', go: 'structs.ProxyMode' },
      TransparentProxy: { alias: 'transparent_proxy', type: { struct: { fields: { OutboundListenerPort: { type: 'int', alias: 'outbound_listener_port' }, DialedDirectly: { type: 'bool', alias: 'dialed_directly' } } } } },
      MutualTLSMode: { type: 'string', alias: 'mutual_tls_mode', go: 'structs.MutualTLSMode' },
      MeshGateway: { alias: 'mesh_gateway', type: { struct: { fields: { Mode: { type: 'string', go: 'structs.MeshGatewayMode' } } } } },
      Expose: {
        type: { struct: { fields: { Checks: { type: 'bool' }, Paths: { type: { list: { fields: { ListenerPort: { type: 'int', alias: 'listener_port' }, Path: { type: 'string' }, LocalPathPort: { type: 'int', alias: 'local_path_port' }, Protocol: { type: 'string' } } } } } } } },
      },
      ExternalSNI: { type: 'string', alias: 'external_sni' },
      MaxInboundConnections: { type: 'int', alias: 'max_inbound_connections' },
      LocalConnectTimeoutMs: { type: 'int', alias: 'local_connect_timeout_ms' },
      LocalRequestTimeoutMs: { type: 'int', alias: 'local_request_timeout_ms' },
      BalanceInboundConnections: { type: 'string', alias: 'balance_inbound_connections' },
      Meta: { type: 'stringMap' },
      Hash: { type: 'int', go: 'uint64' },
      ...ent(enterprise),
    },
  };
}

function serviceIntentionsSpec(enterprise: boolean): WeakStruct {
  const header: WeakStruct = { fields: { Name: { type: 'string' }, Present: { type: 'bool' }, Exact: { type: 'string' }, Prefix: { type: 'string' }, Suffix: { type: 'string' }, Regex: { type: 'string' }, Invert: { type: 'bool' } } };
  const http: WeakStruct = { fields: { PathExact: { type: 'string', alias: 'path_exact' }, PathPrefix: { type: 'string', alias: 'path_prefix' }, PathRegex: { type: 'string', alias: 'path_regex' }, Header: { type: { list: header } }, Methods: { type: 'stringList' } } };
  const permission: WeakStruct = { fields: { Action: { type: 'string', go: 'structs.IntentionAction' }, HTTP: { type: { struct: http }, go: '*structs.IntentionHTTPPermission' } } };
  const source: WeakStruct = {
    fields: {
      Name: { type: 'string' },
      Action: { type: 'string', go: 'structs.IntentionAction' },
      Permissions: { type: { list: permission } },
      Precedence: { type: 'int' },
      LegacyID: { type: 'string', alias: 'legacy_id' },
      Type: { type: 'string', go: 'structs.IntentionSourceType' },
      Description: { type: 'string' },
      LegacyMeta: { type: 'stringMap', alias: 'legacy_meta' },
      LegacyCreateTime: { type: 'time', alias: 'legacy_create_time' },
      LegacyUpdateTime: { type: 'time', alias: 'legacy_update_time' },
      Peer: { type: 'string' },
      SamenessGroup: { type: 'string', alias: 'sameness_group' },
      ...ent(enterprise),
    },
  };
  return { fields: { Kind: { type: 'string' }, Name: { type: 'string' }, Sources: { type: { list: source } }, Meta: { type: 'stringMap' }, Hash: { type: 'int', go: 'uint64' }, ...ent(enterprise) } };
}

/** Fields Consul has that the reference does not implement: refused plainly rather than kept and ignored. */
const NOT_IMPLEMENTED: Record<ConfigKind, string[]> = {
  [SERVICE_DEFAULTS]: ['UpstreamConfig', 'Destination', 'RateLimits', 'EnvoyExtensions'],
  [SERVICE_INTENTIONS]: ['JWT'],
};

export interface ServiceDefaultsEntry {
  name: string;
  namespace: string;
  fields: Record<string, unknown>;
  createIndex: number;
  modifyIndex: number;
}

export interface DecodedEntry {
  kind: ConfigKind;
  name: string;
  /** The namespace the body names (Enterprise), if any. */
  namespace?: string;
  fields: Record<string, unknown>;
}

/** structs.DecodeConfigEntry: the kind first, then the body by that kind's fields. */
export function decodeConfigEntry(raw: unknown, enterprise: boolean): DecodedEntry {
  const fail = (m: string) => badRequest(`Request decoding failed: ${m}`);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw fail(`json: cannot unmarshal ${Array.isArray(raw) ? 'array' : typeof raw} into Go value of type map[string]interface {}`);
  const body = raw as Record<string, unknown>;
  const kindVal = 'Kind' in body ? body.Kind : body.kind;
  if (kindVal === undefined) throw fail('Payload does not contain a kind/Kind key at the top level');
  if (typeof kindVal !== 'string') throw fail('Kind value in payload is not a string');
  if (!KNOWN_KINDS.includes(kindVal)) throw fail(`invalid config entry kind: ${kindVal}`);
  if (kindVal !== SERVICE_DEFAULTS && kindVal !== SERVICE_INTENTIONS) throw badRequest(`the reference keeps only service-defaults and service-intentions config entries, not ${kindVal}`);
  const kind: ConfigKind = kindVal;
  for (const field of NOT_IMPLEMENTED[kind]) {
    const present = Object.keys(body).find((k) => k.toLowerCase() === field.toLowerCase() || k === field.replace(/[A-Z]/g, (c, i) => (i ? '_' : '') + c.toLowerCase()));
    if (present) throw badRequest(`the reference does not implement the ${kind} field ${field}`);
  }
  const decoded = weakDecode(body, kind === SERVICE_DEFAULTS ? serviceDefaultsSpec(enterprise) : serviceIntentionsSpec(enterprise));
  if (decoded.errors.length) throw fail(mapstructureErrorText(decoded.errors));
  const unusedErrors = decoded.unused.flatMap((k) => {
    if (k === 'CreateIndex' || k === 'ModifyIndex' || k === 'kind' || k === 'Kind') return [];
    if (k.toLowerCase().endsWith('namespace')) return [`invalid config key ${JSON.stringify(k)}, namespaces are a consul enterprise feature`];
    if (/\.?(jwt)/i.test(k)) return [`invalid config key ${JSON.stringify(k)}, api-gateway jwt validation is a consul enterprise feature`];
    return [`invalid config key ${JSON.stringify(k)}`];
  });
  if (unusedErrors.length) throw fail(multierrorText(unusedErrors));
  const fields = decoded.value;
  return { kind, name: typeof fields.Name === 'string' ? fields.Name : '', ...(typeof fields.Namespace === 'string' && fields.Namespace ? { namespace: fields.Namespace } : {}), fields };
}

/**
 * validateConfigEntryMeta (agent/structs/config_entry.go): every limit broken, as one multierror
 * (ServiceConfigEntry.Validate / ServiceIntentionsConfigEntry.validate return it; ConfigEntry.Apply
 * passes it up, so the HTTP answer is 500 with its text).
 */
function validateMeta(meta: Record<string, string> | undefined): void {
  if (!meta) return;
  const errors: string[] = [];
  if (Object.keys(meta).length > META_MAX_PAIRS) errors.push(`Meta exceeds maximum element count ${META_MAX_PAIRS}`);
  for (const [k, v] of Object.entries(meta)) {
    if (k.length > META_KEY_MAX) errors.push(`Meta key ${JSON.stringify(k)} exceeds maximum length ${META_KEY_MAX}`);
    if (v.length > META_VALUE_MAX) errors.push(`Meta value for key ${JSON.stringify(k)} exceeds maximum length ${META_VALUE_MAX}`);
  }
  if (errors.length) throw rpcError(multierrorText(errors));
}

/** validateIntentionWildcards: `*` only as a whole value, and no exact name under a wildcard namespace. */
function wildcardError(name: string, ns: string): string | undefined {
  if (ns !== '*' && ns.includes('*')) return "Namespace: wildcard character '*' cannot be used with partial values";
  if (name !== '*') {
    if (name.includes('*')) return "Name: wildcard character '*' cannot be used with partial values";
    if (ns === '*') return 'Name: exact value cannot follow wildcard namespace';
  }
  return undefined;
}

/**
 * ServiceIntentionsConfigEntry.Normalize then Validate (non-legacy write): sources as stored, or Consul's
 * refusal (hashicorp/consul agent/structs/config_entry_intentions.go normalize / validate, read at
 * ddcee8422f846a0d0076afdac96ba006b33a6dde). Normalize clears LegacyID and the legacy times first, so of
 * the legacy fields only LegacyMeta can be refused. The errors are plain errors returned by the
 * ConfigEntry.Apply RPC (agent/consul/config_endpoint.go), which the HTTP layer answers with 500.
 */
function intentionSources(entry: DecodedEntry, namespace: string): SourceIntention[] {
  const f = entry.fields;
  const name = entry.name;
  if (name === '') throw rpcError('Name is required');
  const nameErr = wildcardError(name, namespace);
  if (nameErr) throw rpcError(nameErr);
  validateMeta(f.Meta as Record<string, string> | undefined);
  const rawSources = (f.Sources as Record<string, unknown>[] | undefined) ?? [];
  if (rawSources.length === 0) throw rpcError('At least one source is required');
  const destIsWild = namespace === '*' || name === '*';
  const seen = new Set<string>();
  const sources = rawSources.map((s, i) => {
    const srcName = (s.Name as string | undefined) ?? '';
    const srcNs = (s.Namespace as string | undefined) || namespace;
    const action = (s.Action as string | undefined) ?? '';
    const type = (s.Type as string | undefined) || 'consul';
    const permissions = ((s.Permissions as Record<string, unknown>[] | undefined) ?? []).map((p) => normalizePermission(p));
    if (srcName === '') throw rpcError(`Sources[${i}].Name is required`);
    const srcErr = wildcardError(srcName, srcNs);
    if (srcErr) throw rpcError(`Sources[${i}].${srcErr}`);
    if (s.Peer || s.SamenessGroup) throw badRequest(`Sources[${i}]: the reference has no cluster peers or sameness groups`);
    if (typeof s.Description === 'string' && s.Description.length > META_VALUE_MAX) throw rpcError(`Sources[${i}].Description exceeds maximum length ${META_VALUE_MAX}`);
    if (s.LegacyMeta && Object.keys(s.LegacyMeta).length > 0) throw rpcError(`Sources[${i}].LegacyMeta must be omitted`);
    if (permissions.length === 0 && action !== 'allow' && action !== 'deny') throw rpcError(`Sources[${i}].Action must be set to 'allow' or 'deny'`);
    if (permissions.length > 0 && action !== '') throw rpcError(`Sources[${i}].Action must be omitted if Permissions are specified`);
    if (destIsWild && permissions.length > 0) throw rpcError(`Sources[${i}].Permissions cannot be specified on intentions with wildcarded destinations`);
    if (type !== 'consul') throw rpcError(`Sources[${i}].Type must be set to 'consul'`);
    permissions.forEach((p, j) => validatePermission(p, i, j));
    const key = `${srcNs}/${srcName}`;
    if (seen.has(key)) throw rpcError(`Sources[${i}] defines ${JSON.stringify(srcNs === 'default' ? srcName : key)} more than once`);
    seen.add(key);
    const src: SourceIntention = {
      name: srcName,
      namespace: srcNs,
      ...(permissions.length ? { permissions } : { action: action as 'allow' | 'deny' }),
      precedence: precedenceOf(namespace, name, srcNs, srcName),
      ...(typeof s.Description === 'string' && s.Description ? { description: s.Description } : {}),
    };
    return src;
  });
  return sources;
}

/** Normalize: HTTP methods upper-cased; empty parts dropped so the stored form is the JSON form. */
function normalizePermission(p: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { Action: p.Action ?? '' };
  const http = p.HTTP as Record<string, unknown> | undefined;
  if (http) {
    const h: Record<string, unknown> = {};
    for (const k of ['PathExact', 'PathPrefix', 'PathRegex']) if (http[k]) h[k] = http[k];
    const headers = (http.Header as Record<string, unknown>[] | undefined) ?? [];
    if (headers.length) h.Header = headers.map((x) => Object.fromEntries(Object.entries(x).filter(([, v]) => v !== '' && v !== false)));
    const methods = (http.Methods as string[] | undefined) ?? [];
    if (methods.length) h.Methods = methods.map((m) => m.toUpperCase());
    out.HTTP = h;
  }
  return out;
}

function validatePermission(p: Record<string, unknown>, i: number, j: number): void {
  const prefix = `Sources[${i}].Permissions[${j}]`;
  if (p.Action !== 'allow' && p.Action !== 'deny') throw rpcError(`${prefix}.Action must be set to 'allow' or 'deny'`);
  const http = p.HTTP as Record<string, unknown> | undefined;
  if (!http) throw rpcError(`${prefix}.HTTP is required`);
  let parts = 0;
  for (const k of ['PathExact', 'PathPrefix'] as const) {
    const v = http[k] as string | undefined;
    if (!v) continue;
    parts++;
    if (!v.startsWith('/')) throw rpcError(`${prefix}.HTTP.${k} doesn't start with '/': ${JSON.stringify(v)}`);
  }
  if (http.PathRegex) parts++;
  if (parts > 1) throw rpcError(`${prefix}.HTTP should only contain at most one of PathExact, PathPrefix, or PathRegex`);
  let permParts = parts;
  for (const [k, hdr] of ((http.Header as Record<string, unknown>[] | undefined) ?? []).entries()) {
    if (!hdr.Name) throw rpcError(`${prefix}.HTTP.Header[${k}] missing required Name field`);
    const hdrParts = ['Present', 'Exact', 'Regex', 'Prefix', 'Suffix'].filter((x) => hdr[x]).length;
    if (hdrParts !== 1) throw rpcError(`${prefix}.HTTP.Header[${k}] should only contain one of Present, Exact, Prefix, Suffix, or Regex`);
    permParts++;
  }
  const methods = (http.Methods as string[] | undefined) ?? [];
  if (methods.length) {
    const found = new Set<string>();
    for (const m of methods) {
      if (!HTTP_METHODS.includes(m)) throw rpcError(`${prefix}.HTTP.Methods contains an invalid method ${JSON.stringify(m)}`);
      if (found.has(m)) throw rpcError(`${prefix}.HTTP.Methods contains ${JSON.stringify(m)} more than once`);
      found.add(m);
    }
    permParts++;
  }
  if (permParts === 0) throw rpcError(`${prefix}.HTTP should not be empty`);
}

/** ServiceConfigEntry.Normalize then Validate. */
function serviceDefaultsFields(entry: DecodedEntry): Record<string, unknown> {
  const f = { ...entry.fields };
  delete f.Kind;
  delete f.Hash;
  delete f.Namespace;
  delete f.Partition;
  f.Protocol = typeof f.Protocol === 'string' ? f.Protocol.toLowerCase() : '';
  if (entry.name === '') throw rpcError('Name is required');
  if (entry.name === '*') throw rpcError('service-defaults name must be the name of a service, and not a wildcard');
  validateMeta(f.Meta as Record<string, string> | undefined);
  if (f.BalanceInboundConnections && f.BalanceInboundConnections !== 'exact_balance') throw rpcError(`invalid value for balance_inbound_connections: ${String(f.BalanceInboundConnections)}`);
  if (f.Mode !== undefined && !['', 'direct', 'transparent'].includes(f.Mode as string)) throw rpcError(`unknown proxy mode: ${String(f.Mode)}`);
  const mtls = f.MutualTLSMode;
  if (mtls !== undefined && !['', 'strict', 'permissive'].includes(mtls as string)) throw rpcError(`Invalid MutualTLSMode ${JSON.stringify(mtls)}. Must be one of "", "strict", or "permissive".`);
  return f;
}

function hashOf(value: unknown): number {
  // Consul hashes the entry (hashstructure, uint64); kept below 2^53 so JSON readers keep it exact.
  return Number(BigInt(`0x${createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 13)}`));
}

/** The reference's config entries; service-intentions ones are the intention store's entries. */
export class ConfigEntryStore {
  private readonly defaults = new Map<string, ServiceDefaultsEntry>();

  constructor(
    readonly intentions: IntentionStore,
    private readonly nextIndex: () => number,
    readonly enterprise: boolean,
  ) {}

  private key(ns: string, name: string): string {
    return `${ns}/${name}`;
  }

  /** The protocol a service's chain compiles to: its service-defaults, else tcp (structs.DefaultServiceProtocol). */
  protocolOf(ns: string, name: string): string {
    const p = this.defaults.get(this.key(ns, name))?.fields.Protocol;
    return typeof p === 'string' && p !== '' ? p : 'tcp';
  }

  /**
   * An intentions entry with Permissions needs an http-like destination (agent/consul/state/config_entry.go
   * validateProposedConfigEntryInServiceGraph: "Now validate that intentions with L7 permissions reference
   * HTTP services"). It runs in the FSM's apply; the error comes back through raftApply: 500.
   */
  private checkL7(ns: string, name: string, protocol: string, sources: SourceIntention[]): void {
    if (ns === '*' || name === '*' || !sources.some((s) => (s.permissions?.length ?? 0) > 0)) return;
    if (!HTTP_LIKE.includes(protocol)) throw rpcError(`service ${JSON.stringify(name)} has protocol ${JSON.stringify(protocol)}, which is incompatible with L7 intentions permissions`);
  }

  /**
   * Normalizes and validates a decoded entry as ConfigEntry.Apply does before its ACL check; the
   * returned commit runs the state store's service-graph check, then stores the entry.
   */
  prepare(entry: DecodedEntry, namespace: string): () => void {
    if (entry.kind === SERVICE_DEFAULTS) {
      const fields = serviceDefaultsFields(entry);
      return () => {
        const ixn = this.intentions.entry(namespace, entry.name);
        if (ixn) this.checkL7(namespace, entry.name, (fields.Protocol as string) || 'tcp', ixn.sources);
        const prior = this.defaults.get(this.key(namespace, entry.name));
        const index = this.nextIndex();
        this.defaults.set(this.key(namespace, entry.name), { name: entry.name, namespace, fields, createIndex: prior?.createIndex ?? index, modifyIndex: index });
      };
    }
    const sources = intentionSources(entry, namespace);
    const meta = entry.fields.Meta as Record<string, string> | undefined;
    return () => {
      this.checkL7(namespace, entry.name, this.protocolOf(namespace, entry.name), sources);
      this.intentions.putEntry({ name: entry.name, namespace, sources, ...(meta && Object.keys(meta).length ? { meta } : {}) });
    };
  }

  /**
   * An intention upsert by name (`PUT /v1/connect/intentions/exact`): the destination's entry with
   * this source added or replaced, validated as a whole like the FSM does, then stored.
   */
  upsertIntention(destNs: string, dest: string, src: { name: string; namespace: string; action?: string; permissions?: Record<string, unknown>[]; description?: string; type?: string }): void {
    const existing = this.intentions.entry(destNs, dest);
    const others = (existing?.sources ?? []).filter((s) => !(s.name === src.name && s.namespace === src.namespace));
    // A control-made L7 source may carry an action too; it is judged here as Consul would store it.
    const raw = [...others.map((s) => ({ Name: s.name, Namespace: s.namespace, Action: s.permissions?.length ? '' : (s.action ?? ''), Permissions: s.permissions ?? [], Description: s.description })), { Name: src.name, Namespace: src.namespace, Action: src.action ?? '', Permissions: src.permissions ?? [], Description: src.description, Type: src.type }];
    // Legacy (ID) sources of the same entry keep their IDs: only the upserted source is rewritten.
    const sources = intentionSources({ kind: SERVICE_INTENTIONS, name: dest, fields: { Sources: raw, Meta: existing?.meta } }, destNs);
    this.checkL7(destNs, dest, this.protocolOf(destNs, dest), sources);
    this.intentions.upsertSource(destNs, dest, sources[sources.length - 1]!);
  }

  get(kind: ConfigKind, ns: string, name: string): Record<string, unknown> | undefined {
    if (kind === SERVICE_DEFAULTS) {
      const e = this.defaults.get(this.key(ns, name));
      return e && this.serviceDefaultsView(e);
    }
    const e = this.intentions.entry(ns, name);
    return e && this.intentionsView(e);
  }

  list(kind: string, ns: string): { name: string; view: Record<string, unknown> }[] {
    if (kind === SERVICE_DEFAULTS) return [...this.defaults.values()].filter((e) => e.namespace === ns).sort((a, b) => (a.name < b.name ? -1 : 1)).map((e) => ({ name: e.name, view: this.serviceDefaultsView(e) }));
    if (kind === SERVICE_INTENTIONS) return this.intentions.listEntries(ns).map((e) => ({ name: e.name, view: this.intentionsView(e) }));
    return [];
  }

  /** Deletes an entry; deleting service-defaults is checked against L7 intentions as a write of "tcp" would be. */
  delete(kind: ConfigKind, ns: string, name: string): void {
    if (kind === SERVICE_DEFAULTS) {
      const ixn = this.intentions.entry(ns, name);
      if (ixn) this.checkL7(ns, name, 'tcp', ixn.sources);
      this.defaults.delete(this.key(ns, name));
      return;
    }
    this.intentions.deleteEntry(ns, name);
  }

  dropNamespace(ns: string): void {
    for (const [k, e] of this.defaults) if (e.namespace === ns) this.defaults.delete(k);
    this.intentions.dropNamespace(ns);
  }

  maxIndex(kind: string, ns: string): number {
    return Math.max(1, ...this.list(kind, ns).map((e) => e.view.ModifyIndex as number));
  }

  private entMeta(ns: string): Record<string, string> {
    return this.enterprise ? { Partition: 'default', Namespace: ns } : {};
  }

  /** structs.ServiceConfigEntry as JSON: struct-valued fields are never omitted (Go omitempty keeps structs). */
  serviceDefaultsView(e: ServiceDefaultsEntry): Record<string, unknown> {
    const f = e.fields;
    const view: Record<string, unknown> = { Kind: SERVICE_DEFAULTS, Name: e.name, Protocol: f.Protocol ?? '' };
    if (f.Mode) view.Mode = f.Mode;
    view.TransparentProxy = omitZero((f.TransparentProxy as Record<string, unknown> | undefined) ?? {});
    if (f.MutualTLSMode) view.MutualTLSMode = f.MutualTLSMode;
    view.MeshGateway = omitZero((f.MeshGateway as Record<string, unknown> | undefined) ?? {});
    view.Expose = omitZero((f.Expose as Record<string, unknown> | undefined) ?? {});
    for (const k of ['ExternalSNI', 'MaxInboundConnections', 'LocalConnectTimeoutMs', 'LocalRequestTimeoutMs', 'BalanceInboundConnections']) if (f[k]) view[k] = f[k];
    if (f.Meta && Object.keys(f.Meta).length) view.Meta = f.Meta;
    view.Hash = hashOf({ name: e.name, ...f });
    return { ...view, ...this.entMeta(e.namespace), CreateIndex: e.createIndex, ModifyIndex: e.modifyIndex };
  }

  /** structs.ServiceIntentionsConfigEntry as JSON. */
  intentionsView(e: ServiceIntentionsEntry): Record<string, unknown> {
    const sources = e.sources.map((s) => ({
      Name: s.name,
      ...(s.permissions?.length ? { Permissions: s.permissions } : { Action: s.action }),
      Precedence: s.precedence,
      ...(s.legacyId ? { LegacyID: s.legacyId } : {}),
      Type: 'consul',
      ...(s.description ? { Description: s.description } : {}),
      ...(s.legacyCreateTime ? { LegacyCreateTime: s.legacyCreateTime.toISOString() } : {}),
      ...(s.legacyUpdateTime ? { LegacyUpdateTime: s.legacyUpdateTime.toISOString() } : {}),
      ...this.entMeta(s.namespace),
    }));
    const view: Record<string, unknown> = { Kind: SERVICE_INTENTIONS, Name: e.name, Sources: sources };
    if (e.meta) view.Meta = e.meta;
    view.Hash = hashOf({ name: e.name, sources });
    return { ...view, ...this.entMeta(e.namespace), CreateIndex: e.createIndex, ModifyIndex: e.modifyIndex };
  }
}

function omitZero(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== '' && v !== 0 && v !== false && v !== undefined && !(Array.isArray(v) && v.length === 0)));
}

export function isKnownKind(kind: string): boolean {
  return KNOWN_KINDS.includes(kind);
}

export function isKeptKind(kind: string): kind is ConfigKind {
  return kind === SERVICE_DEFAULTS || kind === SERVICE_INTENTIONS;
}
