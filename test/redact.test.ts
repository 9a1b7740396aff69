import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Redactor } from '../src/client/redact.ts';

describe('Redactor', () => {
  it('removes JWT signatures but keeps header and claims readable', () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhYmMifQ.c2lnbmF0dXJlLXZhbHVlLWxvbmctZW5vdWdo';
    const out = new Redactor().text(`{"id_token":"${jwt}"}`);
    expect(out).toContain('eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhYmMifQ.<redacted>');
    expect(out).not.toContain('c2lnbmF0dXJl');
  });

  it('removes PEM private keys, also inside JSON strings', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const out = new Redactor().text(JSON.stringify({ PrivateKeyPEM: pem, other: pem }));
    expect(out).not.toContain(pem.split('\n')[1]!);
    expect(out).toContain('<redacted>');
  });

  it('removes credential fields from JSON and forms, and credential headers', () => {
    const r = new Redactor();
    expect(r.text('{"client_secret":"hvo_secret_abc","client_token":"s.tok","name":"x"}')).toBe('{"client_secret":"<redacted>","client_token":"<redacted>","name":"x"}');
    expect(r.text('code=abc&client_secret=shh&code_verifier=v123')).toBe('code=abc&client_secret=<redacted>&code_verifier=<redacted>');
    expect(r.headers({ Authorization: 'Bearer abc', 'X-Vault-Token': 'hvs.x', 'content-type': 'application/json' })).toEqual({
      Authorization: 'Bearer <redacted>',
      'X-Vault-Token': '<redacted>',
      'content-type': 'application/json',
    });
  });

  it('removes registered values wherever they appear', () => {
    const r = new Redactor();
    r.add('4f1c2d9e-token-value');
    expect(r.text('url?x=4f1c2d9e-token-value and "note: 4f1c2d9e-token-value"')).not.toContain('4f1c2d9e-token-value');
  });
});

describe('Redactor.value', () => {
  it('keeps any JSON value well-formed whatever secrets are registered', async () => {
    const fc = (await import('fast-check')).default;
    fc.assert(
      fc.property(fc.jsonValue(), fc.array(fc.string({ minLength: 6, maxLength: 12 }), { maxLength: 4 }), (value, secrets) => {
        const r = new Redactor();
        for (const s of secrets) r.add(s);
        const out = r.value({ payload: value, note: secrets.join(' ') });
        expect(() => JSON.stringify(out)).not.toThrow();
        for (const s of secrets) expect(JSON.stringify(out.note)).not.toContain(JSON.stringify(s).slice(1, -1));
      }),
      { numRuns: 300 },
    );
  });
});
