import { type EngineRequest, type HelpDocument, type SecretsEngine } from './engine.ts';
import { helpDocument } from './help.ts';
import { dataEnvelope, type EngineResult } from './respond.ts';
import type { TokenEntry, TokenStore } from './token-store.ts';

/**
 * Vault's token auth method at auth/token/, of which the reference serves the lookups clients make
 * (hashicorp/vault vault/token_store.go): `lookup-self`, the caller's own token (pathLookupSelf →
 * handleLookup), and `lookup`, a token given as {"token": ...} or, without one, the caller's. Vault's
 * default policy grants lookup-self to every token, so clients (hvac's is_authenticated, the Vault
 * CLI's `vault token lookup`, stackproof's own check before a run) use it to ask "is this token
 * good?". Only the hashicorp dialect has them: spec 000 shows no such route.
 */
export class TokenAuthEngine implements SecretsEngine {
  readonly type = 'token';

  constructor(private readonly tokens: TokenStore) {}

  handle(req: EngineRequest): EngineResult {
    if (req.path !== 'lookup-self' && req.path !== 'lookup') {
      // A path the method does not have: the framework's ErrUnsupportedPath, wrapped by the request handler.
      return { kind: 'error', status: 404, errors: ['1 error occurred:\n\t* unsupported path\n\n'] };
    }
    // Both are registered for read and update (ts.paths()).
    if (req.operation !== 'read' && req.operation !== 'create-or-update') return { kind: 'error', status: 405, errors: ['1 error occurred:\n\t* unsupported operation\n\n'] };
    if (req.path === 'lookup-self') return { kind: 'raw', status: 200, body: dataEnvelope(lookup(req.token!)) };
    // handleLookup: the token field, else the caller's own; an unknown one is "bad token", 403.
    const asked = typeof req.data.token === 'string' && req.data.token !== '' ? req.data.token : req.token?.id;
    if (!asked) return { kind: 'error', status: 400, errors: ['missing token ID'] };
    const entry = asked === req.token?.id ? req.token : this.tokens.peek(asked);
    if (!entry) return { kind: 'error', status: 403, errors: ['bad token'] };
    return { kind: 'raw', status: 200, body: dataEnvelope(lookup(entry)) };
  }

  help(path: string): HelpDocument | undefined {
    if (path === 'lookup-self') return helpDocument('Token lookup-self', 'Look up the calling token.', { summary: 'the calling token', verbs: ['get', 'post'] });
    if (path === 'lookup') return helpDocument('Token lookup', 'Look up a token given as {"token": ...}, or the calling token.', { summary: 'a token', verbs: ['get', 'post'] });
    return undefined;
  }
}

/**
 * The fields of handleLookup's answer. The root token of a dev server is the model: display_name
 * "root", path "auth/token/root", no TTL (expire_time null), orphan; other tokens name the method
 * that issued them only by accessor here, so their path is the method's login prefix's owner.
 */
function lookup(t: TokenEntry): Record<string, unknown> {
  const now = Date.now();
  const root = t.policies.includes('root');
  const seconds = (ms: number) => Math.max(0, Math.round(ms / 1000));
  return {
    accessor: t.accessor,
    creation_time: Math.floor(t.createdAt / 1000),
    creation_ttl: t.expiresAt === undefined ? 0 : seconds(t.expiresAt - t.createdAt),
    display_name: root ? 'root' : 'token',
    entity_id: t.entityId ?? '',
    expire_time: t.expiresAt === undefined ? null : new Date(t.expiresAt).toISOString(),
    explicit_max_ttl: 0,
    id: t.id,
    issue_time: new Date(t.createdAt).toISOString(),
    meta: null,
    num_uses: t.usesLeft ?? 0,
    orphan: root,
    path: root ? 'auth/token/root' : '',
    policies: t.policies,
    renewable: false,
    ttl: t.expiresAt === undefined ? 0 : seconds(t.expiresAt - now),
    type: t.id.startsWith('hvb.') ? 'batch' : 'service',
    ...(t.namespace ? { namespace_path: t.namespace } : {}),
  };
}
