import { X509Certificate } from 'node:crypto';
import { expect } from 'vitest';
import { caRootsSchema } from '../../src/client/schemas/mesh.ts';
import { expectShape } from '../kit/expect-shape.ts';
import { ruleTest } from '../kit/rule-test.ts';

ruleTest('mesh.roots.documented-fields', async (kit) => {
  const res = await kit.mesh.roots();
  expect(res.status, 'GET /v1/agent/connect/ca/roots answers 200').toBe(200);
  const body = expectShape(res, caRootsSchema, 'CA roots response');
  expect(body.Roots.length, 'at least one root is listed').toBeGreaterThan(0);
  const active = body.Roots.filter((r) => r.ID === body.ActiveRootID);
  expect(active.length, `ActiveRootID ${body.ActiveRootID} names exactly one root in Roots`).toBe(1);
  expect(active[0]!.Active, 'the root named by ActiveRootID has Active true').toBe(true);
  for (const root of body.Roots) {
    expect(root.RootCert, `root ${root.ID}: RootCert is a PEM certificate`).toMatch(/-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----/);
    let cert: X509Certificate | undefined;
    try {
      cert = new X509Certificate(root.RootCert);
    } catch (err) {
      expect.fail(`root ${root.ID}: RootCert does not parse as an X.509 certificate: ${(err as Error).message}`);
    }
    expect(cert.ca, `root ${root.ID}: RootCert is a CA certificate`).toBe(true);
  }
});
