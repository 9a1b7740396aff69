import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startReference } from '../src/reference/reference.ts';
import { runCli } from './support/run-cli.ts';

/** Shapes that are secret wherever they appear; a report must show none of them. */
const SECRET_SHAPES: [string, RegExp][] = [
  ['an OIDC client secret', /hvo_secret_[A-Za-z0-9]{8,}/],
  ['a client token', /\bhv[sb]\.[A-Za-z0-9_-]{10,}/],
  ['a PEM private key body', /PRIVATE KEY-----(\\n|\s)*[A-Za-z0-9+/]{16,}/],
  ['a JWT signature', /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{16,}/],
];

describe('no secret reaches a report', () => {
  it('scans every output file of a run full of failures for the seeded secrets and for secret shapes', async () => {
    // Faults make rules fail whose exchanges carry client secrets, tokens, ID tokens and private keys.
    const ref = await startReference({ faults: ['secrets.oidc-token-type-lowercase', 'secrets.oidc-client-read-missing-redirect-uris', 'mesh.leaf-missing-service-uri', 'secrets.cloudauth-login-no-accessor', 'secrets.cloudauth-config-hides-credentials'] });
    const dir = mkdtempSync(join(tmpdir(), 'stackproof-secrets-'));
    try {
      const seeded = [ref.secrets.token, ref.mesh.token, ref.scheduler.token, ref.control.token, 'stackproof-cloud-secret', 'csecret-456789'];
      const res = await runCli(['conform', '--rules', 'secrets.oidc.token-response,secrets.oidc.client-crud,mesh.leaf.fields,secrets.cloudauth.login-response,secrets.cloudauth.config-roundtrip', '--runs', '3', '--reports-dir', dir], {
        configFile: {
          targets: {
            secrets: {
              url: ref.secrets.url,
              token: ref.secrets.token,
              capabilities: { identityFixtures: true, cloudIdentity: true },
              fixtures: { controlUrl: ref.control.url, controlToken: ref.control.token },
              cloudIdentity: ref.secrets.cloud,
            },
            mesh: { url: ref.mesh.url, token: ref.mesh.token },
          },
        },
      });
      expect(res.code, res.stdout + res.stderr).toBe(1);
      const files = readdirSync(dir);
      expect(files).toEqual(expect.arrayContaining(['results.json', 'junit.xml', 'index.html']));
      const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as { rules: { id: string; outcome: string; exchanges: unknown[] }[] };
      const failed = results.rules.filter((r) => r.outcome === 'FAIL');
      expect(failed.length, 'the faults made rules fail, with their exchanges recorded').toBeGreaterThanOrEqual(4);
      expect(failed.every((r) => r.exchanges.length > 0)).toBe(true);
      for (const file of files) {
        const text = readFileSync(join(dir, file), 'utf8');
        for (const secret of seeded) expect(text.includes(secret), `${file} shows a seeded secret`).toBe(false);
        for (const [what, shape] of SECRET_SHAPES) expect(shape.exec(text)?.[0], `${file} shows ${what}`).toBeUndefined();
      }
      for (const [what, shape] of SECRET_SHAPES) expect(shape.test(res.stdout + res.stderr), `the log shows ${what}`).toBe(false);
      for (const secret of seeded) expect((res.stdout + res.stderr).includes(secret), 'the log shows a seeded secret').toBe(false);
    } finally {
      await ref.stop();
    }
  }, 120_000);
});
