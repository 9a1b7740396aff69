import fc from 'fast-check';
import { uniqueName } from '../run-names.ts';

/** Characters a key segment is built from: ASCII, dots, dashes, and some non-ASCII letters and symbols. */
const SEGMENT_CHARS = [...'abcdefghijklmnopqrstuvwxyz0123456789-_.', 'é', 'ß', 'ü', '日', '本', 'Ω', '🔑'];

/** One path segment of a key-value key: never empty, never '.' or '..' (which URLs collapse), no '/'. */
export const keySegment = fc
  .array(fc.constantFrom(...SEGMENT_CHARS), { minLength: 1, maxLength: 8 })
  .map((chars) => chars.join(''))
  .filter((s) => s !== '.' && s !== '..');

/** A key of one to three segments, e.g. `a/b.c/日本`. */
export const kvKey = fc.array(keySegment, { minLength: 1, maxLength: 3 }).map((segments) => segments.join('/'));

/** A secret's data: a small object of string fields. */
export const kvValue = fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/), fc.string({ maxLength: 24 }), { minKeys: 1, maxKeys: 3 });

/** A name that is valid in a named-resource route (word characters, dashes, dots inside). */
export const resourceName = fc.stringMatching(/^[a-z][a-z0-9_-]{0,10}[a-z0-9]$/);

/** A key prefix unique to this run (under the run prefix), so runs against a shared target never see each other's data. */
export function runPrefix(tag: string): string {
  return uniqueName(tag);
}
