import { BodyError, parseJsonObject } from '../http/body.ts';

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
 * Decodes an authorize body.
 * - `strict` (the hashicorp dialect) decodes like Consul's decodeBody (agent/http.go, lib.DecodeJSON
 *   with DisallowUnknownFields into structs.ConnectAuthorizeRequest): field names match in any case,
 *   an unknown field or a non-string value is refused, JSON null leaves a field empty. Without
 *   namespaces (Consul CE) Namespace and Partition are unknown fields.
 * - otherwise a documented field that is not a string is refused and other fields are ignored.
 */
export function decodeAuthorizeRequest(body: Record<string, unknown>, options: { strict: boolean; namespaces: boolean }): DecodedAuthorize {
  const known: readonly string[] = options.namespaces ? [...FIELDS, ...ENTERPRISE_FIELDS] : FIELDS;
  const request: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) {
    const field = options.strict ? known.find((f) => f.toLowerCase() === key.toLowerCase()) : known.find((f) => f === key);
    if (!field) {
      if (options.strict) return { ok: false, message: `json: unknown field ${JSON.stringify(key)}` };
      continue;
    }
    if (value === null && options.strict) continue;
    if (typeof value !== 'string') {
      return {
        ok: false,
        message: options.strict ? `json: cannot unmarshal ${jsonTypeOf(value)} into Go struct field ConnectAuthorizeRequest.${field} of type string` : `${field} must be a string`,
      };
    }
    request[field] = value;
  }
  return { ok: true, request };
}

/** What an authorize body says, as far as the body alone decides: the answer to refuse it with, or its fields. */
export type AuthorizeBodyOutcome =
  | { ok: false; status: number; message: string }
  | { ok: true; target: string; bodyNamespace: string | undefined; sourceNs: string; source: string };

export interface AuthorizeBodyRules {
  /** The hashicorp dialect: Consul's decoder (decodeAuthorizeRequest) and its empty-body answer. */
  strict: boolean;
  namespaces: boolean;
  /** Whether a ClientCertURI that is not a service identifier is refused. */
  requireServiceUri: boolean;
  /** Whether ClientCertSerial must be present and colon-hex (the spec behaviour). */
  checkSerial: boolean;
}

const SERVICE_URI = /^spiffe:\/\/([^/]+)\/ns\/([^/]+)\/dc\/([^/]+)\/svc\/([^/]+)$/;
const COLON_HEX = /^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2})*$/;
/** Bodies remembered at most, and the longest remembered: a load test sends a handful of bodies many times over. */
const REMEMBERED_BODIES = 1_024;
const REMEMBERED_BODY_BYTES = 4_096;

/**
 * Authorize bodies to what they say, in Consul's order (agent/agent_endpoint.go
 * AgentConnectAuthorize): decoding, Target, ClientCertURI, then (spec behaviour) ClientCertSerial.
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
    const { strict, namespaces, requireServiceUri, checkSerial } = this.rules;
    // Consul's decoder meets an empty body as the end of input.
    if (raw.length === 0 && strict) return { ok: false, status: 400, message: 'Request decode failed: EOF' };
    let body: Record<string, unknown>;
    try {
      body = parseJsonObject(raw);
    } catch (err) {
      if (err instanceof BodyError) return { ok: false, status: err.status, message: `Request decode failed: ${err.message}` };
      throw err;
    }
    const decoded = decodeAuthorizeRequest(body, { strict, namespaces });
    if (!decoded.ok) return { ok: false, status: 400, message: `Request decode failed: ${decoded.message}` };
    const { Target: target, ClientCertURI: uri = '', ClientCertSerial: serial, Namespace: bodyNamespace } = decoded.request;
    if (!target) return { ok: false, status: 400, message: 'Target service must be specified' };
    const parsed = SERVICE_URI.exec(uri);
    if (!parsed && requireServiceUri) {
      return { ok: false, status: 400, message: /^spiffe:\/\/[^/]+\//.test(uri) ? 'ClientCertURI not a valid Service identifier' : 'ClientCertURI not a valid Connect identifier' };
    }
    if (checkSerial && !serial) return { ok: false, status: 400, message: 'ClientCertSerial must be specified' };
    if (checkSerial && !COLON_HEX.test(serial!)) return { ok: false, status: 400, message: 'ClientCertSerial must be colon-hex encoded' };
    const [, , sourceNs = 'default', , source = uri] = parsed ?? [];
    return { ok: true, target, bodyNamespace: bodyNamespace || undefined, sourceNs, source };
  }
}
