import { DurationError, parseDuration } from './durations.ts';
import type { EngineRequest } from './engine.ts';
import { FieldError, NamedCollection, optionalString } from './named-collection.ts';
import { base62 } from './oidc/config.ts';
import type { OidcKeyRing } from './oidc/key-ring.ts';
import type { ScopeTemplates } from './oidc/scope-templates.ts';
import { badRequest, type EngineResult } from './respond.ts';

const DAY = 24 * 3600;

/** An identity-token role (vault/identity_store_oidc.go Role): the key that signs, the template, the TTL. */
export interface OidcRole {
  key: string;
  template: string;
  ttl: number;
  clientId: string;
}

/**
 * identity/oidc/role and identity/oidc/role/<name> in the hashicorp dialect, as hvac's
 * create_named_role, read_role, list_roles and delete_named_role use them (hashicorp/vault
 * vault/identity_store_oidc.go pathOIDCCreateUpdateRole, pathOIDCReadRole, pathOIDCListRole,
 * pathOIDCDeleteRole; openbao/openbao vault/identity/store_oidc.go, the same code, read at v2.6.2
 * and answered the same). A role names an existing key; its ttl may not be longer than the key's
 * verification_ttl; its template is checked as a scope's. The tokens themselves
 * (identity/oidc/token/<role>) are not served: 404 as any path the reference does not serve.
 */
export class OidcRoleAdmin {
  readonly roles = new NamedCollection<OidcRole>();

  constructor(
    private readonly keys: OidcKeyRing,
    private readonly templates: ScopeTemplates,
  ) {}

  handle(req: EngineRequest, name: string): EngineResult {
    if (req.operation === 'list') return name === '' ? this.roles.list() : { kind: 'error', status: 405, errors: ['unsupported operation'] };
    if (name === '') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
    if (!NamedCollection.validName(name, false)) return NamedCollection.unsupported(name);
    switch (req.operation) {
      case 'read':
        return this.roles.read(name, (r) => ({ client_id: r.clientId, key: r.key, template: r.template, ttl: r.ttl }));
      case 'delete':
        return this.roles.remove(name);
      case 'create-or-update':
        try {
          return this.write(name, req.data);
        } catch (err) {
          if (err instanceof FieldError) return badRequest(err.message);
          // framework.FieldData: ttl is a TypeDurationSecond.
          if (err instanceof DurationError) return badRequest(`error converting input for field "ttl": time: invalid duration ${JSON.stringify(String(req.data.ttl))}`);
          throw err;
        }
      default:
        return { kind: 'error', status: 405, errors: ['unsupported operation'] };
    }
  }

  /** The roles that name a key, sorted by name: a key they name cannot go, nor shrink below their ttl. */
  using(key: string): [string, OidcRole][] {
    return [...this.roles.items.entries()].filter(([, r]) => r.key === key).sort(([a], [b]) => a.localeCompare(b));
  }

  /** pathOIDCCreateUpdateRole: an update keeps what the request does not name; a create takes the defaults. */
  private write(name: string, d: Record<string, unknown>): EngineResult {
    const existing = this.roles.items.get(name);
    const key = optionalString(d.key, 'key') ?? existing?.key ?? '';
    if (key === '') return badRequest('the key parameter is required');
    const given = optionalString(d.template, 'template') ?? existing?.template ?? '';
    const template = given === '' ? '' : this.templates.stored(given);
    const ttl = d.ttl === undefined ? (existing?.ttl ?? DAY) : parseDuration(d.ttl, 'ttl');
    const signing = this.keys.get(key);
    if (!signing) return badRequest(`cannot find key "${key}"`);
    if (ttl > signing.verificationTtl) return badRequest("a role's token ttl cannot be longer than the verification_ttl of the key it references");
    const clientId = optionalString(d.client_id, 'client_id') || existing?.clientId || base62(26);
    this.roles.items.set(name, { key, template, ttl, clientId });
    return { kind: 'no-content' };
  }
}
