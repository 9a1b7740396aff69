/** The fields of an authorize request the agent reads (spec 001, Authorize request). */
export interface AuthorizeRequest {
  Target?: string;
  ClientCertURI?: string;
  ClientCertSerial?: string;
  Namespace?: string;
}

export type DecodedAuthorize = { ok: true; request: AuthorizeRequest } | { ok: false; message: string };

const FIELDS = ['Target', 'ClientCertURI', 'ClientCertSerial'] as const;
/** Fields that exist only where the agent has namespaces (Consul Enterprise's EnterpriseMeta). */
const ENTERPRISE_FIELDS = ['Namespace', 'Partition'] as const;

function jsonTypeOf(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  return typeof v === 'boolean' ? 'bool' : typeof v;
}

/**
 * Decodes an authorize body's fields as Consul's decodeBody does (agent/http.go, lib.DecodeJSON with
 * DisallowUnknownFields into structs.ConnectAuthorizeRequest): field names match in any case, an
 * unknown field or a non-string value is refused, JSON null leaves a field empty; the first error in
 * the body's order is the answer. Without namespaces (Consul CE) Namespace and Partition are unknown
 * fields. The spec behaviour decodes the same way: spec 001 states no error, and Consul's decoding
 * refuses nothing a client of the spec sends.
 */
export function decodeAuthorizeRequest(body: Record<string, unknown>, options: { namespaces: boolean }): DecodedAuthorize {
  const known: readonly string[] = options.namespaces ? [...FIELDS, ...ENTERPRISE_FIELDS] : FIELDS;
  const request: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) {
    const field = known.find((f) => f.toLowerCase() === key.toLowerCase());
    if (!field) return { ok: false, message: `json: unknown field ${JSON.stringify(key)}` };
    if (value === null) continue;
    if (typeof value !== 'string') return { ok: false, message: `json: cannot unmarshal ${jsonTypeOf(value)} into Go struct field ConnectAuthorizeRequest.${field} of type string` };
    request[field] = value;
  }
  return { ok: true, request };
}

/** What an authorize body says, as far as the body alone decides: the answer to refuse it with, or its fields. */
export type AuthorizeBodyOutcome =
  | { ok: false; status: number; message: string }
  | { ok: true; target: string; bodyNamespace: string | undefined; sourceNs: string; source: string };

export interface AuthorizeBodyRules {
  namespaces: boolean;
  /** Whether ClientCertSerial must be present and colon-hex (the spec behaviour). */
  checkSerial: boolean;
  flaws?: CertUriFlaws;
}

const COLON_HEX = /^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2})*$/;

/** What a ClientCertURI names: a service, another Connect identity (an agent, a CA), or nothing Connect knows. */
export type CertUri = { kind: 'service'; namespace: string; service: string } | { kind: 'identity' } | { kind: 'none' };

const NOT_CONNECT: CertUri = { kind: 'none' };
const OTHER_IDENTITY: CertUri = { kind: 'identity' };
// agent/connect/uri.go (v1.8.7): the service and agent identifiers, matched on the path as written.
const SPIFFE_SERVICE_PATH = /^\/ns\/([^/]+)\/dc\/([^/]+)\/svc\/([^/]+)$/;
const SPIFFE_AGENT_PATH = /^\/agent\/client\/dc\/[^/]+\/id\/[^/]+$/;
// Go's net/url Parse, the parts ParseCertURI reads: url.Parse refuses an ASCII control character
// anywhere and a bad %-escape in the fragment or path (unescape); the scheme is a letter then
// letters, digits, + - . (getScheme), compared lower-cased; "//" opens an authority; a rest that
// starts with no "/" is opaque (no host, no path).
const CONTROL = /[\x00-\x1f\x7f]/;
const BAD_ESCAPE = /%(?![0-9a-fA-F]{2})/;
const HIERARCHICAL = /^([A-Za-z][A-Za-z0-9+.-]*):(?:\/\/([^/]*))?(\/.*)?$/s;
// parseAuthority: userinfo up to the last "@" (validUserinfo); parseHost: after a bracketed IP
// literal, or after the host's last ":", only a port of digits (validOptionalPort), and no character
// shouldEscape(c, encodeHost) refuses, nor an escape of an ASCII byte other than %25 (unescape).
const USERINFO = /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/;
const HOST_CHARS = /^(?:[A-Za-z0-9\-_.~!$&'()*+,;=:[\]<>"\u0080-\uffff]|%25|%[89a-fA-F][0-9a-fA-F])*$/;
const PORT = /^(?::[0-9]*)?$/;

function validHost(host: string): boolean {
  // A bracket never closed leaves the whole host as the "port", which is then no port.
  const portAt = host.startsWith('[') ? host.lastIndexOf(']') + 1 : host.lastIndexOf(':');
  return PORT.test(portAt < 0 ? '' : host.slice(portAt)) && HOST_CHARS.test(host);
}

/** Wrong ways of reading a ClientCertURI that only the fault catalog turns on (src/reference/faults/mesh.ts). */
export interface CertUriFlaws {
  /** mesh.authorize-cert-uri-escapes-kept: a service identifier's parts are taken as written, %-escapes and all. */
  keepEscapes?: boolean;
  /** mesh.authorize-accepts-non-service-uri: a ClientCertURI that names no service names the source as is. */
  acceptNonServiceUri?: boolean;
}

/** A %-escaped path segment as url.PathUnescape reads it (bytes, then UTF-8). */
function unescapeSegment(segment: string): string {
  return Buffer.from(segment.replace(/%([0-9a-fA-F]{2})|[^%]+/g, (part, hex: string | undefined) => (hex ? String.fromCharCode(parseInt(hex, 16)) : Buffer.from(part).toString('latin1'))), 'latin1').toString('utf8');
}

/**
 * What a ClientCertURI identifies, as Consul reads it: connect.ParseCertURIFromString
 * (hashicorp/consul agent/connect/uri.go at v1.8.7), url.Parse and then the SPIFFE patterns on the
 * path as written, each part of a service identifier %-unescaped; a URI with no path whose host has
 * a "." after its first character is a CA's signing identifier. Query and fragment are ignored.
 */
export function parseCertUri(uri: string, flaws: CertUriFlaws = {}): CertUri {
  const hash = uri.indexOf('#');
  const fragment = hash < 0 ? '' : uri.slice(hash + 1);
  const beforeQuery = (hash < 0 ? uri : uri.slice(0, hash)).split('?')[0]!;
  const parts = HIERARCHICAL.exec(beforeQuery);
  if (CONTROL.test(uri) || BAD_ESCAPE.test(fragment) || !parts || parts[1]!.toLowerCase() !== 'spiffe') return NOT_CONNECT;
  const [, , authority = '', path = ''] = parts;
  const at = authority.lastIndexOf('@');
  const host = authority.slice(at + 1);
  if (!USERINFO.test(authority.slice(0, Math.max(at, 0))) || BAD_ESCAPE.test(authority) || !validHost(host) || BAD_ESCAPE.test(path)) return NOT_CONNECT;
  const service = SPIFFE_SERVICE_PATH.exec(path);
  const part = (segment: string) => (flaws.keepEscapes ? segment : unescapeSegment(segment));
  if (service) return { kind: 'service', namespace: part(service[1]!), service: part(service[3]!) };
  if (SPIFFE_AGENT_PATH.test(path) || (path === '' && host.indexOf('.') > 0)) return OTHER_IDENTITY;
  return NOT_CONNECT;
}

/** Bodies remembered at most, and the longest remembered: a load test sends a handful of bodies many times over. */
const REMEMBERED_BODIES = 1_024;
const REMEMBERED_BODY_BYTES = 4_096;

/**
 * Authorize bodies to what they say, in Consul's order (agent/agent_endpoint.go
 * AgentConnectAuthorize): decoding, Target, ClientCertURI, then (spec behaviour) ClientCertSerial.
 * Both dialects refuse in Consul's words (spec 001: "Error status codes and error bodies: not shown").
 * All of it depends on the body's bytes alone, so a body seen before is answered from memory: a
 * proxy asks about the same few connections over and over, and JSON decoding was the largest part
 * of an authorize's own work. What depends on the request beyond its body (token, namespace, ACLs,
 * intentions) is decided afresh every time.
 */
export class AuthorizeBodies {
  private readonly remembered = new Map<string, AuthorizeBodyOutcome>();

  constructor(private readonly rules: AuthorizeBodyRules) {}

  /** Bodies remembered now (never more than REMEMBERED_BODIES). */
  get size(): number {
    return this.remembered.size;
  }

  outcome(raw: Buffer): AuthorizeBodyOutcome {
    if (raw.length > REMEMBERED_BODY_BYTES) return this.read(raw);
    const key = raw.toString('latin1');
    const known = this.remembered.get(key);
    if (known) return known;
    const outcome = Object.freeze(this.read(raw));
    if (this.remembered.size >= REMEMBERED_BODIES) this.remembered.clear();
    this.remembered.set(key, outcome);
    return outcome;
  }

  private read(raw: Buffer): AuthorizeBodyOutcome {
    const { namespaces, checkSerial, flaws = {} } = this.rules;
    const body = consulBody(raw);
    if (typeof body === 'string') return { ok: false, status: 400, message: `Request decode failed: ${body}` };
    const decoded = decodeAuthorizeRequest(body, { namespaces });
    if (!decoded.ok) return { ok: false, status: 400, message: `Request decode failed: ${decoded.message}` };
    const { Target: target, ClientCertURI: uriText = '', ClientCertSerial: serial, Namespace: bodyNamespace } = decoded.request;
    if (!target) return { ok: false, status: 400, message: 'Target service must be specified' };
    const uri = parseCertUri(uriText, flaws);
    const named = uri.kind === 'service' ? uri : flaws.acceptNonServiceUri ? { namespace: 'default', service: uriText } : undefined;
    if (!named) return { ok: false, status: 400, message: uri.kind === 'identity' ? 'ClientCertURI not a valid Service identifier' : 'ClientCertURI not a valid Connect identifier' };
    if (checkSerial && !COLON_HEX.test(serial ?? '')) return { ok: false, status: 400, message: 'ClientCertSerial must be given, colon-hex encoded' };
    return { ok: true, target, bodyNamespace: bodyNamespace || undefined, sourceNs: named.namespace, source: named.service };
  }
}

/**
 * The body as Consul's decodeBody reads it (agent/http.go, a json.Decoder into
 * structs.ConnectAuthorizeRequest): a blank body is the end of input, JSON null leaves the request
 * empty, any other value but an object cannot be unmarshalled into the struct. A syntax error is
 * refused with JavaScript's words rather than Go's. The spec behaviour reads a body so too.
 */
function consulBody(raw: Buffer): Record<string, unknown> | string {
  const text = raw.toString('utf8');
  if (/^[ \t\r\n]*$/.test(text)) return 'EOF';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return (err as Error).message;
  }
  if (value === null) return {};
  if (typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  return `json: cannot unmarshal ${jsonTypeOf(value)} into Go value of type structs.ConnectAuthorizeRequest`;
}
