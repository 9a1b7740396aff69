/**
 * Removes secrets from anything that may reach a report or a log: known values (tokens from the
 * config, secrets a suite registers as it learns them) and shapes that are secret wherever they
 * appear (JWT signatures, PEM private keys, credential fields in JSON, forms and headers).
 */
export const REDACTED = '<redacted>';

const SENSITIVE_FIELD =
  /^(client_secret|client_token|access_token|refresh_token|token|accessor|password|secret_id|private_key|privatekeypem|code_verifier|secretid)$/i;

const SENSITIVE_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie|x-[a-z]+-token)$/i;

const JWT = /\b(eyJ[A-Za-z0-9_-]*)\.([A-Za-z0-9_-]*)\.([A-Za-z0-9_-]{8,})/g;
const PEM_PRIVATE_KEY = /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/g;
const JSON_FIELD = /"([A-Za-z_]+)"(\s*:\s*)"((?:[^"\\]|\\.)*)"/g;
const FORM_FIELD = /(^|[?&])([A-Za-z_]+)=([^&#\s]*)/g;

export class Redactor {
  private readonly known = new Set<string>();

  /** Registers a value that must never be shown, wherever it turns up. */
  add(secret: string | undefined | null): void {
    // Very short values would blank out ordinary words; real tokens and secrets are long.
    if (secret && secret.length >= 6) this.known.add(secret);
  }

  text(input: string): string {
    let out = input;
    for (const secret of this.known) out = out.split(secret).join(REDACTED);
    out = out.replace(PEM_PRIVATE_KEY, (_m, kind: string) => `-----BEGIN ${kind}PRIVATE KEY-----${REDACTED}-----END ${kind}PRIVATE KEY-----`);
    out = out.replace(JWT, (_m, header: string, payload: string) => `${header}.${payload}.${REDACTED}`);
    out = out.replace(JSON_FIELD, (m, key: string, sep: string, value: string) =>
      SENSITIVE_FIELD.test(key) && value !== '' ? `"${key}"${sep}"${REDACTED}"` : m,
    );
    out = out.replace(FORM_FIELD, (m, lead: string, key: string, value: string) =>
      SENSITIVE_FIELD.test(key) && value !== '' ? `${lead}${key}=${REDACTED}` : m,
    );
    return out;
  }

  headers(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (SENSITIVE_HEADER.test(name)) {
        const scheme = /^(Basic|Bearer)\s/i.exec(value)?.[1];
        out[name] = scheme ? `${scheme} ${REDACTED}` : REDACTED;
      } else {
        out[name] = this.text(value);
      }
    }
    return out;
  }

  /**
   * Redacts every string inside a JSON-like value, one string at a time (redacting the serialised
   * text could cut across JSON syntax), and blanks the values of credential fields.
   */
  value<T>(input: T): T {
    const walk = (v: unknown, key?: string): unknown => {
      if (typeof v === 'string') return key && SENSITIVE_FIELD.test(key) && v !== '' ? REDACTED : this.text(v);
      if (Array.isArray(v)) return v.map((x) => walk(x));
      if (v && typeof v === 'object') {
        const headerLike = key !== undefined && /headers$/i.test(key);
        const entries = Object.entries(v as Record<string, unknown>);
        if (headerLike && entries.every(([, x]) => typeof x === 'string')) return this.headers(v as Record<string, string>);
        return Object.fromEntries(entries.map(([k, x]) => [k, walk(x, k)]));
      }
      return v;
    };
    return walk(input) as T;
  }
}
