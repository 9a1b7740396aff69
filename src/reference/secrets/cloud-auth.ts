import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import type { FaultSet } from '../faults/types.ts';
import { parseCidr, inCidrs } from './cidr.ts';
import { DurationError, parseDuration } from './durations.ts';
import type { EngineRequest, HelpDocument, SecretsEngine } from './engine.ts';
import { helpDocument } from './help.ts';
import { FieldError, NamedCollection, optionalString, stringList } from './named-collection.ts';
import { badRequest, notFound, type EngineResult } from './respond.ts';
import type { TokenStore } from './token-store.ts';

export const ENVIRONMENTS = ['CloudPublic', 'CloudUSGovernment', 'CloudChina', 'CloudGerman'];
/** The lifetime a token gets when the role sets no token_ttl (the upstream system default, 768h). */
const SYSTEM_DEFAULT_TTL = 2_764_800;

interface Config {
  tenant_id: string;
  resource: string;
  environment: string;
  client_id: string;
  client_secret: string;
}

export interface Role {
  bound_service_principal_ids: string[];
  bound_group_ids: string[];
  bound_locations: string[];
  bound_subscription_ids: string[];
  bound_resource_groups: string[];
  bound_scale_sets: string[];
  token_ttl: number;
  token_max_ttl: number;
  token_policies: string[];
  token_bound_cidrs: string[];
  token_explicit_max_ttl: number;
  token_no_default_policy: boolean;
  token_num_uses: number;
  token_period: number;
  token_type: string;
}

const LIST_FIELDS = ['bound_service_principal_ids', 'bound_group_ids', 'bound_locations', 'bound_subscription_ids', 'bound_resource_groups', 'bound_scale_sets', 'token_policies', 'token_bound_cidrs'] as const;
const TTL_FIELDS = ['token_ttl', 'token_max_ttl', 'token_explicit_max_ttl', 'token_period'] as const;
const TOKEN_TYPES = ['', 'service', 'batch', 'default'];

export interface CloudAuthContext {
  faults: FaultSet;
  tokens: TokenStore;
  /** Where the cloud's issuer and compute API answer, for every environment (the reference trusts its simulator). */
  cloudBase: () => string;
  namespace: string;
}

/** Login was refused: the status and the message naming the reason (the failing bound, for instance). */
class LoginRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const lower = (xs: string[]) => xs.map((x) => x.toLowerCase());

/**
 * The cloud-identity auth method: config, roles, and login, which verifies a managed-identity JWT
 * from the cloud's issuer and authorizes the machine against the role's bounds.
 */
export class CloudAuthEngine implements SecretsEngine {
  readonly type = 'cloudauth';
  private config?: Config;
  readonly roles = new NamedCollection<Role>();
  private readonly jwks = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

  constructor(private readonly ctx: CloudAuthContext) {}

  async handle(req: EngineRequest): Promise<EngineResult> {
    try {
      if (req.path === 'config') return this.configOp(req);
      if (req.path === 'login') {
        if (req.operation !== 'create-or-update') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
        return await this.login(req);
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
        return this.roleOp(req, name);
      }
      return { kind: 'error', status: 404, errors: [`unsupported path: ${req.path}`] };
    } catch (err) {
      if (err instanceof FieldError || err instanceof DurationError) return badRequest(err.message);
      if (err instanceof LoginRefused) return { kind: 'error', status: err.status, errors: [err.message] };
      throw err;
    }
  }

  help(path: string): HelpDocument | undefined {
    if (!/^(config|login|role(\/[^/]*)?)$/.test(path)) return undefined;
    return helpDocument('Cloud-identity auth method', `Configuration, roles and login of the cloud-identity auth method at \`${path}\`.`, { summary: path, verbs: path === 'login' ? ['post'] : ['get', 'post', 'delete'] });
  }

  private configOp(req: EngineRequest): EngineResult {
    const f = this.ctx.faults;
    if (req.operation === 'read') {
      if (!this.config) return notFound();
      const c = this.config;
      const data: Record<string, unknown> = { tenant_id: c.tenant_id, resource: c.resource, environment: c.environment, client_id: c.client_id, client_secret: c.client_secret };
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
      if (!tenant) return badRequest('tenant_id is required');
      if (!resource) return badRequest('resource is required');
    }
    const environment = optionalString(d.environment, 'environment') ?? this.config?.environment ?? 'CloudPublic';
    if (!ENVIRONMENTS.includes(environment) && !f.has('secrets.cloudauth-any-environment')) return badRequest(`environment must be one of ${ENVIRONMENTS.join(', ')}, not "${environment}"`);
    this.config = {
      tenant_id: tenant ?? '',
      resource: resource ?? '',
      environment,
      client_id: optionalString(d.client_id, 'client_id') ?? this.config?.client_id ?? '',
      client_secret: optionalString(d.client_secret, 'client_secret') ?? this.config?.client_secret ?? '',
    };
    return { kind: 'no-content' };
  }

  private roleOp(req: EngineRequest, name: string): EngineResult {
    const f = this.ctx.faults;
    if (req.operation === 'read') return this.roles.read(name, (r) => (f.has('secrets.cloudauth-role-ttl-as-string') ? { ...r, token_ttl: `${r.token_ttl}s` } : { ...r }));
    if (req.operation === 'delete') return f.has('secrets.cloudauth-role-delete-noop') ? { kind: 'no-content' } : this.roles.remove(name);
    const d = req.data;
    const old = this.roles.items.get(name);
    const role = {} as Role;
    for (const field of LIST_FIELDS) {
      const list = stringList(d[field], field);
      role[field] = list ?? old?.[field] ?? [];
      if (field === 'token_policies' && f.has('secrets.cloudauth-comma-policies-unsplit') && typeof d[field] === 'string') role[field] = [d[field] as string];
    }
    for (const cidr of role.token_bound_cidrs) {
      try {
        parseCidr(cidr);
      } catch (err) {
        if (!f.has('secrets.cloudauth-bad-cidr-accepted')) return badRequest(`token_bound_cidrs: ${(err as Error).message}`);
      }
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
    if (!TOKEN_TYPES.includes(type)) return badRequest(`token_type must be one of service, batch or default, not "${type}"`);
    role.token_type = type;
    this.roles.items.set(name, role);
    return { kind: 'no-content' };
  }

  private keySet(tenant: string) {
    let set = this.jwks.get(tenant);
    if (!set) {
      set = createRemoteJWKSet(new URL(`${this.ctx.cloudBase()}/${tenant}/discovery/keys`), { timeoutDuration: 5_000 });
      this.jwks.set(tenant, set);
    }
    return set;
  }

  /** Verifies the managed-identity JWT: signature from the cloud's key set, issuer of the configured tenant, audience the configured resource, and times. */
  private async verify(jwt: string, config: Config): Promise<JWTPayload> {
    const f = this.ctx.faults;
    try {
      decodeProtectedHeader(jwt);
      decodeJwt(jwt);
    } catch {
      throw new LoginRefused(400, 'jwt is not a JWT (three base64url parts with a JSON header and claims)');
    }
    if (f.has('secrets.cloudauth-signature-unchecked') || (f.has('secrets.cloudauth-alg-none-accepted') && decodeProtectedHeader(jwt).alg === 'none')) {
      return decodeJwt(jwt);
    }
    const issuer = `${this.ctx.cloudBase()}/${config.tenant_id}/`;
    try {
      const { payload } = await jwtVerify(jwt, this.keySet(config.tenant_id), {
        algorithms: ['RS256'],
        issuer: f.has('secrets.cloudauth-issuer-unchecked') ? undefined : issuer,
        audience: f.has('secrets.cloudauth-audience-unchecked') ? undefined : config.resource,
        clockTolerance: f.has('secrets.cloudauth-expiry-unchecked') ? 10 * 365 * 86_400 : 5,
        currentDate: f.has('secrets.cloudauth-nbf-unchecked') ? new Date(Date.now() + 2 * 3600 * 1000) : undefined,
      });
      return payload;
    } catch (err) {
      throw new LoginRefused(403, `jwt verification failed: ${(err as Error).message}`);
    }
  }

  private async location(kind: 'virtualMachines' | 'virtualMachineScaleSets', sub: string, rg: string, name: string): Promise<string | undefined> {
    const url = `${this.ctx.cloudBase()}/subscriptions/${encodeURIComponent(sub)}/resourceGroups/${encodeURIComponent(rg)}/providers/Microsoft.Compute/${kind}/${encodeURIComponent(name)}`;
    try {
      const res = await fetch(url, { headers: { authorization: `Bearer ${this.config?.client_id ?? ''}` }, signal: AbortSignal.timeout(5_000) });
      if (!res.ok) return undefined;
      const body = (await res.json()) as { location?: unknown };
      return typeof body.location === 'string' ? body.location : undefined;
    } catch {
      return undefined;
    }
  }

  private async login(req: EngineRequest): Promise<EngineResult> {
    const f = this.ctx.faults;
    const d = req.data;
    const field = (k: string) => optionalString(d[k], k) ?? '';
    const roleName = field('role');
    const jwt = field('jwt');
    const sub = field('subscription_id');
    const rg = field('resource_group_name');
    const vmName = field('vm_name');
    const vmssName = field('vmss_name');
    if (!jwt) return badRequest(f.has('secrets.cloudauth-jwt-required-message') ? 'missing field' : 'jwt is required');
    if (!roleName) return badRequest('role is required');
    const role = this.roles.items.get(roleName);
    if (!role) return badRequest(`invalid role name "${roleName}"`);
    if (!sub || !rg) {
      if (f.has('secrets.cloudauth-missing-field-500')) return { kind: 'error', status: 500, errors: ['internal error: unexpected empty field'] };
      return badRequest(!sub ? 'subscription_id is required' : 'resource_group_name is required');
    }
    const config = this.config;
    if (!config || !config.tenant_id) return badRequest('the auth method is not configured');
    if (role.token_bound_cidrs.length > 0 && !f.has('secrets.cloudauth-login-cidr-unchecked') && !inCidrs(req.remoteAddress, role.token_bound_cidrs)) {
      throw new LoginRefused(f.has('secrets.cloudauth-login-cidr-400') ? 400 : 403, 'permission denied: the login comes from an address outside token_bound_cidrs');
    }
    const claims = await this.verify(jwt, config);
    const oid = String(claims.oid ?? '');
    const groups = Array.isArray(claims.groups) ? claims.groups.map(String) : [];
    const rid = String(claims.xms_mirid ?? claims.xms_az_rid ?? '').toLowerCase();
    // The token must belong to the machine the request names.
    const useVmss = vmssName !== '' && !f.has('secrets.cloudauth-vm-name-not-ignored');
    const machine = useVmss ? { kind: 'virtualMachineScaleSets' as const, name: vmssName } : vmName || vmssName ? { kind: 'virtualMachines' as const, name: vmName || vmssName } : undefined;
    if (!rid.includes(`/subscriptions/${sub.toLowerCase()}/resourcegroups/${rg.toLowerCase()}/`)) {
      throw new LoginRefused(403, `the token's resource id ${rid} is not in subscription ${sub}, resource group ${rg}`);
    }
    if (machine && !rid.endsWith(`/${machine.kind.toLowerCase()}/${machine.name.toLowerCase()}`)) {
      throw new LoginRefused(403, `the token's resource id ${rid} is not ${machine.kind}/${machine.name}`);
    }
    const bound = (name: keyof Role, values: string[], ok: boolean) => {
      const list = role[name] as string[];
      if (list.length === 0 && f.has('secrets.cloudauth-empty-bound-denies') && name === 'bound_locations') throw new LoginRefused(403, `${name} is empty`);
      if (list.length > 0 && !ok) throw new LoginRefused(403, `${name} ${JSON.stringify(list)} does not contain ${JSON.stringify(values.length === 1 ? values[0] : values)}`);
    };
    bound('bound_service_principal_ids', [oid], lower(role.bound_service_principal_ids).includes(oid.toLowerCase()));
    if (!f.has('secrets.cloudauth-group-bound-ignored')) bound('bound_group_ids', groups, lower(groups).some((g) => lower(role.bound_group_ids).includes(g)));
    bound('bound_subscription_ids', [sub], lower(role.bound_subscription_ids).includes(sub.toLowerCase()));
    if (!f.has('secrets.cloudauth-resource-group-bound-ignored')) bound('bound_resource_groups', [rg], lower(role.bound_resource_groups).includes(rg.toLowerCase()));
    if (role.bound_scale_sets.length > 0) bound('bound_scale_sets', [vmssName], useVmss && lower(role.bound_scale_sets).includes(vmssName.toLowerCase()));
    if (role.bound_locations.length > 0 || f.has('secrets.cloudauth-empty-bound-denies')) {
      const location = machine ? await this.location(machine.kind, sub, rg, machine.name) : undefined;
      bound('bound_locations', [location ?? '(unknown)'], location !== undefined && lower(role.bound_locations).includes(location.toLowerCase()));
    }
    const policies = [...role.token_policies];
    if (!role.token_no_default_policy && !policies.includes('default')) policies.push('default');
    if (role.token_no_default_policy && f.has('secrets.cloudauth-default-policy-always') && !policies.includes('default')) policies.push('default');
    const ttl = f.has('secrets.cloudauth-lease-ignores-ttl') ? SYSTEM_DEFAULT_TTL : role.token_ttl || SYSTEM_DEFAULT_TTL;
    const token = this.ctx.tokens.create({
      prefix: role.token_type === 'batch' ? 'hvb.' : 'hvs.',
      policies,
      namespace: f.has('secrets.cloudauth-token-unusable') ? 'nowhere/' : this.ctx.namespace,
      usesLeft: role.token_num_uses > 0 && !f.has('secrets.cloudauth-num-uses-ignored') ? role.token_num_uses : undefined,
      expiresAt: Date.now() + ttl * 1000,
      boundCidrs: role.token_bound_cidrs.length && !f.has('secrets.cloudauth-token-cidr-unchecked') ? role.token_bound_cidrs : undefined,
    });
    return {
      kind: 'raw',
      status: 200,
      body: {
        request_id: crypto.randomUUID(),
        lease_id: '',
        renewable: false,
        lease_duration: 0,
        data: null,
        wrap_info: null,
        warnings: null,
        auth: {
          client_token: token.id,
          accessor: f.has('secrets.cloudauth-login-no-accessor') ? undefined : token.accessor,
          policies,
          token_policies: policies,
          metadata: { role: roleName, subscription_id: sub, resource_group_name: rg, vm_name: vmName, vmss_name: vmssName },
          lease_duration: ttl,
          renewable: role.token_type !== 'batch',
          entity_id: '',
          token_type: role.token_type === 'batch' ? 'batch' : 'service',
          orphan: true,
          num_uses: role.token_num_uses,
        },
      },
    };
  }
}
