import { REDACTED, Redactor } from '../client/redact.ts';
import { fieldSet } from './field-set.ts';
import { globMatches } from './glob.ts';
import type { RawAnswer } from './send-request.ts';

/**
 * An answer with what is per target taken out: the target's fixture values (its allocation IDs,
 * client IDs, mounts) written back as their symbols, other IDs, times and addresses as placeholders,
 * secrets redacted. Two targets that answer alike give equal normalised answers.
 */
export interface Answer {
  /** undefined: the target gave no answer (`noAnswer` says why). */
  status?: number;
  noAnswer?: string;
  contentType?: string;
  /** json: a JSON body (or a stream of JSON frames); text: anything else. */
  kind: 'json' | 'text' | 'none';
  /** The error, for a status of 400 or more: Vault's `errors` list (one message a line), else the body. */
  error?: string;
  /** The field set of a JSON answer below 400: path → type(s) (`a.b`, `a[]`, `a.*` for a map's values). */
  fields?: Record<string, string>;
  /** A text answer below 400 (a file's bytes), normalised. */
  text?: string;
  /** The body as the report shows it: redacted, normalised, cut. */
  excerpt: string;
}

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const TIMESTAMP = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})\b/g;
const LOOPBACK = /\b(?:127\.0\.0\.1|localhost|\[::1\]):\d+\b/g;
const EXCERPT_CHARS = 700;
/** A file system path leading up to a symbol (not a URL's path: it follows a space, a quote or the start). */
const ABSOLUTE_DIR = /(?<=^|[\s'"(])(?:\/[\w.+-]+)+\/(?=@\{)/g;

export class Normaliser {
  private readonly pairs: [string, string][];
  readonly redactor: Redactor;

  /**
   * `symbols`: the target's fixture values by name; `secrets`: values never shown (tokens, client
   * secrets), also when they are symbols.
   */
  constructor(
    symbols: Record<string, string>,
    secrets: string[],
    runPrefix: string,
  ) {
    this.redactor = new Redactor();
    for (const s of secrets) this.redactor.add(s);
    const pairs: [string, string][] = [];
    for (const [name, value] of Object.entries(symbols)) {
      // Very short values (a task name, `dc1`) are ordinary words in a message: left as they are.
      if (value.length < 6 || secrets.includes(value)) continue;
      pairs.push([value, `@{${name}}`]);
      if (UUID.test(value) && value.length === 36) pairs.push([value.slice(0, 8), `@{${name}:8}`]);
      UUID.lastIndex = 0;
    }
    pairs.push([runPrefix, '@{prefix}']);
    // Longest first: an ID is replaced whole before its 8-character prefix is.
    this.pairs = pairs.sort((a, b) => b[0].length - a[0].length);
  }

  text(input: string): string {
    let out = this.redactor.text(input);
    for (const [value, symbol] of this.pairs) out = out.split(value).join(symbol);
    // A target's own directories (where it keeps an allocation) lead up to a symbol: written <dir>.
    return out.replace(UUID, '<uuid>').replace(TIMESTAMP, '<time>').replace(LOOPBACK, '<loopback>').replace(ABSOLUTE_DIR, '<dir>/');
  }


  /** `mapPaths`: globs of the paths of objects whose keys are data (metadata keys, PIDs), not fields. */
  answer(raw: RawAnswer, mapPaths: string[] = []): Answer {
    const isMap = (path: string) => mapPaths.some((g) => globMatches(g, path));
    if (raw.status === undefined) return { noAnswer: raw.error ?? 'no answer', kind: 'none', excerpt: '' };
    const excerpt = cut(this.text(raw.text));
    const base = { status: raw.status, ...(raw.contentType ? { contentType: raw.contentType } : {}), excerpt };
    const json = parseJson(raw.text);
    if (raw.status >= 400) return { ...base, kind: json ? 'json' : 'text', error: this.errorOf(raw.text, json?.value) };
    // A stream's frames are compared as one list: the union of their fields.
    if (raw.frames) return { ...base, kind: 'json', fields: fieldSet(raw.frames, (k) => this.text(k), 'frame', isMap) };
    if (json) return { ...base, kind: 'json', fields: fieldSet(json.value, (k) => this.text(k), '', isMap) };
    return { ...base, kind: 'text', text: this.text(raw.text) };
  }

  /** Vault's `{"errors":[…]}` as its messages, one a line; any other body as its text, trimmed. */
  private errorOf(text: string, json: unknown): string {
    if (json && typeof json === 'object' && Array.isArray((json as { errors?: unknown }).errors)) {
      return (json as { errors: unknown[] }).errors.map((e) => this.text(String(e)).trim()).join('\n');
    }
    return this.text(text).trim();
  }
}

function parseJson(text: string): { value: unknown } | undefined {
  if (!/^\s*[[{]/.test(text)) return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

function cut(text: string): string {
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}… (${text.length} characters)` : text;
}

export { REDACTED };
