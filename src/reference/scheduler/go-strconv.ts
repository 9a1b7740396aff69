/**
 * Go's strconv.ParseInt and ParseBool, as Nomad's HTTP handlers parse query parameters with them
 * (command/agent/fs_endpoint.go): the value, or the error text Go's *NumError prints, which Nomad
 * puts in its answer ("strconv.ParseInt: parsing \"x\": invalid syntax").
 */
import { goQuote } from './nomad-job/multierror.ts';
import { parseUintGo } from './nomad-job/validate.ts';

/** strconv.ParseInt(s, 10, 64): a leading sign, then ParseUint's digits; out of int64's range is a range error. */
export function parseInt64Go(s: string): bigint | string {
  const syntax = `strconv.ParseInt: parsing ${goQuote(s)}: invalid syntax`;
  const range = `strconv.ParseInt: parsing ${goQuote(s)}: value out of range`;
  if (s === '') return syntax;
  const neg = s[0] === '-';
  const digits = s[0] === '+' || s[0] === '-' ? s.slice(1) : s;
  const un = parseUintGo(digits, 10, 64);
  // ParseUint's syntax error is relabelled ParseInt with the whole string; its range error becomes ParseInt's own.
  if (typeof un === 'string') return un.endsWith('invalid syntax') ? syntax : range;
  const cutoff = 1n << 63n;
  if (!neg && un >= cutoff) return range;
  if (neg && un > cutoff) return range;
  return neg ? -un : un;
}

/** strconv.ParseBool: 1, t, T, TRUE, true, True and their false counterparts; anything else is a syntax error. */
export function parseBoolGo(s: string): boolean | string {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  return `strconv.ParseBool: parsing ${goQuote(s)}: invalid syntax`;
}

/**
 * fmt's %q of an int64, as Nomad's client/allocdir/alloc_dir.go ReadAt formats the offset it cannot
 * seek to before v2.0.1: the code point as a quoted rune, U+FFFD for a negative value or one past
 * the last code point.
 */
export function goQuoteRuneOfInt(n: bigint): string {
  const replaced = n < 0n || n > 0x10ffffn || (n >= 0xd800n && n <= 0xdfffn) ? 0xfffd : Number(n);
  const ch = String.fromCodePoint(replaced);
  const quoted = goQuote(ch);
  // goQuote is strconv.Quote (double quotes); a rune literal is single-quoted, with ' escaped and " not.
  return `'${quoted.slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
}
