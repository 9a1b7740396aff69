import { isValidName } from './engine.ts';
import { notFound, type EngineResult } from './respond.ts';

/**
 * A collection of named resources at `<base>/:name` with LIST at `<base>/`: the shape shared by
 * OIDC providers, scopes, clients, assignments and auth-method roles.
 */
export class NamedCollection<T> {
  readonly items = new Map<string, T>();

  /** The result for a name that cannot appear in a route (spec 000: e.g. one ending in a period). */
  static unsupported(name: string): EngineResult {
    return { kind: 'error', status: 404, errors: [`unsupported path: invalid name "${name}"`] };
  }

  static validName(name: string, acceptTrailingPeriod: boolean): boolean {
    return isValidName(name) || (acceptTrailingPeriod && name.endsWith('.') && isValidName(name.replace(/\.+$/, '')));
  }

  list(): EngineResult {
    const keys = [...this.items.keys()].sort();
    return keys.length ? { kind: 'data', data: { keys } } : notFound();
  }

  read(name: string, view: (item: T) => Record<string, unknown>): EngineResult {
    const item = this.items.get(name);
    return item === undefined ? notFound() : { kind: 'data', data: view(item) };
  }

  remove(name: string): EngineResult {
    this.items.delete(name);
    return { kind: 'no-content' };
  }
}

/** Reads a string-list field given as a JSON array or a comma-delimited string; undefined when absent. */
export function stringList(value: unknown, field: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value.split(',').map((s) => s.trim()).filter(Boolean);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  throw new FieldError(`${field} must be a list of strings or a comma-delimited string`);
}

/** Vault's TypeKVPairs: an object of strings, or a list of "key=value" strings. */
export function stringMap(value: unknown, field: string): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) {
    const out: Record<string, string> = {};
    for (const item of value) {
      const text = String(item);
      const eq = text.indexOf('=');
      if (eq <= 0) throw new FieldError(`${field}: "${text}" is not a key=value pair`);
      out[text.slice(0, eq)] = text.slice(eq + 1);
    }
    return out;
  }
  if (typeof value === 'object') {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === '') throw new FieldError(`failed to parse ${field}: key cannot be blank`);
      if (typeof v !== 'string') throw new FieldError(`failed to parse ${field}: the value of "${k}" is not a string`);
      out[k] = v;
    }
    return out;
  }
  throw new FieldError(`failed to parse ${field}: expected a map of strings`);
}

export function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  throw new FieldError(`${field} must be a string`);
}

/** A request field has the wrong type or value: 400 with the message. */
export class FieldError extends Error {}
