import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomCode } from '../src/reference/secrets/oidc/config.ts';
import { startReference, type ReferenceWithControl } from '../src/reference/reference.ts';
import { rawExchange } from './support/raw-http.ts';

/**
 * The reference keeps serialised answers on its hot paths (the roots per CA version, a leaf's body
 * per certificate, authorize answers per intention set): whatever changes an answer must change
 * what is served, and what the caches do not cover (the token) must still be checked each time.
 */
describe('the reference hot paths serve cached answers only while they hold', () => {
  let ref: ReferenceWithControl;
  const mesh = (path: string, init: RequestInit & { token?: string } = {}) =>
    fetch(`${ref.mesh.url}${path}`, { ...init, headers: { authorization: `Bearer ${init.token ?? ref.mesh.token}`, 'content-type': 'application/json' } });
  const control = async (path: string, body: unknown) => {
    const res = await fetch(`${ref.control.url}/v1/control/mesh/${path}`, { method: 'POST', headers: { authorization: `Bearer ${ref.control.token}` }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    return (await res.json()) as Record<string, string>;
  };
  const roots = async () => {
    const res = await mesh('/v1/agent/connect/ca/roots');
    return { index: res.headers.get('x-mesh-index'), body: (await res.json()) as { ActiveRootID: string; Roots: { ID: string; RootCert: string }[] } };
  };
  const leaf = async (service: string, token?: string) => {
    const res = await mesh(`/v1/agent/connect/ca/leaf/${service}`, { token });
    return { status: res.status, text: await res.text() };
  };
  const authorize = async (source: string, target: string, token?: string) => {
    const { text } = await leaf(source);
    const { ServiceURI, SerialNumber } = JSON.parse(text) as { ServiceURI: string; SerialNumber: string };
    const res = await mesh('/v1/agent/connect/authorize', { method: 'POST', token, body: JSON.stringify({ Target: target, ClientCertURI: ServiceURI, ClientCertSerial: SerialNumber }) });
    return { status: res.status, text: await res.text() };
  };

  beforeAll(async () => {
    ref = await startReference();
  });
  afterAll(async () => ref.stop());

  it('serves the same roots until a rotation, then the new active root with a higher index', async () => {
    const before = await roots();
    expect(await roots()).toEqual(before);
    const { root_id } = await control('rotate', {});
    const after = await roots();
    expect(after.body.ActiveRootID).toBe(root_id);
    expect(after.body.ActiveRootID).not.toBe(before.body.ActiveRootID);
    expect(after.body.Roots.map((r) => r.ID)).toEqual([...before.body.Roots.map((r) => r.ID), root_id]);
    expect(Number(after.index)).toBeGreaterThan(Number(before.index));
  });

  it('serves the same leaf body until the certificate is renewed (a rotation), then one signed by the new root', async () => {
    const first = await leaf('cache-web');
    expect(first.status).toBe(200);
    expect((await leaf('cache-web')).text).toBe(first.text);
    const { root_id } = await control('rotate', {});
    const renewed = await leaf('cache-web');
    expect(renewed.text).not.toBe(first.text);
    const [cert] = (JSON.parse(renewed.text) as { CertPEM: string }).CertPEM.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)!;
    const active = (await roots()).body.Roots.find((r) => r.ID === root_id)!;
    expect(new X509Certificate(cert!).verify(new X509Certificate(active.RootCert).publicKey)).toBe(true);
    expect(JSON.parse(renewed.text).SerialNumber).not.toBe(JSON.parse(first.text).SerialNumber);
  });

  it('serves the same leaf body until the certificate is renewed (near expiry), then a new one', async () => {
    const { previous_seconds } = await control('leaf-lifetime', { seconds: 2 });
    try {
      const first = await leaf('cache-short');
      // The spec dialect renews in the last tenth of a leaf's life: after 1.8 s of its 2 s.
      await new Promise((r) => setTimeout(r, 1_900));
      const renewed = await leaf('cache-short');
      expect(JSON.parse(renewed.text).SerialNumber).not.toBe(JSON.parse(first.text).SerialNumber);
    } finally {
      await control('leaf-lifetime', { seconds: Number(previous_seconds) });
    }
  });

  it('keys a leaf by service: two services never share a body', async () => {
    const a = JSON.parse((await leaf('cache-a')).text) as { Service: string; ServiceURI: string };
    const b = JSON.parse((await leaf('cache-b')).text) as { Service: string; ServiceURI: string };
    expect([a.Service, b.Service]).toEqual(['cache-a', 'cache-b']);
    expect(a.ServiceURI.endsWith('/svc/cache-a')).toBe(true);
    expect(b.ServiceURI.endsWith('/svc/cache-b')).toBe(true);
  });

  it('answers authorize from the current intentions: a changed or removed intention changes the answer', async () => {
    const decide = async () => JSON.parse((await authorize('cache-src', 'cache-dst')).text) as { Authorized: boolean; Reason: string };
    const { id } = await control('intentions', { source: 'cache-src', destination: 'cache-dst', action: 'allow' });
    expect(await decide()).toMatchObject({ Authorized: true });
    expect((await decide()).Reason).toContain(id!);
    await control('intentions', { source: 'cache-src', destination: 'cache-dst', action: 'deny' });
    expect(await decide()).toMatchObject({ Authorized: false });
    const wildcard = await control('intentions', { source: '*', destination: 'cache-dst', action: 'allow' });
    // The exact source still outranks the wildcard.
    expect(await decide()).toMatchObject({ Authorized: false });
    const del = await fetch(`${ref.control.url}/v1/control/mesh/intentions/${encodeURIComponent(id!)}`, { method: 'DELETE', headers: { authorization: `Bearer ${ref.control.token}` } });
    expect(del.status).toBe(204);
    const now = await decide();
    expect(now.Authorized).toBe(true);
    expect(now.Reason).toContain(wildcard.id!);
  });

  it('checks the token on every leaf and authorize, whatever is cached', async () => {
    await control('intentions', { source: 'cache-src2', destination: 'cache-dst2', action: 'allow' });
    expect((await authorize('cache-src2', 'cache-dst2')).status).toBe(200);
    const { token: narrow } = await control('tokens', { service_write: ['cache-src2'] });
    expect((await leaf('cache-src2', narrow)).status).toBe(200);
    expect((await leaf('cache-dst2', narrow)).status).toBe(403);
    expect((await authorize('cache-src2', 'cache-dst2', narrow)).status).toBe(403);
    expect((await authorize('cache-src2', 'cache-dst2', 'not-a-token')).status).toBe(403);
    expect((await authorize('cache-src2', 'cache-dst2')).status).toBe(200);
  });

  it('refuses LIST on the mesh agent (an API without it) with a 4xx that says why, and no hang', async () => {
    const [res] = await rawExchange(ref.mesh.url, [`LIST /v1/agent/connect/ca/roots HTTP/1.1\r\nHost: x\r\n\r\n`], 5_000);
    expect(res!.statusLine).toMatch(/^HTTP\/1\.1 4\d\d /);
    expect(res!.body).toContain('method LIST is not supported');
  });

  it('answers a malformed request on the mesh agent with a 4xx that says why, never echoing raw bytes', async () => {
    const [res] = await rawExchange(ref.mesh.url, [`GET /v1/agent/connect/ca/roots HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n`], 5_000);
    expect(res!.status).toBe(400);
    expect(res!.body).toContain('malformed HTTP request');
    const [odd] = await rawExchange(ref.mesh.url, [`L\u00ffST /v1/agent/connect/ca/roots HTTP/1.1\r\nHost: x\r\n\r\n`], 5_000);
    expect(odd!.status).toBe(400);
    expect(odd!.body).not.toContain('\u00ff');
  });
});

describe('OIDC authorization codes cut from batched random bytes', () => {
  it('are 24 random bytes each and never repeat across batches', () => {
    const codes = Array.from({ length: 2_000 }, () => randomCode());
    expect(new Set(codes).size).toBe(codes.length);
    for (const c of codes) expect(Buffer.from(c, 'base64url')).toHaveLength(24);
  });
});
