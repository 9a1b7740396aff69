import { describe, expect, it } from 'vitest';
import { AuthorizeBodies, parseCertUri } from '../src/reference/mesh/authorize-request.ts';

const uri = 'spiffe://11111111-2222-3333-4444-555555555555.consul/ns/default/dc/dc1/svc/web';
const body = (o: unknown) => Buffer.from(JSON.stringify(o));

describe('AuthorizeBodies: what an authorize body says, remembered by its bytes', () => {
  const spec = () => new AuthorizeBodies({ namespaces: false, checkSerial: true });
  const consul = () => new AuthorizeBodies({ namespaces: false, checkSerial: false });

  it('reads the fields and the source service, and answers a body seen before from memory', () => {
    const bodies = spec();
    const raw = body({ Target: 'api', ClientCertURI: uri, ClientCertSerial: '0a:1b' });
    const first = bodies.outcome(raw);
    expect(first).toEqual({ ok: true, target: 'api', bodyNamespace: undefined, sourceNs: 'default', source: 'web' });
    // The same bytes in another buffer: the same (frozen) answer, not a second decoding.
    expect(bodies.outcome(Buffer.from(raw))).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(bodies.size).toBe(1);
  });

  it('refuses in Consul order, the same way the second time', () => {
    const bodies = consul();
    for (let k = 0; k < 2; k++) {
      expect(bodies.outcome(Buffer.alloc(0))).toMatchObject({ ok: false, status: 400, message: 'Request decode failed: EOF' });
      expect(bodies.outcome(Buffer.from('{"Target":'))).toMatchObject({ ok: false, status: 400, message: expect.stringMatching(/^Request decode failed: /) });
      expect(bodies.outcome(body({ Target: 'api', Bogus: 1 }))).toMatchObject({ ok: false, message: 'Request decode failed: json: unknown field "Bogus"' });
      expect(bodies.outcome(body({ ClientCertURI: uri }))).toMatchObject({ ok: false, message: 'Target service must be specified' });
      expect(bodies.outcome(body({ Target: 'api', ClientCertURI: 'spiffe://x/agent/client/dc/dc1/id/abc' }))).toMatchObject({ ok: false, message: 'ClientCertURI not a valid Service identifier' });
      // Consul 1.8.7: a spiffe URI of no known form is no Connect identifier at all (connect.ParseCertURI fails).
      expect(bodies.outcome(body({ Target: 'api', ClientCertURI: 'spiffe://x/foo' }))).toMatchObject({ ok: false, message: 'ClientCertURI not a valid Connect identifier' });
      expect(bodies.outcome(Buffer.from('null'))).toMatchObject({ ok: false, message: 'Target service must be specified' });
      expect(bodies.outcome(Buffer.from('[]'))).toMatchObject({ ok: false, message: 'Request decode failed: json: cannot unmarshal array into Go value of type structs.ConnectAuthorizeRequest' });
      expect(bodies.outcome(body({ Target: 'api', ClientCertURI: 'http://x' }))).toMatchObject({ ok: false, message: 'ClientCertURI not a valid Connect identifier' });
      // Consul never reads the serial.
      expect(bodies.outcome(body({ target: 'api', clientcerturi: uri }))).toMatchObject({ ok: true, target: 'api', source: 'web' });
    }
  });

  it('reads ClientCertURI as Consul 1.8.7 does (each answer asked of the real agent)', () => {
    const S = '/ns/default/dc/dc1/svc/web';
    const service = (ns: string, name: string) => ({ kind: 'service', namespace: ns, service: name });
    for (const [uri, kind] of [
      [`spiffe://x${S}`, service('default', 'web')],
      [`SPIFFE://x${S}?a=b#f`, service('default', 'web')],
      [`spiffe:${S}`, service('default', 'web')],
      [`spiffe://u:p@[::1]:80${S}`, service('default', 'web')],
      ['spiffe://x/ns/a%2Fb/dc/dc1/svc/we%62', service('a/b', 'web')],
      ['spiffe://x%C3/ns/default/dc/dc1/svc/w%C3%A9b', service('default', 'wéb')],
      ['spiffe://x/agent/client/dc/dc1/id/abc', { kind: 'identity' }],
      ['spiffe://x.y:8080?q', { kind: 'identity' }],
      ...[`spiffe://.y`, 'spiffe://x.y/', 'spiffe:x.y', `xspiffe://x${S}`, `spiffe://x${S}/x`, `spiffe://x${S}#%zz`, `spiffe://x${S}\u0001`, `spiffe://x%41${S}`, `spiffe://x:8a${S}`, `spiffe://[::1${S}`, `spiffe://x^${S}`, `spiffe://u^@x${S}`, `spiffe://x${S}%`, ' spiffe://x' + S].map((u) => [u, { kind: 'none' }] as const),
    ] as const) {
      expect(parseCertUri(uri), uri).toEqual(kind);
    }
  });

  it('asks for a colon-hex serial under the spec behaviour', () => {
    const bodies = spec();
    expect(bodies.outcome(body({ Target: 'api', ClientCertURI: uri }))).toMatchObject({ ok: false, message: 'ClientCertSerial must be given, colon-hex encoded' });
    expect(bodies.outcome(body({ Target: 'api', ClientCertURI: uri, ClientCertSerial: '0a1b' }))).toMatchObject({ ok: false, message: 'ClientCertSerial must be given, colon-hex encoded' });
  });

  it('remembers a bounded number of bodies, and none too long to be worth it', () => {
    const bodies = spec();
    for (let i = 0; i < 3_000; i++) expect(bodies.outcome(body({ Target: `api-${i}`, ClientCertURI: uri, ClientCertSerial: '01' })).ok).toBe(true);
    expect(bodies.size).toBeLessThanOrEqual(1_024);
    const before = bodies.size;
    const long = body({ Target: `api-${'x'.repeat(5_000)}`, ClientCertURI: uri, ClientCertSerial: '01' });
    expect(bodies.outcome(long)).toMatchObject({ ok: true, target: `api-${'x'.repeat(5_000)}` });
    expect(bodies.size).toBe(before);
  });
});
