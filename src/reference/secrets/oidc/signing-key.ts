import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload, type CryptoKey } from 'jose';

interface KeyMaterial {
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/**
 * A named signing key: RS256 by default (the built-in key 'default'). ID tokens are signed with
 * jose; the public half is published in the provider's key set. The pair is made on first use:
 * most reference starts (one per fault in the matrix) never sign a token, and an RSA pair is most
 * of a start's work.
 */
export class SigningKey {
  private material: Promise<KeyMaterial> | undefined;

  private constructor(
    readonly name: string,
    readonly kid: string,
    readonly alg: string,
  ) {}

  /** A key whose pair is made on its first use. */
  static deferred(name: string, alg = 'RS256'): SigningKey {
    return new SigningKey(name, randomUUID(), alg);
  }

  /** A key whose pair is made now (a key written through the API: its errors belong to that write). */
  static async create(name: string, alg = 'RS256'): Promise<SigningKey> {
    const key = SigningKey.deferred(name, alg);
    await key.pair();
    return key;
  }

  private pair(): Promise<KeyMaterial> {
    this.material ??= (async () => {
      const { privateKey, publicKey } = await generateKeyPair(this.alg, { extractable: true });
      const jwk = await exportJWK(publicKey);
      return { privateKey, publicJwk: { ...jwk, use: 'sig', kid: this.kid, alg: this.alg } };
    })();
    return this.material;
  }

  async publicJwk(): Promise<JWK> {
    return (await this.pair()).publicJwk;
  }

  async sign(claims: JWTPayload, options: { alg?: string } = {}): Promise<string> {
    const { privateKey } = await this.pair();
    return new SignJWT(claims).setProtectedHeader({ alg: options.alg ?? this.alg, kid: this.kid, typ: 'JWT' }).sign(privateKey);
  }
}
