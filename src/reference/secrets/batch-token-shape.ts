/**
 * How Vault and OpenBao read a presented token that has a batch token's prefix, before anything
 * else is done with the request (vault/request_handling.go PopulateTokenEntry -> token_store.go
 * Lookup -> lookupBatchTokenInternal; openbao/openbao the same, read at v2.0.0 and v2.6.2): the
 * "b." or "hvb." is stripped (stripBatchPrefix), then a namespace suffix (namespace.go
 * SplitIDFromString), and the rest is decoded as unpadded base64url. A decoding error is returned
 * as is, "illegal base64 data at input byte N", and PopulateTokenEntry wraps it ("error performing
 * token check: ...") into a 500. A body that decodes but is no token of the service is refused
 * later, as any unknown token is. Written from reading that source, not copied.
 */

const URL_SAFE = /[A-Za-z0-9_-]/;

/** stripBatchPrefix: the legacy "b." first, then "hvb."; undefined for any other token. */
function withoutBatchPrefix(token: string): string | undefined {
  if (token.startsWith('b.')) return token.slice(2);
  if (token.startsWith('hvb.')) return token.slice(4);
  return undefined;
}

/** SplitIDFromString's first result: the ID without a trailing ".<namespace id>". */
function withoutNamespaceId(input: string): string {
  let prefix = '';
  let rest = input;
  const known = ['b.', 's.', 'hvb.', 'hvs.'].find((p) => rest.startsWith(p));
  const slash = rest.lastIndexOf('/');
  if (known) {
    prefix = known;
    rest = rest.slice(known.length);
  } else if (slash > 0) {
    if (slash === rest.length - 1) return rest;
    prefix = rest.slice(0, slash + 1);
    rest = rest.slice(slash + 1);
  }
  const dot = rest.lastIndexOf('.');
  if (dot === -1 || dot === rest.length - 1) return prefix + rest;
  return prefix + rest.slice(0, dot);
}

/**
 * Go's base64.RawURLEncoding.DecodeString error for a text, or undefined when it decodes: the index
 * of the first byte outside the alphabet ('=' included: raw encoding has no padding), else, when a
 * last group of four holds one character only, that character's index. Line breaks are skipped.
 */
function rawUrlBase64Error(text: string): string | undefined {
  let inGroup = 0;
  let last = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\n' || c === '\r') continue;
    if (!URL_SAFE.test(c)) return `illegal base64 data at input byte ${i}`;
    inGroup = (inGroup + 1) % 4;
    last = i;
  }
  return inGroup === 1 ? `illegal base64 data at input byte ${last}` : undefined;
}

/** The error the token check of a Vault-family server ends in for this token, if any (500 upstream). */
export function batchTokenCheckError(token: string): string | undefined {
  const body = withoutBatchPrefix(token);
  if (body === undefined) return undefined;
  const error = rawUrlBase64Error(withoutNamespaceId(body));
  return error && `error performing token check: ${error}`;
}
