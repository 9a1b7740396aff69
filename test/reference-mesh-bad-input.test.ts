import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../src/reference/reference.ts';
import { rawExchange } from './support/raw-http.ts';

/** The mesh reference answers bad input with a clear 4xx: never a 5xx, a crash or a hang. */
describe('mesh reference under bad input', () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startReference();
  });
  afterAll(async () => ref.stop());

  it('refuses bad authorize bodies, service URIs, serials, and index or wait values with a 4xx', async () => {
    const auth = `Authorization: Bearer ${'TOKEN'}`;
    const post = (body: string) => `POST /v1/agent/connect/authorize HTTP/1.1\r\nHost: x\r\n${auth}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const requests = fc.oneof(
      fc.constantFrom('{', '[]', '"x"', 'null', '{"Target":1}', '{"Target":"web"}', '{"Target":"web","ClientCertURI":"spiffe://x/agent/client/dc/dc1/id/1","ClientCertSerial":"0a"}', '{"Target":"web","ClientCertURI":"spiffe://x/ns/default/dc/dc1/svc/api","ClientCertSerial":"zz"}', '{"Target":"","ClientCertURI":"","ClientCertSerial":""}').map(post),
      fc.json().map(post),
      fc.constantFrom('index=abc', 'index=-5', 'index=1&wait=soon', 'index=1&wait=-1s', 'wait=1x', 'index=99999999999999999999999&wait=1s').map((q) => `GET /v1/agent/connect/ca/roots?${q} HTTP/1.1\r\nHost: x\r\n\r\n`),
      fc.constantFrom('%zz', 'a%2Fb', '..', 'web?index=x', `${'a'.repeat(300)}`).map((s) => `GET /v1/agent/connect/ca/leaf/${s} HTTP/1.1\r\nHost: x\r\n${auth}\r\n\r\n`),
    );
    await fc.assert(
      fc.asyncProperty(requests, async (raw) => {
        const [res] = await rawExchange(ref.mesh.url, [raw.replace(/TOKEN/g, ref.mesh.token)]);
        expect(res!.status, `${raw.split('\r\n')[0]} → ${res!.status} ${res!.body.slice(0, 120)}`).toBeLessThan(500);
        if (res!.status >= 400) expect(res!.status).toBeGreaterThanOrEqual(400);
      }),
      { numRuns: 150 },
    );
  });

  it('caps a blocking query at its wait and never hangs past it', async () => {
    const started = performance.now();
    const [res] = await rawExchange(ref.mesh.url, [`GET /v1/agent/connect/ca/roots?index=999999&wait=1s HTTP/1.1\r\nHost: x\r\n\r\n`], 5_000);
    expect(res!.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(3_000);
  });
});
