import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { expect } from 'vitest';
import type { HttpResponse } from '../../src/client/http-client.ts';
import { leafSchema, type LeafResponse } from '../../src/client/mesh-api.ts';
import { caRootsSchema, type CaRootsResponse } from '../../src/client/schemas/mesh.ts';
import { expectShape } from './expect-shape.ts';
import type { RuleKit } from './rule-kit.ts';

let n = 0;
const run = `sp${Date.now().toString(36)}${Math.random().toString(36).slice(2, 5)}`;

/** A service name unique to this run. */
export function serviceName(tag: string): string {
  n += 1;
  return `${run}-${tag}-${n}`;
}

export function leafOf(res: HttpResponse, what = 'leaf'): LeafResponse {
  expect(res.status, `${what}: ${res.exchange.method} ${res.exchange.url} answers 200 (${res.text.slice(0, 200)})`).toBe(200);
  return expectShape(res, leafSchema, what);
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

export function certOf(leaf: LeafResponse): X509Certificate {
  try {
    return new X509Certificate(leaf.CertPEM);
  } catch (err) {
    expect.fail(`CertPEM does not parse as an X.509 certificate: ${(err as Error).message}`);
  }
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
  const token = await kit.meshControl.token(services, namespace);
  kit.secret(token);
  return token;
}
