/** An authorization code's grant: what the token exchange checks and puts into the tokens. */
export interface CodeGrant {
  clientId: string;
  provider: string;
  redirectUri: string;
  entityId: string;
  scopes: string[];
  nonce?: string;
  challenge?: string;
  method?: 'plain' | 'S256';
  authTime?: number;
  expiresAt: number;
}

/** The part of a grant that every code of one client, provider, redirect URI, entity, scope list and auth time shares. */
type SharedGrant = Omit<CodeGrant, 'nonce' | 'challenge' | 'expiresAt'>;

/** One code's own part; a class, so every entry has one shape. */
class CodeEntry {
  constructor(
    readonly shared: SharedGrant,
    readonly nonce: string | undefined,
    readonly challenge: string | undefined,
    /** Milliseconds after the store's epoch: a small integer, not a boxed number, for about 12 days. */
    readonly expiresAfterEpoch: number,
  ) {}
}

/** Shared parts kept for reuse at most; past it the table starts again (entries keep theirs). */
const SHARED_LIMIT = 1024;

/**
 * A copy of a string that does not hold on to the string it was cut from: V8 keeps a substring of
 * 13 characters or more as a slice of its parent, and a nonce or code challenge cut from a query
 * would keep the whole request URL alive for the code's five minutes.
 */
function detached(value: string | undefined): string | undefined {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as string);
}

/** Fault switches (secrets.oidc-code-grant-client-shared, secrets.oidc-code-grant-auth-time-shared), set once by the owner. */
export interface CodeGrantFlaws {
  sharedIgnoresClient: boolean;
  sharedIgnoresAuthTime: boolean;
}

function sameShared(a: SharedGrant, b: SharedGrant, flaws: CodeGrantFlaws): boolean {
  return (
    (flaws.sharedIgnoresClient || a.clientId === b.clientId) &&
    a.provider === b.provider &&
    a.redirectUri === b.redirectUri &&
    a.entityId === b.entityId &&
    a.method === b.method &&
    (flaws.sharedIgnoresAuthTime || a.authTime === b.authTime) &&
    a.scopes.length === b.scopes.length &&
    a.scopes.every((scope, i) => scope === b.scopes[i])
  );
}

/**
 * The authorization codes handed out and not yet exchanged, each until it expires.
 *
 * Under load the reference makes thousands of codes a second that are never exchanged, and all of
 * them live five minutes, so they are most of what survives into the old generation: the garbage
 * collector copies every survivor, and with a record, a scope list and copies of the client's
 * strings per code that copying cost more CPU than the authorize request itself. Here a code
 * keeps one small entry, and what many codes share is kept once.
 */
export class CodeGrants {
  private readonly codes = new Map<string, CodeEntry>();
  private readonly sharedParts = new Map<string, SharedGrant>();
  private readonly epoch = Date.now();
  private lastShared: SharedGrant | undefined;
  /**
   * When the oldest code kept expires, at the earliest (after the epoch): until then there is
   * nothing to drop, and no iterator over the map needs making. A code burnt since only makes it earlier than true.
   */
  private oldestExpiry = Infinity;

  constructor(private readonly flaws: CodeGrantFlaws) {}

  /** Remembers `code` until `grant.expiresAt`. */
  add(code: string, grant: CodeGrant): void {
    const expiresAfterEpoch = grant.expiresAt - this.epoch;
    if (Date.now() - this.epoch > this.oldestExpiry) this.dropExpired();
    // The grant itself is handed to share(), which reads only the shared fields: no object rest
    // split of every grant.
    this.codes.set(code, new CodeEntry(this.share(grant), detached(grant.nonce), detached(grant.challenge), expiresAfterEpoch));
    if (this.codes.size === 1) this.oldestExpiry = expiresAfterEpoch;
  }

  /** The grant of `code`, expired or not; with `burn` the code is forgotten as well. */
  lookup(code: string, burn: boolean): CodeGrant | undefined {
    const entry = this.codes.get(code);
    if (burn) this.codes.delete(code);
    if (!entry) return undefined;
    const grant: CodeGrant = { ...entry.shared, expiresAt: entry.expiresAfterEpoch + this.epoch };
    if (entry.nonce !== undefined) grant.nonce = entry.nonce;
    if (entry.challenge !== undefined) grant.challenge = entry.challenge;
    return grant;
  }

  private share(part: SharedGrant): SharedGrant {
    // A load test asks for the same grant over and over: compare with the last one before building a key.
    const last = this.lastShared;
    if (last && sameShared(last, part, this.flaws)) return last;
    const key = JSON.stringify([part.clientId, part.provider, part.redirectUri, part.entityId, part.scopes, part.method ?? null, part.authTime ?? null]);
    const known = this.sharedParts.get(key);
    if (known) {
      this.lastShared = known;
      return known;
    }
    if (this.sharedParts.size >= SHARED_LIMIT) this.sharedParts.clear();
    const copy: SharedGrant = {
      clientId: part.clientId,
      provider: part.provider,
      redirectUri: part.redirectUri,
      entityId: part.entityId,
      // Frozen: every grant looked up hands out this one array, and the tokens keep it.
      scopes: Object.freeze([...part.scopes]) as string[],
      ...(part.method !== undefined ? { method: part.method } : {}),
      ...(part.authTime !== undefined ? { authTime: part.authTime } : {}),
    };
    this.sharedParts.set(key, copy);
    this.lastShared = copy;
    return copy;
  }

  /**
   * Every code lives as long and the map keeps them in the order they were made, so the expired
   * ones are at its front; an expired code is refused whether it is kept or not.
   */
  private dropExpired(): void {
    const now = Date.now() - this.epoch;
    for (const [code, entry] of this.codes) {
      if (entry.expiresAfterEpoch >= now) {
        this.oldestExpiry = entry.expiresAfterEpoch;
        return;
      }
      this.codes.delete(code);
    }
    this.oldestExpiry = Infinity;
  }
}
