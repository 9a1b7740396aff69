import { createHash, webcrypto } from 'node:crypto';
type CryptoKeyPair = webcrypto.CryptoKeyPair;
import { x509 } from '../../crypto/x509.ts';

export interface CaRoot {
  ID: string;
  Name: string;
  SerialNumber: number;
  SigningKeyID: string;
  ExternalTrustDomain: string;
  NotBefore: string;
  NotAfter: string;
  RootCert: string;
  IntermediateCerts: string[] | null;
  Active: boolean;
  PrivateKeyType: string;
  PrivateKeyBits: number;
  CreateIndex: number;
  ModifyIndex: number;
}

interface RootMaterial {
  record: CaRoot;
  cert: x509.X509Certificate;
  keys: CryptoKeyPair;
}

const ROOT_LIFETIME_MS = 10 * 365 * 24 * 3600 * 1000;

function colonHex(bytes: ArrayBuffer | Uint8Array): string {
  return Buffer.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes))
    .toString('hex')
    .match(/../g)!
    .join(':');
}

/**
 * A real certificate authority: an EC P-256 root key and self-signed root certificate per
 * generation. Rotation adds a new active root and keeps the old one, inactive, in the list.
 */
export class CertificateAuthority {
  private readonly generations: RootMaterial[] = [];
  private rootSerial = 0;

  private constructor(
    readonly trustDomain: string,
    private readonly nextIndex: () => number,
  ) {}

  static async create(trustDomain: string, nextIndex: () => number): Promise<CertificateAuthority> {
    const ca = new CertificateAuthority(trustDomain, nextIndex);
    await ca.rotate();
    return ca;
  }

  get active(): RootMaterial {
    return this.generations.find((g) => g.record.Active)!;
  }

  roots(): CaRoot[] {
    return this.generations.map((g) => ({ ...g.record }));
  }

  /**
   * Signs a leaf for a service: the key pair and signing request are made here, as the agent does,
   * and the active root signs it with the next serial of the cluster.
   */
  async signLeaf(spiffeUri: string, service: string, serial: bigint, lifetimeMs: number, selfSigned = false): Promise<{ certPem: string; keyPem: string; notBefore: Date; notAfter: Date; rootId: string }> {
    const keys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({
      name: `CN=${service}`,
      keys,
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
      extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'url', value: spiffeUri }])],
    });
    const root = this.active;
    const notBefore = new Date(Math.floor((Date.now() - 60_000) / 1000) * 1000);
    const notAfter = new Date(notBefore.getTime() + lifetimeMs);
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serial.toString(16).padStart(2, '0'),
      subject: csr.subjectName,
      issuer: root.cert.subjectName,
      notBefore,
      notAfter,
      publicKey: csr.publicKey,
      signingKey: selfSigned ? keys.privateKey : root.keys.privateKey,
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.keyAgreement, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
        new x509.SubjectAlternativeNameExtension([{ type: 'url', value: spiffeUri }]),
        await x509.AuthorityKeyIdentifierExtension.create(root.keys.publicKey),
      ],
    });
    const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
    const keyPem = `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`;
    return { certPem: cert.toString('pem'), keyPem, notBefore, notAfter, rootId: root.record.ID };
  }

  /** Makes a new root active; the previous ones stay listed so that existing leaves still verify. */
  async rotate(): Promise<CaRoot> {
    const keys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
    this.rootSerial += 1;
    const notBefore = new Date(Date.now() - 60_000);
    const notAfter = new Date(notBefore.getTime() + ROOT_LIFETIME_MS);
    const ski = await x509.SubjectKeyIdentifierExtension.create(keys.publicKey);
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: this.rootSerial.toString(16).padStart(2, '0'),
      name: `CN=stackproof CA Primary Cert ${this.rootSerial}`,
      notBefore,
      notAfter,
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
      keys,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
        ski,
        new x509.SubjectAlternativeNameExtension([{ type: 'url', value: `spiffe://${this.trustDomain}` }]),
      ],
    });
    const index = this.nextIndex();
    for (const g of this.generations) {
      g.record.Active = false;
      g.record.ModifyIndex = index;
    }
    const record: CaRoot = {
      ID: colonHex(createHash('sha1').update(Buffer.from(cert.rawData)).digest()),
      Name: `stackproof CA Primary Cert ${this.rootSerial}`,
      SerialNumber: this.rootSerial,
      SigningKeyID: colonHex(Buffer.from(ski.keyId, 'hex')),
      ExternalTrustDomain: this.trustDomain.replace(/\.consul$/, ''),
      NotBefore: notBefore.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      NotAfter: notAfter.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      RootCert: cert.toString('pem'),
      IntermediateCerts: null,
      Active: true,
      PrivateKeyType: 'ec',
      PrivateKeyBits: 256,
      CreateIndex: index,
      ModifyIndex: index,
    };
    this.generations.push({ record, cert, keys });
    return { ...record };
  }
}
