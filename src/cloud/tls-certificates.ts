import { createHash, createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import { x509 } from '../crypto/x509.ts';

/**
 * The certificates the cloud simulator's proxy presents as login.microsoftonline.com and
 * management.azure.com: a certificate authority (which the product's plugin is told to trust, via
 * SSL_CERT_FILE) and, signed by it, one certificate naming the simulated hosts. Real X.509, as Go's
 * crypto/x509 verifies it: the host names in the subject alternative names, server-auth usage.
 */

export interface PemPair {
  certPem: string;
  keyPem: string;
}

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
/** Leaves and roots may be checked by a server whose clock is somewhat behind. */
const CLOCK_SKEW_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

function serial(): string {
  // A positive 16-byte serial (the top bit clear), as RFC 5280 asks.
  const bytes = randomBytes(16);
  bytes[0]! &= 0x7f;
  return bytes.toString('hex');
}

function keyId(publicKey: x509.PublicKey): string {
  return createHash('sha1').update(Buffer.from(publicKey.rawData)).digest('hex');
}

async function pkcs8Pem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key)).toString('base64');
  return `-----BEGIN PRIVATE KEY-----\n${der.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`;
}

async function newKeys(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
}

/** A new certificate authority (ECDSA P-256), valid for `days` from an hour ago. */
export async function newCertificateAuthority(days = 7, name = 'stackproof cloud simulator CA'): Promise<PemPair> {
  const keys = await newKeys();
  const notBefore = new Date(Date.now() - CLOCK_SKEW_MS);
  const spki = await x509.PublicKey.create(keys.publicKey);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${name}`,
    notBefore,
    notAfter: new Date(notBefore.getTime() + days * DAY_MS),
    keys,
    signingAlgorithm: EC,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      new x509.SubjectKeyIdentifierExtension(keyId(spki)),
    ],
  });
  return { certPem: `${cert.toString('pem')}\n`, keyPem: await pkcs8Pem(keys.privateKey) };
}

/**
 * Reads a certificate authority back (kept across runs, for a server that has a copy of its
 * certificate). Its key must be ECDSA P-256, as newCertificateAuthority makes it.
 */
export async function loadCertificateAuthority(pair: PemPair): Promise<{ cert: x509.X509Certificate; key: CryptoKey }> {
  let cert: x509.X509Certificate;
  try {
    cert = new x509.X509Certificate(pair.certPem);
  } catch (err) {
    throw new Error(`the CA certificate is not a PEM certificate (${(err as Error).message})`);
  }
  let der: Buffer;
  try {
    const key = createPrivateKey(pair.keyPem);
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw new Error(`a ${key.asymmetricKeyType} key${key.asymmetricKeyDetails?.namedCurve ? ` on ${key.asymmetricKeyDetails.namedCurve}` : ''}`);
    der = key.export({ type: 'pkcs8', format: 'der' });
  } catch (err) {
    throw new Error(`the CA key must be an ECDSA P-256 private key in PEM (${(err as Error).message})`);
  }
  const key = await webcrypto.subtle.importKey('pkcs8', der, EC, false, ['sign']);
  if (cert.notAfter.getTime() < Date.now()) throw new Error(`the CA certificate expired on ${cert.notAfter.toISOString()}`);
  return { cert, key };
}

/** A server certificate for `hosts`, signed by the authority, valid for a week from an hour ago. */
export async function hostCertificate(authority: PemPair, hosts: readonly string[]): Promise<PemPair> {
  const ca = await loadCertificateAuthority(authority);
  const keys = await newKeys();
  const spki = await x509.PublicKey.create(keys.publicKey);
  const caSki = ca.cert.getExtension(x509.SubjectKeyIdentifierExtension);
  const notBefore = new Date(Date.now() - CLOCK_SKEW_MS);
  const notAfter = new Date(Math.min(notBefore.getTime() + 7 * DAY_MS, ca.cert.notAfter.getTime()));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${hosts[0]}`,
    issuer: ca.cert.subject,
    notBefore,
    notAfter,
    publicKey: keys.publicKey,
    signingKey: ca.key,
    signingAlgorithm: EC,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(hosts.map((value) => ({ type: 'dns' as const, value }))),
      new x509.SubjectKeyIdentifierExtension(keyId(spki)),
      ...(caSki ? [new x509.AuthorityKeyIdentifierExtension(caSki.keyId)] : []),
    ],
  });
  return { certPem: `${cert.toString('pem')}\n`, keyPem: await pkcs8Pem(keys.privateKey) };
}
