import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { inCidrs } from './cidr.ts';
import { bound, BOUND_FIELDS, LoginRefused, RESOURCE_BOUNDS, type CloudAuthContext, type CloudConfig, type Role } from './cloud-auth-model.ts';
import { loginTokenTtl } from './cloud-auth-ttl.ts';
import { identityBoundError, isWildcard, machineFieldError, sanitizePolicies, verifierMessage } from './cloud-auth-upstream.ts';
import type { FaultSet } from '../faults/types.ts';
import type { EngineRequest } from './engine.ts';
import { optionalString } from './named-collection.ts';
import { badRequest, type EngineResult } from './respond.ts';


const lower = (xs: string[]) => xs.map((x) => x.toLowerCase());
const containsFold = (list: string[], value: string) => lower(list).includes(value.toLowerCase());
/** The fault secrets.cloudauth-bound-prefix-match: a bound value admits every value it begins. */
const beginsFold = (list: string[], value: string) => lower(list).some((b) => value.toLowerCase().startsWith(b));

type ComputeKind = 'virtualMachines' | 'virtualMachineScaleSets';
interface ComputeMachine {
  location?: string;
  principalId?: string;
}

/** A tenant's issuer and signing keys, from its discovery document. */
interface TenantProvider {
  issuer: string;
  keys: ReturnType<typeof createRemoteJWKSet>;
}

interface LoginFields {
  role: string;
  jwt: string;
  subscription_id: string;
  resource_group_name: string;
  vm_name: string;
  vmss_name: string;
}

/**
 * Login of the cloud-identity auth method: verifies the managed-identity JWT from the cloud's
 * issuer, then authorizes the machine against the role's bounds, and issues a client token.
 *
 * Spec 000 shows no status per login condition ("Which condition of each individual OIDC or login
 * operation yields which status: not shown"). The spec dialect refuses a token or a machine with
 * 403; the hashicorp dialect answers 500 like Vault's Azure plugin, whose verification and
 * authorization failures are plain errors (path_login.go pathLogin; sdk/logical/response_util.go
 * RespondErrorCommon makes a plain error 500). Missing or malformed input is 400 in both.
 */
export class CloudAuthLogin {
  private readonly providers = new Map<string, Promise<TenantProvider>>();
  /** Roles as read at their first login (only under the fault secrets.cloudauth-role-cached). */
  private readonly rolesAtFirstLogin = new Map<string, Role>();

  constructor(private readonly ctx: CloudAuthContext) {}

  private get upstreamDialect(): boolean {
    return this.ctx.dialect === 'hashicorp';
  }

  private deny(message: string): LoginRefused {
    return new LoginRefused(this.upstreamDialect ? 500 : 403, message);
  }

  async login(req: EngineRequest, roles: ReadonlyMap<string, Role>, config: CloudConfig | undefined): Promise<EngineResult> {
    const f = this.ctx.faults;
    const d = req.data;
    const field = (k: keyof LoginFields) => optionalString(d[k], k) ?? '';
    const input: LoginFields = { role: field('role'), jwt: field('jwt'), subscription_id: field('subscription_id'), resource_group_name: field('resource_group_name'), vm_name: field('vm_name'), vmss_name: field('vmss_name') };
    // path_login.go pathLogin checks in this order: jwt, role, the role's CIDRs, the form of the machine fields.
    if (!input.jwt) return badRequest(f.has('secrets.cloudauth-jwt-required-message') ? 'missing field' : 'jwt is required');
    if (!input.role) return badRequest('role is required');
    if (f.has('secrets.cloudauth-vm-name-required') && !input.vm_name && !input.vmss_name) return badRequest('vm_name or vmss_name is required');
    // Vault stores role names lower-cased (path_role.go azureAuthBackend.role).
    const key = this.upstreamDialect ? input.role.toLowerCase() : input.role;
    // The fault secrets.cloudauth-role-cached: a role is read once, at its first login, and kept.
    const role = (f.has('secrets.cloudauth-role-cached') ? this.rolesAtFirstLogin.get(key) : undefined) ?? roles.get(key);
    if (role && f.has('secrets.cloudauth-role-cached')) this.rolesAtFirstLogin.set(key, role);
    if (!role) {
      if (!f.has('secrets.cloudauth-unknown-role-admits')) return badRequest(`invalid role name "${input.role}"`);
      if (!config?.tenant_id) return badRequest('the auth method is not configured');
      await this.verify(input.jwt, config);
      return this.issue(UNKNOWN_ROLE_FALLBACK, input);
    }
    if (role.token_bound_cidrs.length > 0 && !f.has('secrets.cloudauth-login-cidr-unchecked') && !inCidrs(req.remoteAddress, role.token_bound_cidrs, f.has('secrets.cloudauth-cidr-by-bytes'))) {
      // logical.ErrPermissionDenied: 403 "permission denied" upstream.
      throw new LoginRefused(f.has('secrets.cloudauth-login-cidr-400') ? 400 : 403, this.upstreamDialect ? 'permission denied' : 'permission denied: the login comes from an address outside token_bound_cidrs');
    }
    if (this.upstreamDialect) {
      const formError = machineFieldError(input);
      if (formError) return badRequest(formError);
    }
    const hasMachine = input.subscription_id !== '' && input.resource_group_name !== '';
    const resourceBound = RESOURCE_BOUNDS.some((b) => bound(role, b).length > 0);
    // The spec marks subscription_id and resource_group_name required. Vault reads them only for a
    // role with a resource bound (path_login.go verifyResource returns early otherwise): the
    // upstream behaviour reproduces that listed deviation.
    const machineRequired = !f.has('secrets.cloudauth-machine-fields-optional') && (this.ctx.behavior !== 'upstream' || resourceBound);
    if (!this.upstreamDialect && machineRequired && !hasMachine) return badRequest(!input.subscription_id ? 'subscription_id is required' : 'resource_group_name is required');
    if (!config || !config.tenant_id) {
      // An absent config is an empty one to the plugin, whose getAzureSettings then fails plainly.
      if (this.upstreamDialect) throw new LoginRefused(500, 'tenant_id is required');
      return badRequest('the auth method is not configured');
    }
    const claims = await this.verify(input.jwt, config);
    this.checkIdentity(role, claims);
    if (this.upstreamDialect) {
      if (machineRequired && !hasMachine) throw this.deny('subscription_id and resource_group_name are required');
      if (f.has('secrets.cloudauth-empty-bound-denies') && bound(role, 'bound_locations').length === 0) throw this.deny('bound_locations is empty');
      if (resourceBound) await this.checkMachineUpstream(role, claims, input);
    } else if (hasMachine || machineRequired) await this.checkMachine(role, claims, input);
    return this.issue(role, input);
  }

  /**
   * What the tenant's discovery document says: the issuer its tokens carry and where its signing
   * keys are. The Azure plugin reads both from there rather than deriving them from the URL
   * (azure.go newAzureProvider: Azure AD's issuer, https://sts.windows.net/<tenant>/, is not the
   * host the document is served from). Kept per tenant, as the plugin keeps its provider; a
   * discovery that failed is tried again at the next login.
   */
  private provider(tenant: string): Promise<TenantProvider> {
    let provider = this.providers.get(tenant);
    if (!provider) {
      provider = this.discover(tenant);
      this.providers.set(tenant, provider);
      provider.catch(() => this.providers.delete(tenant));
    }
    return provider;
  }

  private async discover(tenant: string): Promise<TenantProvider> {
    const url = `${this.ctx.cloudBase()}/${encodeURIComponent(tenant)}/.well-known/openid-configuration`;
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      text = await res.text();
    } catch (err) {
      throw this.deny(`Get "${url}": ${(err as Error).message}`);
    }
    // The plugin's own words for a document it could not use (azure.go newAzureProvider).
    if (res.status !== 200) throw this.deny(`${res.status} ${res.statusText}: ${text}`);
    let doc: { issuer?: unknown; jwks_uri?: unknown };
    try {
      doc = JSON.parse(text) as typeof doc;
    } catch (err) {
      throw this.deny(`unable to unmarshal discovery url: ${(err as Error).message}`);
    }
    if (typeof doc.issuer !== 'string' || typeof doc.jwks_uri !== 'string' || !URL.canParse(doc.jwks_uri)) throw this.deny('unable to unmarshal discovery url: no issuer and jwks_uri');
    return { issuer: doc.issuer, keys: createRemoteJWKSet(new URL(doc.jwks_uri), { timeoutDuration: 5_000 }) };
  }

  /** Verifies the managed-identity JWT: signature from the cloud's key set, issuer of the configured tenant, audience the configured resource, and times. */
  private async verify(jwt: string, config: CloudConfig): Promise<JWTPayload> {
    const f = this.ctx.faults;
    try {
      decodeProtectedHeader(jwt);
      decodeJwt(jwt);
    } catch (err) {
      if (this.upstreamDialect) throw this.deny(verifierMessage(undefined, (err as Error).message, { issuer: '', audience: '' }));
      throw new LoginRefused(400, 'jwt is not a JWT (three base64url parts with a JSON header and claims)');
    }
    if (f.has('secrets.cloudauth-signature-unchecked') || (f.has('secrets.cloudauth-alg-none-accepted') && decodeProtectedHeader(jwt).alg === 'none')) {
      return decodeJwt(jwt);
    }
    const { issuer, keys } = await this.provider(config.tenant_id);
    try {
      const { payload } = await jwtVerify(jwt, keys, {
        algorithms: ['RS256'],
        issuer: f.has('secrets.cloudauth-issuer-unchecked') ? undefined : issuer,
        audience: f.has('secrets.cloudauth-audience-unchecked') ? undefined : config.resource,
        clockTolerance: f.has('secrets.cloudauth-expiry-unchecked') ? 10 * 365 * 86_400 : 5,
        currentDate: f.has('secrets.cloudauth-nbf-unchecked') ? new Date(Date.now() + 2 * 3600 * 1000) : undefined,
      });
      return payload;
    } catch (err) {
      const e = err as Error & { code?: string };
      throw this.deny(this.upstreamDialect ? verifierMessage(e.code, e.message, { issuer, audience: config.resource }) : `jwt verification failed: ${e.message}`);
    }
  }

  /** The identity bounds, from the token's claims: service principal (oid) and groups. */
  private checkIdentity(role: Role, claims: JWTPayload): void {
    const f = this.ctx.faults;
    const oid = String(claims.oid ?? '');
    const groups = Array.isArray(claims.groups) ? claims.groups.map(String) : [];
    const principals = bound(role, 'bound_service_principal_ids');
    const groupBound = bound(role, 'bound_group_ids');
    if (this.upstreamDialect) {
      const missing = identityBoundError(principals, groupBound);
      if (missing) throw this.deny(missing);
    }
    // In the hashicorp dialect a lone '*' admits any value, as path_login.go verifyRole does.
    const wildcard = (xs: string[]) => this.upstreamDialect && isWildcard(xs);
    if (principals.length > 0 && !wildcard(principals) && !containsFold(principals, oid)) {
      throw this.deny(this.upstreamDialect ? `service principal not authorized: ${oid}` : `bound_service_principal_ids ${JSON.stringify(principals)} does not contain ${JSON.stringify(oid)}`);
    }
    if (f.has('secrets.cloudauth-group-bound-ignored') || groupBound.length === 0 || wildcard(groupBound)) return;
    if (!groups.some((g) => containsFold(groupBound, g))) {
      throw this.deny(this.upstreamDialect ? `groups not authorized: [${groups.join(' ')}]` : `bound_group_ids ${JSON.stringify(groupBound)} does not contain ${JSON.stringify(groups)}`);
    }
  }

  /** The token's resource ids (xms_az_rid, xms_mirid), lower-cased. */
  private resourceIds(claims: JWTPayload): string[] {
    return [claims.xms_az_rid, claims.xms_mirid].filter((v): v is string => typeof v === 'string' && v !== '').map((v) => v.toLowerCase());
  }

  /**
   * The spec dialect's machine checks: the token belongs to the machine the request names (its
   * resource id is in the subscription and resource group, and is that VM or scale set), and the
   * machine is within the subscription, resource-group, scale-set and location bounds.
   */
  private async checkMachine(role: Role, claims: JWTPayload, input: LoginFields): Promise<void> {
    const f = this.ctx.faults;
    const { subscription_id: sub, resource_group_name: rg, vm_name: vmName, vmss_name: vmssName } = input;
    const rid = this.resourceIds(claims)[0] ?? '';
    const useVmss = vmssName !== '' && !f.has('secrets.cloudauth-vm-name-not-ignored');
    const machine = useVmss ? { kind: 'virtualMachineScaleSets' as const, name: vmssName } : vmName || vmssName ? { kind: 'virtualMachines' as const, name: vmName || vmssName } : undefined;
    // The fault drops the closing slash: a resource group that is a prefix of the token's own passes.
    const groupPart = `/subscriptions/${sub.toLowerCase()}/resourcegroups/${rg.toLowerCase()}${f.has('secrets.cloudauth-claimed-group-substring') ? '' : '/'}`;
    if (!rid.includes(groupPart)) {
      throw this.deny(`the token's resource id ${rid} is not in subscription ${sub}, resource group ${rg}`);
    }
    if (machine && !rid.endsWith(`/${machine.kind.toLowerCase()}/${machine.name.toLowerCase()}`)) {
      throw this.deny(`the token's resource id ${rid} is not ${machine.kind}/${machine.name}`);
    }
    const check = (name: (typeof BOUND_FIELDS)[number], values: string[], ok: boolean) => {
      const list = bound(role, name);
      if (list.length > 0 && !ok) throw this.deny(`${name} ${JSON.stringify(list)} does not contain ${JSON.stringify(values.length === 1 ? values[0] : values)}`);
    };
    check('bound_subscription_ids', [sub], containsFold(bound(role, 'bound_subscription_ids'), sub));
    if (!f.has('secrets.cloudauth-resource-group-bound-ignored')) check('bound_resource_groups', [rg], (f.has('secrets.cloudauth-bound-prefix-match') ? beginsFold : containsFold)(bound(role, 'bound_resource_groups'), rg));
    if (bound(role, 'bound_scale_sets').length > 0) check('bound_scale_sets', [vmssName], useVmss && containsFold(bound(role, 'bound_scale_sets'), vmssName));
    const locations = bound(role, 'bound_locations');
    if (locations.length === 0 && f.has('secrets.cloudauth-empty-bound-denies')) throw this.deny('bound_locations is empty');
    if (locations.length > 0) {
      const location = machine ? (await this.compute(machine.kind, sub, rg, machine.name))?.location : undefined;
      check('bound_locations', [location ?? '(unknown)'], location !== undefined && containsFold(locations, location));
    }
  }

  /**
   * The hashicorp dialect's machine checks, in the order of path_login.go verifyResource (run only
   * for a role with a resource bound): the scale set (vm_name ignored) or the VM must appear in the
   * token's resource ids and be known to the compute API, the resource group must appear in them,
   * the token's object id must be the machine's identity, then the subscription, resource-group and
   * location bounds.
   */
  private async checkMachineUpstream(role: Role, claims: JWTPayload, input: LoginFields): Promise<void> {
    const f = this.ctx.faults;
    const { subscription_id: sub, resource_group_name: rg, vm_name: vmName, vmss_name: vmssName } = input;
    const rids = this.resourceIds(claims);
    const inClaims = (part: string) => rids.some((rid) => rid.includes(part.toLowerCase()));
    const scaleSets = bound(role, 'bound_scale_sets');
    let machine: ComputeMachine | undefined;
    // The fault looks the machine up in the resource group of the token's own resource id, not the
    // claimed one: with the claims check a substring match (as upstream's is), a prefix of it passes.
    const lookupRg = f.has('secrets.cloudauth-claimed-group-substring') ? (/\/resourcegroups\/([^/]+)\//.exec(rids[0] ?? '')?.[1] ?? rg) : rg;
    if (vmssName && !(f.has('secrets.cloudauth-vm-name-not-ignored') && vmName)) {
      if (!inClaims(`/virtualMachines/${vmssName}_`) && !inClaims(`/virtualMachineScaleSets/${vmssName}`)) throw this.deny(`failed to verify flexible vmss claim: xms_az_rid token claim does not match vmss_name ${vmssName}`);
      machine = await this.compute('virtualMachineScaleSets', sub, lookupRg, vmssName);
      if (!machine) throw this.deny(`unable to retrieve virtual machine scale set metadata: ${vmssName} not found`);
      if (scaleSets.length > 0 && !containsFold(scaleSets, vmssName)) throw this.deny('scale set not authorized');
    } else if (vmName) {
      if (!inClaims(`/virtualMachines/${vmName}`)) throw this.deny(`xms_az_rid token claim does not match vm_name ${vmName}`);
      machine = await this.compute('virtualMachines', sub, lookupRg, vmName);
      if (!machine) throw this.deny(`unable to retrieve virtual machine metadata: ${vmName} not found`);
      if (scaleSets.length > 0) throw this.deny("bound scale set defined but this vm isn't in a scale set");
    } else {
      throw this.deny('one of vm_name, vmss_name, resource_id, or an appid JWT claim must be provided');
    }
    if (!inClaims(`/resourcegroups/${rg}`)) throw this.deny(`xms_az_rid token claim does not match resource_group_name ${rg}`);
    if (machine.principalId !== String(claims.oid ?? '')) throw this.deny('token object id does not match expected identities, and no app id was found');
    const subscriptions = bound(role, 'bound_subscription_ids');
    if (subscriptions.length > 0 && !containsFold(subscriptions, sub)) throw this.deny('subscription not authorized');
    const groups = bound(role, 'bound_resource_groups');
    if (!f.has('secrets.cloudauth-resource-group-bound-ignored') && groups.length > 0 && !(f.has('secrets.cloudauth-bound-prefix-match') ? beginsFold : containsFold)(groups, rg)) throw this.deny('resource group not authorized');
    const locations = bound(role, 'bound_locations');
    if (locations.length > 0) {
      if (!machine.location) throw this.deny('location is empty');
      if (!containsFold(locations, machine.location)) throw this.deny('location not authorized');
    }
  }

  /** What the cloud's compute API says about a machine: its location and identity. */
  private async compute(kind: ComputeKind, sub: string, rg: string, name: string): Promise<ComputeMachine | undefined> {
    const url = `${this.ctx.cloudBase()}/subscriptions/${encodeURIComponent(sub)}/resourceGroups/${encodeURIComponent(rg)}/providers/Microsoft.Compute/${kind}/${encodeURIComponent(name)}`;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      if (!res.ok) return undefined;
      const body = (await res.json()) as { location?: unknown; identity?: { principalId?: unknown } };
      return {
        location: typeof body.location === 'string' ? body.location : undefined,
        principalId: typeof body.identity?.principalId === 'string' ? body.identity.principalId : undefined,
      };
    } catch {
      return undefined;
    }
  }

  /** Issues the client token for a role, and answers with the login response. */
  private issue(role: Role, input: LoginFields): EngineResult {
    const f = this.ctx.faults;
    const addDefault = !role.token_no_default_policy || f.has('secrets.cloudauth-default-policy-always');
    let policies: string[];
    if (this.upstreamDialect) {
      policies = sanitizePolicies(role.token_policies, addDefault);
      // vault/request_handling.go LoginCreateToken
      if (policies.includes('root')) return badRequest('auth methods cannot create root tokens');
    } else {
      policies = [...role.token_policies];
      if (addDefault && !policies.includes('default')) policies.push('default');
    }
    const ttl = loginTokenTtl(role, f);
    const token = this.ctx.tokens.create({
      prefix: role.token_type === 'batch' ? 'hvb.' : 'hvs.',
      policies,
      namespace: f.has('secrets.cloudauth-token-unusable') ? 'nowhere/' : this.ctx.namespace,
      usesLeft: usesOf(role, f),
      expiresAt: Date.now() + ttl * 1000,
      boundCidrs: role.token_bound_cidrs.length && !f.has('secrets.cloudauth-token-cidr-unchecked') ? role.token_bound_cidrs : undefined,
    });
    const metadata: Record<string, string> = { role: input.role, subscription_id: input.subscription_id, resource_group_name: input.resource_group_name };
    // The plugin adds the machine names only when given (path_login.go pathLogin).
    if (!this.upstreamDialect || input.vm_name) metadata.vm_name = input.vm_name;
    if (!this.upstreamDialect || input.vmss_name) metadata.vmss_name = input.vmss_name;
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
          // Vault and OpenBao leave an empty list out (sdk/logical/translate_response.go HTTPAuth:
          // token_policies has omitempty): the listed deviation, under the upstream behaviour.
          ...(this.ctx.behavior === 'upstream' && policies.length === 0 ? {} : { token_policies: policies }),
          metadata,
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

/** How many uses the token gets: token_num_uses, where 0 is unlimited (undefined). */
function usesOf(role: Role, f: FaultSet): number | undefined {
  if (role.token_num_uses === 0) return f.has('secrets.cloudauth-num-uses-zero-single') ? 1 : undefined;
  return f.has('secrets.cloudauth-num-uses-ignored') ? undefined : role.token_num_uses;
}

/** The role the fault 'cloudauth-unknown-role-admits' logs an unknown role name in with: no bound, the default policy. */
const UNKNOWN_ROLE_FALLBACK: Role = {
  ...(Object.fromEntries(BOUND_FIELDS.map((b) => [b, undefined])) as Record<(typeof BOUND_FIELDS)[number], undefined>),
  token_ttl: 0,
  token_max_ttl: 0,
  token_policies: [],
  token_bound_cidrs: [],
  token_explicit_max_ttl: 0,
  token_no_default_policy: false,
  token_num_uses: 0,
  token_period: 0,
  token_type: '',
};
