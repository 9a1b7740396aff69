import { randomBytes } from 'node:crypto';

export interface TokenEntry {
  id: string;
  accessor: string;
  policies: string[];
  /** Namespace path the token belongs to ('' for root). */
  namespace: string;
  /** Remaining uses; undefined means unlimited. */
  usesLeft?: number;
  expiresAt?: number;
  createdAt: number;
  /** The identity entity the token belongs to, if any. */
  entityId?: string;
  /** Only paths (relative to the namespace) matching this may be used with the token. */
  allowedPath?: RegExp;
  /** The token may only be used from these CIDR blocks. */
  boundCidrs?: string[];
  /** Set on access tokens issued by an OIDC provider's token endpoint. */
  oidc?: { provider: string; clientId: string; scopes: string[] };
  /** The auth method that issued the token by a login, so that disabling it revokes the token as Vault does. */
  issuedBy?: { namespace: string; accessor: string };
}

/** The store is first swept for expired tokens when it holds this many. */
const FIRST_SWEEP_AT = 1024;

/**
 * Client tokens of the secrets service. Tokens are random; nothing is hard-coded.
 *
 * An expired token is refused whether it is kept or not; it is dropped when it is next used, and
 * one nobody presents again (a load test's OIDC access tokens: thousands a second, each used once)
 * by a sweep whenever the store has doubled since the last one, so memory follows the tokens still
 * valid and the sweeps cost O(1) per token made. A token is kept for its whole TTL, as it must be.
 */
export class TokenStore {
  private readonly tokens = new Map<string, TokenEntry>();
  private sweepAt = FIRST_SWEEP_AT;

  create(entry: Omit<TokenEntry, 'id' | 'accessor' | 'createdAt'> & { prefix?: string }): TokenEntry {
    const { prefix, ...rest } = entry;
    const token: TokenEntry = {
      ...rest,
      id: `${prefix ?? 'hvs.'}${randomBytes(18).toString('base64url')}`,
      accessor: randomBytes(12).toString('base64url'),
      createdAt: Date.now(),
    };
    this.tokens.set(token.id, token);
    if (this.tokens.size >= this.sweepAt) this.dropExpired();
    return token;
  }

  /** Tokens kept, expired ones not yet swept included. */
  get size(): number {
    return this.tokens.size;
  }

  private dropExpired(): void {
    const now = Date.now();
    for (const [id, entry] of this.tokens) if (entry.expiresAt !== undefined && now >= entry.expiresAt) this.tokens.delete(id);
    this.sweepAt = Math.max(FIRST_SWEEP_AT, 2 * this.tokens.size);
  }

  /** Revokes every token the predicate selects (a disabled auth method's, a deleted namespace's). */
  revokeWhere(predicate: (entry: TokenEntry) => boolean): void {
    for (const [id, entry] of this.tokens) if (predicate(entry)) this.tokens.delete(id);
  }

  /** Looks a token up without spending a use (a lookup of it, not a request made with it); undefined when gone. */
  peek(id: string): TokenEntry | undefined {
    const entry = this.tokens.get(id);
    return entry && (entry.expiresAt === undefined || Date.now() < entry.expiresAt) ? entry : undefined;
  }

  /** Looks a token up and spends one use of it; an exhausted or expired token is gone. */
  use(id: string | undefined): TokenEntry | undefined {
    if (!id) return undefined;
    const entry = this.tokens.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt !== undefined && Date.now() >= entry.expiresAt) {
      this.tokens.delete(id);
      return undefined;
    }
    if (entry.usesLeft !== undefined) {
      entry.usesLeft -= 1;
      if (entry.usesLeft <= 0) this.tokens.delete(id);
    }
    return entry;
  }
}
