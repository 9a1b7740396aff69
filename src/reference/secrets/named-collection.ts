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

export function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  throw new FieldError(`${field} must be a string`);
}

/** A request field has the wrong type or value: 400 with the message. */
export class FieldError extends Error {}
