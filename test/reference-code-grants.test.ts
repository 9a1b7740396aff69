import { describe, expect, it, vi } from 'vitest';
import { CodeGrants, type CodeGrant, type CodeGrantFlaws } from '../src/reference/secrets/oidc/code-grants.ts';

const NO_FLAWS: CodeGrantFlaws = { sharedIgnoresClient: false, sharedIgnoresAuthTime: false };

/**
 * The reference keeps authorization codes compactly (the parts codes share are kept once): each
 * code must still give back exactly its own grant, once when burnt, and expired ones must go.
 */
describe('CodeGrants', () => {
  const grant = (over: Partial<CodeGrant> = {}): CodeGrant => ({
    clientId: 'c1',
    provider: 'p',
    redirectUri: 'https://app.example/cb',
    entityId: 'e1',
    scopes: ['openid'],
    expiresAt: Date.now() + 300_000,
    ...over,
  });

  it('gives each code its own grant, whatever it shares with others', () => {
    const codes = new CodeGrants(NO_FLAWS);
    const a = grant({ nonce: 'n-a', challenge: 'x'.repeat(43), method: 'S256' });
    const b = grant({ nonce: 'n-b' });
    const c = grant({ clientId: 'c2', scopes: ['openid', 'email'], authTime: 1700000000 });
    const d = grant({ scopes: ['openid', 'email'] });
    codes.add('A', a);
    codes.add('B', b);
    codes.add('C', c);
    codes.add('D', d);
    expect(codes.lookup('A', false)).toEqual(a);
    expect(codes.lookup('B', false)).toEqual(b);
    expect(codes.lookup('C', false)).toEqual(c);
    expect(codes.lookup('D', false)).toEqual(d);
    expect(codes.lookup('B', false)).not.toHaveProperty('challenge');
  });

  it('forgets a burnt code and keeps one looked up without burning', () => {
    const codes = new CodeGrants(NO_FLAWS);
    codes.add('A', grant());
    expect(codes.lookup('A', false)).toBeDefined();
    expect(codes.lookup('A', true)).toBeDefined();
    expect(codes.lookup('A', true)).toBeUndefined();
    expect(codes.lookup('never', true)).toBeUndefined();
  });

  it('drops expired codes as new ones come, and reports the expiry of those it still holds', () => {
    vi.useFakeTimers({ now: 1_000_000_000_000 });
    try {
      const codes = new CodeGrants(NO_FLAWS);
      codes.add('old', grant({ expiresAt: Date.now() + 1000 }));
      expect(codes.lookup('old', false)?.expiresAt).toBe(Date.now() + 1000);
      vi.advanceTimersByTime(2000);
      codes.add('new', grant({ expiresAt: Date.now() + 1000 }));
      expect(codes.lookup('old', false)).toBeUndefined();
      expect(codes.lookup('new', false)).toBeDefined();
    } finally {
      vi.useRealTimers();
    }
  });

  it('still drops expired codes after the oldest was burnt', () => {
    vi.useFakeTimers({ now: 1_000_000_000_000 });
    try {
      const codes = new CodeGrants(NO_FLAWS);
      codes.add('first', grant({ expiresAt: Date.now() + 1000 }));
      vi.advanceTimersByTime(500);
      codes.add('second', grant({ expiresAt: Date.now() + 1000 }));
      expect(codes.lookup('first', true)).toBeDefined();
      vi.advanceTimersByTime(1200);
      codes.add('third', grant({ expiresAt: Date.now() + 1000 }));
      expect(codes.lookup('second', false)).toBeUndefined();
      expect(codes.lookup('third', false)).toBeDefined();
      // Every code burnt, the next one still expires in its turn.
      expect(codes.lookup('third', true)).toBeDefined();
      codes.add('fourth', grant({ expiresAt: Date.now() + 1000 }));
      vi.advanceTimersByTime(1500);
      codes.add('fifth', grant({ expiresAt: Date.now() + 1000 }));
      expect(codes.lookup('fourth', false)).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });

  it('is not changed by changes to the grant it was given', () => {
    const codes = new CodeGrants(NO_FLAWS);
    const g = grant();
    codes.add('A', g);
    g.scopes.push('email');
    codes.add('B', grant());
    expect(codes.lookup('A', false)?.scopes).toEqual(['openid']);
    expect(codes.lookup('B', false)?.scopes).toEqual(['openid']);
  });
});
