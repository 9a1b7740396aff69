import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { expect } from 'vitest';
import type { HttpResponse } from '../../src/client/http-client.ts';
import { leafSchemaFor, type LeafResponse } from '../../src/client/mesh-api.ts';
import { caRootsSchema, type CaRootsResponse } from '../../src/client/schemas/mesh.ts';
import { expectShape } from './expect-shape.ts';
import type { RuleKit } from './rule-kit.ts';
import { uniqueName } from './run-names.ts';

/** A service name unique to this run, under the run prefix (cleanup finds its intentions by it). */
export function serviceName(tag: string): string {
  return uniqueName(tag);
}

/** Whether the mesh target declares Enterprise namespaces (then leaves must carry Namespace). */
export function meshNamespaces(kit: RuleKit): boolean {
  return Boolean(kit.ctx.targets.mesh?.capabilities.namespaces);
}

export function leafOf(kit: RuleKit, res: HttpResponse, what = 'leaf'): LeafResponse {
  expect(res.status, `${what}: ${res.exchange.method} ${res.exchange.url} answers 200 (${res.text.slice(0, 200)})`).toBe(200);
  return expectShape(res, leafSchemaFor(meshNamespaces(kit)), what);
}

export async function rootsNow(kit: RuleKit): Promise<CaRootsResponse> {
  const res = await kit.mesh.roots();
  expect(res.status, 'CA roots answers 200').toBe(200);
  return res.parse(caRootsSchema);
}

export function activeRootCert(roots: CaRootsResponse): X509Certificate {
  const active = roots.Roots.find((r) => r.ID === roots.ActiveRootID);
  expect(active, 'ActiveRootID names a root').toBeDefined();
  return new X509Certificate(active!.RootCert);
}

/** Every certificate of a PEM bundle, in order. */
function certsOf(pem: string, what: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch (err) {
      expect.fail(`${what}: certificate ${i + 1} does not parse as X.509: ${(err as Error).message}`);
    }
  });
}

/** The leaf's own certificate: the first of CertPEM (upstream appends the intermediates after it). */
export function certOf(leaf: LeafResponse): X509Certificate {
  try {
    return new X509Certificate(leaf.CertPEM);
  } catch (err) {
    expect.fail(`CertPEM does not parse as an X.509 certificate: ${(err as Error).message}`);
  }
}

/**
 * Asserts the leaf chains to the active root: signed by it, or by an intermediate that chains to it.
 * The intermediates are those a proxy is given: the certificates after the leaf in CertPEM and the
 * active root's IntermediateCerts (Consul signs with an intermediate in secondary datacenters and
 * with the Vault provider, and appends the intermediates to CertPEM).
 */
export function expectChainsToActiveRoot(leaf: LeafResponse, roots: CaRootsResponse, what = 'the leaf'): void {
  const active = roots.Roots.find((r) => r.ID === roots.ActiveRootID);
  expect(active, 'ActiveRootID names a root').toBeDefined();
  const root = new X509Certificate(active!.RootCert);
  const [cert, ...bundled] = certsOf(leaf.CertPEM, 'CertPEM');
  expect(cert, 'CertPEM holds a certificate').toBeDefined();
  const intermediates = [...bundled, ...certsOf((active!.IntermediateCerts ?? []).join('\n'), 'IntermediateCerts')];
  const signs = (issuer: X509Certificate, subject: X509Certificate) => subject.checkIssued(issuer) && subject.verify(issuer.publicKey);
  const path: string[] = [];
  let current = cert!;
  // Each step must move to a certificate not used yet, so a loop of cross-signed certificates ends.
  const unused = new Set(intermediates);
  for (;;) {
    if (signs(root, current)) return;
    const next = [...unused].find((i) => i.ca && signs(i, current));
    if (!next) break;
    path.push(next.subject);
    unused.delete(next);
    current = next;
  }
  expect.fail(
    `${what} does not chain to the active root ${active!.ID}: ${path.length ? `through ${path.join(' -> ')}, then` : ''} no root or intermediate signed "${current.subject}" (issuer "${current.issuer}")`,
  );
}

/** The serial of a colon-hex (or plain hex) serial number, as a bigint. */
export function serialValue(text: string): bigint {
  const hex = text.replace(/:/g, '');
  expect(hex, `serial ${text} is hexadecimal`).toMatch(/^[0-9a-fA-F]+$/);
  return BigInt(`0x${hex}`);
}

export function publicKeyOfPrivate(pem: string): string {
  return createPublicKey(createPrivateKey(pem)).export({ format: 'pem', type: 'spki' }).toString();
}

/** The index to block on: the leaf's ModifyIndex, or the roots' highest ModifyIndex. */
export function rootsIndex(roots: CaRootsResponse): number {
  return Math.max(...roots.Roots.map((r) => r.ModifyIndex));
}

/** A token with service:write on the given services, from the mesh fixtures; registered as a secret. */
export async function tokenFor(kit: RuleKit, services: string[], namespace?: string): Promise<string> {
  return kit.meshFixtures.token(services, namespace);
}

/** A token with service:read, not write, on these services (exact names). */
export async function readTokenFor(kit: RuleKit, services: string[]): Promise<string> {
  return kit.meshFixtures.token([], undefined, services);
}

/**
 * A 4xx refusal, never a 5xx: a server error says nothing about whether the check the rule is about
 * was made (Consul refuses ACL failures with 403, agent/http.go HTTPHandlers.wrap).
 */
export function expectRefused(res: HttpResponse, what: string): void {
  expect(res.status, `${what} is refused with a 4xx (got ${res.status}: ${res.text.slice(0, 120)})`).toBeGreaterThanOrEqual(400);
  expect(res.status, `${what} is refused with a 4xx, not a server error (got ${res.status}: ${res.text.slice(0, 120)})`).toBeLessThan(500);
}

/**
 * The target's clock as its answer's Date header shows it (1 s resolution, so the lower bound of
 * its time), for judging a leaf's validity by the clock that issued it; the harness's own clock
 * when the header is missing.
 */
export function targetClock(res: HttpResponse): { now(): number } {
  const stated = Date.parse(res.header('date') ?? '');
  const offset = Number.isNaN(stated) ? 0 : stated - Date.now();
  return { now: () => Date.now() + offset };
}
