import { type EngineRequest, type HelpDocument, type SecretsEngine } from './engine.ts';
import { helpDocument } from './help.ts';
import { dataEnvelope, notFound, type EngineResult } from './respond.ts';
import type { TokenEntry } from './token-store.ts';

/**
 * Vault's token auth method at auth/token/, of which the reference serves what a client asks first:
 * `lookup-self`, the caller's own token (hashicorp/vault vault/token_store.go, pathLookupSelf →
 * handleLookup). Vault's default policy grants it to every token, so clients (hvac's
 * is_authenticated, the Vault CLI's `vault token lookup`, stackproof's own check before a run) use it
 * to ask "is this token good?". Only the hashicorp dialect has it: spec 000 shows no such route.
 */
export class TokenAuthEngine implements SecretsEngine {
  readonly type = 'token';

  handle(req: EngineRequest): EngineResult {
    if (req.path !== 'lookup-self') return notFound();
    // GET reads it; a POST (an update with no fields) is answered alike, as pathLookupSelf registers both.
    if (req.operation !== 'read' && req.operation !== 'create-or-update') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
    return { kind: 'raw', status: 200, body: dataEnvelope(lookup(req.token!)) };
  }

  help(path: string): HelpDocument | undefined {
    if (path === 'lookup-self') return helpDocument('Token lookup-self', 'Look up the calling token.', { summary: 'the calling token', verbs: ['get', 'post'] });
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
