import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Dialect } from '../../config/dialects.ts';
import { decideScalar, decideSegment, mergeRules, parseRules, serviceIdentityRules, type Access, type CheckFlaws, type PolicyRules, type ScalarResource, type SegmentResource } from './acl-rules.ts';
import { badRequest, ConsulError } from './consul-errors.ts';
import { parseGoDuration } from './durations.ts';

/** Consul's builtin policies and the anonymous token (agent/structs/acl.go). */
export const GLOBAL_MANAGEMENT_ID = '00000000-0000-0000-0000-000000000001';
export const GLOBAL_READ_ONLY_ID = '00000000-0000-0000-0000-000000000002';
const ANONYMOUS_ACCESSOR = '00000000-0000-0000-0000-000000000002';
const ANONYMOUS_SECRET = 'anonymous';

const MANAGEMENT_RULES = [
  'acl = "write"',
  'agent_prefix "" {\n  policy = "write"\n}',
  'event_prefix "" {\n  policy = "write"\n}',
  'key_prefix "" {\n  policy = "write"\n}',
  'keyring = "write"',
  'node_prefix "" {\n  policy = "write"\n}',
  'operator = "write"',
  'mesh = "write"',
  'peering = "write"',
  'query_prefix "" {\n  policy = "write"\n}',
  'service_prefix "" {\n  policy = "write"\n  intentions = "write"\n}',
  'session_prefix "" {\n  policy = "write"\n}',
].join('\n');
const READ_ONLY_RULES = MANAGEMENT_RULES.replace(/"write"/g, '"read"');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** agent/consul/acl_endpoint.go: validPolicyName, validServiceIdentityName. */
const POLICY_NAME = /^[A-Za-z0-9\-_]{1,128}$/;
const SERVICE_IDENTITY_NAME = /^[a-z0-9]([a-z0-9\-_]*[a-z0-9])?$/;
const MIN_TOKEN_TTL_MS = 60_000;
const MAX_TOKEN_TTL_MS = 24 * 3_600_000;

export interface AclPolicy {
  id: string;
  name: string;
  description: string;
  rules: string;
  compiled: PolicyRules;
  datacenters?: string[];
  namespace: string;
  hash: string;
  builtin: boolean;
  createIndex: number;
  modifyIndex: number;
}

export interface ServiceIdentity {
  ServiceName: string;
  Datacenters?: string[];
}

export interface NodeIdentity {
  NodeName: string;
  Datacenter: string;
}

export interface AclToken {
  /** Shown in denials, like Consul's AccessorID; the secret is what a request carries. */
  accessor: string;
  secret: string;
  description: string;
  namespace: string;
  policyIds: string[];
  serviceIdentities: ServiceIdentity[];
  nodeIdentities: NodeIdentity[];
  local: boolean;
  createTime: Date;
  expirationTime?: Date;
  hash: string;
  createIndex: number;
  modifyIndex: number;
  /** Rules of a token made by the reference's control interface, which links no policy. */
  embedded?: PolicyRules;
}

/** Why a request was refused; `status` is always a 4xx. */
export interface Denial {
  status: 403;
  message: string;
}

/** What a token may do, resolved at the moment of the check (so a changed policy applies at once). */
export interface Authorizer {
  accessor: string;
  token: AclToken;
  allowed(resource: SegmentResource, name: string, need: Access, namespace: string): boolean;
  allowedScalar(resource: ScalarResource, need: Access): boolean;
}

/** A check made wrong on purpose (the fault catalog): also a token's rules applied in every namespace. */
export interface AclFlaws extends CheckFlaws {
  anyNamespace?: boolean;
  /** mesh.acl-namespaced-token-reaches-default: a token of any namespace also holds its rules in default. */
  defaultNamespaceOpen?: boolean;
}

/** The fields of a token write, as decoded from the request body. */
export interface TokenInput {
  AccessorID?: string;
  SecretID?: string;
  Description?: string;
  Policies?: { ID?: string; Name?: string }[];
  Roles?: { ID?: string; Name?: string }[];
  ServiceIdentities?: { ServiceName?: string; Datacenters?: string[] }[];
  NodeIdentities?: { NodeName?: string; Datacenter?: string }[];
  TemplatedPolicies?: unknown[];
  Local?: boolean;
  AuthMethod?: string;
  ExpirationTime?: string;
  ExpirationTTL?: unknown;
}

export interface PolicyInput {
  ID?: string;
  Name?: string;
  Description?: string;
  Rules?: string;
  Datacenters?: string[];
}

function sha256(...parts: string[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('base64');
}

/** Go's time.Duration String for whole milliseconds: 1m0s, 24h0m0s, 1.5s. */
export function goDurationString(ms: number): string {
  if (ms === 0) return '0s';
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  if (h) return `${h}h${m}m${s}s`;
  if (m) return `${m}m${s}s`;
  return ms < 1000 ? `${ms}ms` : `${s}s`;
}

/**
 * The agent's ACL system: policies (Consul's rules language, builtins included) and tokens linking
 * them or service identities. A token's rules apply in its own namespace, as in Consul Enterprise;
 * the global-management policy grants everything everywhere. A request with no token is judged as
 * the anonymous token, which links nothing, and the default policy is deny.
 */
export class AclTokens {
  private readonly tokens = new Map<string, AclToken>();
  private readonly policies = new Map<string, AclPolicy>();
  private readonly identityRules = new Map<string, PolicyRules>();
  /** Policies a namespace applies to its tokens where their own links say nothing (Enterprise). */
  namespaceDefaults: (namespace: string) => string[] = () => [];

  constructor(
    private readonly dialect: Dialect,
    private readonly nextIndex: () => number = () => 0,
    private readonly datacenter = 'dc1',
  ) {
    this.addBuiltinPolicy(GLOBAL_MANAGEMENT_ID, 'global-management', 'Builtin Policy that grants unlimited access', MANAGEMENT_RULES);
    this.addBuiltinPolicy(GLOBAL_READ_ONLY_ID, 'builtin/global-read-only', 'Builtin Policy that grants unlimited read access', READ_ONLY_RULES);
    this.store({ accessor: ANONYMOUS_ACCESSOR, secret: ANONYMOUS_SECRET, description: 'Anonymous Token', namespace: 'default', policyIds: [], serviceIdentities: [], nodeIdentities: [], local: false, createTime: new Date(), hash: '', ...this.indexes() });
  }

  /** What the agent has from its start (builtins, the anonymous and management tokens): index 1, like Consul's bootstrap writes. */
  private indexes(): { createIndex: number; modifyIndex: number } {
    return { createIndex: 1, modifyIndex: 1 };
  }

  private addBuiltinPolicy(id: string, name: string, description: string, rules: string): void {
    const parsed = parseRules(rules);
    if (!parsed.ok) throw new Error(`builtin policy ${name}: ${parsed.message}`);
    this.policies.set(id, { id, name, description, rules, compiled: parsed.rules, namespace: 'default', hash: sha256(name, description, rules), builtin: true, ...this.indexes() });
  }

  private store(token: AclToken): AclToken {
    token.hash = sha256(token.description, token.local ? 'local' : 'global', ...token.policyIds, ...token.serviceIdentities.map((s) => s.ServiceName), ...token.nodeIdentities.map((n) => n.NodeName));
    this.tokens.set(token.secret, token);
    return token;
  }

  addManagement(secret: string): void {
    this.store({ accessor: randomUUID(), secret, description: 'Initial Management Token', namespace: 'default', policyIds: [GLOBAL_MANAGEMENT_ID], serviceIdentities: [], nodeIdentities: [], local: false, createTime: new Date(), hash: '', ...this.indexes() });
  }

  /** Reference setup (control interface): a token with service:write on some services ('*' for all) and service:read on others, in one namespace. */
  create(namespace: string, serviceWrite: string[], serviceRead: string[] = []): string {
    const exact = (names: string[], policy: string) => names.map((s) => `service ${JSON.stringify(s)} {\n  policy = "${policy}"\n}`);
    const rules = [...(serviceWrite.includes('*') ? ['service_prefix "" {\n  policy = "write"\n}'] : exact(serviceWrite, 'write')), ...exact(serviceRead, 'read')].join('\n');
    const parsed = parseRules(rules);
    if (!parsed.ok) throw new Error(`control token rules: ${parsed.message}`);
    const token = this.store({ accessor: randomUUID(), secret: randomUUID(), description: 'reference control interface token', namespace, policyIds: [], serviceIdentities: [], nodeIdentities: [], local: true, createTime: new Date(), embedded: parsed.rules, hash: '', ...this.indexes() });
    return token.secret;
  }

  /**
   * The secret a request carries. Consul reads `?token=` first, then X-Consul-Token, then
   * `Authorization: Bearer` (agent/http.go parseTokenInternal); the spec dialect's carrier is Bearer.
   */
  secretOf(req: IncomingMessage, url: URL): string | undefined {
    if (this.dialect.name === 'hashicorp') {
      const fromQuery = url.searchParams.get('token');
      if (fromQuery) return fromQuery;
    }
    const carrier = this.dialect.mesh.token;
    const raw = req.headers[carrier.header.toLowerCase()];
    const fromCarrier = typeof raw === 'string' && raw.trim() !== '' ? (carrier.scheme ? /^Bearer\s+(\S+)/i.exec(raw)?.[1] : raw.trim()) : undefined;
    const bearer = /^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')?.[1];
    return fromCarrier ?? bearer;
  }

  /** The live (not expired) token with this secret; undefined without a secret. */
  resolve(secret: string | undefined): AclToken | undefined {
    const token = secret ? this.tokens.get(secret) : undefined;
    return token && !this.expired(token) ? token : undefined;
  }

  private expired(token: AclToken): boolean {
    return token.expirationTime !== undefined && token.expirationTime.getTime() < Date.now();
  }

  private isManagement(token: AclToken): boolean {
    return token.policyIds.includes(GLOBAL_MANAGEMENT_ID);
  }

  /**
   * How resolving a token's policies can be wrong (only the fault catalog sets them):
   * mesh.acl-policy-datacenters-ignored (a policy scoped to other datacenters applies here too) and
   * mesh.acl-merge-last-policy-wins (a later policy's rule replaces an earlier one's for a name).
   */
  policyFlaws: { lastWins?: boolean; datacentersIgnored?: boolean } = {};

  /** agent/consul/acl.go filterPoliciesByScope: no Datacenters means every datacenter. */
  private appliesHere(dcs: string[] | undefined): boolean {
    return !dcs || dcs.length === 0 || dcs.includes(this.datacenter);
  }

  private rulesOfPolicies(ids: string[]): PolicyRules[] {
    return ids.flatMap((id) => {
      const p = this.policies.get(id);
      if (!p) return [];
      if (this.policyFlaws.datacentersIgnored) return [p.compiled];
      return this.appliesHere(p.datacenters) ? [p.compiled] : [];
    });
  }

  private rulesOf(token: AclToken): PolicyRules {
    const sets = this.rulesOfPolicies(token.policyIds);
    for (const si of token.serviceIdentities) {
      if (!this.appliesHere(si.Datacenters)) continue;
      let rules = this.identityRules.get(si.ServiceName);
      if (!rules) {
        const parsed = parseRules(serviceIdentityRules(si.ServiceName));
        if (!parsed.ok) continue;
        rules = parsed.rules;
        this.identityRules.set(si.ServiceName, rules);
      }
      sets.push(rules);
    }
    if (token.embedded) sets.push(token.embedded);
    return this.policyFlaws.lastWins ? mergeLastWins(sets) : mergeRules(sets);
  }

  /**
   * The authorizer of the request's token: the anonymous token without one, 403 "ACL not found"
   * for a secret no live token has (acl.ErrNotFound).
   */
  authorize(secret: string | undefined, flaws: AclFlaws = {}): Authorizer {
    const token = secret ? this.resolve(secret) : this.tokens.get(ANONYMOUS_SECRET)!;
    if (!token) throw new ConsulError(403, 'ACL not found');
    const management = this.isManagement(token);
    const rules = management ? undefined : this.rulesOf(token);
    const defaults = () => mergeRules(this.rulesOfPolicies(this.namespaceDefaults(token.namespace)));
    return {
      accessor: token.accessor,
      token,
      allowed: (resource, name, need, namespace) => {
        if (management) return true;
        if (namespace !== token.namespace && !flaws.anyNamespace && !(flaws.defaultNamespaceOpen && namespace === 'default')) return false;
        const direct = decideSegment(rules!, resource, name, need, flaws);
        return (direct === 'default' ? decideSegment(defaults(), resource, name, need, flaws) : direct) === 'allow';
      },
      allowedScalar: (resource, need) => {
        if (management) return true;
        const direct = decideScalar(rules!, resource, need);
        return (direct === 'default' ? decideScalar(defaults(), resource, need) : direct) === 'allow';
      },
    };
  }

  /** The words of a refusal naming the permission (acl.PermissionDeniedError.Error). */
  denied(authz: Authorizer, permission: string, name?: string): ConsulError {
    return new ConsulError(403, `Permission denied: token with AccessorID '${authz.accessor}' lacks permission '${permission}'${name === undefined ? '' : ` on ${JSON.stringify(name)}`}`);
  }

  /**
   * Checks service:write; a refusal is a 403 in Consul's words (acl/errors.go
   * PermissionDeniedError.Error, and "ACL not found" for an unknown token).
   */
  checkServiceWrite(secret: string | undefined, namespace: string, service: string, flaws: AclFlaws = {}): Denial | undefined {
    // A live management token may do anything (what its authorizer would answer): the agent's own
    // token asks this on every leaf and authorize, so it skips building an authorizer.
    const live = secret ? this.resolve(secret) : undefined;
    if (live && this.isManagement(live)) return undefined;
    try {
      const authz = this.authorize(secret, flaws);
      if (authz.allowed('service', service, 'write', namespace)) return undefined;
      return { status: 403, message: this.denied(authz, 'service:write', service).message };
    } catch (err) {
      if (err instanceof ConsulError) return { status: 403, message: err.message };
      throw err;
    }
  }

  // --- policies (agent/consul/acl_endpoint.go ACL.PolicySet / PolicyDelete) ---

  listPolicies(namespace: string): AclPolicy[] {
    return [...this.policies.values()].filter((p) => p.namespace === namespace);
  }

  policy(id: string): AclPolicy | undefined {
    return this.policies.get(id);
  }

  policyByName(name: string, namespace: string): AclPolicy | undefined {
    return [...this.policies.values()].find((p) => p.name === name && p.namespace === namespace);
  }

  /** Creates (no id) or updates a policy; Consul's validation order and words. */
  setPolicy(input: PolicyInput, namespace: string, id?: string): AclPolicy {
    const name = input.Name ?? '';
    if (name === '') throw badRequest('Invalid Policy: no Name is set');
    if (!POLICY_NAME.test(name)) throw badRequest("Invalid Policy: invalid Name. Only alphanumeric characters, '-' and '_' are allowed");
    const byName = this.policyByName(name, namespace);
    let existing: AclPolicy | undefined;
    if (id === undefined) {
      if (byName) throw badRequest(`Invalid Policy: A Policy with Name ${JSON.stringify(name)} already exists`);
    } else {
      if (!UUID.test(id)) throw badRequest('Policy ID invalid UUID');
      existing = this.policies.get(id);
      if (!existing) throw badRequest(`cannot find policy ${id}`);
      if (existing.name !== name && byName) throw badRequest(`Invalid Policy: A policy with name ${JSON.stringify(name)} already exists`);
      if (existing.id === GLOBAL_MANAGEMENT_ID) {
        if (input.Datacenters !== undefined) throw badRequest('Changing the Datacenters of the builtin global-management policy is not permitted');
        if ((input.Rules ?? '') !== existing.rules) throw badRequest('Changing the Rules for the builtin global-management policy is not permitted');
      }
    }
    const rules = input.Rules ?? '';
    const parsed = parseRules(rules);
    if (!parsed.ok) throw badRequest(parsed.message);
    const description = input.Description ?? '';
    const index = this.nextIndex();
    const policy: AclPolicy = {
      id: existing?.id ?? randomUUID(),
      name,
      description,
      rules,
      compiled: parsed.rules,
      ...(input.Datacenters?.length ? { datacenters: input.Datacenters } : {}),
      namespace,
      hash: sha256(name, description, rules, ...(input.Datacenters ?? [])),
      builtin: existing?.builtin ?? false,
      createIndex: existing?.createIndex ?? index,
      modifyIndex: index,
    };
    this.policies.set(policy.id, policy);
    return policy;
  }

  /** Deletes a policy; a missing one is no error (Consul answers true). Tokens stop getting its rules at once. */
  deletePolicy(id: string): void {
    const policy = this.policies.get(id);
    if (!policy) return;
    if (policy.id === GLOBAL_MANAGEMENT_ID) throw badRequest('Delete operation not permitted on the builtin global-management policy');
    if (policy.builtin) throw badRequest(`Delete operation not permitted on the builtin ${policy.name} policy`);
    this.policies.delete(id);
  }

  // --- tokens (ACL.TokenSet / TokenDelete / TokenList) ---

  listTokens(namespace: string): AclToken[] {
    return [...this.tokens.values()].filter((t) => t.namespace === namespace && !this.expired(t));
  }

  tokenByAccessor(accessor: string): AclToken | undefined {
    for (const t of this.tokens.values()) if (t.accessor === accessor && !this.expired(t)) return t;
    return undefined;
  }

  /** Links as stored: policy IDs of the names given, each once, in order. */
  private policyLinks(links: TokenInput['Policies'], namespace: string): string[] {
    const ids: string[] = [];
    for (const link of links ?? []) {
      let id = link.ID ?? '';
      if (id === '') {
        const name = link.Name ?? '';
        const p = this.policyByName(name, namespace) ?? this.policyByName(name, 'default');
        if (!p) throw badRequest(`No such ACL policy with name ${JSON.stringify(name)}`);
        id = p.id;
      } else if (!this.policies.has(id)) {
        throw badRequest(`No such ACL policy with ID ${JSON.stringify(id)}`);
      }
      if (!ids.includes(id)) ids.push(id);
    }
    return ids;
  }

  /** Links the store accepts for a namespace's PolicyDefaults (Enterprise): the same checks as a token's. */
  resolvePolicyLinks(links: TokenInput['Policies'], namespace: string): string[] {
    return this.policyLinks(links, namespace);
  }

  private identities(input: TokenInput): { services: ServiceIdentity[]; nodes: NodeIdentity[] } {
    const services: ServiceIdentity[] = [];
    for (const si of input.ServiceIdentities ?? []) {
      const name = si.ServiceName ?? '';
      if (name === '') throw badRequest('Service identity is missing the service name field on this token');
      if (input.Local && si.Datacenters?.length) throw badRequest(`Service identity ${JSON.stringify(name)} cannot specify a list of datacenters on a local token`);
      if (name.length > 256 || !SERVICE_IDENTITY_NAME.test(name)) throw badRequest(`Service identity ${JSON.stringify(name)} has an invalid name. Only alphanumeric characters, '-' and '_' are allowed`);
      const prior = services.find((s) => s.ServiceName === name);
      if (prior) prior.Datacenters = [...new Set([...(prior.Datacenters ?? []), ...(si.Datacenters ?? [])])].sort();
      else services.push({ ServiceName: name, ...(si.Datacenters?.length ? { Datacenters: [...si.Datacenters].sort() } : {}) });
    }
    const nodes: NodeIdentity[] = [];
    for (const ni of input.NodeIdentities ?? []) {
      if (!ni.NodeName) throw badRequest('Node identity is missing the node name field on this token');
      if (!ni.Datacenter) throw badRequest('Node identity is missing the datacenter field on this token');
      if (ni.NodeName.length > 256 || !SERVICE_IDENTITY_NAME.test(ni.NodeName)) throw badRequest("Node identity has an invalid name. Only alphanumeric characters, '-' and '_' are allowed");
      if (!nodes.some((n) => n.NodeName === ni.NodeName && n.Datacenter === ni.Datacenter)) nodes.push({ NodeName: ni.NodeName, Datacenter: ni.Datacenter });
    }
    return { services, nodes };
  }

  private checkRoles(input: TokenInput): void {
    // The reference has no ACL roles, so any link to one names nothing (Consul's own words).
    for (const link of input.Roles ?? []) {
      if (link.ID) throw badRequest(`No such ACL role with ID ${JSON.stringify(link.ID)}`);
      throw badRequest(`No such ACL role with name ${JSON.stringify(link.Name ?? '')}`);
    }
    if (input.TemplatedPolicies?.length) throw badRequest('the reference does not implement templated policies; link a policy or a service identity instead');
    if (input.AuthMethod) throw badRequest('AuthMethod field is disallowed outside of Login');
  }

  private expiration(input: TokenInput, now: Date): Date | undefined {
    const ttl = input.ExpirationTTL;
    let ttlMs = 0;
    if (ttl !== undefined) {
      const parsed = typeof ttl === 'number' ? ttl / 1e6 : typeof ttl === 'string' ? parseGoDuration(ttl) : undefined;
      if (parsed === undefined) throw badRequest(`Token decoding failed: time: invalid duration ${JSON.stringify(String(ttl))}`);
      ttlMs = parsed;
    }
    let expires: Date | undefined;
    if (ttlMs !== 0) {
      if (ttlMs < 0) throw badRequest(`Token Expiration TTL '${goDurationString(ttlMs)}' should be > 0`);
      if (input.ExpirationTime) throw badRequest('Token Expiration TTL and Expiration Time cannot both be set');
      expires = new Date(now.getTime() + ttlMs);
    } else if (input.ExpirationTime) {
      expires = new Date(input.ExpirationTime);
      if (Number.isNaN(expires.getTime())) throw badRequest(`Token decoding failed: parsing time ${JSON.stringify(input.ExpirationTime)} as RFC 3339 failed`);
    }
    if (expires) {
      const inMs = expires.getTime() - now.getTime();
      if (inMs < 0) throw badRequest('ExpirationTime cannot be before CreateTime');
      if (inMs > MAX_TOKEN_TTL_MS) throw badRequest(`ExpirationTime cannot be more than ${goDurationString(MAX_TOKEN_TTL_MS)} in the future (was ${goDurationString(inMs)})`);
      if (inMs < MIN_TOKEN_TTL_MS) throw badRequest(`ExpirationTime cannot be less than ${goDurationString(MIN_TOKEN_TTL_MS)} in the future (was ${goDurationString(inMs)})`);
    }
    return expires;
  }

  private idInUse(id: string): boolean {
    return this.tokens.has(id) || this.tokenByAccessor(id) !== undefined;
  }

  /** ACL.TokenSet for a new token (AccessorID and SecretID may be given, as UUIDs no token uses). */
  createToken(input: TokenInput, namespace: string): AclToken {
    for (const [field, value] of [['AccessorID', input.AccessorID], ['SecretID', input.SecretID]] as const) {
      if (!value) continue;
      if (!UUID.test(value)) throw badRequest(`Invalid Token: ${field} is not a valid UUID`);
      if (this.idInUse(value)) throw badRequest(`Invalid Token: ${field} is already in use`);
      if (value.startsWith('00000000-0000-0000-0000-0000000000')) throw badRequest('Invalid Token: UUIDs with the prefix "00000000-0000-0000-0000-0000000000" are reserved');
    }
    this.checkRoles(input);
    const now = new Date();
    const expirationTime = this.expiration(input, now);
    const policyIds = this.policyLinks(input.Policies, namespace);
    const { services, nodes } = this.identities(input);
    const index = this.nextIndex();
    return this.store({
      accessor: input.AccessorID || randomUUID(),
      secret: input.SecretID || randomUUID(),
      description: input.Description ?? '',
      namespace,
      policyIds,
      serviceIdentities: services,
      nodeIdentities: nodes,
      local: input.Local ?? false,
      createTime: now,
      ...(expirationTime ? { expirationTime } : {}),
      hash: '',
      createIndex: index,
      modifyIndex: index,
    });
  }

  /** ACL.TokenSet for an existing token: the body replaces what it may change. */
  updateToken(accessor: string, input: TokenInput, namespace: string): AclToken {
    if (!UUID.test(accessor)) throw badRequest('AccessorID is not a valid UUID');
    const existing = this.tokenByAccessor(accessor);
    if (!existing || existing.namespace !== namespace) throw badRequest(`Cannot find token ${JSON.stringify(accessor)}`);
    if (input.SecretID && input.SecretID !== existing.secret) throw badRequest('Changing a tokens SecretID is not permitted');
    if ((input.Local ?? false) !== existing.local) throw badRequest(`cannot toggle local mode of ${accessor}`);
    if (input.ExpirationTTL !== undefined && input.ExpirationTTL !== 0 && input.ExpirationTTL !== '') throw badRequest(`Cannot change expiration time of ${accessor}`);
    if (input.ExpirationTime && (!existing.expirationTime || new Date(input.ExpirationTime).getTime() !== existing.expirationTime.getTime())) throw badRequest(`Cannot change expiration time of ${accessor}`);
    this.checkRoles(input);
    const policyIds = this.policyLinks(input.Policies, namespace);
    const { services, nodes } = this.identities(input);
    return this.store({ ...existing, description: input.Description ?? '', policyIds, serviceIdentities: services, nodeIdentities: nodes, modifyIndex: this.nextIndex() });
  }

  /** mesh.acl-deleted-token-kept: a deleted token goes on working (only the fault catalog sets it). */
  deletedTokensKept = false;

  /** ACL.TokenDelete: revokes at once; a missing token is no error. */
  deleteToken(accessor: string, requester: string | undefined): void {
    if (!UUID.test(accessor)) throw badRequest('Accessor ID is missing or an invalid UUID');
    if (accessor === ANONYMOUS_ACCESSOR) throw badRequest('Delete operation not permitted on the anonymous token');
    const token = this.tokenByAccessor(accessor);
    if (!token) return;
    if (token.secret === requester) throw badRequest("Deletion of the request's authorization token is not permitted");
    if (this.deletedTokensKept) return;
    this.tokens.delete(token.secret);
  }

  /** Enterprise: a deleted namespace takes its tokens and policies with it. */
  dropNamespace(namespace: string): void {
    for (const [secret, t] of this.tokens) if (t.namespace === namespace) this.tokens.delete(secret);
    for (const [id, p] of this.policies) if (p.namespace === namespace && !p.builtin) this.policies.delete(id);
  }

  policyNames(ids: string[]): { ID: string; Name: string }[] {
    return ids.flatMap((id) => {
      const p = this.policies.get(id);
      return p ? [{ ID: id, Name: p.name }] : [];
    });
  }
}

/**
 * The fault mesh.acl-merge-last-policy-wins: a later policy's rule for a name replaces an earlier
 * one's, whatever its word (Consul keeps the strongest: acl/policy_merger.go). Kept apart from
 * acl-rules.ts's merge, so that the merge itself stays as its mutation record judged it.
 */
function mergeLastWins(sets: PolicyRules[]): PolicyRules {
  const out = mergeRules(sets);
  for (const set of sets) {
    for (const [resource, seg] of Object.entries(set.segments) as [SegmentResource, PolicyRules['segments'][SegmentResource]][]) {
      for (const [name, access] of seg.exact) out.segments[resource].exact.set(name, access);
      for (const [name, access] of seg.prefix) out.segments[resource].prefix.set(name, access);
    }
  }
  return out;
}
