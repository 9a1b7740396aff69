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
