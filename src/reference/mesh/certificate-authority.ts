import { createHash, webcrypto, X509Certificate } from 'node:crypto';
import { x509 } from '../../crypto/x509.ts';
import {
  DEV_AGENT_CA_CONFIG,
  parseConsulProviderConfig,
  providerIdentity,
  sameJson,
  type CaConfigurationRecord,
  type CaConfigurationRequest,
  type ConsulProviderConfig,
} from './ca-configuration.ts';
import { generateCaKey, parseCaPrivateKey, type CaKey, type ParsedCaKey } from './ca-keys.ts';
import { CLOCK_DRIFT_MS, crossSignRoot } from './cross-sign.ts';
import { NS_PER_MS } from './go-duration.ts';
import { certificateSerialHex } from './serial-number.ts';

type CryptoKeyPair = webcrypto.CryptoKeyPair;

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

interface RootGeneration {
  record: CaRoot;
  cert: x509.X509Certificate;
  key: CaKey;
}

/**
 * Why a configuration change was refused, in Consul's words. Consul answers its CA manager's
 * validation errors with 500 (agent/http.go, the default branch of handleErr); the reference
 * answers bad input with 400 and the same text, as its other admin endpoints do
 * (consul-errors.ts), and keeps 500 for a reconfiguration already under way.
 */
export interface CaRefusal {
  ok: false;
  status: 400 | 500;
  message: string;
}
export type CaUpdate = { ok: true; rotated: boolean } | CaRefusal;

/** Faults of the reference that change how a leaf is signed (see faults/mesh.ts). */
export interface LeafSigningFaults {
  /** Signed by the leaf's own key instead of the CA. */
  selfSigned?: boolean;
  /** Extended key usage serverAuth only: the leaf cannot act as a TLS client. */
  serverAuthOnly?: boolean;
  /** mesh.leaf-key-cert-sign: the leaf's key usage also asserts keyCertSign, as a CA's would. */
  keyCertSign?: boolean;
}

export interface CertificateAuthorityOptions {
  /** The serial the next certificate gets; by default a random one in 0x1001..0x2000. */
  firstSerial?: bigint;
}

/** The provider whose root is active, known by its identity (see providerIdentity). */
interface ActiveProvider {
  identity: string;
  settings: ConsulProviderConfig;
}

function colonHex(bytes: Uint8Array | ArrayBuffer): string {
  return Buffer.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)).toString('hex').match(/../g)!.join(':');
}

/** Go's pem.Encode ends every block with a newline, and Consul keeps PEM that way (lib.EnsureTrailingNewline). */
function pemOf(cert: x509.X509Certificate): string {
  return `${cert.toString('pem')}\n`;
}

function goTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const refuse = (status: 400 | 500, message: string): CaRefusal => ({ ok: false, status, message });

/**
 * The built-in CA provider of a Consul primary datacenter, with real X.509: a root per provider
 * configuration, one serial counter for every certificate it signs (roots, cross-signed roots and
 * leaves), and rotation as agent/consul/leader_connect_ca.go CAManager.UpdateConfiguration does it.
 * A change of key, root certificate, key type or size makes a new root, which the old root
 * cross-signs; the cross-signed certificate goes into the new root's IntermediateCerts and after
 * every new leaf, so peers that trust only the old root still verify new leaves. Other changes
 * (LeafCertTTL, SkipValidate, ...) only update the configuration.
 */
export class CertificateAuthority {
  private readonly generations: RootGeneration[] = [];
  private serial: bigint;
  private config!: CaConfigurationRecord;
  private provider!: ActiveProvider;
  /** Consul refuses a second reconfiguration while one runs (CAManager.setState). */
  private reconfiguring = false;
  /**
   * Goes up on every change of the roots or the configuration, so an answer serialised from them
   * (the agent's roots) can be kept until it does.
   */
  private changes = 0;

  private constructor(
    readonly trustDomain: string,
    private readonly nextIndex: () => number,
    options: CertificateAuthorityOptions,
  ) {
    this.serial = (options.firstSerial ?? BigInt(0x1001 + Math.floor(Math.random() * 0x1000))) - 1n;
  }

  /** Bootstraps like a dev agent: the default configuration and a generated EC P-256 root. */
  static async create(trustDomain: string, nextIndex: () => number, options: CertificateAuthorityOptions = {}): Promise<CertificateAuthority> {
    const ca = new CertificateAuthority(trustDomain, nextIndex, options);
    const parsed = parseConsulProviderConfig(DEV_AGENT_CA_CONFIG);
    if (!parsed.ok) throw new Error(`the default CA configuration does not parse: ${parsed.message}`);
    const key = await generateCaKey('ec', 256);
    if (!key.ok) throw new Error(key.message);
    const root = await ca.newRoot(key.key, parsed.value, '');
    const index = nextIndex();
    root.record.CreateIndex = root.record.ModifyIndex = index;
    ca.generations.push(root);
    ca.config = { Provider: 'consul', Config: { ...DEV_AGENT_CA_CONFIG }, State: null, ForceWithoutCrossSigning: false, CreateIndex: index, ModifyIndex: index };
    ca.provider = { identity: providerIdentity(parsed.value), settings: parsed.value };
    return ca;
  }

  get version(): number {
    return this.changes;
  }

  get active(): RootGeneration {
    return this.generations.find((g) => g.record.Active)!;
  }

  roots(): CaRoot[] {
    return this.generations.map((g) => ({ ...g.record, IntermediateCerts: g.record.IntermediateCerts && [...g.record.IntermediateCerts] }));
  }

  /** The stored configuration, as GET /v1/connect/ca/configuration shows it. */
  configuration(): CaConfigurationRecord {
    return structuredClone(this.config);
  }

  /** Lifetime of the leaves signed from now on: the configured LeafCertTTL. */
  get leafLifetimeMs(): number {
    return Number(this.provider.settings.leafCertTtlNs / NS_PER_MS);
  }

  /**
   * Reference setup (the control listener's leaf lifetime): LeafCertTTL set with SkipValidate, as
   * Consul's own tests shorten it below the 1 h minimum. Leaves signed before keep their lifetime.
   */
  setLeafLifetime(ms: number): void {
    const Config = { ...this.config.Config, LeafCertTTL: `${ms / 1000}s`, SkipValidate: true };
    const parsed = parseConsulProviderConfig(Config);
    if (!parsed.ok) throw new Error(parsed.message);
    this.storeConfig({ ...this.config, Config }, parsed.value);
  }

  /** The next serial of the cluster's single counter (the provider's incrementAndGetNextSerialNumber). */
  nextSerial(): bigint {
    this.serial += 1n;
    return this.serial;
  }

  /**
   * PUT /v1/connect/ca/configuration, in CAManager.UpdateConfiguration's order: provider State is
   * read-only, an unchanged Provider and Config is a no-op, the provider must exist and its Config
   * must parse and validate, then either the configuration alone changes or a new root is made,
   * cross-signed by the old one unless ForceWithoutCrossSigning, and made active.
   */
  async updateConfiguration(request: CaConfigurationRequest): Promise<CaUpdate> {
    if (this.reconfiguring) return refuse(500, 'CA is already in state "RECONFIGURING"');
    if (request.State && Object.keys(request.State).length > 0 && !sameJson(request.State, this.config.State)) {
      return refuse(400, 'Provider State is read-only. It must be omitted or identical to the current value');
    }
    if (request.Provider === this.config.Provider && sameJson(request.Config, this.config.Config)) return { ok: true, rotated: false };
    if (request.Provider === 'vault' || request.Provider === 'aws-pca') {
      return refuse(400, `error configuring provider: the reference agent has only the built-in CA provider ("consul"), not "${request.Provider}"`);
    }
    if (request.Provider !== 'consul') return refuse(400, `could not initialize provider: unknown CA provider ${JSON.stringify(request.Provider)}`);
    const parsed = parseConsulProviderConfig(request.Config);
    if (!parsed.ok) return refuse(400, `error configuring provider: ${parsed.message}`);
    const settings = parsed.value;
    const identity = providerIdentity(settings);
    const next: CaConfigurationRecord = { ...this.config, Provider: request.Provider, Config: request.Config && structuredClone(request.Config), State: null, ForceWithoutCrossSigning: request.ForceWithoutCrossSigning };
    if (identity === this.provider.identity) {
      this.storeConfig(next, settings);
      return { ok: true, rotated: false };
    }
    this.reconfiguring = true;
    try {
      return await this.rotateTo(next, settings);
    } finally {
      this.reconfiguring = false;
    }
  }

  /**
   * Reference setup (the control listener's rotation): a new key of the configured type and size,
   * put into the configuration as a client of Consul's API would, through updateConfiguration.
   */
  async rotate(): Promise<CaRoot> {
    const { privateKeyType, privateKeyBits } = this.provider.settings;
    const key = await generateCaKey(privateKeyType === 'rsa' ? 'rsa' : 'ec', privateKeyBits);
    if (!key.ok) throw new Error(`cannot make a new CA key: ${key.message}`);
    const { RootCert: _root, ...kept } = this.config.Config ?? {};
    const result = await this.updateConfiguration({ Provider: this.config.Provider, Config: { ...kept, PrivateKey: key.key.pem }, State: null, ForceWithoutCrossSigning: false });
    if (!result.ok) throw new Error(`the CA rotation was refused: ${result.message}`);
    return { ...this.active.record };
  }

  private storeConfig(next: CaConfigurationRecord, settings: ConsulProviderConfig, index = this.nextIndex()): void {
    this.changes += 1;
    this.config = { ...next, ModifyIndex: index };
    this.provider = { identity: providerIdentity(settings), settings };
  }

  private async rotateTo(next: CaConfigurationRecord, settings: ConsulProviderConfig): Promise<CaUpdate> {
    const key = settings.privateKey ? await parseCaPrivateKey(settings.privateKey) : await this.generatedKey(settings);
    if (!key.ok) {
      return refuse(400, settings.privateKey ? `error generating CA root certificate: error generating CA: error parsing private key ${JSON.stringify(settings.privateKey)}: ${key.message}` : `error generating CA root certificate: ${key.message}`);
    }
    let root: RootGeneration;
    try {
      root = await this.newRoot(key.key, settings, settings.rootCert);
    } catch (err) {
      // newCARoot's connect.ParseCert errors come back as they are.
      return refuse(400, (err as Error).message);
    }
    const old = this.active;
    if (root.record.ID === old.record.ID) {
      this.storeConfig(next, settings);
      return { ok: true, rotated: false };
    }
    if (!next.ForceWithoutCrossSigning) {
      if (this.provider.settings.disableCrossSigning) {
        return refuse(400, 'The current CA Provider does not support cross-signing. You can try again with ForceWithoutCrossSigningSet but this may cause disruption - see documentation for more.');
      }
      const crossSigned = await crossSignRoot(root.cert, old, this.nextSerial());
      root.record.IntermediateCerts = [pemOf(crossSigned)];
    }
    const index = this.nextIndex();
    this.changes += 1;
    for (const g of this.generations) {
      g.record.Active = false;
      g.record.ModifyIndex = index;
    }
    root.record.CreateIndex = root.record.ModifyIndex = index;
    this.generations.push(root);
    this.storeConfig(next, settings, index);
    return { ok: true, rotated: true };
  }

  private async generatedKey(settings: ConsulProviderConfig): Promise<ParsedCaKey> {
    if (settings.privateKeyType !== 'ec' && settings.privateKeyType !== 'rsa') return { ok: false, message: `unknown private key type requested: ${settings.privateKeyType}` };
    return generateCaKey(settings.privateKeyType, settings.privateKeyBits);
  }

  /**
   * A root for the key: the configured RootCert, or a self-signed one valid for RootCertTTL
   * (agent/connect/ca/provider_consul.go generateCA), recorded as newCARoot records it.
   */
  private async newRoot(key: CaKey, settings: ConsulProviderConfig, rootCertPem: string): Promise<RootGeneration> {
    let cert: x509.X509Certificate;
    if (rootCertPem) {
      const block = /-----BEGIN ([^\r\n-]+)-----[\s\S]*?-----END \1-----/.exec(rootCertPem);
      if (!block) throw new Error('no PEM-encoded data found');
      if (block[1] !== 'CERTIFICATE') throw new Error('first PEM-block should be CERTIFICATE type');
      try {
        cert = new x509.X509Certificate(block[0]);
      } catch (err) {
        throw new Error(`x509: malformed certificate (${(err as Error).message})`);
      }
    } else {
      const generation = this.generations.length + 1;
      const notBefore = new Date(Math.floor(Date.now() / 1000) * 1000);
      cert = await x509.X509CertificateGenerator.create({
        serialNumber: certificateSerialHex(this.nextSerial()),
        subject: `CN=stackproof CA Primary Cert ${generation}`,
        issuer: `CN=stackproof CA Primary Cert ${generation}`,
        notBefore,
        notAfter: new Date(notBefore.getTime() + Number(settings.rootCertTtlNs / NS_PER_MS)),
        publicKey: key.publicKey,
        signingKey: key.privateKey,
        signingAlgorithm: key.signingAlgorithm,
        extensions: [
          new x509.BasicConstraintsExtension(true, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
          new x509.SubjectKeyIdentifierExtension(key.keyId.toString('hex')),
          new x509.AuthorityKeyIdentifierExtension(key.keyId.toString('hex')),
          new x509.SubjectAlternativeNameExtension([{ type: 'url', value: `spiffe://${this.trustDomain}` }]),
        ],
      });
    }
    const pem = rootCertPem ? `${rootCertPem.replace(/\n*$/, '')}\n` : pemOf(cert);
    const ski = cert.getExtension(x509.SubjectKeyIdentifierExtension);
    const details = new X509Certificate(Buffer.from(cert.rawData)).publicKey.asymmetricKeyDetails;
    const record: CaRoot = {
      ID: colonHex(createHash('sha1').update(Buffer.from(cert.rawData)).digest()),
      Name: cert.subjectName.getField('CN')[0] ?? 'Consul CA Primary Cert',
      SerialNumber: Number(BigInt(`0x${cert.serialNumber}`)),
      SigningKeyID: ski ? colonHex(Buffer.from(ski.keyId, 'hex')) : '',
      ExternalTrustDomain: this.trustDomain.replace(/\.consul$/, ''),
      NotBefore: goTime(cert.notBefore),
      NotAfter: goTime(cert.notAfter),
      RootCert: pem,
      IntermediateCerts: null,
      Active: true,
      PrivateKeyType: details?.modulusLength ? 'rsa' : 'ec',
      PrivateKeyBits: details?.modulusLength ?? key.bits,
      CreateIndex: 0,
      ModifyIndex: 0,
    };
    return { record, cert, key };
  }

  /**
   * Signs a leaf for a service: the key pair and signing request are made here, as the agent does,
   * and the active root signs it (agent/connect/ca/provider_consul.go Sign). CertPEM is the leaf
   * followed by the active root's IntermediateCerts, as CAManager.SignCertificate appends them.
   */
  async signLeaf(spiffeUri: string, service: string, serial: bigint, lifetimeMs: number, { selfSigned = false, serverAuthOnly = false, keyCertSign = false }: LeafSigningFaults = {}): Promise<{ certPem: string; keyPem: string; notBefore: Date; notAfter: Date; rootId: string }> {
    const keys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({
      name: `CN=${service}`,
      keys,
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
      extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'url', value: spiffeUri }])],
    });
    const root = this.active;
    const notBefore = new Date(Math.floor((Date.now() - CLOCK_DRIFT_MS) / 1000) * 1000);
    const notAfter = new Date(notBefore.getTime() + lifetimeMs);
    const leafKeyId = createHash('sha256').update(Buffer.from(csr.publicKey.rawData)).digest('hex');
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: certificateSerialHex(serial),
      subject: csr.subjectName,
      issuer: root.cert.subjectName,
      notBefore,
      notAfter,
      publicKey: csr.publicKey,
      signingKey: selfSigned ? keys.privateKey : root.key.privateKey,
      signingAlgorithm: selfSigned ? { name: 'ECDSA', hash: 'SHA-256' } : root.key.signingAlgorithm,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(
          (keyCertSign ? x509.KeyUsageFlags.keyCertSign : 0) | x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.dataEncipherment | x509.KeyUsageFlags.keyAgreement,
          true,
        ),
        new x509.ExtendedKeyUsageExtension(serverAuthOnly ? [x509.ExtendedKeyUsage.serverAuth] : [x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
        new x509.SubjectAlternativeNameExtension([{ type: 'url', value: spiffeUri }]),
        new x509.SubjectKeyIdentifierExtension(leafKeyId),
        new x509.AuthorityKeyIdentifierExtension(root.key.keyId.toString('hex')),
      ],
    });
    const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
    const keyPem = `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`;
    const certPem = pemOf(cert) + (selfSigned ? '' : (root.record.IntermediateCerts ?? []).join(''));
    return { certPem, keyPem, notBefore, notAfter, rootId: root.record.ID };
  }
}
