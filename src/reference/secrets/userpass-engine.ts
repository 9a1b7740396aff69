import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import { inCidrs } from './cidr.ts';
import { sanitizePolicies } from './cloud-auth-upstream.ts';
import { DurationError } from './durations.ts';
import { isValidName, type EngineRequest, type HelpDocument, type SecretsEngine } from './engine.ts';
import { helpDocument } from './help.ts';
import type { Entity, IdentityStore } from './identity-store.ts';
import type { MountInfo } from './mount-table.ts';
import { FieldError, stringList } from './named-collection.ts';
import { badRequest, dataEnvelope, notFound, type EngineResult } from './respond.ts';
import { defaultTokenParams, parseTokenParams, tokenLifetime, tokenParamsView, type TokenParams } from './token-params.ts';
import type { TokenStore } from './token-store.ts';

/** The system's default lease (32 days), what a login token lives when the user sets no TTL. */
const SYSTEM_DEFAULT_TTL = 2_764_800;

interface User {
  salt: Buffer;
  hash: Buffer;
  params: TokenParams;
}

export interface UserpassContext {
  tokens: TokenStore;
  /** The namespace the method is mounted in ('' for root). */
  namespace: string;
  /** The mount: its accessor is what entity aliases name. */
  mount: MountInfo;
  /** The identity store of the namespace, where a login finds or makes its entity. */
  identity: () => IdentityStore | undefined;
}

function hashPassword(password: string, salt: Buffer): Buffer {
  return scryptSync(password, salt, 32);
}

/**
 * The username-and-password auth method (hashicorp/vault builtin/credential/userpass): users with
 * a password and token settings, and a login that issues a client token tied to an identity entity.
 * Passwords are kept only as salted scrypt hashes.
 */
export class UserpassEngine implements SecretsEngine {
  readonly type = 'userpass';
  private readonly users = new Map<string, User>();
  /** Compared against when the user does not exist, so that a miss costs as much as a wrong password. */
  private readonly decoy = { salt: randomBytes(16), hash: randomBytes(32) };

  constructor(private readonly ctx: UserpassContext) {}

  isUnauthenticated(path: string): boolean {
    return /^login\/[^/]+$/.test(path);
  }

  handle(req: EngineRequest): EngineResult {
    try {
      if (req.path === 'users/' || req.path === 'users') return this.list(req);
      const user = /^users\/([^/]+)(?:\/(password|policies))?$/.exec(req.path);
      if (user) {
        const name = user[1]!;
        if (!isValidName(name)) return unsupported(req.path);
        if (user[2]) return this.updatePart(req, name.toLowerCase(), user[2] as 'password' | 'policies');
        return this.user(req, name.toLowerCase());
      }
      const login = /^login\/([^/]+)$/.exec(req.path);
      if (login && isValidName(login[1]!)) {
        if (req.operation !== 'create-or-update') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
        return this.login(req, login[1]!.toLowerCase());
      }
      return unsupported(req.path);
    } catch (err) {
      if (err instanceof FieldError || err instanceof DurationError) return badRequest(err.message);
      throw err;
    }
  }

  help(path: string): HelpDocument | undefined {
    if (/^users\/?$/.test(path)) return helpDocument('Userpass users', 'List the users of this auth method.', { summary: 'user names', verbs: ['list'] }, { summary: 'one user', verbs: ['get', 'post', 'delete'] });
    if (/^users\/[^/]+$/.test(path)) return helpDocument('Userpass user', `Create, read, update and delete the user at \`${path}\`.`, { summary: 'the user', verbs: ['get', 'post', 'put', 'delete'] });
    if (/^login\/[^/]+$/.test(path)) return helpDocument('Userpass login', 'Log in with the user name in the path and the password in the body.', { summary: 'log in', verbs: ['post'] });
    return undefined;
  }

  private list(req: EngineRequest): EngineResult {
    if (req.operation !== 'list') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
    const keys = [...this.users.keys()].sort();
    return keys.length ? { kind: 'data', data: { keys } } : notFound();
  }

  /** path_users.go pathUserRead, pathUserWrite, pathUserDelete. */
  private user(req: EngineRequest, name: string): EngineResult {
    const existing = this.users.get(name);
    switch (req.operation) {
      case 'read':
        return existing ? { kind: 'data', data: tokenParamsView(existing.params) } : notFound();
      case 'delete':
        this.users.delete(name);
        return { kind: 'no-content' };
      case 'create-or-update': {
        const password = req.data.password;
        if (password !== undefined && typeof password !== 'string') return badRequest('password must be a string');
        if (!existing && !password) return badRequest('missing password');
        const params = parseTokenParams(req.data, existing?.params ?? defaultTokenParams());
        this.users.set(name, { ...(password ? this.secret(password) : { salt: existing!.salt, hash: existing!.hash }), params });
        return { kind: 'no-content' };
      }
      default:
        return { kind: 'error', status: 405, errors: ['unsupported operation'] };
    }
  }

  /** path_user_password.go and path_user_policies.go: change one thing of an existing user. */
  private updatePart(req: EngineRequest, name: string, part: 'password' | 'policies'): EngineResult {
    if (req.operation !== 'create-or-update') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
    const existing = this.users.get(name);
    if (!existing) return badRequest('username does not exist');
    if (part === 'password') {
      const password = req.data.password;
      if (typeof password !== 'string' || password === '') return badRequest('missing password');
      Object.assign(existing, this.secret(password));
    } else {
      existing.params = { ...existing.params, token_policies: stringList(req.data.token_policies ?? req.data.policies, 'token_policies') ?? [] };
    }
    return { kind: 'no-content' };
  }

  private secret(password: string): { salt: Buffer; hash: Buffer } {
    const salt = randomBytes(16);
    return { salt, hash: hashPassword(password, salt) };
  }

  /** path_login.go pathLogin, then what Vault's core does with the result (request_handling.go handleLoginRequest). */
  private login(req: EngineRequest, name: string): EngineResult {
    const password = req.data.password;
    // Vault answers a missing password with a plain error (500); the reference keeps to a 400.
    if (typeof password !== 'string' || password === '') return badRequest('missing password');
    const user = this.users.get(name);
    const stored = user ?? this.decoy;
    const matches = timingSafeEqual(hashPassword(password, stored.salt), stored.hash);
    if (!user || !matches) return badRequest('invalid username or password');
    const params = user.params;
    if (params.token_bound_cidrs.length && !inCidrs(req.remoteAddress, params.token_bound_cidrs)) return { kind: 'error', status: 403, errors: ['permission denied'] };
    const tokenPolicies = sanitizePolicies(params.token_policies, !params.token_no_default_policy);
    if (tokenPolicies.includes('root')) return badRequest('auth methods cannot create root tokens');
    const identity = this.ctx.identity();
    const entity = identity ? this.entityFor(identity, name) : undefined;
    if (entity?.disabled) return { kind: 'error', status: 403, errors: ['permission denied'] };
    const identityPolicies = entity && identity ? policiesOf(identity, entity) : [];
    const policies = sanitizePolicies([...tokenPolicies, ...identityPolicies], false);
    const ttl = tokenLifetime(params, SYSTEM_DEFAULT_TTL);
    const batch = params.token_type === 'batch';
    const token = this.ctx.tokens.create({
      prefix: batch ? 'hvb.' : 'hvs.',
      policies,
      namespace: this.ctx.namespace,
      entityId: entity?.id,
      usesLeft: params.token_num_uses > 0 ? params.token_num_uses : undefined,
      expiresAt: Date.now() + ttl * 1000,
      boundCidrs: params.token_bound_cidrs.length ? params.token_bound_cidrs : undefined,
      issuedBy: { namespace: this.ctx.namespace, accessor: this.ctx.mount.accessor },
    });
    const auth: Record<string, unknown> = {
      client_token: token.id,
      accessor: token.accessor,
      policies,
      token_policies: tokenPolicies,
      metadata: { username: name },
      lease_duration: ttl,
      renewable: !batch,
      entity_id: entity?.id ?? '',
      token_type: batch ? 'batch' : 'service',
      orphan: true,
      mfa_requirement: null,
      num_uses: params.token_num_uses,
    };
    if (identityPolicies.length) auth.identity_policies = identityPolicies;
    return { kind: 'raw', status: 200, body: { ...dataEnvelope(null), auth, mount_type: 'userpass' } };
  }

  /** The entity whose alias on this mount has the user's name; without one Vault makes both. */
  private entityFor(identity: IdentityStore, name: string): Entity {
    const found = identity.aliasByFactors(this.ctx.mount.accessor, name);
    if (found) return found.entity;
    const entity = identity.addEntity({});
    identity.addAlias(entity, { name, mountAccessor: this.ctx.mount.accessor });
    return entity;
  }
}

/** The entity's own policies and those of its groups (the token's identity_policies). */
function policiesOf(identity: IdentityStore, entity: Entity): string[] {
  const names = new Set(entity.policies);
  for (const id of entity.groupIds) for (const p of identity.groups.get(id)?.policies ?? []) names.add(p);
  return [...names].sort();
}

function unsupported(path: string): EngineResult {
  return { kind: 'error', status: 404, errors: [`unsupported path: ${path}`] };
}
