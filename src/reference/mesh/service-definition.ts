import { ConsulError, multierrorText } from './consul-errors.ts';
import { anyValue, bool, decodeStrict, int, str, stringList, stringMap, type StructSpec } from './consul-json.ts';
import { parseGoDurationNs } from './go-duration.ts';
import { isCheckStatus } from './local-services.ts';

/**
 * The body of PUT /v1/agent/service/register read and checked as Consul reads it
 * (hashicorp/consul v1.8.7 agent/agent_endpoint.go AgentRegisterService; agent/structs/structs.go
 * NodeService.Validate, ValidateMetadata; agent/structs/check_type.go CheckType.Validate;
 * agent/structs/service_definition.go CheckTypes). Errors carry Consul's status and words; what
 * real Consul 1.8.7 answered, request by request, is kept in test/reference-consul-agent-services.test.ts.
 *
 * The reference runs TTL checks only: a check that would make the agent probe something (HTTP, TCP,
 * gRPC, a script, Docker, an alias) is refused with a 400 that says so, rather than kept and never run.
 */

const CHECK_SPEC: StructSpec = {
  name: '',
  fields: {
    CheckID: str,
    Name: str,
    Status: str,
    Notes: str,
    ScriptArgs: stringList,
    HTTP: str,
    Header: anyValue,
    Method: str,
    Body: str,
    TCP: str,
    Interval: anyValue,
    AliasNode: str,
    AliasService: str,
    DockerContainerID: str,
    Shell: str,
    GRPC: str,
    GRPCUseTLS: bool,
    TLSSkipVerify: bool,
    Timeout: anyValue,
    TTL: anyValue,
    SuccessBeforePassing: int,
    FailuresBeforeCritical: int,
    ProxyHTTP: str,
    ProxyGRPC: str,
    DeregisterCriticalServiceAfter: anyValue,
    OutputMaxSize: int,
  },
};

const PROXY_SPEC: StructSpec = {
  name: '',
  fields: { DestinationServiceName: str, DestinationServiceID: str, LocalServiceAddress: str, LocalServicePort: int, Config: anyValue, Upstreams: anyValue, MeshGateway: anyValue, Expose: anyValue },
};

const CONNECT_SPEC: StructSpec = { name: '', fields: { Native: bool, SidecarService: anyValue } };

const DEFINITION_SPEC: StructSpec = {
  name: '',
  fields: {
    Kind: str,
    ID: str,
    Name: str,
    Tags: stringList,
    Address: str,
    TaggedAddresses: anyValue,
    tagged_addresses: anyValue,
    Meta: stringMap,
    Port: int,
    Check: { kind: 'struct', spec: CHECK_SPEC },
    Checks: { kind: 'list', of: CHECK_SPEC, go: 'structs.CheckTypes' },
    Weights: { kind: 'struct', spec: { name: '', fields: { Passing: int, Warning: int } } },
    Token: str,
    EnableTagOverride: bool,
    enable_tag_override: bool,
    Proxy: { kind: 'struct', spec: PROXY_SPEC },
    Connect: { kind: 'struct', spec: CONNECT_SPEC },
    Namespace: str,
  },
};

/** Go's error for a body that is JSON but no object: the anonymous struct the handler decodes into. */
const NOT_AN_OBJECT_TYPE =
  'struct { EnableTagOverrideSnake bool "json:\\"enable_tag_override\\""; TaggedAddressesSnake map[string]structs.ServiceAddress "json:\\"tagged_addresses\\""; *structs.Alias }';

/** lib.TranslateKeys in the handler's decode callback: snake_case names a client may send for the proxy's fields. */
const PROXY_SNAKE: Record<string, string> = {
  destination_service_name: 'DestinationServiceName',
  destination_service_id: 'DestinationServiceID',
  local_service_port: 'LocalServicePort',
  local_service_address: 'LocalServiceAddress',
};

/** Gateways the reference does not keep: their validation and their config entries are not ported. */
const UNKEPT_KINDS = new Set(['mesh-gateway', 'terminating-gateway', 'ingress-gateway']);

export interface TtlCheckDefinition {
  id?: string;
  name?: string;
  status?: string;
  notes: string;
  ttlMs: number;
}

export interface ServiceDefinition {
  kind: string;
  id: string;
  name: string;
  tags: string[];
  address: string;
  meta: Record<string, string>;
  port: number;
  weights: { Passing: number; Warning: number };
  enableTagOverride: boolean;
  proxy?: { DestinationServiceName: string; DestinationServiceID?: string; LocalServiceAddress?: string; LocalServicePort?: number };
  connectNative: boolean;
  checks: TtlCheckDefinition[];
  namespace?: string;
}

const bad = (message: string) => new ConsulError(400, message);

function translateSnake(obj: Record<string, unknown>): void {
  const proxy = obj.Proxy ?? obj.proxy;
  if (proxy && typeof proxy === 'object' && !Array.isArray(proxy)) {
    const p = proxy as Record<string, unknown>;
    for (const [snake, canonical] of Object.entries(PROXY_SNAKE)) {
      if (snake in p) {
        p[canonical] = p[snake];
        delete p[snake];
      }
    }
  }
}

/** FixupCheckType: a duration arrives as Go's duration text or as nanoseconds. */
function durationNs(value: unknown): bigint {
  if (value === undefined || value === null) return 0n;
  if (typeof value === 'number') return BigInt(Math.trunc(value));
  if (typeof value !== 'string') throw bad(`Request decode failed: json: cannot unmarshal ${typeof value} into Go value of type time.Duration`);
  const parsed = parseGoDurationNs(value);
  if (!parsed.ok) throw bad(`Request decode failed: ${parsed.message}`);
  return parsed.ns;
}

/** structs.validateMetaPair and ValidateMetadata's count, with the words Consul 1.8.7 uses. */
function validateMeta(meta: Record<string, string>): void {
  const entries = Object.entries(meta);
  const invalid = (why: string) => bad(`Invalid Service Meta: ${why}`);
  if (entries.length > 64) throw invalid('Node metadata cannot contain more than 64 key/value pairs');
  for (const [key, value] of entries) {
    if (key === '') throw invalid('Key cannot be blank');
    if (!/^[a-zA-Z0-9_-]+$/.test(key)) throw invalid(`Key contains invalid characters`);
    if (key.length > 128) throw invalid('Key is too long (limit: 128 characters)');
    if (key.startsWith('consul-')) throw invalid("Key prefix 'consul-' is reserved for internal use");
    if (value.length > 512) throw invalid('Value is too long (limit: 512 characters)');
  }
}

/** A check's fields with its durations read (FixupCheckType), as decoding leaves it. */
interface DecodedCheck {
  raw: Record<string, unknown>;
  ttl: bigint;
  interval: bigint;
}

/** FixupCheckType runs while the body is decoded: a bad duration is a decode error, before any other check. */
function decodeCheck(raw: Record<string, unknown>): DecodedCheck {
  const decoded = { raw, ttl: durationNs(raw.TTL), interval: durationNs(raw.Interval) };
  durationNs(raw.Timeout);
  durationNs(raw.DeregisterCriticalServiceAfter);
  return decoded;
}

/** CheckType.Validate, then the reference's own limit (TTL checks only). */
function checkOf({ raw, ttl, interval }: DecodedCheck): TtlCheckDefinition {
  const script = Array.isArray(raw.ScriptArgs) && raw.ScriptArgs.length > 0;
  const intervalCheck = script || !!raw.HTTP || !!raw.TCP || !!raw.GRPC || !!raw.DockerContainerID;
  const alias = !!raw.AliasNode || !!raw.AliasService;
  if (interval > 0n && ttl > 0n) throw bad('Invalid check: Interval and TTL cannot both be specified');
  if (intervalCheck && interval <= 0n) throw bad('Invalid check: Interval must be > 0 for Script, HTTP, or TCP checks');
  if (!intervalCheck && !alias && ttl <= 0n) throw bad('Invalid check: TTL must be > 0 for TTL checks');
  if (intervalCheck || alias) throw bad('Invalid check: the reference runs TTL checks only (HTTP, TCP, gRPC, script, Docker and alias checks are not run by it)');
  return {
    id: (raw.CheckID as string | undefined) || undefined,
    name: (raw.Name as string | undefined) || undefined,
    status: (raw.Status as string | undefined) || undefined,
    notes: (raw.Notes as string | undefined) ?? '',
    ttlMs: Number(ttl / 1_000_000n),
  };
}

/** ipaddr.IsAny as the handler calls it: these three spellings only (1.8.7 takes "0:0:0:0:0:0:0:0" and "::0"). */
function isAnyAddress(address: string): boolean {
  return address === '0.0.0.0' || address === '::' || address === '[::]';
}

/** Reads and checks a registration body; a refusal is a ConsulError with Consul's status and words. */
export function parseServiceDefinition(text: string): ServiceDefinition {
  let parsed: unknown;
  try {
    parsed = text.trim() === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (parsed !== undefined && (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))) {
    const kind = Array.isArray(parsed) ? 'array' : parsed === null ? 'null' : typeof parsed === 'boolean' ? 'bool' : typeof parsed;
    if (kind !== 'null') throw bad(`Request decode failed: json: cannot unmarshal ${kind} into Go value of type ${NOT_AN_OBJECT_TYPE}`);
    // JSON null leaves the struct at its zero value: a registration without a name.
    text = '{}';
  }
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    translateSnake(parsed as Record<string, unknown>);
    text = JSON.stringify(parsed);
  }
  const decoded = decodeStrict(text, DEFINITION_SPEC);
  if (!decoded.ok) {
    // Go 1.14's encoding/json names only the outer field of a nested one (".Proxy", not ".Proxy.DestinationServiceName").
    throw bad(`Request decode failed: ${decoded.message.replace(/Go struct field \.(\w+)\.[\w.]+ of type/, 'Go struct field .$1 of type')}`);
  }
  const v = decoded.value as Record<string, any>;
  // CheckTypes: the single Check when it is not empty, then Checks.
  const single = v.Check as Record<string, unknown> | undefined;
  const rawChecks = [...(single && Object.keys(single).length > 0 ? [single] : []), ...((v.Checks as Record<string, unknown>[] | undefined) ?? [])];
  const decodedChecks = rawChecks.map(decodeCheck);

  const name = (v.Name as string | undefined) ?? '';
  if (name === '') throw bad('Missing service name');
  const address = (v.Address as string | undefined) ?? '';
  if (isAnyAddress(address)) throw bad('Invalid service address');
  const weights = { Passing: 1, Warning: 1, ...(v.Weights ?? {}) };
  if (v.Weights && weights.Passing < 1) throw bad(`Invalid Weights: Passing must be greater than 0`);
  const meta = (v.Meta as Record<string, string> | undefined) ?? {};
  validateMeta(meta);

  const kind = (v.Kind as string | undefined) ?? '';
  const proxy = v.Proxy as ServiceDefinition['proxy'] | undefined;
  const connect = (v.Connect as { Native?: boolean; SidecarService?: unknown } | undefined) ?? {};
  const port = (v.Port as number | undefined) ?? 0;
  if (kind === 'connect-proxy') {
    const errors: string[] = [];
    if ((proxy?.DestinationServiceName ?? '').trim() === '') errors.push('Proxy.DestinationServiceName must be non-empty for Connect proxy services');
    if (port === 0) errors.push('Port must be set for a Connect proxy');
    if (connect.Native) errors.push('A Proxy cannot also be Connect Native, only typical services');
    if (errors.length) throw bad(multierrorText(errors));
  }
  if (UNKEPT_KINDS.has(kind)) throw bad(`the reference keeps typical services and connect proxies only, not a ${kind}`);
  if (connect.SidecarService !== undefined && connect.SidecarService !== null) {
    throw bad('Invalid SidecarService: the reference does not register sidecar services; register the proxy as a service of kind connect-proxy');
  }

  const checks = decodedChecks.map(checkOf);
  for (const c of checks) {
    if (c.status !== undefined && !isCheckStatus(c.status)) throw bad("Status for checks must 'passing', 'warning', 'critical'");
  }
  return {
    kind,
    id: (v.ID as string | undefined) || name,
    name,
    tags: (v.Tags as string[] | undefined) ?? [],
    address,
    meta,
    port,
    weights,
    enableTagOverride: Boolean(v.EnableTagOverride ?? v.enable_tag_override),
    proxy: kind === 'connect-proxy' ? proxy : undefined,
    connectNative: Boolean(connect.Native),
    checks,
    namespace: (v.Namespace as string | undefined) || undefined,
  };
}
