import { randomBytes, randomInt } from 'node:crypto';
import type { FaultSet } from '../../faults/types.ts';
import { DurationError, parseDuration } from '../durations.ts';
import type { EngineRequest } from '../engine.ts';
import { FieldError, NamedCollection, optionalString, stringList } from '../named-collection.ts';
import { badRequest, type EngineResult } from '../respond.ts';
import type { OidcKeyRing } from './key-ring.ts';
import type { ScopeTemplates } from './scope-templates.ts';

export interface Provider {
  issuer: string;
  allowed_client_ids: string[];
  scopes_supported: string[];
  /** Only with the fault secrets.oidc-allowed-star-snapshot: the clients '*' stood for when the provider was written. */
  starSnapshot?: string[];
}

export interface Scope {
  template: string;
  description: string;
}

export interface Client {
  key: string;
  redirect_uris: string[];
  assignments: string[];
  client_type: 'confidential' | 'public';
  id_token_ttl: number;
  access_token_ttl: number;
  client_id: string;
  client_secret?: string;
}

export interface Assignment {
  entity_ids: string[];
  group_ids: string[];
}

const DAY = 24 * 3600;
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function base62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(BASE62.length)];
  return out;
}

/** Spec 000: issuer is only scheme://host:port; any path, query or fragment is refused. */
function validIssuer(issuer: string): boolean {
  if (!URL.canParse(issuer)) return false;
  const u = new URL(issuer);
  return /^https?:$/.test(u.protocol) && (u.pathname === '' || u.pathname === '/') && !issuer.replace(/^https?:\/\/[^/]+/, '') && !u.search && !u.hash && !u.username;
}

/**
 * The OIDC provider's configuration resources: providers, scopes, clients and assignments, with
 * the documented fields, defaults and rules.
 */
export class OidcConfig {
  readonly providers = new NamedCollection<Provider>();
  readonly scopes = new NamedCollection<Scope>();
  readonly clients = new NamedCollection<Client>();
  readonly assignments = new NamedCollection<Assignment>();

  constructor(
    private readonly faults: FaultSet,
    /** The namespace's named keys, as they are when a client is written (keys can be made later). */
    readonly keys: OidcKeyRing,
    /** How a scope template is checked, kept and rendered (the spec's way, or Vault's parser). */
    readonly templates: ScopeTemplates,
    /**
     * What a read returns as the issuer. The spec: the issuer as set, '' when unset. Vault returns
     * the effective issuer instead (hashicorp/vault vault/identity_store_oidc_provider.go
     * pathOIDCReadProvider, getOIDCProvider; PR 13058): the upstream behaviour passes that in.
     */
    private readonly readIssuer?: (name: string, provider: Provider) => string,
  ) {
    if (!faults.has('secrets.oidc-allow-all-missing')) this.assignments.items.set('allow_all', { entity_ids: ['*'], group_ids: ['*'] });
    this.providers.items.set('default', { issuer: '', allowed_client_ids: ['*'], scopes_supported: [] });
  }

  clientById(clientId: string): { name: string; client: Client } | undefined {
    for (const [name, client] of this.clients.items) if (client.client_id === clientId) return { name, client };
    return undefined;
  }

  handle(kind: 'provider' | 'scope' | 'client' | 'assignment', name: string, req: EngineRequest): EngineResult {
    const collection = { provider: this.providers, scope: this.scopes, client: this.clients, assignment: this.assignments }[kind] as NamedCollection<unknown>;
    if (req.operation === 'list') return name === '' ? collection.list() : { kind: 'error', status: 405, errors: ['unsupported operation'] };
    if (name === '') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
    try {
      switch (kind) {
        case 'provider':
          return this.provider(req, name);
        case 'scope':
          return this.scope(req, name);
        case 'client':
          return this.client(req, name);
        default:
          return this.assignment(req, name);
      }
    } catch (err) {
      if (err instanceof FieldError || err instanceof DurationError) return badRequest(err.message);
      throw err;
    }
  }

  private provider(req: EngineRequest, name: string): EngineResult {
    const f = this.faults;
    if (req.operation === 'read') {
      return this.providers.read(name, (p) => ({
        issuer: this.readIssuer ? this.readIssuer(name, p) : p.issuer === '' && f.has('secrets.oidc-issuer-read-default') ? `http://unset.invalid/v1/identity/oidc/provider/${name}` : p.issuer,
        allowed_client_ids: p.allowed_client_ids,
        scopes_supported: p.scopes_supported,
      }));
    }
    if (req.operation === 'delete') {
      if (name === 'default') return badRequest('deletion of OIDC provider "default" not allowed');
      return f.has('secrets.oidc-provider-delete-noop') ? { kind: 'no-content' } : this.providers.remove(name);
    }
    const existing = this.providers.items.get(name);
    const issuer = optionalString(req.data.issuer, 'issuer') ?? existing?.issuer ?? '';
    if (issuer !== '' && !validIssuer(issuer)) return badRequest('invalid issuer, which must include only a scheme, host, and optional port (e.g. https://example.com:8200)');
    const scopes = stringList(req.data.scopes_supported, 'scopes_supported') ?? existing?.scopes_supported ?? [];
    for (const s of scopes) if (!this.scopes.items.has(s)) return badRequest(`scope "${s}" does not exist`);
    const allowed = stringList(req.data.allowed_client_ids, 'allowed_client_ids') ?? existing?.allowed_client_ids ?? [];
    const starSnapshot = f.has('secrets.oidc-allowed-star-snapshot') && allowed.includes('*') ? [...this.clients.items.values()].map((c) => c.client_id) : undefined;
    this.providers.items.set(name, { issuer, allowed_client_ids: allowed, scopes_supported: scopes, ...(starSnapshot ? { starSnapshot } : {}) });
    return { kind: 'no-content' };
  }

  private scope(req: EngineRequest, name: string): EngineResult {
    if (req.operation === 'read') {
      return this.scopes.read(name, (s) => ({ template: s.template, description: this.faults.has('secrets.oidc-scope-description-dropped') ? '' : s.description }));
    }
    if (req.operation === 'delete') {
      const users = [...this.providers.items.entries()].filter(([, p]) => p.scopes_supported.includes(name)).map(([n]) => n);
      if (users.length) return badRequest(`unable to delete scope "${name}" because it is currently referenced by these providers: ${users.join(', ')}`);
      return this.scopes.remove(name);
    }
    if (name === 'openid' && !this.faults.has('secrets.oidc-scope-openid-allowed')) return badRequest('the "openid" scope name is reserved');
    const existing = this.scopes.items.get(name);
    const given = optionalString(req.data.template, 'template') ?? existing?.template ?? '';
    // The fault keeps a base64 template as written (checked decoded), so that rendering finds no JSON in it.
    const template = given === '' ? '' : this.templates.stored(given, this.faults.has('secrets.oidc-template-base64-unsupported'));
    const description = optionalString(req.data.description, 'description') ?? existing?.description ?? '';
    this.scopes.items.set(name, { template, description });
    return { kind: 'no-content' };
  }

  private client(req: EngineRequest, name: string): EngineResult {
    const f = this.faults;
    if (req.operation === 'read') {
      return this.clients.read(name, (c) => {
        const view: Record<string, unknown> = {
          access_token_ttl: c.access_token_ttl,
          assignments: c.assignments,
          client_id: c.client_id,
          client_type: c.client_type,
          id_token_ttl: c.id_token_ttl,
          key: c.key,
          redirect_uris: c.redirect_uris,
        };
        if (c.client_secret !== undefined) view.client_secret = c.client_secret;
        if (f.has('secrets.oidc-client-read-missing-redirect-uris')) delete view.redirect_uris;
        if (f.has('secrets.oidc-ttl-read-as-string')) {
          view.id_token_ttl = `${c.id_token_ttl}s`;
          view.access_token_ttl = `${c.access_token_ttl}s`;
        }
        return view;
      });
    }
    if (req.operation === 'delete') return this.clients.remove(name);
    const existing = this.clients.items.get(name);
    const key = optionalString(req.data.key, 'key');
    if (key !== undefined && existing && key !== existing.key && !f.has('secrets.oidc-client-key-mutable')) return badRequest('key modification is not allowed');
    if (key !== undefined && !this.keys.has(key)) return badRequest(`key "${key}" does not exist`);
    const type = optionalString(req.data.client_type, 'client_type');
    if (type !== undefined && type !== 'confidential' && type !== 'public') return badRequest(`invalid client_type "${type}"`);
    if (type !== undefined && existing && type !== existing.client_type && !f.has('secrets.oidc-client-type-mutable')) return badRequest('client_type modification is not allowed');
    const assignments = stringList(req.data.assignments, 'assignments') ?? existing?.assignments ?? [];
    for (const a of assignments) if (!this.assignments.items.has(a)) return badRequest(`assignment "${a}" does not exist`);
    const idTtl = req.data.id_token_ttl === undefined ? (existing?.id_token_ttl ?? DAY) : parseDuration(req.data.id_token_ttl, 'id_token_ttl');
    const accessTtl = req.data.access_token_ttl === undefined ? (existing?.access_token_ttl ?? DAY) : parseDuration(req.data.access_token_ttl, 'access_token_ttl');
    const keyName = key ?? existing?.key ?? 'default';
    if (idTtl > (this.keys.get(keyName)?.verificationTtl ?? DAY)) return badRequest("a client's id_token_ttl cannot be greater than the verification_ttl of the key it references");
    const clientType = (type ?? existing?.client_type ?? (f.has('secrets.oidc-client-default-type-public') ? 'public' : 'confidential')) as Client['client_type'];
    const client: Client = {
      key: keyName,
      redirect_uris: stringList(req.data.redirect_uris, 'redirect_uris') ?? existing?.redirect_uris ?? [],
      assignments,
      client_type: clientType,
      id_token_ttl: idTtl,
      access_token_ttl: accessTtl,
      client_id: existing?.client_id ?? base62(32),
    };
    if (clientType === 'confidential' || f.has('secrets.oidc-public-client-secret')) client.client_secret = existing?.client_secret ?? `hvo_secret_${base62(64)}`;
    this.clients.items.set(name, client);
    return { kind: 'no-content' };
  }

  private assignment(req: EngineRequest, name: string): EngineResult {
    if (req.operation === 'read') {
      return this.assignments.read(name, (a) => ({ entity_ids: a.entity_ids, group_ids: this.faults.has('secrets.oidc-assignment-groups-dropped') ? [] : a.group_ids }));
    }
    if (name === 'allow_all') return badRequest(`${req.operation === 'delete' ? 'deletion' : 'modification'} of assignment "allow_all" not allowed`);
    if (req.operation === 'delete') {
      const users = [...this.clients.items.entries()].filter(([, c]) => c.assignments.includes(name)).map(([n]) => n);
      if (users.length) return badRequest(`unable to delete assignment "${name}" because it is currently referenced by these clients: ${users.join(', ')}`);
      return this.assignments.remove(name);
    }
    const existing = this.assignments.items.get(name);
    this.assignments.items.set(name, {
      entity_ids: stringList(req.data.entity_ids, 'entity_ids') ?? existing?.entity_ids ?? [],
      group_ids: stringList(req.data.group_ids, 'group_ids') ?? existing?.group_ids ?? [],
    });
    return { kind: 'no-content' };
  }
}

const CODE_BYTES = 24;
/**
 * Codes are cut from a batch of random bytes, one call into the CSPRNG per 256 codes rather than
 * one per code: authorize makes a code on every request, and that call was the largest single
 * cost of an authorize after the socket write. No byte is handed out twice.
 */
const CODES_PER_BATCH = 256;
let codeBatch = Buffer.alloc(0);
let codeOffset = 0;

export function randomCode(): string {
  if (codeOffset + CODE_BYTES > codeBatch.length) {
    codeBatch = randomBytes(CODE_BYTES * CODES_PER_BATCH);
    codeOffset = 0;
  }
  const code = codeBatch.toString('base64url', codeOffset, codeOffset + CODE_BYTES);
  codeOffset += CODE_BYTES;
  return code;
}
