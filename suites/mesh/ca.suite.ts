import { X509Certificate } from 'node:crypto';
import fc from 'fast-check';
import { expect } from 'vitest';
import { caRootsSchema } from '../../src/client/schemas/mesh.ts';
import { expectShape } from '../kit/expect-shape.ts';
import { x509 } from '../../src/crypto/x509.ts';
import type { LeafResponse } from '../../src/client/mesh-api.ts';
import type { HttpResponse } from '../../src/client/http-client.ts';
import type { RuleKit } from '../kit/rule-kit.ts';
import { activeRootCert, certOf, expectChainsToActiveRoot, leafOf, publicKeyOfPrivate, rootsIndex, rootsNow, serialValue, serviceName, targetClock } from '../kit/mesh-helpers.ts';
import { concurrently, ruleTest } from '../kit/rule-test.ts';
import { MESH_BOUNDS, MESH_MARGINS } from '../kit/bounds/mesh.ts';
import { boundMs, KIT_BOUNDS } from '../kit/bounds/bound.ts';

// Everything that depends on which root is active, or on the CA's leaf lifetime, lives in this one
// file, so that the rotations and the lifetime changes some of these tests make never happen in the
// middle of a test they disturb: the rules that rotate run one at a time, after the others.

const SECOND = MESH_MARGINS.clockSecond.ms;

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_EXTENDED_USAGE = '2.5.29.37.0';

/**
 * The leaf lifetime the renewal rules set. Consul backdates NotBefore by a minute and ends the leaf
 * LeafCertTTL after that (provider_consul.go Sign), so 65 s leaves 5 s of validity after issue: the
 * rules wait that out, and 5 s is still far more than a leaf fetch takes under load.
 */
const SHORT_TTL_S = 65;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/**
 * The short LeafCertTTL, set once for the renewal rules that run side by side under it: the first
 * to enter sets it, the last to leave puts the earlier value back (two rules each restoring what
 * they found would leave the short one behind).
 */
let shortTtl: { users: number; set: Promise<() => Promise<void>> } | undefined;

async function withShortLeafTtl(kit: RuleKit, body: () => Promise<void>): Promise<void> {
  const scope = (shortTtl ??= { users: 0, set: kit.meshFixtures.leafCertTtl(SHORT_TTL_S) });
  scope.users += 1;
  try {
    await scope.set;
    await body();
  } finally {
    scope.users -= 1;
    if (scope.users === 0) {
      if (shortTtl === scope) shortTtl = undefined;
      const restore = await scope.set.catch(() => undefined);
      await restore?.();
    }
  }
}

/** A leaf issued under the short TTL, with the target's clock; ERROR when the TTL did not take effect. */
async function shortLivedLeaf(kit: RuleKit, service: string): Promise<{ leaf: LeafResponse; res: HttpResponse; left: number }> {
  const res = await kit.mesh.leaf(service);
  const leaf = leafOf(kit, res, `leaf of ${service}`);
  const left = Date.parse(leaf.ValidBefore) - targetClock(res).now();
  if (left > (SHORT_TTL_S + 5) * 1000) throw new Error(`the fixtures set LeafCertTTL ${SHORT_TTL_S}s, but the new leaf is valid for ${Math.round(left / 1000)} s more: the setting did not take effect`);
  return { leaf, res, left };
}

/** Every certificate of a PEM bundle, in order. */
function pemCertificates(pem: string): X509Certificate[] {
  return (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((block) => new X509Certificate(block));
}

/** Clock drift allowed between the harness and the agent when judging whether a certificate is valid now. */
const DRIFT_MS = 5 * 60_000;

/**
 * What a peer that trusts only `anchor` does with a certificate and the intermediates it is given:
 * walk from the certificate through intermediates that are CA certificates, valid now, and whose
 * key signed the previous one, until the anchor signed one. The subjects on the way, or undefined.
 */
function pathToAnchor(cert: X509Certificate, intermediates: X509Certificate[], anchor: X509Certificate): string[] | undefined {
  const signs = (issuer: X509Certificate, subject: X509Certificate) => subject.checkIssued(issuer) && subject.verify(issuer.publicKey);
  const validNow = (c: X509Certificate) => Date.parse(c.validFrom) <= Date.now() + DRIFT_MS && Date.parse(c.validTo) >= Date.now() - DRIFT_MS;
  const unused = new Set(intermediates);
  const path: string[] = [];
  let current = cert;
  for (;;) {
    if (signs(anchor, current)) return path;
    const next = [...unused].find((i) => i.ca && validNow(i) && signs(i, current));
    if (!next) return undefined;
    path.push(next.subject);
    unused.delete(next);
    current = next;
  }
}

concurrently('side by side: rules that neither rotate the CA nor need a leaf to stay the same, and the renewal rules, which shorten the leaf lifetime while they run', () => {
  ruleTest(
    'mesh.leaf.renewed-when-expired',
    async (kit) => {
      await withShortLeafTtl(kit, async () => {
        const service = serviceName('expiry');
        const { leaf: first, left } = await shortLivedLeaf(kit, service);
        expect(left, `a fresh leaf is unexpired (ValidBefore ${first.ValidBefore})`).toBeGreaterThan(0);
        const end = Date.parse(first.ValidBefore);
        // Every answer is unexpired, until and after the first leaf ends.
        for (;;) {
          const res = await kit.mesh.leaf(service);
          const leaf = leafOf(kit, res, `leaf of ${service}`);
          // The Date header and ValidBefore are both whole seconds, and `now` is the lower bound of the
          // answer's time: only a ValidBefore earlier than that second is surely over (a leaf is
          // valid through its notAfter, RFC 5280 4.1.2.5), so the rule never decides at the edge.
          const now = targetClock(res).now();
          expect(Date.parse(leaf.ValidBefore), `a non-blocking query answered a leaf that ended at ${leaf.ValidBefore}, ${Math.round((now - Date.parse(leaf.ValidBefore)) / 1000)} s before the answer`).toBeGreaterThanOrEqual(now);
          if (now > end + SECOND) {
            expect(leaf.SerialNumber, 'after the first leaf expired, a new one is returned').not.toBe(first.SerialNumber);
            return;
          }
          await sleep(Math.min(2 * SECOND, end + 1.5 * SECOND - now));
        }
      });
    },
    { timeoutMs: SHORT_TTL_S * 1000 + KIT_BOUNDS.ruleBeyond.ms },
  );

  ruleTest(
    'mesh.leaf.blocking-wakes-on-expiry',
    async (kit) => {
      await withShortLeafTtl(kit, async () => {
        const service = serviceName('expiring');
        const { leaf: first, left } = await shortLivedLeaf(kit, service);
        const waitS = Math.ceil((Math.max(0, left) + boundMs(kit.ctx, MESH_BOUNDS.expiryWake)) / 1000);
        const started = performance.now();
        const res = await kit.mesh.leaf(service, { query: { index: String(first.ModifyIndex), wait: `${waitS}s` }, timeoutMs: waitS * 1000 + boundMs(kit.ctx, MESH_BOUNDS.requestBeyond) });
        const elapsed = performance.now() - started;
        const woken = leafOf(kit, res, 'the blocking leaf query');
        const now = targetClock(res).now();
        kit.note(`the blocking query returned after ${Math.round(elapsed)} ms; the first leaf had ${Math.round(left)} ms left`);
        expect(woken.SerialNumber, `the blocking query returned a new leaf (after ${Math.round(elapsed)} ms of its ${waitS} s wait)`).not.toBe(first.SerialNumber);
        expect(now, `the new leaf came no later than the old one's end (${first.ValidBefore})`).toBeLessThanOrEqual(Date.parse(first.ValidBefore) + SECOND);
        expect(elapsed, `and before the query's ${waitS} s wait elapsed`).toBeLessThan(waitS * 1000);
        expect(Date.parse(woken.ValidBefore), 'the new leaf is valid now').toBeGreaterThan(now);
      });
    },
    { timeoutMs: SHORT_TTL_S * 1000 + MESH_BOUNDS.expiryWake.ms + KIT_BOUNDS.ruleBeyond.ms },
  );

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

  ruleTest('mesh.roots.no-acl', async (kit) => {
    const res = await kit.mesh.roots({ token: null });
    expect(res.status, 'CA roots without a token answers 200').toBe(200);
    expectShape(res, caRootsSchema, 'CA roots response');
  });

  ruleTest('mesh.endpoints.json', async (kit) => {
    const service = serviceName('json');
    for (const res of [
      await kit.mesh.roots(),
      await kit.mesh.leaf(service),
      await kit.mesh.authorize({ Target: service, ClientCertURI: (await kit.mesh.leaf(service).then((r) => r.json() as { ServiceURI: string })).ServiceURI, ClientCertSerial: '0a:0b' }),
    ]) {
      expect(res.status, `${res.exchange.method} ${res.exchange.url} answers 200`).toBe(200);
      expect(res.header('content-type'), `${res.exchange.method} ${res.exchange.url} answers application/json`).toMatch(/^application\/json/);
    }
  });

  ruleTest('mesh.leaf.fields', async (kit) => {
    const service = serviceName('fields');
    // leafOf requires Namespace only of a target that declares namespaces (Consul CE omits it).
    const leaf = leafOf(kit, await kit.mesh.leaf(service));
    expect(leaf.Service, 'Service names the requested service').toBe(service);
    expect(leaf.CertPEM).toMatch(/-----BEGIN CERTIFICATE-----/);
    expect(leaf.PrivateKeyPEM).toMatch(/-----BEGIN [A-Z ]*PRIVATE KEY-----/);
  });

  ruleTest('mesh.leaf.uri-san', async (kit) => {
    const service = serviceName('san');
    const leaf = leafOf(kit, await kit.mesh.leaf(service));
    const san = certOf(leaf).subjectAltName ?? '';
    expect(san, "the certificate's URI SAN is ServiceURI").toContain(`URI:${leaf.ServiceURI}`);
    expect(leaf.ServiceURI, 'ServiceURI is a spiffe identifier naming the service').toMatch(new RegExp(`^spiffe://[^/]+/.*svc/${service}$`));
  });

  ruleTest('mesh.leaf.validity', async (kit) => {
    const leaf = leafOf(kit, await kit.mesh.leaf(serviceName('validity')));
    const cert = certOf(leaf);
    expect(Date.parse(leaf.ValidAfter), `ValidAfter ${leaf.ValidAfter} is the certificate's notBefore ${cert.validFrom}`).toBe(Date.parse(cert.validFrom));
    expect(Date.parse(leaf.ValidBefore), `ValidBefore ${leaf.ValidBefore} is the certificate's notAfter ${cert.validTo}`).toBe(Date.parse(cert.validTo));
  });

  ruleTest('mesh.leaf.private-key', async (kit) => {
    const leaf = leafOf(kit, await kit.mesh.leaf(serviceName('key')));
    const certKey = certOf(leaf).publicKey.export({ format: 'pem', type: 'spki' }).toString();
    expect(publicKeyOfPrivate(leaf.PrivateKeyPEM), "PrivateKeyPEM is the private half of the certificate's key").toBe(certKey);
  });

  ruleTest('mesh.leaf.key-usages', async (kit) => {
    for (const service of [serviceName('usage'), serviceName('usage')]) {
      const leaf = leafOf(kit, await kit.mesh.leaf(service));
      const cert = certOf(leaf);
      expect(cert.ca, `the leaf of ${service} is not a CA certificate`).toBe(false);
      // Node lists the extended key usages, or leaves them undefined when the certificate does not restrict them.
      const extended = cert.keyUsage;
      if (extended !== undefined && !extended.includes(ANY_EXTENDED_USAGE)) {
        expect(extended, `the leaf of ${service} may serve inbound connections (serverAuth)`).toContain(SERVER_AUTH);
        expect(extended, `the leaf of ${service} may be the client certificate of outbound connections (clientAuth)`).toContain(CLIENT_AUTH);
      }
      const usages = new x509.X509Certificate(cert.raw).getExtension(x509.KeyUsagesExtension);
      if (usages) expect(usages.usages & x509.KeyUsageFlags.digitalSignature, `the leaf of ${service} may sign a TLS handshake (digitalSignature)`).not.toBe(0);
    }
  });

  ruleTest('mesh.leaf.serial-64-bit', async (kit) => {
    await kit.property(
      fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
      async (name) => {
        const leaf = leafOf(kit, await kit.mesh.leaf(`${serviceName('serial64')}-${name}`));
        const serial = serialValue(leaf.SerialNumber);
        expect(serial, `SerialNumber ${leaf.SerialNumber} is the certificate's serial`).toBe(BigInt(`0x${certOf(leaf).serialNumber}`));
        expect(serial < 2n ** 64n, `SerialNumber ${leaf.SerialNumber} fits in 64 bits`).toBe(true);
      },
      { numRuns: Math.min(kit.ctx.runs, 5), examples: ['a'] },
    );
  });

  ruleTest('mesh.leaf.service-need-not-exist', async (kit) => {
    await kit.property(
      fc.stringMatching(/^[a-z][a-z0-9-]{0,24}$/),
      async (name) => {
        const service = `${serviceName('any')}-${name}`;
        const leaf = leafOf(kit, await kit.mesh.leaf(service), `leaf for the unregistered service ${service}`);
        expect(leaf.Service).toBe(service);
      },
      { numRuns: Math.min(kit.ctx.runs, 10) },
    );
  });

  ruleTest('mesh.upstream.bad-index-400', async (kit) => {
    for (const query of [{ index: 'abc' }, { index: '-1' }, { index: '1', wait: 'forever' }]) {
      const res = await kit.mesh.roots({ query });
      expect(res.status, `roots with ${JSON.stringify(query)} answers 400`).toBe(400);
    }
  });

  ruleTest('mesh.upstream.index-header', async (kit) => {
    for (const res of [await kit.mesh.roots(), await kit.mesh.leaf(serviceName('index'))]) {
      const value = res.header(kit.mesh.dialect.mesh.indexHeader);
      expect(value, `${res.exchange.url} carries ${kit.mesh.dialect.mesh.indexHeader}`).toMatch(/^\d+$/);
      expect(Number(value)).toBeGreaterThan(0);
    }
  });

  // The other side of blocking: a query that is already behind has a change to see, so it must not wait.
  ruleTest('mesh.upstream.older-index-at-once', async (kit) => {
    const header = kit.mesh.dialect.mesh.indexHeader;
    const indexOf = (res: HttpResponse, what: string) => {
      expect(res.status, `${what} answers 200`).toBe(200);
      const value = Number(res.header(header));
      expect(Number.isInteger(value) && value > 0, `${what} carries ${header} (${res.header(header)})`).toBe(true);
      return value;
    };
    // This block never rotates the CA, so a roots index of 1 (no older one to ask with) leaves the leaf alone to judge.
    const rootsIndex = indexOf(await kit.mesh.roots(), 'CA roots');
    const service = serviceName('older');
    const leafIndex = indexOf(await kit.mesh.leaf(service), `the leaf of ${service}`);
    expect(leafIndex, `the leaf's ${header} is above 1, so an older index exists`).toBeGreaterThan(1);
    const waitMs = boundMs(kit.ctx, MESH_BOUNDS.olderIndexWait);
    const options = (index: number) => ({ query: { index: String(index - 1), wait: `${waitMs / 1000}s` }, timeoutMs: waitMs + boundMs(kit.ctx, MESH_BOUNDS.requestBeyond) });
    const queries: [string, () => Promise<HttpResponse>][] = [[`the leaf with index ${leafIndex - 1} (current ${leafIndex})`, () => kit.mesh.leaf(service, options(leafIndex))]];
    if (rootsIndex > 1) queries.unshift([`roots with index ${rootsIndex - 1} (current ${rootsIndex})`, () => kit.mesh.roots(options(rootsIndex))]);
    else kit.note(`the roots' ${header} is 1: no older index to ask with, so only the leaf is judged`);
    for (const [what, call] of queries) {
      const started = performance.now();
      const res = await call();
      const elapsed = performance.now() - started;
      expect(res.status, `${what} answers 200`).toBe(200);
      expect(elapsed, `${what} answered after ${Math.round(elapsed)} ms: before its ${waitMs / 1000} s wait elapsed`).toBeLessThan(waitMs - SECOND);
    }
  }, { timeoutMs: (MESH_BOUNDS.olderIndexWait.ms + MESH_BOUNDS.requestBeyond.ms) * 2 + KIT_BOUNDS.ruleBeyond.ms });

  ruleTest('mesh.upstream.method-405-allow', async (kit) => {
    const res = await kit.mesh.http.request({ method: 'DELETE', path: '/v1/agent/connect/ca/roots' });
    expect(res.status).toBe(405);
    expect(res.header('allow'), 'an Allow header').toMatch(/GET/);
  });
});

concurrently('side by side, with the CA left alone (no rotation, the usual leaf lifetime): rules that need the same leaf or the same active root throughout', () => {
  ruleTest('mesh.leaf.blocking-timeout', async (kit) => {
    const service = serviceName('timeout');
    const first = leafOf(kit, await kit.mesh.leaf(service));
    const started = performance.now();
    const waitMs = MESH_MARGINS.timedOutWait.ms;
    const res = await kit.mesh.leaf(service, { query: { index: String(first.ModifyIndex), wait: `${waitMs / 1000}s` }, timeoutMs: waitMs + boundMs(kit.ctx, MESH_BOUNDS.afterWait) + boundMs(kit.ctx, MESH_BOUNDS.requestBeyond) });
    const elapsed = performance.now() - started;
    const again = leafOf(kit, res, 'the blocking leaf query');
    // 10 % under the wait: the harness's and the target's timers may disagree that much, never a product that ignores the wait.
    expect(elapsed, `with nothing to change, the query waited ${Math.round(elapsed)} ms of its ${waitMs} ms`).toBeGreaterThanOrEqual(waitMs * 0.9);
    expect(elapsed, `and returned within ${boundMs(kit.ctx, MESH_BOUNDS.afterWait) / 1000} s after the wait elapsed`).toBeLessThan(waitMs + boundMs(kit.ctx, MESH_BOUNDS.afterWait));
    expect(again.SerialNumber, 'with the same certificate').toBe(first.SerialNumber);
  }, { timeoutMs: MESH_MARGINS.timedOutWait.ms + MESH_BOUNDS.afterWait.ms + MESH_BOUNDS.requestBeyond.ms + KIT_BOUNDS.ruleBeyond.ms });

  ruleTest('mesh.leaf.cached', async (kit) => {
    const service = serviceName('cached');
    const first = leafOf(kit, await kit.mesh.leaf(service));
    for (let i = 0; i < 3; i++) {
      const again = leafOf(kit, await kit.mesh.leaf(service));
      expect(again.SerialNumber, 'a repeated fetch returns the same certificate').toBe(first.SerialNumber);
      expect(again.CertPEM).toBe(first.CertPEM);
    }
  });

  ruleTest('mesh.leaf.chains-to-active-root', async (kit) => {
    await kit.property(
      fc.constantFrom('a', 'b', 'c', 'd'),
      async (tag) => {
        const leaf = leafOf(kit, await kit.mesh.leaf(serviceName(tag)));
        expectChainsToActiveRoot(leaf, await rootsNow(kit));
      },
      { numRuns: Math.min(kit.ctx.runs, 6) },
    );
  });
});

// One at a time: each of these rotates the CA, which gives every service a new leaf and another active root.
ruleTest('mesh.roots.rotation', async (kit) => {
  const before = await rootsNow(kit);
  await kit.meshControl.rotate();
  const after = await rootsNow(kit);
  expect(after.ActiveRootID, 'ActiveRootID changes').not.toBe(before.ActiveRootID);
  const active = after.Roots.filter((r) => r.Active);
  expect(active.map((r) => r.ID), 'the new active root is the only Active one').toEqual([after.ActiveRootID]);
  expect(active[0]!.RootCert, 'with a new certificate').not.toBe(before.Roots.find((r) => r.ID === before.ActiveRootID)?.RootCert);
});

ruleTest('mesh.roots.blocking', async (kit) => {
  const first = await kit.mesh.roots();
  expect(first.status, 'CA roots answers 200').toBe(200);
  const before = first.parse(caRootsSchema);
  // Block on the index the agent reports when it reports one (Consul: X-Consul-Index, the roots
  // table's index), else on the roots' highest ModifyIndex.
  const reported = Number(first.header(kit.mesh.dialect.mesh.indexHeader));
  const index = Number.isInteger(reported) && reported > 0 ? reported : rootsIndex(before);
  const waitMs = boundMs(kit.ctx, MESH_BOUNDS.rootsWake);
  const started = performance.now();
  const blocked = kit.mesh.roots({ query: { index: String(index), wait: `${waitMs / 1000}s` }, timeoutMs: waitMs + boundMs(kit.ctx, MESH_BOUNDS.requestBeyond) });
  await sleep(MESH_MARGINS.headStart.ms);
  await kit.meshControl.rotate();
  const res = await blocked;
  const elapsed = performance.now() - started;
  expect(res.status).toBe(200);
  // A query that slept through the change answers only once its wait elapsed (Consul: plus up to a sixteenth more).
  expect(elapsed, `the blocking query returned ${Math.round(elapsed)} ms after it started, before its ${waitMs / 1000} s wait elapsed`).toBeLessThan(waitMs - SECOND);
  expect(res.parse(caRootsSchema).ActiveRootID, 'with the new active root').not.toBe(before.ActiveRootID);
}, { timeoutMs: MESH_BOUNDS.rootsWake.ms + MESH_BOUNDS.requestBeyond.ms + KIT_BOUNDS.ruleBeyond.ms });

ruleTest('mesh.leaf.serial-monotonic', async (kit) => {
  const services = [serviceName('serial'), serviceName('serial'), serviceName('serial'), serviceName('serial')];
  let highest = 0n;
  const seen = new Map<string, bigint>();
  await kit.property(
    fc.array(fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...services) }, { weight: 1, arbitrary: fc.constant('rotate') }), { minLength: 3, maxLength: 12 }),
    async (steps) => {
      for (const step of steps) {
        if (step === 'rotate') {
          await kit.meshControl.rotate();
          continue;
        }
        const leaf = leafOf(kit, await kit.mesh.leaf(step));
        const serial = serialValue(leaf.SerialNumber);
        expect(serial, `SerialNumber ${leaf.SerialNumber} is the certificate's serial`).toBe(BigInt(`0x${certOf(leaf).serialNumber}`));
        if (seen.get(step) !== serial) {
          expect(serial > highest, `the new certificate for ${step} has serial ${serial}, above every earlier one (${highest})`).toBe(true);
          highest = serial;
          seen.set(step, serial);
        }
      }
    },
    // Two different services in a row: a per-service counter shows there under any seed.
    { numRuns: Math.min(kit.ctx.runs, 10), examples: [[services[0]!, services[1]!, 'rotate', services[2]!, services[0]!]] },
  );
});

ruleTest('mesh.leaf.new-after-rotation', async (kit) => {
  const service = serviceName('rotated');
  const before = leafOf(kit, await kit.mesh.leaf(service));
  await kit.meshControl.rotate();
  const after = leafOf(kit, await kit.mesh.leaf(service));
  expect(after.SerialNumber, 'a new certificate after the rotation').not.toBe(before.SerialNumber);
  expectChainsToActiveRoot(after, await rootsNow(kit), 'the new leaf');
});

ruleTest('mesh.leaf.blocking-wakes-on-rotation', async (kit) => {
  const service = serviceName('wake');
  const first = leafOf(kit, await kit.mesh.leaf(service));
  const started = performance.now();
  const waitS = Math.round(boundMs(kit.ctx, MESH_BOUNDS.leafWake) / 1000);
  const blocked = kit.mesh.leaf(service, { query: { index: String(first.ModifyIndex), wait: `${waitS}s` }, timeoutMs: waitS * 1000 + boundMs(kit.ctx, MESH_BOUNDS.requestBeyond) });
  await sleep(MESH_MARGINS.headStart.ms);
  await kit.meshControl.rotate();
  const woken = leafOf(kit, await blocked, 'the blocking leaf query');
  const elapsed = performance.now() - started;
  kit.note(`the blocking query returned ${Math.round(elapsed)} ms after it started`);
  expect(woken.SerialNumber, `the blocking query returned a new certificate after the rotation (it answered after ${Math.round(elapsed)} ms of its ${waitS} s wait)`).not.toBe(first.SerialNumber);
  expect(elapsed, `the new leaf came ${Math.round(elapsed)} ms after the query started: before its ${waitS} s wait elapsed`).toBeLessThan(waitS * 1000);
  expectChainsToActiveRoot(woken, await rootsNow(kit), 'the new leaf');
}, { timeoutMs: MESH_BOUNDS.leafWake.ms + MESH_BOUNDS.requestBeyond.ms + KIT_BOUNDS.ruleBeyond.ms });

ruleTest('mesh.upstream.rotation-cross-signed', async (kit) => {
  const before = await rootsNow(kit);
  const oldRoot = activeRootCert(before);
  await kit.meshControl.rotate();
  const after = await rootsNow(kit);
  expect(after.ActiveRootID, 'the rotation made another root active').not.toBe(before.ActiveRootID);
  const active = after.Roots.find((r) => r.ID === after.ActiveRootID)!;
  const newKey = new X509Certificate(active.RootCert).publicKey.export({ format: 'der', type: 'spki' });
  const listed = pemCertificates((active.IntermediateCerts ?? []).join('\n'));
  const crossSigned = listed.find((c) => c.checkIssued(oldRoot) && c.verify(oldRoot.publicKey));
  expect(crossSigned, `the new active root's IntermediateCerts (${listed.length}) hold a certificate the old root ${before.ActiveRootID} signed`).toBeDefined();
  expect(crossSigned!.publicKey.export({ format: 'der', type: 'spki' }).equals(newKey), "that certificate carries the new root's key").toBe(true);
  const leaf = leafOf(kit, await kit.mesh.leaf(serviceName('xsign')), 'a leaf issued after the rotation');
  const [cert, ...bundled] = pemCertificates(leaf.CertPEM);
  const viaListed = pathToAnchor(cert!, listed, oldRoot);
  expect(viaListed, "the new leaf verifies for a peer that trusts only the old root, through the new active root's IntermediateCerts").toBeDefined();
  kit.note(`chain to the old root: ${[cert!.subject, ...viaListed!].join(' -> ')}`);
  expect(pathToAnchor(cert!, bundled, oldRoot), `and through the ${bundled.length} certificate(s) after it in CertPEM, which its holder presents`).toBeDefined();
});
