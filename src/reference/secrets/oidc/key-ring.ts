import type { SigningKey } from './signing-key.ts';

const DAY = 24 * 3600;

/** A named key as Vault keeps it: the signing key and the settings clients are checked against. */
export interface NamedKey {
  name: string;
  signing: SigningKey;
  algorithm: string;
  /** Seconds. */
  rotationPeriod: number;
  /** Seconds; a client's id_token_ttl may not exceed it. */
  verificationTtl: number;
  /** The client IDs that may sign with the key; '*' for all. */
  allowedClientIds: string[];
}

/**
 * The named signing keys of one namespace. The reference's start-up keys ('default' and the
 * setup's second key) are in every namespace with Vault's defaults for the default key (24h, 24h,
 * RS256, every client: identity_store_oidc_provider.go defaultOIDCKey); keys made through
 * identity/oidc/key belong to the namespace they were made in.
 */
export class OidcKeyRing {
  private readonly keys = new Map<string, NamedKey>();

  constructor(startup: Map<string, SigningKey>) {
    for (const [name, signing] of startup) {
      this.keys.set(name, { name, signing, algorithm: signing.alg, rotationPeriod: DAY, verificationTtl: DAY, allowedClientIds: ['*'] });
    }
  }

  get(name: string): NamedKey | undefined {
    return this.keys.get(name);
  }

  has(name: string): boolean {
    return this.keys.has(name);
  }

  names(): string[] {
    return [...this.keys.keys()].sort();
  }

  values(): NamedKey[] {
    return [...this.keys.values()];
  }

  set(key: NamedKey): void {
    this.keys.set(key.name, key);
  }

  delete(name: string): void {
    this.keys.delete(name);
  }
}

export function keyAllowsClient(key: NamedKey, clientId: string): boolean {
  return key.allowedClientIds.includes('*') || key.allowedClientIds.includes(clientId);
}
