/**
 * Config entries are decoded as Consul's structs.DecodeConfigEntry does: mitchellh/mapstructure with
 * WeaklyTypedInput, snake_case aliases translated to field names (decode.HookTranslateKeys), field
 * names matched in any case, one-element lists accepted for an object (HookWeakDecodeFromSlice), and
 * every key that lands nowhere reported (validateUnusedKeys).
 */
export type WeakType =
  | 'string'
  | 'int'
  | 'bool'
  | 'stringList'
  | 'stringMap'
  /** A timestamp (RFC 3339 string). */
  | 'time'
  | { struct: WeakStruct }
  | { list: WeakStruct };

export interface WeakField {
  type: WeakType;
  alias?: string;
  /** The Go type errors name (mapstructure's "expected type"). */
  go?: string;
}

export interface WeakStruct {
  fields: Record<string, WeakField>;
}

export interface WeakResult {
  value: Record<string, unknown>;
  /** mapstructure's decode errors, in order. */
  errors: string[];
  /** Keys no field took, with their path (e.g. "Sources[0].Foo"). */
  unused: string[];
}

function goKind(v: unknown): string {
  if (Array.isArray(v)) return '[]interface {}';
  if (v === null) return 'nil';
  if (typeof v === 'object') return 'map[string]interface {}';
  if (typeof v === 'number') return 'float64';
  return typeof v;
}

function goValue(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (v !== null && typeof v === 'object') return `map[${Object.entries(v).map(([k, x]) => `${k}:${goValue(x)}`).join(' ')}]`;
  return String(v);
}

class WeakDecoder {
  readonly errors: string[] = [];
  readonly unused: string[] = [];

  private mismatch(path: string, type: string, v: unknown): undefined {
    this.errors.push(`'${path}' expected type '${type}', got unconvertible type '${goKind(v)}', value: '${goValue(v)}'`);
    return undefined;
  }

  value(v: unknown, field: WeakField, path: string): unknown {
    const t = field.type;
    if (v === null || v === undefined) return undefined;
    if (t === 'string' || t === 'time') {
      if (typeof v === 'string') return v;
      if (typeof v === 'number') return String(v);
      if (typeof v === 'boolean') return v ? '1' : '0';
      return this.mismatch(path, field.go ?? 'string', v);
    }
    if (t === 'int') {
      if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
      if (typeof v === 'boolean') return v ? 1 : 0;
      if (typeof v === 'string' && /^[-+]?\d+$/.test(v.trim())) return Number(v.trim());
      if (typeof v === 'string' && v === '') return 0;
      if (typeof v === 'string') {
        this.errors.push(`cannot parse '${path}' as int: strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
        return undefined;
      }
      return this.mismatch(path, field.go ?? 'int', v);
    }
    if (t === 'bool') {
      if (typeof v === 'boolean') return v;
      if (typeof v === 'number') return v !== 0;
      if (typeof v === 'string') {
        const s = v.trim();
        if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(s)) return true;
        if (['0', 'f', 'F', 'false', 'FALSE', 'False', ''].includes(s)) return false;
        this.errors.push(`cannot parse '${path}' as bool: strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
        return undefined;
      }
      return this.mismatch(path, 'bool', v);
    }
    if (t === 'stringList') {
      const items = Array.isArray(v) ? v : [v];
      return items.map((x, i) => this.value(x, { type: 'string' }, `${path}[${i}]`) ?? '');
    }
    if (t === 'stringMap') {
      if (typeof v !== 'object' || Array.isArray(v)) return this.mismatch(path, 'map[string]string', v);
      const out: Record<string, string> = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = (this.value(x, { type: 'string' }, `${path}[${k}]`) as string | undefined) ?? '';
      return out;
    }
    if ('struct' in t) {
      const obj = Array.isArray(v) && v.length === 1 ? v[0] : v;
      if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return this.mismatch(path, field.go ?? 'struct', v);
      return this.struct(obj as Record<string, unknown>, t.struct, path);
    }
    if (!Array.isArray(v)) {
      if (typeof v === 'object') return [this.struct(v as Record<string, unknown>, t.list, `${path}[0]`)];
      return this.mismatch(path, field.go ?? 'slice', v);
    }
    return v.map((x, i) => {
      if (x === null || typeof x !== 'object' || Array.isArray(x)) return this.mismatch(`${path}[${i}]`, 'struct', x) ?? {};
      return this.struct(x as Record<string, unknown>, t.list, `${path}[${i}]`);
    });
  }

  struct(obj: Record<string, unknown>, spec: WeakStruct, path: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const names = Object.keys(spec.fields);
    for (const [rawKey, v] of Object.entries(obj)) {
      const aliased = names.find((n) => spec.fields[n]!.alias === rawKey);
      const field = aliased ?? names.find((n) => n === rawKey) ?? names.find((n) => n.toLowerCase() === rawKey.toLowerCase());
      const at = path ? `${path}.${rawKey}` : rawKey;
      if (!field) {
        this.unused.push(at);
        continue;
      }
      const decoded = this.value(v, spec.fields[field]!, path ? `${path}.${field}` : field);
      if (decoded !== undefined) out[field] = decoded;
    }
    return out;
  }
}

export function weakDecode(obj: Record<string, unknown>, spec: WeakStruct): WeakResult {
  const d = new WeakDecoder();
  const value = d.struct(obj, spec, '');
  return { value, errors: d.errors, unused: d.unused };
}

/** mapstructure's aggregate error text. */
export function mapstructureErrorText(errors: string[]): string {
  return `${errors.length} error(s) decoding:\n\n${errors.map((e) => `* ${e}`).join('\n')}`;
}
