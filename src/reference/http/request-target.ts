/** A request's path and query, as `new URL(target, base)` reads them. */
export interface RequestTarget {
  pathname: string;
  searchParams: URLSearchParams;
}

/**
 * A path that WHATWG URL parsing leaves exactly as it is: only characters outside the path
 * percent-encode set and never rewritten (no backslash, no percent sign), not starting with two
 * slashes (which would be read as an authority), and no "." or ".." segment (which would be removed).
 */
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;
/**
 * A query URLSearchParams reads the same whether URL percent-encodes it first or not: printable
 * ASCII with no fragment, not starting with "?" (the constructor would drop it, URL keeps it).
 */
const PLAIN_QUERY = /^(?!\?)[\x21-\x22\x24-\x7e]*$/;

/**
 * The path and query of a request target, the same as `new URL(target, 'http://reference.invalid')`
 * gives. URL parsing cost about 1.7 µs of a 33 µs OIDC authorize request in the reference; most
 * targets are plain and need none of what it does, and the rest still go through it.
 */
export function requestTarget(target: string): RequestTarget {
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  const query = q === -1 ? '' : target.slice(q + 1);
  if (PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path) && PLAIN_QUERY.test(query)) return { pathname: path, searchParams: new URLSearchParams(query) };
  const url = new URL(target, 'http://reference.invalid');
  return { pathname: url.pathname, searchParams: url.searchParams };
}
