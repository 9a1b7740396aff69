import { describe, expect, it } from 'vitest';
import { inCidrs, upstreamCidrText } from '../src/reference/secrets/cidr.ts';

/**
 * The reference's CIDR check as a dual-stack listener would exercise it (the embedded reference
 * listens on 127.0.0.1 or ::1 only, so no rule sees an IPv4-mapped peer): node:net's BlockList
 * matches an IPv4-mapped IPv6 peer against IPv4 blocks itself, so inCidrs needs no unwrapping.
 */
describe('inCidrs', () => {
  it('matches an IPv4-mapped peer as the IPv4 address it carries, on both sides of the bound', () => {
    expect(inCidrs('::ffff:10.1.2.3', ['10.1.0.0/16'])).toBe(true);
    expect(inCidrs('::ffff:10.2.2.3', ['10.1.0.0/16'])).toBe(false);
    expect(inCidrs('10.1.2.3', ['::ffff:10.1.0.0/112'])).toBe(true);
    expect(inCidrs('::ffff:10.1.2.3', ['10.1.2.2/31'])).toBe(true);
    expect(inCidrs('::ffff:10.1.2.4', ['10.1.2.2/31'])).toBe(false);
  });

  it('matches an IPv6 peer against IPv6 blocks only', () => {
    expect(inCidrs('::1', ['::1/128'])).toBe(true);
    expect(inCidrs('::2', ['::1/128'])).toBe(false);
    expect(inCidrs('2001:db8::5', ['2001:db8::/32', '10.0.0.0/8'])).toBe(true);
    expect(inCidrs('2001:db9::5', ['2001:db8::/32', '0.0.0.0/0'])).toBe(false);
  });

  it('skips an entry that is no block (a Unix socket path kept by the upstream behaviour)', () => {
    expect(inCidrs('10.0.0.1', ['10.0.0.0/33'])).toBe(false);
    expect(inCidrs('10.0.0.1', ['10.0.0.0/33', '10.0.0.0/8'])).toBe(true);
  });
});

describe('upstreamCidrText (go-sockaddr String, as OpenBao 2.6.2 reads a role back)', () => {
  it('prints host blocks bare, other blocks as written, in each family', () => {
    expect(['10.0.0.5/32', '2001:db8::/32', '::1/128', 'fd00::5', '10.0.0.0/8', ' 10.0.0.1'].map(upstreamCidrText)).toEqual(['10.0.0.5', '2001:db8::/32', '::1', 'fd00::5', '10.0.0.0/8', '10.0.0.1']);
  });
});
