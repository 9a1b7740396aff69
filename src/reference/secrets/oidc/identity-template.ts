import type { Alias, Entity } from '../identity-store.ts';
import { DurationError, parseDuration } from '../durations.ts';
import { decodeStdBase64 } from '../go-base64.ts';
import { FieldError } from '../named-collection.ts';
import { RESERVED_CLAIMS, type TemplateSubject } from './templates.ts';

/**
 * Vault's identity templates in JSON mode, as a scope template is parsed and rendered in the hashicorp
 * dialect: hashicorp/vault sdk/helper/identitytpl templating.go PopulateString and performTemplating
 * (the same file in openbao/openbao sdk/helper/identitytpl, read at v2.6.2), with the scope write's
 * checks around it (vault/identity_store_oidc_provider.go pathOIDCCreateUpdateScope; OpenBao
 * vault/identity/store_oidc_provider.go). Written from reading that source, not copied.
 *
 * The parser splits the text on "{{"; the text before the first may hold no "}}", and each later
 * piece must hold exactly one "}}" (the expression before it, literal text after). So a "}}" in
 * the JSON after an expression, as in `{"a":{"b":{{identity.entity.name}}}}`, is refused:
 * "unbalanced templating characters".
 */

export const UNBALANCED = 'unbalanced templating characters';
const NO_GROUPS = 'string contains groups template directives but no groups were provided';
const NOT_FOUND = 'no value could be found for one of the template directives';

/** An identitytpl error: its text is what the scope write puts after "error parsing template: ". */
class TemplateError extends Error {}

/** What a template is rendered for: the entity, its group names and IDs (Vault: the entity's groups). */
interface Subject {
  entity: Entity;
  groupNames: string[];
  groupIds: string[];
}

/** jsonTemplateHandler: a string quoted, a list as JSON (a Go nil slice, no groups, is null), a map as JSON or one key of it quoted. */
function jsonValue(v: string | string[] | Record<string, string> | null, key?: string): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return v.length === 0 ? 'null' : JSON.stringify(v);
  if (key !== undefined) return JSON.stringify(v?.[key] ?? '');
  return v === null ? '{}' : JSON.stringify(v);
}

/** performAliasTemplating: id, name, metadata[.<key>], custom_metadata[.<key>] of the alias at a mount. */
function aliasValue(selector: string, alias: Alias | undefined): string {
  // JSON mode: an entity with no alias at the mount renders as an empty alias (its defaults).
  const a = alias ?? { id: '', name: '', customMetadata: {} };
  if (selector === 'id') return jsonValue(a.id);
  if (selector === 'name') return jsonValue(a.name);
  // The reference keeps no login metadata on aliases: Vault's would be the auth method's.
  if (selector === 'metadata') return jsonValue({});
  if (selector.startsWith('metadata.')) return jsonValue({}, selector.slice('metadata.'.length));
  if (selector === 'custom_metadata') return jsonValue(a.customMetadata);
  if (selector.startsWith('custom_metadata.')) return jsonValue(a.customMetadata, selector.slice('custom_metadata.'.length));
  throw new TemplateError(NOT_FOUND);
}

/** performTemplating's identity.entity.* branch. */
function entityValue(selector: string, s: Subject): string {
  const e = s.entity;
  if (selector === 'id') return jsonValue(e.id);
  if (selector === 'name') return jsonValue(e.name);
  if (selector === 'metadata') return jsonValue(e.metadata);
  if (selector.startsWith('metadata.')) return jsonValue(e.metadata, selector.slice('metadata.'.length));
  if (selector === 'groups.names') return jsonValue(s.groupNames);
  if (selector === 'groups.ids') return jsonValue(s.groupIds);
  if (selector.startsWith('aliases.')) {
    const rest = selector.slice('aliases.'.length);
    const dot = rest.indexOf('.');
    if (dot < 0) throw new TemplateError('invalid alias selector');
    const accessor = rest.slice(0, dot);
    return aliasValue(rest.slice(dot + 1), e.aliases.find((a) => a.mountAccessor === accessor));
  }
  throw new TemplateError(NOT_FOUND);
}

/** performTimeTemplating: now, now.plus.<duration>, now.minus.<duration>, as Unix seconds. */
function timeValue(selector: string): string {
  const [base, op, amount] = splitN(selector, '.', 3);
  if (base !== 'now') throw new TemplateError(`invalid time selector "${base}"`);
  const now = Math.floor(Date.now() / 1000);
  if (op === undefined) return String(now);
  if (amount === undefined) throw new TemplateError('missing time operand');
  let seconds: number;
  try {
    seconds = parseDuration(amount, 'duration');
  } catch (err) {
    // parseutil.ParseDurationSecond falls back to Go's time.ParseDuration, whose error this is.
    if (err instanceof DurationError) throw new TemplateError(`invalid duration: time: invalid duration ${JSON.stringify(amount)}`);
    throw err;
  }
  if (op === 'plus') return String(now + seconds);
  if (op === 'minus') return String(now - seconds);
  throw new TemplateError(`invalid time operator "${op}"`);
}

/** Go's strings.SplitN: at most n pieces, the last one holding the rest. */
function splitN(s: string, sep: string, n: number): string[] {
  const parts = s.split(sep);
  return parts.length <= n ? parts : [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
}

/** performTemplating: one expression, already trimmed. */
function expressionValue(expr: string, s: Subject): string {
  if (expr.startsWith('identity.entity.')) return entityValue(expr.slice('identity.entity.'.length), s);
  // A write is checked with no groups (PopulateString's `Groups: []`), so a template naming
  // identity.groups.* is refused and never stored: rendering never meets one.
  if (expr.startsWith('identity.groups.')) throw new TemplateError(NO_GROUPS);
  if (expr.startsWith('time.')) return timeValue(expr.slice('time.'.length));
  throw new TemplateError(NOT_FOUND);
}

/** PopulateString in JSON mode: the text with every expression replaced, or a TemplateError. */
function populate(text: string, s: Subject): string {
  const pieces = text.split('{{');
  if (pieces[0]!.includes('}}')) throw new TemplateError(UNBALANCED);
  if (pieces.length === 1) return text;
  let out = pieces[0]!;
  for (const piece of pieces.slice(1)) {
    const parts = piece.split('}}');
    if (parts.length !== 2) throw new TemplateError(UNBALANCED);
    out += expressionValue(parts[0]!.trim(), s) + parts[1]!;
  }
  return out;
}

/**
 * The template as the scope write stores it: decoded when the whole text is standard base64 (Go's
 * base64.StdEncoding, which skips line breaks), whatever the decoded text is, as is otherwise.
 */
export function storedTemplate(template: string): string {
  return (template === '' ? undefined : decodeStdBase64(template)?.toString('utf8')) ?? template;
}

/**
 * Go's json.Unmarshal of the rendered text into a map: a JSON object, or null (an empty map). The
 * syntax errors are JavaScript's words after Vault's prefix; Go's scanner words them otherwise.
 */
function parseClaims(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new FieldError(`error parsing template JSON: ${(err as Error).message}`);
  }
  if (parsed === null) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    const kind = Array.isArray(parsed) ? 'array' : typeof parsed === 'boolean' ? 'bool' : typeof parsed;
    throw new FieldError(`error parsing template JSON: json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`);
  }
  for (const key of Object.keys(parsed)) {
    if (RESERVED_CLAIMS.includes(key)) throw new FieldError(`top level key "${key}" not allowed. Restricted keys: ${RESERVED_CLAIMS.join(', ')}`);
  }
  return parsed as Record<string, unknown>;
}

function populated(template: string, s: Subject): string {
  try {
    return populate(template, s);
  } catch (err) {
    if (err instanceof TemplateError) throw new FieldError(`error parsing template: ${err.message}`);
    throw err;
  }
}

/** pathOIDCCreateUpdateScope's check: rendered for an empty entity and no groups, then a JSON object. */
export function checkStoredTemplate(template: string): void {
  const empty: Entity = { id: '', name: '', metadata: {}, policies: [], groupIds: [], aliases: [], disabled: false, createdAt: '', updatedAt: '' };
  parseClaims(populated(template, { entity: empty, groupNames: [], groupIds: [] }));
}

/** The claims of a stored template for an entity (identity_store_oidc_provider.go pathOIDCToken and pathOIDCUserInfo). */
export function renderStoredTemplate(template: string, subject: TemplateSubject): Record<string, unknown> {
  return parseClaims(populated(template, { entity: subject.entity, groupNames: subject.groupNames, groupIds: subject.entity.groupIds }));
}
