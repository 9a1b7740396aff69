/**
 * Request bodies read like Consul's lib.DecodeJSON: Go's encoding/json with DisallowUnknownFields.
 * Field names match exactly or case-insensitively, JSON null leaves a field at its zero value, an
 * unknown field or a value of the wrong JSON type is an error worded as Go words it, and of several
 * errors the first in document order is the one reported.
 */
export type GoType =
  | { kind: 'string'; go?: string }
  | { kind: 'bool' }
  | { kind: 'int'; go?: string }
  | { kind: 'stringList' }
  | { kind: 'stringMap' }
  /** Any JSON value is taken as is (fields whose content is checked later, e.g. a duration). */
  | { kind: 'any' }
  | { kind: 'struct'; spec: StructSpec; go?: string }
  | { kind: 'list'; of: StructSpec; go: string };

export interface StructSpec {
  /** The Go type name as errors show it, e.g. "ACLPolicy". */
  name: string;
  fields: Record<string, GoType>;
}

export const str: GoType = { kind: 'string' };
export const bool: GoType = { kind: 'bool' };
export const int: GoType = { kind: 'int' };
export const uint64: GoType = { kind: 'int', go: 'uint64' };
export const stringList: GoType = { kind: 'stringList' };
export const stringMap: GoType = { kind: 'stringMap' };
export const anyValue: GoType = { kind: 'any' };

export type Decoded = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'object' ? 'object' : typeof v;
}

function goName(t: GoType): string {
  switch (t.kind) {
    case 'string':
      return t.go ?? 'string';
    case 'bool':
      return 'bool';
    case 'int':
      return t.go ?? 'int';
    case 'stringList':
      return '[]string';
    case 'stringMap':
      return 'map[string]string';
    case 'any':
      return 'interface {}';
    case 'struct':
      return t.go ?? `structs.${t.spec.name}`;
    case 'list':
      return t.go;
  }
}

/** Parses the body text as Go's json.Decoder would report it. */
export function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  if (text.trim() === '') return { ok: false, message: 'EOF' };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    const m = /position (\d+)/.exec((err as Error).message);
    if (!m) return { ok: false, message: 'unexpected EOF' };
    const c = text[Number(m[1])] ?? '';
    return { ok: false, message: `invalid character '${c}' looking for beginning of value` };
  }
}

class Decoder {
  firstError: string | undefined;

  constructor(private readonly root: string) {}

  private fail(message: string): void {
    this.firstError ??= message;
  }

  private typeError(value: unknown, path: string[], t: GoType): void {
    const where = path.length ? `Go struct field ${this.root}.${path.join('.')}` : `Go value`;
    this.fail(`json: cannot unmarshal ${jsonKind(value)} into ${where} of type ${goName(t)}`);
  }

  value(v: unknown, t: GoType, path: string[]): unknown {
    if (v === null) return undefined;
    switch (t.kind) {
      case 'any':
        return v;
      case 'string':
        if (typeof v !== 'string') return this.typeError(v, path, t);
        return v;
      case 'bool':
        if (typeof v !== 'boolean') return this.typeError(v, path, t);
        return v;
      case 'int':
        if (typeof v !== 'number') return this.typeError(v, path, t);
        if (!Number.isInteger(v) || (t.go === 'uint64' && v < 0)) {
          const where = path.length ? `Go struct field ${this.root}.${path.join('.')}` : 'Go value';
          return this.fail(`json: cannot unmarshal number ${v} into ${where} of type ${goName(t)}`);
        }
        return v;
      case 'stringList': {
        if (!Array.isArray(v)) return this.typeError(v, path, t);
        const out: string[] = [];
        for (const item of v) {
          if (item === null) out.push('');
          else if (typeof item !== 'string') this.typeError(item, path, str);
          else out.push(item);
        }
        return out;
      }
      case 'stringMap': {
        if (jsonKind(v) !== 'object') return this.typeError(v, path, t);
        const out: Record<string, string> = {};
        for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
          if (item === null) out[k] = '';
          else if (typeof item !== 'string') this.typeError(item, path, str);
          else out[k] = item;
        }
        return out;
      }
      case 'struct':
        if (jsonKind(v) !== 'object') return this.typeError(v, path, t);
        return this.struct(v as Record<string, unknown>, t.spec, path);
      case 'list': {
        if (!Array.isArray(v)) return this.typeError(v, path, t);
        return v.map((item) => (item === null ? {} : jsonKind(item) === 'object' ? this.struct(item as Record<string, unknown>, t.of, path) : this.typeError(item, path, { kind: 'struct', spec: t.of })));
      }
    }
  }

  struct(obj: Record<string, unknown>, spec: StructSpec, path: string[]): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const names = Object.keys(spec.fields);
    for (const [key, v] of Object.entries(obj)) {
      const field = names.find((n) => n === key) ?? names.find((n) => n.toLowerCase() === key.toLowerCase());
      if (!field) {
        this.fail(`json: unknown field ${JSON.stringify(key)}`);
        continue;
      }
      const decoded = this.value(v, spec.fields[field]!, [...path, field]);
      if (decoded !== undefined) out[field] = decoded;
    }
    return out;
  }
}

/** Decodes a request body into the named struct; `{ok: false}` carries Go's error text. */
export function decodeStrict(text: string, spec: StructSpec): Decoded {
  const parsed = parseJsonText(text);
  if (!parsed.ok) return parsed;
  if (jsonKind(parsed.value) !== 'object') {
    return { ok: false, message: `json: cannot unmarshal ${jsonKind(parsed.value)} into Go value of type structs.${spec.name}` };
  }
  const decoder = new Decoder(spec.name);
  const value = decoder.struct(parsed.value as Record<string, unknown>, spec, []);
  return decoder.firstError ? { ok: false, message: decoder.firstError } : { ok: true, value };
}
