import { DurationError, parseDuration } from './durations.ts';

/**
 * Vault's field decoding where its engines read a value weakly (github.com/mitchellh/mapstructure
 * WeakDecode, as vault-plugin-secrets-kv reads options.cas and framework.TypeInt fields): numbers
 * (a fraction dropped), integer strings (Go's ParseInt with base 0: "0x1f" too), booleans as 1 or 0,
 * the empty string as 0. Undefined when the value cannot be read as an integer.
 */
export function weakInt(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : undefined;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text === '') return 0;
  const m = /^([+-]?)(0x[0-9a-f]+|0o?[0-7]+|0b[01]+|\d+)$/i.exec(text);
  if (!m) return undefined;
  const digits = m[2]!.toLowerCase();
  const n = digits.startsWith('0x') || digits.startsWith('0b') || digits.startsWith('0o') ? Number(digits) : /^0[0-7]+$/.test(digits) ? parseInt(digits, 8) : Number(digits);
  return m[1] === '-' ? -n : n;
}

/**
 * framework.TypeCommaIntSlice (hashicorp/vault sdk/framework/field_data.go): a list of integers
 * given as a JSON array (of numbers or integer strings), a comma-separated string, or one number.
 * Undefined when an element is not an integer.
 */
export function commaIntSlice(value: unknown): number[] | undefined {
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter((s) => s !== '') : [value];
  const out: number[] = [];
  for (const item of items) {
    const n = typeof item === 'number' || typeof item === 'string' ? weakInt(item) : undefined;
    if (n === undefined || (typeof item === 'string' && item.trim() === '')) return undefined;
    out.push(n);
  }
  return out;
}

/** framework.TypeDurationSecond: seconds, or a duration string; NaN when it is neither. */
export function vaultDuration(value: unknown): number {
  try {
    return parseDuration(value, 'duration');
  } catch (err) {
    if (err instanceof DurationError) return Number.NaN;
    throw err;
  }
}
