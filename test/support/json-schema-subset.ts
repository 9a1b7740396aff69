import { isIP } from 'node:net';

/**
 * A validator for the draft-07 keywords the generated config schema uses, so a test can check the
 * schema's verdicts without a JSON Schema library in the dependencies. `KNOWN_KEYWORDS` lists what
 * it implements; the test asserts the schema uses nothing else, so a keyword it would silently
 * ignore cannot creep in.
 */
export const KNOWN_KEYWORDS = new Set([
  '$schema', '$id', 'title', 'description', 'default',
  'type', 'properties', 'required', 'additionalProperties', 'propertyNames', 'enum', 'const', 'anyOf',
  'items', 'minItems', 'maxItems', 'minLength', 'maxLength', 'pattern', 'format',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum',
]);

type Node = Record<string, unknown>;

/** Every keyword used anywhere in the schema (property names excluded). */
export function keywordsOf(schema: Node): Set<string> {
  const seen = new Set<string>();
  const walk = (node: Node) => {
    for (const [k, v] of Object.entries(node)) {
      seen.add(k);
      if (k === 'properties') for (const child of Object.values(v as Record<string, Node>)) walk(child);
      else if (k === 'anyOf') for (const child of v as Node[]) walk(child);
      else if ((k === 'items' || k === 'additionalProperties' || k === 'propertyNames') && typeof v === 'object' && v !== null) walk(v as Node);
    }
  };
  walk(schema);
  return seen;
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** The paths at which `value` breaks `schema`; empty when it is valid. */
export function validate(schema: Node, value: unknown, path = ''): string[] {
  const errors: string[] = [];
  const here = path || '(top level)';
  if (schema.type !== undefined) {
    const t = typeOf(value);
    const ok = schema.type === t || (schema.type === 'number' && t === 'integer');
    if (!ok) return [`${here}: expected ${String(schema.type)}`];
  }
  if (schema.enum && !(schema.enum as unknown[]).some((e) => e === value)) errors.push(`${here}: not one of the enum`);
  if ('const' in schema && schema.const !== value) errors.push(`${here}: not the const`);
  if (schema.anyOf && !(schema.anyOf as Node[]).some((s) => validate(s, value, path).length === 0)) errors.push(`${here}: matches no anyOf branch`);
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && [...value].length < schema.minLength) errors.push(`${here}: too short`);
    if (typeof schema.maxLength === 'number' && [...value].length > schema.maxLength) errors.push(`${here}: too long`);
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) errors.push(`${here}: does not match ${schema.pattern}`);
    if (schema.format === 'uri' && !/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(value)) errors.push(`${here}: not a URI`);
    if (schema.format === 'uri' && !URL.canParse(value)) errors.push(`${here}: not a URI`);
    if (schema.format === 'ipv4' && isIP(value) !== 4) errors.push(`${here}: not an IPv4 address`);
    if (schema.format === 'ipv6' && isIP(value) !== 6) errors.push(`${here}: not an IPv6 address`);
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) errors.push(`${here}: below minimum`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) errors.push(`${here}: above maximum`);
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) errors.push(`${here}: not above exclusiveMinimum`);
    if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) errors.push(`${here}: not below exclusiveMaximum`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) errors.push(`${here}: too few items`);
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) errors.push(`${here}: too many items`);
    if (schema.items) value.forEach((item, i) => errors.push(...validate(schema.items as Node, item, `${path}[${i}]`)));
  }
  if (typeOf(value) === 'object') {
    const obj = value as Record<string, unknown>;
    const props = (schema.properties ?? {}) as Record<string, Node>;
    for (const key of (schema.required ?? []) as string[]) if (!(key in obj)) errors.push(`${here}: missing ${key}`);
    for (const [key, v] of Object.entries(obj)) {
      const sub = path ? `${path}.${key}` : key;
      if (schema.propertyNames) errors.push(...validate(schema.propertyNames as Node, key, `${sub} (name)`));
      if (props[key]) errors.push(...validate(props[key], v, sub));
      else if (schema.additionalProperties === false) errors.push(`${sub}: not allowed`);
      else if (typeof schema.additionalProperties === 'object') errors.push(...validate(schema.additionalProperties as Node, v, sub));
    }
  }
  return errors;
}
