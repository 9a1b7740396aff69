import { DurationError, parseDuration } from './durations.ts';
import type { EngineRequest } from './engine.ts';
import { FieldError, NamedCollection, optionalString, stringList } from './named-collection.ts';
import type { Client } from './oidc/config.ts';
import type { OidcRoleAdmin } from './oidc-roles.ts';
import type { OidcKeyRing } from './oidc/key-ring.ts';
import { SigningKey } from './oidc/signing-key.ts';
import { badRequest, notFound, type EngineResult } from './respond.ts';

const DAY = 24 * 3600;
/** identity_store_oidc.go supportedAlgs. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/**
 * identity/oidc/key and identity/oidc/key/<name> in the hashicorp dialect (hashicorp/vault
 * vault/identity_store_oidc.go pathOIDCCreateUpdateKey, pathOIDCReadKey, pathOIDCDeleteKey,
 * pathOIDCListKey). A key made here is a real signing key that clients of the namespace can name.
 */
export class OidcKeyAdmin {
  constructor(
    private readonly keys: OidcKeyRing,
    private readonly clients: NamedCollection<Client>,
    private readonly roles: OidcRoleAdmin,
  ) {}

  async handle(req: EngineRequest, name: string): Promise<EngineResult> {
    if (req.operation === 'list') return name === '' ? { kind: 'data', data: { keys: this.keys.names() } } : { kind: 'error', status: 405, errors: ['unsupported operation'] };
    if (name === '') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
    if (!NamedCollection.validName(name, false)) return NamedCollection.unsupported(name);
    try {
      switch (req.operation) {
        case 'read':
          return this.read(name);
        case 'delete':
          return this.remove(name);
        case 'create-or-update':
          return await this.write(name, req.data);
        default:
          return { kind: 'error', status: 405, errors: ['unsupported operation'] };
      }
    } catch (err) {
      if (err instanceof FieldError || err instanceof DurationError) return badRequest(err.message);
      throw err;
    }
  }

  private read(name: string): EngineResult {
    const key = this.keys.get(name);
    if (!key) return notFound();
    return { kind: 'data', data: { rotation_period: key.rotationPeriod, verification_ttl: key.verificationTtl, algorithm: key.algorithm, allowed_client_ids: key.allowedClientIds } };
  }

  private clientsUsing(name: string): [string, Client][] {
    return [...this.clients.items.entries()].filter(([, c]) => c.key === name).sort(([a], [b]) => a.localeCompare(b));
  }

  private remove(name: string): EngineResult {
    if (name === 'default') return badRequest('deletion of key "default" not allowed');
    const roles = this.roles.using(name).map(([n]) => n);
    if (roles.length) return badRequest(`unable to delete key "${name}" because it is currently referenced by these roles: ${roles.join(', ')}`);
    const users = this.clientsUsing(name).map(([n]) => n);
    if (users.length) return badRequest(`unable to delete key "${name}" because it is currently referenced by these clients: ${users.join(', ')}`);
    this.keys.delete(name);
    return { kind: 'no-content' };
  }

  /** Defaults on create: 24h, 24h, RS256, and no client allowed to sign with it. */
  private async write(name: string, d: Record<string, unknown>): Promise<EngineResult> {
    const existing = this.keys.get(name);
    const rotationPeriod = d.rotation_period === undefined ? (existing?.rotationPeriod ?? DAY) : parseDuration(d.rotation_period, 'rotation_period');
    if (rotationPeriod < 60) return badRequest('rotation_period must be at least one minute');
    const verificationTtl = d.verification_ttl === undefined ? (existing?.verificationTtl ?? DAY) : parseDuration(d.verification_ttl, 'verification_ttl');
    if (verificationTtl > 10 * rotationPeriod) return badRequest('verification_ttl cannot be longer than 10x rotation_period');
    if (existing && this.roles.using(name).some(([, r]) => r.ttl > verificationTtl)) {
      return badRequest(`unable to update key "${name}" because it is currently referenced by one or more roles with a token ttl greater than ${verificationTtl} seconds`);
    }
    if (existing && this.clientsUsing(name).some(([, c]) => c.id_token_ttl > verificationTtl)) {
      return badRequest(`unable to update key "${name}" because it is currently referenced by one or more clients with an id_token_ttl greater than ${verificationTtl} seconds`);
    }
    const allowedClientIds = stringList(d.allowed_client_ids, 'allowed_client_ids') ?? existing?.allowedClientIds ?? [];
    const algorithm = optionalString(d.algorithm, 'algorithm') ?? existing?.algorithm ?? 'RS256';
    if (!ALGORITHMS.includes(algorithm)) return badRequest(`unknown signing algorithm "${algorithm}"`);
    const signing = existing && existing.algorithm === algorithm ? existing.signing : await SigningKey.create(name, algorithm);
    this.keys.set({ name, signing, algorithm, rotationPeriod, verificationTtl, allowedClientIds });
    return { kind: 'no-content' };
  }
}
