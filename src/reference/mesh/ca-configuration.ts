import { createHash } from 'node:crypto';
import { formatGoDuration, parseGoDurationNs } from './go-duration.ts';

/**
 * The CA configuration as Consul keeps and shows it (agent/structs/connect_ca.go CAConfiguration):
 * Config is the client's map, stored as given and shown as given, durations included.
 */
export interface CaConfigurationRecord {
  Provider: string;
  Config: Record<string, unknown> | null;
  State: Record<string, string> | null;
  ForceWithoutCrossSigning: boolean;
  CreateIndex: number;
  ModifyIndex: number;
}

/** A PUT body, decoded (agent/connect_ca_endpoint.go ConnectCAConfigurationSet). */
export interface CaConfigurationRequest {
  Provider: string;
  Config: Record<string, unknown> | null;
  State: Record<string, string> | null;
  ForceWithoutCrossSigning: boolean;
}

/** The built-in provider's settings after decoding and defaults (structs.ConsulCAProviderConfig). */
export interface ConsulProviderConfig {
  leafCertTtlNs: bigint;
  intermediateCertTtlNs: bigint;
  rootCertTtlNs: bigint;
  skipValidate: boolean;
  privateKeyType: string;
  privateKeyBits: number;
  privateKey: string;
  rootCert: string;
  /** Undocumented upstream and meant for tests: the provider refuses to cross-sign. */
  disableCrossSigning: boolean;
}

export type Decoded<T> = { ok: true; value: T } | { ok: false; message: string };

const HOUR_NS = 3_600_000_000_000n;

/** What a dev agent starts with (agent/config/runtime.go ConnectCAConfiguration, agent/consul/config.go DefaultConfig). */
export const DEV_AGENT_CA_CONFIG: Record<string, unknown> = { LeafCertTTL: '72h', IntermediateCertTTL: '8760h', RootCertTTL: '87600h' };

/**
 * Decodes a PUT body like Consul's decodeBody (lib.DecodeJSON: DisallowUnknownFields, field names
 * matched in any case, null leaves a field empty) into CAConfiguration, whose UnmarshalJSON also
 * takes force_without_cross_signing. The message is what follows "Request decode failed: ".
 */
export function decodeCaConfigurationRequest(raw: Buffer): Decoded<CaConfigurationRequest> {
  const text = raw.toString('utf8');
  if (text.trim() === '') return { ok: false, message: 'EOF' };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: /end of JSON input/i.test((err as Error).message) ? 'unexpected EOF' : `invalid character in JSON input (${(err as Error).message})` };
  }
  const request: CaConfigurationRequest = { Provider: '', Config: null, State: null, ForceWithoutCrossSigning: false };
  if (body === null) return { ok: true, value: request };
  if (typeof body !== 'object' || Array.isArray(body)) return { ok: false, message: `json: cannot unmarshal ${goJsonKind(body)} into Go value of type structs.CAConfiguration` };
  const fields = ['Provider', 'Config', 'State', 'ForceWithoutCrossSigning', 'force_without_cross_signing', 'CreateIndex', 'ModifyIndex'];
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    const field = fields.find((f) => f.toLowerCase() === key.toLowerCase());
    if (!field) return { ok: false, message: `json: unknown field ${JSON.stringify(key)}` };
    if (value === null) continue;
    const wrongType = (goType: string) => ({ ok: false as const, message: `json: cannot unmarshal ${goJsonKind(value)} into Go struct field CAConfiguration.${field} of type ${goType}` });
    switch (field) {
      case 'Provider':
        if (typeof value !== 'string') return wrongType('string');
        request.Provider = value;
        break;
      case 'Config':
        if (typeof value !== 'object' || Array.isArray(value)) return wrongType('map[string]interface {}');
        request.Config = value as Record<string, unknown>;
        break;
      case 'State': {
        if (typeof value !== 'object' || Array.isArray(value)) return wrongType('map[string]string');
        const bad = Object.values(value as object).find((v) => typeof v !== 'string' && v !== null);
        if (bad !== undefined) return { ok: false, message: `json: cannot unmarshal ${goJsonKind(bad)} into Go struct field CAConfiguration.State of type string` };
        request.State = Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, (v as string | null) ?? '']));
        break;
      }
      case 'ForceWithoutCrossSigning':
      case 'force_without_cross_signing':
        if (typeof value !== 'boolean') return wrongType('bool');
        // Only a true snake-case value overrides (CAConfiguration.UnmarshalJSON).
        if (field === 'ForceWithoutCrossSigning' || value) request.ForceWithoutCrossSigning = value;
        break;
      default:
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) return wrongType('uint64');
    }
  }
  return { ok: true, value: request };
}

function goJsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'object') return 'object';
  return typeof value;
}

type FieldKind = 'duration' | 'bool' | 'string' | 'int' | 'float';
const PROVIDER_FIELDS: [string, FieldKind][] = [
  ['LeafCertTTL', 'duration'],
  ['RootCertTTL', 'duration'],
  ['IntermediateCertTTL', 'duration'],
  ['SkipValidate', 'bool'],
  ['CSRMaxPerSecond', 'float'],
  ['CSRMaxConcurrent', 'int'],
  ['PrivateKeyType', 'string'],
  ['PrivateKeyBits', 'int'],
  ['PrivateKey', 'string'],
  ['RootCert', 'string'],
  ['DisableCrossSigning', 'bool'],
];
const GO_TYPE: Record<FieldKind, string> = { duration: 'time.Duration', bool: 'bool', string: 'string', int: 'int', float: 'float32' };

/**
 * Reads the built-in provider's Config like agent/connect/ca/provider_consul_config.go
 * ParseConsulCAConfig: mapstructure with weakly typed input and Go durations (keys matched in any
 * case, unknown keys ignored, null keeps the default), then the checks of
 * structs.CommonCAProviderConfig.Validate unless SkipValidate is set.
 */
export function parseConsulProviderConfig(raw: Record<string, unknown> | null): Decoded<ConsulProviderConfig> {
  const values: Record<string, string | number | bigint | boolean> = {
    LeafCertTTL: 72n * HOUR_NS,
    IntermediateCertTTL: 8760n * HOUR_NS,
    RootCertTTL: 87600n * HOUR_NS,
    SkipValidate: false,
    CSRMaxPerSecond: 50,
    CSRMaxConcurrent: 0,
    PrivateKeyType: 'ec',
    PrivateKeyBits: 256,
    PrivateKey: '',
    RootCert: '',
    DisableCrossSigning: false,
  };
  const errors: string[] = [];
  for (const [name, kind] of PROVIDER_FIELDS) {
    if (!raw) break;
    const key = name in raw ? name : Object.keys(raw).find((k) => k.toLowerCase() === name.toLowerCase());
    if (key === undefined || raw[key] === null) continue;
    const read = weaklyTyped(name, kind, raw[key]);
    if (read.ok) values[name] = read.value;
    else errors.push(read.message);
  }
  if (errors.length) {
    const points = errors.map((e) => `* ${e}`).sort();
    return { ok: false, message: `error decoding config: ${errors.length} error(s) decoding:\n\n${points.join('\n')}` };
  }
  const config: ConsulProviderConfig = {
    leafCertTtlNs: values.LeafCertTTL as bigint,
    intermediateCertTtlNs: values.IntermediateCertTTL as bigint,
    rootCertTtlNs: values.RootCertTTL as bigint,
    skipValidate: values.SkipValidate as boolean,
    privateKeyType: values.PrivateKeyType as string,
    privateKeyBits: values.PrivateKeyBits as number,
    privateKey: values.PrivateKey as string,
    rootCert: values.RootCert as string,
    disableCrossSigning: values.DisableCrossSigning as boolean,
  };
  if (config.privateKey === '' && config.rootCert !== '') return { ok: false, message: 'must provide a private key when providing a root cert' };
  const invalid = validateCommonConfig(config);
  return invalid ? { ok: false, message: invalid } : { ok: true, value: config };
}

/** structs.CommonCAProviderConfig.Validate, in its order and words. */
function validateCommonConfig(c: ConsulProviderConfig): string | undefined {
  if (c.skipValidate) return undefined;
  const d = formatGoDuration;
  if (c.rootCertTtlNs < c.intermediateCertTtlNs) {
    return `root cert TTL is set and is not greater than intermediate cert ttl. root cert ttl: ${d(c.rootCertTtlNs)}, intermediate cert ttl: ${d(c.intermediateCertTtlNs)}`;
  }
  if (c.leafCertTtlNs < HOUR_NS) return `leaf cert TTL must be greater or equal than ${d(HOUR_NS)}`;
  if (c.leafCertTtlNs > 8760n * HOUR_NS) return `leaf cert TTL must be less than ${d(8760n * HOUR_NS)}`;
  if (c.intermediateCertTtlNs < 3n * HOUR_NS) return 'Intermediate Cert TTL must be greater or equal than 3h';
  if (c.intermediateCertTtlNs < 3n * c.leafCertTtlNs) return `Intermediate Cert TTL must be greater or equal than 3 * LeafCertTTL (>=${d(3n * c.leafCertTtlNs)}).`;
  if (c.privateKeyType === 'ec') {
    if (![224, 256, 384, 521].includes(c.privateKeyBits)) return 'EC key length must be one of (224, 256, 384, 521) bits';
  } else if (c.privateKeyType === 'rsa') {
    if (![2048, 4096].includes(c.privateKeyBits)) return 'RSA key length must be 2048 or 4096 bits';
  } else {
    return "private key type must be either 'ec' or 'rsa'";
  }
  return undefined;
}

/** mapstructure's weakly typed conversion of one JSON value into a field of the given Go type. */
function weaklyTyped(name: string, kind: FieldKind, value: unknown): Decoded<string | number | bigint | boolean> {
  const unconvertible = { ok: false as const, message: `'${name}' expected type '${GO_TYPE[kind]}', got unconvertible type '${goValueType(value)}', value: '${goValue(value)}'` };
  if (typeof value === 'object') return unconvertible;
  switch (kind) {
    case 'duration': {
      // structs.ParseDurationFunc turns strings into durations; numbers are nanoseconds.
      if (typeof value === 'string') {
        const parsed = parseGoDurationNs(value);
        return parsed.ok ? { ok: true, value: parsed.ns } : { ok: false, message: `error decoding '${name}': ${parsed.message}` };
      }
      if (typeof value === 'boolean') return { ok: true, value: value ? 1n : 0n };
      return { ok: true, value: BigInt(Math.trunc(value as number)) };
    }
    case 'int': {
      if (typeof value === 'boolean') return { ok: true, value: value ? 1 : 0 };
      if (typeof value === 'number') return { ok: true, value: Math.trunc(value) };
      const text = (value as string) === '' ? '0' : (value as string);
      return /^[+-]?\d+$/.test(text) ? { ok: true, value: Number(text) } : { ok: false, message: `cannot parse '${name}' as int: strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax` };
    }
    case 'float': {
      if (typeof value === 'boolean') return { ok: true, value: value ? 1 : 0 };
      if (typeof value === 'number') return { ok: true, value };
      const text = (value as string) === '' ? '0' : (value as string);
      return Number.isFinite(Number(text)) ? { ok: true, value: Number(text) } : { ok: false, message: `cannot parse '${name}' as float: strconv.ParseFloat: parsing ${JSON.stringify(text)}: invalid syntax` };
    }
    case 'bool': {
      if (typeof value === 'boolean') return { ok: true, value };
      if (typeof value === 'number') return { ok: true, value: value !== 0 };
      const truth = { '': false, '1': true, t: true, T: true, TRUE: true, true: true, True: true, '0': false, f: false, F: false, FALSE: false, false: false, False: false }[value as string];
      return truth === undefined ? { ok: false, message: `cannot parse '${name}' as bool: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax` } : { ok: true, value: truth };
    }
    case 'string':
      if (typeof value === 'boolean') return { ok: true, value: value ? '1' : '0' };
      return { ok: true, value: String(value) };
  }
}

function goValueType(value: unknown): string {
  if (Array.isArray(value)) return '[]interface {}';
  if (typeof value === 'object') return 'map[string]interface {}';
  return typeof value === 'number' ? 'float64' : typeof value === 'boolean' ? 'bool' : 'string';
}

function goValue(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(goValue).join(' ')}]`;
  if (value && typeof value === 'object') return `map[${Object.entries(value).map(([k, v]) => `${k}:${goValue(v)}`).join(' ')}]`;
  return String(value);
}

/**
 * The provider's identity (agent/connect/ca/provider_consul.go Configure): a hash of the key, root
 * certificate, key type and size. The same identity means the same root: a change of other fields
 * (LeafCertTTL, SkipValidate, ...) updates the configuration without a rotation.
 */
export function providerIdentity(c: ConsulProviderConfig): string {
  return createHash('sha256').update(`${c.privateKey},${c.rootCert},${c.privateKeyType},${c.privateKeyBits},true`).digest('hex');
}

/** reflect.DeepEqual of two JSON values, as Consul compares a new Config with the stored one. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
