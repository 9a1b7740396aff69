import fc from 'fast-check';
import { uniqueName } from '../run-names.ts';

/** Characters a key segment is built from: ASCII, dots, dashes, and some non-ASCII letters and symbols. */
const SEGMENT_CHARS = [...'abcdefghijklmnopqrstuvwxyz0123456789-_.', 'é', 'ß', 'ü', '日', '本', 'Ω', '🔑'];

/**
 * One path segment of a key-value key: never empty, no '/', and only what every implementation must
 * accept. The spec says nothing of which characters a key may hold, so the keys keep to what the
 * products take:
 * - no '..' anywhere: Vault's storage refuses any key that holds it (hashicorp/vault
 *   sdk/logical/storage_view.go SanityCheck, "relative paths not supported"; 400 on a read of a
 *   version 1 mount, 500 on a write), so a run of dots becomes one dot;
 * - never the segment '.', which URLs collapse (and '..' is gone with the rule above);
 * - non-ASCII letters and symbols stay: Vault refuses only non-printable characters in a path
 *   (http/handler.go, cleanhttp.PrintablePathCheckHandler, unicode.IsPrint), and these are printable.
 * Single dots stay anywhere in a segment (`.a`, `a.b`, `a.`), so keys still hold dots.
 */
export const keySegment = fc
  .array(fc.constantFrom(...SEGMENT_CHARS), { minLength: 1, maxLength: 8 })
  .map((chars) => chars.join('').replace(/\.{2,}/g, '.'))
  .filter((s) => s !== '.');

/** A key of one to three segments, e.g. `a/b.c/日本`. */
export const kvKey = fc.array(keySegment, { minLength: 1, maxLength: 3 }).map((segments) => segments.join('/'));

/**
 * Whether a made-up token has the shape Vault and OpenBao read as a batch token: "b." or "hvb." and
 * a body they decode as base64url (vault/token_store.go Lookup, lookupBatchTokenInternal; a body
 * that is not base64url is answered 500, a listed deviation). Rules that generate made-up tokens
 * leave these out and secrets.auth.bad-token-refused sends them on purpose, last, so that no
 * verdict depends on whether the seed happened to make one.
 */
export const batchShaped = (token: string): boolean => /^(hvb|b)\./.test(token);

/** A secret's data: a small object of string fields. */
export const kvValue = fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/), fc.string({ maxLength: 24 }), { minKeys: 1, maxKeys: 3 });

/** A name that is valid in a named-resource route (word characters, dashes, dots inside). */
export const resourceName = fc.stringMatching(/^[a-z][a-z0-9_-]{0,10}[a-z0-9]$/);

/** A key prefix unique to this run (under the run prefix), so runs against a shared target never see each other's data. */
export function runPrefix(tag: string): string {
  return uniqueName(tag);
}
