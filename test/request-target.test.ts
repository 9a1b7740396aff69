import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestTarget } from '../src/reference/http/request-target.ts';

/**
 * The reference reads plain request targets without URL parsing; for every target it must give
 * exactly the path and query parameters `new URL(target, base)` gives, or a request would be routed
 * or answered differently than before.
 */
describe('requestTarget', () => {
  // A target URL cannot parse ("//") must fail the same way.
  const outcome = (read: () => { pathname: string; searchParams: URLSearchParams }) => {
    try {
      const t = read();
      return { pathname: t.pathname, params: [...t.searchParams] };
    } catch (err) {
      return { error: (err as NodeJS.ErrnoException).code };
    }
  };
  const viaUrl = (target: string) => outcome(() => new URL(target, 'http://reference.invalid'));
  const viaTarget = (target: string) => outcome(() => requestTarget(target));

  it('reads the targets URL parsing would rewrite as URL does', () => {
    for (const target of [
      '/v1/secret/../sys/mounts',
      '/v1/secret/%2e%2E/sys',
      '/v1/./a',
      '/v1/a/.',
      '//v1/host-like',
      '/v1\\back\\slash',
      '/v1/a b"c<d>e`f{g}h',
      '/v1/caf\u00e9',
      '/v1/a?b=1#frag',
      '/v1/a??b=1',
      '/v1/a?x=%zz&y=+1&z=%41',
      '/v1/a?q=caf\u00e9&r= s',
      '/v1/a?list=true&list=false',
      '/v1/a?',
      '*',
      '//',
      'http://other.example/v1/abs?x=1',
      '/v1/.hidden/..dots/...',
    ]) {
      expect(viaTarget(target), target).toEqual(viaUrl(target));
    }
  });

  it('agrees with URL parsing on any target', () => {
    const piece = fc.constantFrom('/', '.', '..', '%', '%2e', '%2F', '?', '#', '&', '=', '+', ' ', '"', "'", '\\', '~', '@', ':', ';', 'é', '\t', 'a', 'Z', '9', 'v1', 'list', '-', '_');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), (pieces) => {
        const target = `/${pieces.join('')}`;
        expect(viaTarget(target)).toEqual(viaUrl(target));
      }),
      { numRuns: 2000 },
    );
  });

  it('hands the query parameters to the caller as URLSearchParams', () => {
    const t = requestTarget('/v1/identity/oidc/provider/p/authorize?client_id=c&scope=openid+email&state=a%26b');
    expect(t.pathname).toBe('/v1/identity/oidc/provider/p/authorize');
    expect(t.searchParams.get('scope')).toBe('openid email');
    expect(t.searchParams.get('state')).toBe('a&b');
  });
});
