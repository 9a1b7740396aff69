import { x509 } from '../../crypto/x509.ts';
import type { CaKey } from './ca-keys.ts';
import { certificateSerialHex } from './serial-number.ts';

const AUTHORITY_KEY_IDENTIFIER = '2.5.29.35';
/** The drift allowance Consul gives every certificate it signs (CertificateTimeDriftBuffer). */
export const CLOCK_DRIFT_MS = 60_000;
/**
 * How long a cross-signed root is valid: only while leaves of the old root are in use, which
 * Consul bounds at 7 days (agent/connect/ca/provider_consul.go CrossSignCA).
 */
const CROSS_SIGNED_LIFETIME_MS = 7 * 24 * 3600 * 1000;

/**
 * The new root certificate re-signed by the old root's key, as CrossSignCA makes it: the new
 * root's subject, public key and extensions, issued by the old root, with the old key's id as
 * AuthorityKeyId. A peer that trusts only the old root reaches it from a leaf of the new root
 * through this certificate.
 */
export async function crossSignRoot(newRoot: x509.X509Certificate, oldRoot: { cert: x509.X509Certificate; key: CaKey }, serial: bigint): Promise<x509.X509Certificate> {
  const notBefore = new Date(Math.floor((Date.now() - CLOCK_DRIFT_MS) / 1000) * 1000);
  return x509.X509CertificateGenerator.create({
    serialNumber: certificateSerialHex(serial),
    subject: newRoot.subjectName,
    issuer: oldRoot.cert.subjectName,
    notBefore,
    notAfter: new Date(notBefore.getTime() + CROSS_SIGNED_LIFETIME_MS),
    publicKey: newRoot.publicKey,
    signingKey: oldRoot.key.privateKey,
    signingAlgorithm: oldRoot.key.signingAlgorithm,
    extensions: [
      ...newRoot.extensions.filter((e) => e.type !== AUTHORITY_KEY_IDENTIFIER),
      new x509.AuthorityKeyIdentifierExtension(oldRoot.key.keyId.toString('hex')),
    ],
  });
}
