import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload, type CryptoKey } from 'jose';

/**
 * A named signing key: RS256 by default (the built-in key 'default'). ID tokens are signed with
 * jose; the public half is published in the provider's key set.
 */
export class SigningKey {
  private constructor(
    readonly name: string,
    readonly kid: string,
    readonly alg: string,
    private readonly privateKey: CryptoKey,
    readonly publicJwk: JWK,
  ) {}

  static async create(name: string, alg = 'RS256'): Promise<SigningKey> {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const kid = randomUUID();
    const jwk = await exportJWK(publicKey);
    return new SigningKey(name, kid, alg, privateKey, { ...jwk, use: 'sig', kid, alg });
  }

  sign(claims: JWTPayload, options: { alg?: string } = {}): Promise<string> {
    return new SignJWT(claims).setProtectedHeader({ alg: options.alg ?? this.alg, kid: this.kid, typ: 'JWT' }).sign(this.privateKey);
  }
}
