import { type EngineRequest, type HelpDocument, type SecretsEngine } from './engine.ts';
import { DurationError, parseDuration } from './durations.ts';
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
 *
 * It also serves `create` (pathCreate → handleCreateCommon), the way an operator or a provisioner
 * makes a token of a namespace: `policies` (a list or a comma-separated string; "default" added
 * unless `no_default_policy`), `ttl` (a duration; none: no expiry, as a root caller's child of a
 * root token has none), the token bound to the namespace the request is made in. Vault's checks on
 * what a non-root caller may grant are not ported: the reference evaluates no policy text.
 */
export class TokenAuthEngine implements SecretsEngine {
  readonly type = 'token';

  constructor(
    private readonly tokens: TokenStore,
    /** The namespace the method is mounted in: a token it creates belongs there. */
    private readonly namespace = '',
  ) {}

  handle(req: EngineRequest): EngineResult {
    if (req.path === 'create') return this.create(req);
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

  /** handleCreateCommon: registered for update only; a bad ttl is a 400 "bad request". */
  private create(req: EngineRequest): EngineResult {
    if (req.operation !== 'create-or-update') return { kind: 'error', status: 405, errors: ['1 error occurred:\n\t* unsupported operation\n\n'] };
    const given = req.data.policies;
    const listed = Array.isArray(given) ? given.filter((p): p is string => typeof p === 'string') : typeof given === 'string' ? given.split(',') : [];
    const policies = [...new Set(listed.map((p) => p.trim()).filter(Boolean))];
    if (req.data.no_default_policy !== true && !policies.includes('default') && !policies.includes('root')) policies.push('default');
    let ttl = 0;
    try {
      if (req.data.ttl !== undefined && req.data.ttl !== '') ttl = parseDuration(req.data.ttl, 'ttl');
    } catch (err) {
      if (err instanceof DurationError) return { kind: 'error', status: 400, errors: [`1 error occurred:\n\t* ${err.message}\n\n`] };
      throw err;
    }
    const entry = this.tokens.create({ policies: policies.sort(), namespace: this.namespace, ...(ttl > 0 ? { expiresAt: Date.now() + ttl * 1000 } : {}) });
    const auth = { client_token: entry.id, accessor: entry.accessor, policies: entry.policies, token_policies: entry.policies, metadata: null, lease_duration: ttl, renewable: ttl > 0, entity_id: '', token_type: 'service', orphan: false, mfa_requirement: null, num_uses: 0 };
    return { kind: 'raw', status: 200, body: { request_id: '', lease_id: '', renewable: false, lease_duration: 0, data: null, wrap_info: null, warnings: null, auth } };
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
