import { createHash, createPrivateKey, createPublicKey, generateKeyPair, webcrypto, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';

type CryptoKey = webcrypto.CryptoKey;

/** A CA signing key, ready for @peculiar/x509, with what Consul records about it. */
export interface CaKey {
  type: 'ec' | 'rsa';
  bits: number;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  /** Consul's connect.KeyId: SHA-256 of the DER public key, used as SubjectKeyId and AuthorityKeyId. */
  keyId: Buffer;
  /** connect.SigAlgoForKey: SHA-256 with the key's algorithm, whatever the curve or modulus. */
  signingAlgorithm: { name: string; hash: string };
  /** The private key in PEM, as a client would put it in the CA configuration's PrivateKey. */
  pem: string;
}

export type ParsedCaKey = { ok: true; key: CaKey } | { ok: false; message: string };

const CURVE_BITS: Record<string, number> = { prime256v1: 256, secp384r1: 384, secp521r1: 521, secp224r1: 224 };
const WEB_CURVES: Record<number, string> = { 256: 'P-256', 384: 'P-384', 521: 'P-521' };
const NODE_CURVES: Record<number, string> = { 224: 'secp224r1', 256: 'prime256v1', 384: 'secp384r1', 521: 'secp521r1' };
/** connect.ParseSigner's PEM block types and the DER encodings they carry. */
const BLOCK_ENCODINGS: Record<string, 'sec1' | 'pkcs1' | 'pkcs8'> = { 'EC PRIVATE KEY': 'sec1', 'RSA PRIVATE KEY': 'pkcs1', 'PRIVATE KEY': 'pkcs8' };

const generate = promisify(generateKeyPair);

/**
 * A new key of the configured type, as connect.GeneratePrivateKeyWithConfig makes it: EC keys in
 * SEC 1 ("EC PRIVATE KEY"), RSA keys in PKCS #1 ("RSA PRIVATE KEY").
 */
export async function generateCaKey(type: 'ec' | 'rsa', bits: number): Promise<ParsedCaKey> {
  const { privateKey } = type === 'rsa' ? await generate('rsa', { modulusLength: bits }) : await generate('ec', { namedCurve: NODE_CURVES[bits] ?? 'prime256v1' });
  const pem = privateKey.export({ format: 'pem', type: type === 'rsa' ? 'pkcs1' : 'sec1' }).toString();
  return fromKeyObject(privateKey, pem);
}

/**
 * Reads a configured PrivateKey as connect.ParseSigner does: the first PEM block, whose type says
 * its encoding; the texts of the errors are Consul's where it has one of its own.
 */
export async function parseCaPrivateKey(pem: string): Promise<ParsedCaKey> {
  const block = /-----BEGIN ([^\r\n-]+)-----\r?\n([\s\S]*?)-----END \1-----/.exec(pem);
  if (!block) return { ok: false, message: 'no PEM-encoded data found' };
  const encoding = BLOCK_ENCODINGS[block[1]!];
  if (!encoding) return { ok: false, message: `unknown PEM block type for signing key: ${block[1]}` };
  // PEM headers (RFC 1421 "Name: value" lines) come before the base64 body.
  const body = block[2]!.replace(/^[^\r\n:]+:[^\r\n]*\r?\n/gm, '').replace(/\s+/g, '');
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: Buffer.from(body, 'base64'), format: 'der', type: encoding });
  } catch {
    return { ok: false, message: encoding === 'sec1' ? 'x509: failed to parse EC private key' : encoding === 'pkcs1' ? 'x509: failed to parse RSA private key' : 'x509: failed to parse private key' };
  }
  return fromKeyObject(key, pem);
}

async function fromKeyObject(key: KeyObject, pem: string): Promise<ParsedCaKey> {
  const spki = createPublicKey(key).export({ format: 'der', type: 'spki' });
  const pkcs8 = key.export({ format: 'der', type: 'pkcs8' });
  const keyId = createHash('sha256').update(spki).digest();
  if (key.asymmetricKeyType === 'rsa') {
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
    const algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    const privateKey = await webcrypto.subtle.importKey('pkcs8', pkcs8, algorithm, true, ['sign']);
    const publicKey = await webcrypto.subtle.importKey('spki', spki, algorithm, true, ['verify']);
    return { ok: true, key: { type: 'rsa', bits, privateKey, publicKey, keyId, signingAlgorithm: algorithm, pem } };
  }
  if (key.asymmetricKeyType === 'ec') {
    const bits = CURVE_BITS[key.asymmetricKeyDetails?.namedCurve ?? ''];
    const curve = bits === undefined ? undefined : WEB_CURVES[bits];
    // Consul takes P-224 too; WebCrypto, which signs the reference's certificates, does not.
    if (!curve) return { ok: false, message: `the reference agent cannot sign with an EC key on curve ${key.asymmetricKeyDetails?.namedCurve ?? 'unknown'}` };
    const algorithm = { name: 'ECDSA', namedCurve: curve };
    const privateKey = await webcrypto.subtle.importKey('pkcs8', pkcs8, algorithm, true, ['sign']);
    const publicKey = await webcrypto.subtle.importKey('spki', spki, algorithm, true, ['verify']);
    return { ok: true, key: { type: 'ec', bits: bits!, privateKey, publicKey, keyId, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' }, pem } };
  }
  // connect.KeyId accepts only ECDSA and RSA public keys.
  return { ok: false, message: `Invalid key type: ${key.asymmetricKeyType}` };
}
