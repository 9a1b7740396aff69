import { createPublicKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type ReferenceWithControl } from '../src/reference/reference.ts';

interface Root {
  ID: string;
  Active: boolean;
  RootCert: string;
  IntermediateCerts: string[] | null;
  PrivateKeyType: string;
  PrivateKeyBits: number;
  ModifyIndex: number;
}
interface Roots {
  ActiveRootID: string;
  Roots: Root[];
}
interface Leaf {
  SerialNumber: string;
  CertPEM: string;
  ValidAfter: string;
  ValidBefore: string;
}

const CONFIG_PATH = '/v1/connect/ca/configuration';

function certificates(pem: string): X509Certificate[] {
  return (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((b) => new X509Certificate(b));
}

function spki(cert: X509Certificate): Buffer {
  return cert.publicKey.export({ format: 'der', type: 'spki' });
}

/** A key as the harness's provisioner makes one: EC in SEC 1, RSA in PKCS #1. */
function newKey(type: 'ec' | 'rsa'): string {
  const { privateKey } = type === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return privateKey.export({ format: 'pem', type: type === 'rsa' ? 'pkcs1' : 'sec1' }).toString();
}

function agent(ref: ReferenceWithControl) {
  const call = async (method: string, path: string, body?: unknown, token: string | null = ref.mesh.token) => {
    const res = await fetch(ref.mesh.url + path, {
      method,
      headers: token === null ? {} : { 'X-Consul-Token': token },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, text: await res.text(), headers: res.headers };
  };
  return {
    call,
    config: async () => JSON.parse((await call('GET', CONFIG_PATH)).text) as { Provider: string; Config: Record<string, unknown>; ModifyIndex: number; ForceWithoutCrossSigning: boolean },
    put: (body: unknown) => call('PUT', CONFIG_PATH, body),
    roots: async () => JSON.parse((await call('GET', '/v1/agent/connect/ca/roots')).text) as Roots,
    leaf: async (service: string) => JSON.parse((await call('GET', `/v1/agent/connect/ca/leaf/${service}`)).text) as Leaf,
  };
}

/**
 * The CA configuration endpoint of the hashicorp dialect and rotation as Consul does it
 * (agent/connect_ca_endpoint.go, agent/consul/leader_connect_ca.go, agent/connect/ca/provider_consul.go).
 */
describe('mesh reference: Consul CA configuration (hashicorp dialect)', () => {
  let ref: ReferenceWithControl;
  let consul: ReturnType<typeof agent>;
  let service = 0;
  const fresh = () => `svc-${++service}`;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp', behavior: 'upstream' });
    consul = agent(ref);
  });
  afterAll(async () => ref.stop());

  it("GET answers Consul's shape: the dev agent's provider and durations, State, ForceWithoutCrossSigning, indexes", async () => {
    const res = await consul.call('GET', CONFIG_PATH);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = JSON.parse(res.text);
    expect(body).toEqual({
      Provider: 'consul',
      Config: { LeafCertTTL: '72h', IntermediateCertTTL: '8760h', RootCertTTL: '87600h' },
      State: null,
      ForceWithoutCrossSigning: false,
      CreateIndex: expect.any(Number),
      ModifyIndex: expect.any(Number),
    });
    expect(res.text, 'the key the CA generated itself is never shown').not.toMatch(/PRIVATE KEY/);
  });

  it('needs operator:write for GET and PUT, in acl.PermissionDeniedError words', async () => {
    for (const method of ['GET', 'PUT']) {
      const anonymous = await consul.call(method, CONFIG_PATH, method === 'PUT' ? { Provider: 'consul', Config: {} } : undefined, null);
      expect(anonymous.status, method).toBe(403);
      expect(anonymous.text).toBe("Permission denied: token with AccessorID '00000000-0000-0000-0000-000000000002' lacks permission 'operator:write'");
      const unknown = await consul.call(method, CONFIG_PATH, method === 'PUT' ? { Provider: 'consul' } : undefined, 'no-such-token');
      expect([unknown.status, unknown.text]).toEqual([403, 'ACL not found']);
    }
  });

  it('refuses bad input with a 4xx and Consul\'s words, and changes nothing', async () => {
    const before = await consul.config();
    const rootsBefore = await consul.roots();
    const cases: [unknown, RegExp][] = [
      ['', /^Request decode failed: EOF$/],
      ['{"Provider":', /^Request decode failed: /],
      [{ Provider: 'consul', Bogus: 1 }, /^Request decode failed: json: unknown field "Bogus"$/],
      [{ Provider: 7 }, /^Request decode failed: json: cannot unmarshal number into Go struct field CAConfiguration.Provider of type string$/],
      [{ Provider: 'nope', Config: {} }, /^could not initialize provider: unknown CA provider "nope"$/],
      [{ Provider: 'consul', Config: { LeafCertTTL: '30m' } }, /^error configuring provider: leaf cert TTL must be greater or equal than 1h0m0s$/],
      [{ Provider: 'consul', Config: { LeafCertTTL: '9000h' } }, /^error configuring provider: leaf cert TTL must be less than 8760h0m0s$/],
      [{ Provider: 'consul', Config: { LeafCertTTL: '2h', IntermediateCertTTL: '5h' } }, /^error configuring provider: Intermediate Cert TTL must be greater or equal than 3 \* LeafCertTTL \(>=6h0m0s\)\.$/],
      [{ Provider: 'consul', Config: { RootCertTTL: '100h' } }, /^error configuring provider: root cert TTL is set and is not greater than intermediate cert ttl\. root cert ttl: 100h0m0s, intermediate cert ttl: 8760h0m0s$/],
      [{ Provider: 'consul', Config: { LeafCertTTL: 'soon' } }, /^error configuring provider: error decoding config: 1 error\(s\) decoding:\n\n\* error decoding 'LeafCertTTL': time: invalid duration "soon"$/],
      [{ Provider: 'consul', Config: { PrivateKeyType: 'dsa' } }, /^error configuring provider: private key type must be either 'ec' or 'rsa'$/],
      [{ Provider: 'consul', Config: { PrivateKeyType: 'rsa', PrivateKeyBits: 1024 } }, /^error configuring provider: RSA key length must be 2048 or 4096 bits$/],
      [{ Provider: 'consul', Config: { RootCert: 'x' } }, /^error configuring provider: must provide a private key when providing a root cert$/],
      [{ Provider: 'consul', Config: { PrivateKey: 'not a key' } }, /^error generating CA root certificate: error generating CA: error parsing private key "not a key": no PEM-encoded data found$/],
      [{ Provider: 'consul', Config: { PrivateKey: '-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n' } }, /error parsing private key .*: x509: failed to parse EC private key$/],
      [{ Provider: 'consul', Config: { PrivateKey: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' } }, /: unknown PEM block type for signing key: CERTIFICATE$/],
      [{ Provider: 'consul', Config: {}, State: { id: 'x' } }, /^Provider State is read-only\. It must be omitted or identical to the current value$/],
    ];
    for (const [body, message] of cases) {
      const res = await consul.put(body);
      expect(res.status, `${JSON.stringify(body)} → ${res.text}`).toBe(400);
      expect(res.text, JSON.stringify(body)).toMatch(message);
    }
    const post = await consul.call('POST', CONFIG_PATH, {});
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('OPTIONS,GET,PUT');
    expect(await consul.config()).toEqual(before);
    expect((await consul.roots()).ActiveRootID).toBe(rootsBefore.ActiveRootID);
  });

  it('updates only the configuration when no key changes: no new root, and new leaves honour LeafCertTTL', async () => {
    const before = await consul.config();
    const rootId = (await consul.roots()).ActiveRootID;
    const same = await consul.put({ Provider: 'consul', Config: before.Config });
    expect([same.status, same.text], 'an unchanged configuration is a no-op').toEqual([200, '']);
    expect((await consul.config()).ModifyIndex).toBe(before.ModifyIndex);

    const res = await consul.put({ Provider: 'consul', Config: { ...before.Config, LeafCertTTL: '2h' } });
    expect([res.status, res.text]).toEqual([200, '']);
    const after = await consul.config();
    expect(after.Config.LeafCertTTL).toBe('2h');
    expect(after.ModifyIndex).toBeGreaterThan(before.ModifyIndex);
    expect((await consul.roots()).ActiveRootID, 'the root stays').toBe(rootId);
    const leaf = await consul.leaf(fresh());
    expect(Date.parse(leaf.ValidBefore) - Date.parse(leaf.ValidAfter)).toBe(2 * 3600_000);

    // Below the 1 h minimum only with SkipValidate, as Consul's own tests shorten it.
    const short = { ...before.Config, LeafCertTTL: '90s' };
    expect((await consul.put({ Provider: 'consul', Config: short })).status).toBe(400);
    expect((await consul.put({ Provider: 'consul', Config: { ...short, SkipValidate: true } })).status).toBe(200);
    const shortLeaf = await consul.leaf(fresh());
    expect(Date.parse(shortLeaf.ValidBefore) - Date.parse(shortLeaf.ValidAfter)).toBe(90_000);
    expect((await consul.roots()).ActiveRootID).toBe(rootId);
    expect((await consul.put({ Provider: 'consul', Config: before.Config })).status).toBe(200);
  });

  it('rotates to the root of a new PrivateKey, cross-signed by the old root, and new leaves verify for peers that trust only the old root', async () => {
    const before = await consul.roots();
    const oldRoot = new X509Certificate(before.Roots.find((r) => r.Active)!.RootCert);
    const oldLeaf = await consul.leaf('steady');
    const blocked = consul.call('GET', `/v1/agent/connect/ca/roots?index=${Math.max(...before.Roots.map((r) => r.ModifyIndex))}&wait=20s`);
    await new Promise((r) => setTimeout(r, 200));
    const key = newKey('ec');
    const current = await consul.config();
    const res = await consul.put({ Provider: 'consul', Config: { ...current.Config, PrivateKey: key } });
    expect([res.status, res.text]).toEqual([200, '']);
    const woken = JSON.parse((await blocked).text) as Roots;
    expect(woken.ActiveRootID, 'a blocking roots query wakes on the rotation').not.toBe(before.ActiveRootID);

    const after = await consul.roots();
    expect(after.ActiveRootID).not.toBe(before.ActiveRootID);
    const old = after.Roots.find((r) => r.ID === before.ActiveRootID);
    expect(old, 'the old root stays listed').toBeDefined();
    expect(old!.Active, 'and is no longer active').toBe(false);
    const active = after.Roots.find((r) => r.ID === after.ActiveRootID)!;
    expect(after.Roots.filter((r) => r.Active).map((r) => r.ID)).toEqual([active.ID]);
    const newRoot = new X509Certificate(active.RootCert);
    expect(spki(newRoot).equals(createPublicKey(key).export({ format: 'der', type: 'spki' })), "the new root holds the given key's public half").toBe(true);
    expect([active.PrivateKeyType, active.PrivateKeyBits]).toEqual(['ec', 256]);

    expect(active.IntermediateCerts).toHaveLength(1);
    const [crossSigned] = certificates(active.IntermediateCerts![0]!);
    expect(crossSigned!.verify(oldRoot.publicKey), 'the intermediate is signed by the old root').toBe(true);
    expect(crossSigned!.checkIssued(oldRoot)).toBe(true);
    expect(crossSigned!.subject).toBe(newRoot.subject);
    expect(spki(crossSigned!).equals(spki(newRoot)), "it carries the new root's key").toBe(true);
    expect(crossSigned!.ca).toBe(true);
    expect(Date.parse(crossSigned!.validTo) - Date.parse(crossSigned!.validFrom)).toBe(7 * 24 * 3600_000);

    const leaf = await consul.leaf(fresh());
    const [cert, ...bundled] = certificates(leaf.CertPEM);
    expect(leaf.CertPEM.endsWith(active.IntermediateCerts![0]!), 'CertPEM is the leaf followed by the intermediates').toBe(true);
    expect(bundled.map((c) => c.fingerprint256)).toEqual([crossSigned!.fingerprint256]);
    expect(cert!.verify(newRoot.publicKey), 'the new leaf is signed by the new root').toBe(true);
    expect(cert!.verify(oldRoot.publicKey)).toBe(false);
    expect(cert!.checkIssued(crossSigned!) && cert!.verify(crossSigned!.publicKey), 'a peer that trusts only the old root verifies it through the intermediate').toBe(true);
    const again = await consul.leaf('steady');
    expect(again.SerialNumber, 'leaves of the old root are replaced').not.toBe(oldLeaf.SerialNumber);

    // Consul shows the stored configuration, the client's PrivateKey included (operator:write only).
    expect((await consul.config()).Config.PrivateKey).toBe(key);
    const repeat = await consul.put({ Provider: 'consul', Config: { ...current.Config, PrivateKey: key } });
    expect(repeat.status).toBe(200);
    expect((await consul.roots()).ActiveRootID, 'the same key again is no rotation').toBe(after.ActiveRootID);
  });

  it('rotates to an RSA key, and without cross-signing when ForceWithoutCrossSigning is set', async () => {
    const current = await consul.config();
    const { RootCert: _r, ...kept } = current.Config;
    expect((await consul.put({ Provider: 'consul', Config: { ...kept, PrivateKey: newKey('rsa') } })).status).toBe(200);
    const rsa = await consul.roots();
    const rsaRoot = rsa.Roots.find((r) => r.Active)!;
    expect([rsaRoot.PrivateKeyType, rsaRoot.PrivateKeyBits]).toEqual(['rsa', 2048]);
    const leaf = await consul.leaf(fresh());
    expect(certificates(leaf.CertPEM)[0]!.verify(new X509Certificate(rsaRoot.RootCert).publicKey)).toBe(true);

    const forced = await consul.put({ Provider: 'consul', Config: { ...kept, PrivateKey: newKey('ec') }, ForceWithoutCrossSigning: true });
    expect(forced.status).toBe(200);
    const roots = await consul.roots();
    expect(roots.ActiveRootID).not.toBe(rsa.ActiveRootID);
    expect(roots.Roots.find((r) => r.Active)!.IntermediateCerts).toBeNull();
    expect(certificates((await consul.leaf(fresh())).CertPEM)).toHaveLength(1);
    expect((await consul.config()).ForceWithoutCrossSigning).toBe(true);
  });

  it('rotates through the control listener with the same code: a new key, cross-signed', async () => {
    const before = await consul.roots();
    const res = await fetch(`${ref.control.url}/v1/control/mesh/rotate`, { method: 'POST', headers: { authorization: `Bearer ${ref.control.token}` } });
    expect(res.status).toBe(200);
    const after = await consul.roots();
    const active = after.Roots.find((r) => r.Active)!;
    expect(active.ID).not.toBe(before.ActiveRootID);
    const oldRoot = new X509Certificate(before.Roots.find((r) => r.ID === before.ActiveRootID)!.RootCert);
    expect(certificates(active.IntermediateCerts!.join(''))[0]!.verify(oldRoot.publicKey)).toBe(true);
    expect((await consul.config()).Config.PrivateKey, 'the new key is in the configuration, as a client would put it').toMatch(/^-----BEGIN EC PRIVATE KEY-----/);
  });
});

describe('mesh reference: spec dialect', () => {
  let ref: ReferenceWithControl;
  beforeAll(async () => {
    ref = await startReference();
  });
  afterAll(async () => ref.stop());

  it('has no CA configuration endpoint, and its control rotation cross-signs too', async () => {
    for (const method of ['GET', 'PUT']) {
      const res = await fetch(ref.mesh.url + CONFIG_PATH, { method, headers: { authorization: `Bearer ${ref.mesh.token}` }, body: method === 'PUT' ? '{}' : undefined });
      expect(res.status, method).toBe(404);
    }
    const rootsOf = async () => (await (await fetch(`${ref.mesh.url}/v1/agent/connect/ca/roots`)).json()) as Roots;
    const before = await rootsOf();
    const rotated = await fetch(`${ref.control.url}/v1/control/mesh/rotate`, { method: 'POST', headers: { authorization: `Bearer ${ref.control.token}` } });
    expect(rotated.status).toBe(200);
    const after = await rootsOf();
    const active = after.Roots.find((r) => r.Active)!;
    const oldRoot = new X509Certificate(before.Roots[0]!.RootCert);
    expect(certificates(active.IntermediateCerts!.join(''))[0]!.verify(oldRoot.publicKey)).toBe(true);
  });
});
