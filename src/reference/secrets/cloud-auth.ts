import { parseCidr, upstreamCidrText, upstreamTakesAsSocketPath } from './cidr.ts';
import { CloudAuthLogin } from './cloud-auth-login.ts';
import { BOUND_FIELDS, LEGACY_FIELDS, LoginRefused, type CloudAuthContext, type CloudConfig, type Role } from './cloud-auth-model.ts';
import { RETIRED_UPSTREAM_ENVIRONMENT, SPEC_ENVIRONMENTS, UPSTREAM_ENVIRONMENTS, upstreamRoleError, wrappedPlainError } from './cloud-auth-upstream.ts';
import { mayManage } from './cloud-auth-access.ts';
import { DurationError, parseDuration } from './durations.ts';
import type { EngineRequest, HelpDocument, SecretsEngine } from './engine.ts';
import { helpDocument } from './help.ts';
import { FieldError, NamedCollection, optionalString, stringList } from './named-collection.ts';
import { badRequest, notFound, type EngineResult } from './respond.ts';

export type { CloudAuthContext, Role } from './cloud-auth-model.ts';

const TTL_FIELDS = ['token_ttl', 'token_max_ttl', 'token_explicit_max_ttl', 'token_period'] as const;
const TOKEN_TYPES = ['', 'service', 'batch', 'default'];

/**
 * What Vault's Azure auth plugin reads back in its config besides the spec's fields
 * (path_config.go pathConfigRead: root_password_ttl in seconds, the retry delays as Go durations,
 * in nanoseconds; the defaults of pathConfigWrite).
 */
const UPSTREAM_CONFIG_EXTRAS = { root_password_ttl: 15_768_000, retry_delay: 4_000_000_000, max_retry_delay: 60_000_000_000, max_retries: 3 };

/**
 * The cloud-identity auth method: config, roles, and login, which verifies a managed-identity JWT
 * from the cloud's issuer and authorizes the machine against the role's bounds.
 */
export class CloudAuthEngine implements SecretsEngine {
  readonly type = 'cloudauth';
  private config?: CloudConfig;
  readonly roles = new NamedCollection<Role>();
  private readonly loginFlow: CloudAuthLogin;

  constructor(private readonly ctx: CloudAuthContext) {
    this.loginFlow = new CloudAuthLogin(ctx);
  }

  /** The login needs no token, wherever the method is mounted (the built-in mount and those enabled through sys/auth). */
  isUnauthenticated(path: string): boolean {
    const f = this.ctx.faults;
    if (path === 'login') return !f.has('secrets.cloudauth-login-needs-token');
    // The faults: an open-path pattern that also takes the config, or everything under role/.
    return (path === 'config' && f.has('secrets.cloudauth-config-open')) || (/^role(\/|$)/.test(path) && f.has('secrets.cloudauth-roles-open'));
  }

  private get upstreamDialect(): boolean {
    return this.ctx.dialect === 'hashicorp';
  }

  /** Whether the reference also reproduces the plugin's listed spec deviations. */
  private get upstreamDeviations(): boolean {
    return this.upstreamDialect && this.ctx.behavior === 'upstream';
  }

  async handle(req: EngineRequest): Promise<EngineResult> {
    try {
      if (req.path !== 'login' && !this.isUnauthenticated(req.path) && !mayManage(req.token, this.ctx.faults)) return { kind: 'error', status: 403, errors: ['permission denied'] };
      if (req.path === 'config') return this.configOp(req);
      if (req.path === 'login') {
        if (req.operation !== 'create-or-update') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
        return await this.loginFlow.login(req, this.roles.items, this.config);
      }
      const m = /^role\/?([^/]*)$/.exec(req.path);
      if (m) {
        const name = m[1] ?? '';
        if (req.operation === 'list') {
          if (name !== '') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
          return this.ctx.faults.has('secrets.cloudauth-role-list-empty') ? notFound() : this.roles.list();
        }
        if (name === '') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
        if (!NamedCollection.validName(name, this.ctx.faults.has('secrets.trailing-period-accepted'))) return NamedCollection.unsupported(name);
        // Vault stores role names lower-cased (path_role.go azureAuthBackend.role).
        return this.roleOp(req, this.upstreamDialect ? name.toLowerCase() : name);
      }
      return { kind: 'error', status: 404, errors: [`unsupported path: ${req.path}`] };
    } catch (err) {
      if (err instanceof FieldError || err instanceof DurationError) return badRequest(err.message);
      if (err instanceof LoginRefused) {
        if (this.ctx.faults.has('secrets.cloudauth-login-refusal-singular-error')) return { kind: 'raw', status: err.status, body: { error: err.message } };
        return { kind: 'error', status: err.status, errors: [err.message] };
      }
      throw err;
    }
  }

  help(path: string): HelpDocument | undefined {
    if (!/^(config|login|role(\/[^/]*)?)$/.test(path)) return undefined;
    return helpDocument('Cloud-identity auth method', `Configuration, roles and login of the cloud-identity auth method at \`${path}\`.`, { summary: path, verbs: path === 'login' ? ['post'] : ['get', 'post', 'delete'] });
  }

  /**
   * A config the plugin refuses: Vault's getAzureSettings (azure.go) fails with a plain error, which
   * Vault answers 500. The spec states 400 for invalid data, so only the upstream behaviour
   * reproduces the 500 (a listed deviation); otherwise 400 with the same message.
   */
  private configRefused(message: string): EngineResult {
    if (this.upstreamDeviations) return { kind: 'error', status: 500, errors: [wrappedPlainError(message)] };
    return badRequest(message);
  }

  /** Whether the config may name this environment. */
  private environmentAccepted(name: string): boolean {
    if (!this.upstreamDialect) return SPEC_ENVIRONMENTS.includes(name);
    // azure.go getAzureSettings: '' means the public cloud; cloudConfigFromName compares upper-cased.
    const upper = name.toUpperCase();
    if (name === '' || UPSTREAM_ENVIRONMENTS.some((e) => e.toUpperCase() === upper)) return true;
    return upper === RETIRED_UPSTREAM_ENVIRONMENT.toUpperCase() && !this.upstreamDeviations;
  }

  private configOp(req: EngineRequest): EngineResult {
    const f = this.ctx.faults;
    if (req.operation === 'read') {
      if (!this.config) return notFound();
      const c = this.config;
      const data: Record<string, unknown> = { tenant_id: c.tenant_id, resource: c.resource, environment: c.environment, client_id: c.client_id, client_secret: c.client_secret };
      if (this.upstreamDialect) Object.assign(data, UPSTREAM_CONFIG_EXTRAS);
      // path_config.go pathConfigRead never returns client_secret: a listed deviation.
      if (this.upstreamDeviations) delete data.client_secret;
      if (f.has('secrets.cloudauth-config-hides-credentials')) {
        delete data.client_id;
        delete data.client_secret;
      }
      return { kind: 'data', data };
    }
    if (req.operation === 'delete') {
      if (!f.has('secrets.cloudauth-config-delete-keeps-credentials')) this.config = undefined;
      else if (this.config) this.config = { ...this.config, tenant_id: '', resource: '' };
      return { kind: 'no-content' };
    }
    if (req.operation !== 'create-or-update') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
    const d = req.data;
    const tenant = optionalString(d.tenant_id, 'tenant_id') ?? this.config?.tenant_id;
    const resource = optionalString(d.resource, 'resource') ?? this.config?.resource;
    if (!f.has('secrets.cloudauth-config-fields-optional')) {
      if (!tenant) return this.configRefused('tenant_id is required');
      if (!resource) return this.configRefused('resource is required');
    }
    if (f.has('secrets.cloudauth-config-credentials-required') && !(d.client_id ?? this.config?.client_id)) return this.configRefused('client_id is required');
    const environment = optionalString(d.environment, 'environment') ?? this.config?.environment ?? (this.upstreamDialect ? '' : 'CloudPublic');
    if (!this.environmentAccepted(environment) && !f.has('secrets.cloudauth-any-environment')) {
      return this.configRefused(
        this.upstreamDialect ? `err: no cloud configuration matching the name "${environment.toUpperCase()}"` : `environment must be one of ${SPEC_ENVIRONMENTS.join(', ')}, not "${environment}"`,
      );
    }
    this.config = {
      tenant_id: tenant ?? '',
      resource: resource ?? '',
      environment,
      client_id: optionalString(d.client_id, 'client_id') ?? this.config?.client_id ?? '',
      client_secret: optionalString(d.client_secret, 'client_secret') ?? this.config?.client_secret ?? '',
    };
    return { kind: 'no-content' };
  }

  /** A role as it reads back. */
  private roleView(r: Role): Record<string, unknown> {
    const { legacy, ...fields } = r;
    const view: Record<string, unknown> = { ...fields };
    // path_role.go pathRoleRead: an older name is read back only while it holds something.
    for (const [older, value] of Object.entries(legacy ?? {})) if (Array.isArray(value) ? value.length > 0 : Number(value) > 0) view[older] = value;
    for (const b of BOUND_FIELDS) view[b] = r[b] ?? (this.upstreamDeviations ? null : []);
    // The blocks read back as go-sockaddr prints them (a host block without its suffix, an entry
    // trimmed), in both dialects: the spec says which addresses a block admits, not its text, and
    // this is the products' (secrets.upstream.cloudauth-cidr-text).
    if (!this.ctx.faults.has('secrets.cloudauth-cidr-read-as-written')) view.token_bound_cidrs = r.token_bound_cidrs.map(upstreamCidrText);
    // tokenutil reads an unset token_type as 'default'.
    if (this.upstreamDialect) view.token_type = r.token_type === '' ? 'default' : r.token_type;
    if (this.ctx.faults.has('secrets.cloudauth-role-ttl-as-string')) view.token_ttl = `${r.token_ttl}s`;
    return view;
  }

  /** A token_bound_cidrs entry that is no CIDR block: the reason to refuse it, or undefined to keep it. */
  private badCidr(entry: string): string | undefined {
    try {
      parseCidr(entry);
      return undefined;
    } catch (err) {
      if (this.ctx.faults.has('secrets.cloudauth-bad-cidr-accepted')) return undefined;
      // Vault keeps such an entry as a Unix socket path (go-sockaddr): a listed deviation.
      if (this.upstreamDeviations && upstreamTakesAsSocketPath(entry)) return undefined;
      if (this.upstreamDialect) return `error parsing address "${entry}": unable to convert "${entry}" to an IPv4 or IPv6 address, or a UNIX Socket`;
      return `token_bound_cidrs: ${(err as Error).message}`;
    }
  }

  private roleOp(req: EngineRequest, name: string): EngineResult {
    const f = this.ctx.faults;
    if (req.operation === 'read') return this.roles.read(name, (r) => this.roleView(r));
    if (req.operation === 'delete') return f.has('secrets.cloudauth-role-delete-noop') ? { kind: 'no-content' } : this.roles.remove(name);
    const old = this.roles.items.get(name);
    const d = this.upstreamDialect ? upgradedFields(req.data) : req.data;
    const role = {} as Role;
    for (const field of BOUND_FIELDS) role[field] = stringList(d[field], field) ?? old?.[field];
    role.token_policies = stringList(d.token_policies, 'token_policies') ?? old?.token_policies ?? [];
    if (f.has('secrets.cloudauth-comma-policies-unsplit') && typeof d.token_policies === 'string') role.token_policies = [d.token_policies];
    role.token_bound_cidrs = stringList(d.token_bound_cidrs, 'token_bound_cidrs') ?? old?.token_bound_cidrs ?? [];
    for (const cidr of role.token_bound_cidrs) {
      const problem = this.badCidr(cidr);
      if (problem) return badRequest(problem);
    }
    for (const field of TTL_FIELDS) role[field] = d[field] === undefined ? (old?.[field] ?? 0) : d[field] === '' ? 0 : parseDuration(d[field], field);
    if (f.has('secrets.cloudauth-role-drops-period')) role.token_period = 0;
    const noDefault = d.token_no_default_policy;
    if (noDefault !== undefined && typeof noDefault !== 'boolean' && noDefault !== 'true' && noDefault !== 'false') return badRequest('token_no_default_policy must be a boolean');
    role.token_no_default_policy = noDefault === undefined ? (old?.token_no_default_policy ?? false) : noDefault === true || noDefault === 'true';
    const uses = d.token_num_uses;
    if (uses !== undefined && !(Number.isInteger(Number(uses)) && Number(uses) >= 0 && String(uses).trim() !== '')) return badRequest('token_num_uses must be a non-negative integer');
    role.token_num_uses = uses === undefined ? (old?.token_num_uses ?? 0) : Number(uses);
    const type = optionalString(d.token_type, 'token_type') ?? old?.token_type ?? (f.has('secrets.cloudauth-token-type-default-batch') ? 'batch' : '');
    if (!TOKEN_TYPES.includes(type) || (type === 'batch' && f.has('secrets.cloudauth-batch-type-refused'))) return badRequest(`token_type must be one of service, batch or default, not "${type}"`);
    role.token_type = type;
    if (this.upstreamDialect) {
      // Validation Vault does and the spec is silent on: at least one bound, token_ttl <= token_max_ttl, ...
      const problem = upstreamRoleError({ ...role, bounds: BOUND_FIELDS.map((b) => role[b]) });
      if (problem) return badRequest(problem);
    }
    if (this.upstreamDialect) role.legacy = legacyAfterUpgrade(req.data, role, old?.legacy);
    this.roles.items.set(name, role);
    return { kind: 'no-content' };
  }
}

/**
 * hashicorp/vault sdk/helper/tokenutil UpgradeValue, as vault-plugin-auth-azure path_role.go
 * pathRoleCreateUpdate calls it for each older name: given alone, the older name sets the token_*
 * field (policies through policyutil.ParsePolicies: trimmed, lower-cased, sorted, duplicates and
 * empties dropped, only "root" when "root" is there); given with it, token_* wins.
 */
function upgradedFields(data: Record<string, unknown>): Record<string, unknown> {
  const out = { ...data };
  for (const [older, newer] of LEGACY_FIELDS) {
    if (data[older] === undefined || data[newer] !== undefined) continue;
    out[newer] = older === 'policies' ? parsePolicies(data[older]) : data[older];
  }
  return out;
}

/** What each older name holds after the write: token_*'s value when either name was given, cleared when only token_* was, as before when neither. */
function legacyAfterUpgrade(data: Record<string, unknown>, role: Role, before: Role['legacy']): Role['legacy'] {
  const legacy: NonNullable<Role['legacy']> = { ...before };
  for (const [older, newer] of LEGACY_FIELDS) {
    if (data[older] === undefined && data[newer] === undefined) continue;
    if (data[older] === undefined) delete legacy[older];
    else legacy[older] = Array.isArray(role[newer]) ? [...(role[newer] as string[])] : (role[newer] as number);
  }
  return legacy;
}

/** hashicorp/vault sdk/helper/policyutil ParsePolicies. */
function parsePolicies(raw: unknown): string[] {
  const items = Array.isArray(raw) ? raw.map(String) : String(raw).split(',');
  const set = new Set(items.map((p) => p.trim().toLowerCase()).filter((p) => p !== ''));
  return set.has('root') ? ['root'] : [...set].sort();
}
