import { randomUUID } from 'node:crypto';
import { HclError, parseHcl, type HclNode } from '../mesh/hcl-lite.ts';
import { FaultSet } from '../faults/types.ts';
import type { SchedulerToken } from './acl.ts';
import type { EventBroker } from './event-broker.ts';

/** A refused ACL request: the status and Nomad's plain-text message. */
export class AclRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface AclPolicy {
  Name: string;
  Description: string;
  Rules: string;
  CreateIndex: number;
  ModifyIndex: number;
}

export interface AclToken {
  AccessorID: string;
  SecretID: string;
  Name: string;
  Type: 'client' | 'management';
  Policies: string[];
  Global: boolean;
  CreateTime: string;
  CreateIndex: number;
  ModifyIndex: number;
}

interface PolicyGrants {
  node?: string;
  namespaces: Record<string, string[]>;
}

/** nomad/acl/policy.go: a policy name is 1-128 letters, digits and dashes. */
const POLICY_NAME = /^[A-Za-z0-9-]{1,128}$/;
const POLICY_VALUES = new Set(['deny', 'read', 'write']);
const NAMESPACE_POLICY_VALUES = new Set(['deny', 'read', 'write', 'scale']);
const VALID_NAMESPACE_PATTERN = /^[a-zA-Z0-9-*]{1,128}$/;
const NAMESPACE_CAPABILITIES = new Set([
  'deny', 'list-jobs', 'parse-job', 'read-job', 'submit-job', 'dispatch-job', 'read-logs', 'read-fs', 'alloc-exec', 'alloc-node-exec', 'alloc-lifecycle',
  'csi-register-plugin', 'csi-write-volume', 'csi-read-volume', 'csi-list-volume', 'csi-mount-volume', 'list-scaling-policies', 'read-scaling-policy',
  'read-job-scaling', 'scale-job', 'submit-recommendation', 'sentinel-override',
]);
/** Blocks of Nomad's policy language this scheduler has nothing to grant for: accepted and ignored. */
const IGNORED_BLOCKS = new Set(['agent', 'operator', 'quota', 'plugin', 'host_volume']);

/**
 * The capabilities a namespace `policy` stands for, as nomad/acl/policy.go expandNamespacePolicy
 * expands it: note that `read` gives neither read-logs nor read-fs (only `write` does).
 */
function expandNamespacePolicy(policy: string): string[] {
  const read = ['list-jobs', 'parse-job', 'read-job', 'csi-list-volume', 'csi-read-volume', 'read-job-scaling', 'list-scaling-policies', 'read-scaling-policy'];
  switch (policy) {
    case 'deny':
      return ['deny'];
    case 'read':
      return read;
    case 'write':
      return [...read, 'scale-job', 'submit-job', 'dispatch-job', 'read-logs', 'read-fs', 'alloc-exec', 'alloc-lifecycle', 'csi-mount-volume', 'csi-write-volume', 'submit-recommendation'];
    case 'scale':
      return ['list-scaling-policies', 'read-scaling-policy', 'read-job-scaling', 'scale-job'];
    default:
      return [];
  }
}

function literal(node: HclNode, what: string): string {
  if (node.type !== 'literal') throw new AclRequestError(400, `Failed to parse ACL Policy: ${what} must be a string`);
  return node.value;
}

/** The subset of Nomad's policy language spec 002's permissions need: namespace and node blocks. */
export function parsePolicyRules(rules: string): PolicyGrants {
  let doc: HclNode;
  try {
    doc = parseHcl(rules);
  } catch (err) {
    if (err instanceof HclError) throw new AclRequestError(400, `Failed to parse ACL Policy: ${err.message}`);
    throw err;
  }
  if (doc.type !== 'object') throw new AclRequestError(400, 'Failed to parse ACL Policy: the rules must be blocks');
  const grants: PolicyGrants = { namespaces: {} };
  let any = false;
  for (const item of doc.items) {
    const [kind, label] = item.keys;
    if (kind && IGNORED_BLOCKS.has(kind)) {
      any = true;
      continue;
    }
    if (item.value.type !== 'object') throw new AclRequestError(400, `Failed to parse ACL Policy: ${kind} must be a block`);
    if (kind === 'node' && item.keys.length === 1) {
      for (const attr of item.value.items) {
        if (attr.keys[0] !== 'policy') continue;
        const p = literal(attr.value, 'node policy');
        if (!POLICY_VALUES.has(p)) throw new AclRequestError(400, `Invalid node policy: ${JSON.stringify(p)}`);
        grants.node = p;
      }
      any = true;
    } else if (kind === 'namespace' && label !== undefined && item.keys.length === 2) {
      // nomad/acl/policy.go Parse: validNamespace, ^[a-zA-Z0-9-*]{1,128}$ (a name or a glob).
      if (!VALID_NAMESPACE_PATTERN.test(label)) throw new AclRequestError(400, `Invalid namespace name: ${JSON.stringify(label)}`);
      const caps = new Set<string>();
      for (const attr of item.value.items) {
        if (attr.keys[0] === 'policy') {
          const p = literal(attr.value, 'namespace policy');
          if (!NAMESPACE_POLICY_VALUES.has(p)) throw new AclRequestError(400, `Invalid namespace policy: ${JSON.stringify(p)}`);
          for (const c of expandNamespacePolicy(p)) caps.add(c);
        } else if (attr.keys[0] === 'capabilities') {
          if (attr.value.type !== 'list') throw new AclRequestError(400, 'Failed to parse ACL Policy: capabilities must be a list');
          for (const v of attr.value.values) {
            const c = literal(v, 'a capability');
            if (!NAMESPACE_CAPABILITIES.has(c)) throw new AclRequestError(400, `Invalid namespace capability '${c}'`);
            caps.add(c);
          }
        }
      }
      grants.namespaces[label] = [...(grants.namespaces[label] ?? []), ...caps];
      any = true;
    } else throw new AclRequestError(400, `Failed to parse ACL Policy: unsupported block ${JSON.stringify(item.keys.join(' '))}; this scheduler knows namespace "<name>" { policy | capabilities } and node { policy }`);
  }
  // Nomad refuses a policy that grants nothing (Policy.IsEmpty).
  if (!any) throw new AclRequestError(400, 'Invalid policy: Failed to parse ACL Policy: Invalid policy: no rules');
  return grants;
}

/** ACL tokens and policies made through the API, with their events (ACLToken and ACLPolicy topics). */
export class AclStore {
  private readonly policies = new Map<string, AclPolicy & { grants: PolicyGrants }>();
  private readonly tokens = new Map<string, AclToken>();

  constructor(
    private readonly broker: EventBroker,
    private readonly managementSecret: string,
    /**
     * Nomad's events carry the token with SecretID "" (structs.NewACLTokenEvent: token.Sanitize());
     * the spec dialect leaves the field out.
     */
    private readonly secretBlanked = false,
    private readonly faults: FaultSet = new FaultSet(),
  ) {
    // The bootstrap token: what /v1/acl/token/self answers for the management token.
    this.tokens.set(managementSecret, { AccessorID: randomUUID(), SecretID: managementSecret, Name: 'Bootstrap Token', Type: 'management', Policies: [], Global: true, CreateTime: new Date().toISOString(), CreateIndex: 1, ModifyIndex: 1 });
  }

  /** What a secret may do now; undefined for an unknown or deleted token. */
  grantsOf(secret: string): SchedulerToken | undefined {
    const token = this.tokens.get(secret);
    if (!token) return undefined;
    if (token.Type === 'management') return { management: true, nodeRead: true, nodeWrite: true, capabilities: {} };
    const namespaces: Record<string, string[]> = {};
    let node: string | undefined;
    for (const name of token.Policies) {
      const policy = this.policies.get(name);
      if (!policy) continue;
      // nomad/acl/acl.go NewACL: the blocks of every policy naming one pattern merge (a deny among them wins in matchingNamespaceCapabilitySet's set).
      for (const [ns, caps] of Object.entries(policy.grants.namespaces)) namespaces[ns] = this.faults.has('scheduler.acl-later-policy-replaces-namespace') ? [...caps] : [...(namespaces[ns] ?? []), ...caps];
      // nomad/acl/acl.go maxPrivilege: deny over write over read, whatever the policies' order.
      const p = policy.grants.node;
      if (this.faults.has('scheduler.acl-node-deny-loses-to-write')) {
        const rank: Record<string, number> = { deny: 0, read: 1, write: 2 };
        if (p && (!node || rank[p]! > rank[node]!)) node = p;
      } else if (p && node !== 'deny') node = p === 'deny' || p === 'write' || !node ? p : node;
    }
    return { management: false, nodeRead: node === 'read' || node === 'write', nodeWrite: node === 'write', capabilities: namespaces };
  }

  managementToken(): AclToken {
    return this.tokens.get(this.managementSecret)!;
  }

  token(secret: string): AclToken | undefined {
    return this.tokens.get(secret);
  }

  listPolicies(): Omit<AclPolicy, 'Rules'>[] {
    return [...this.policies.values()].sort((a, b) => a.Name.localeCompare(b.Name)).map(({ Name, Description, CreateIndex, ModifyIndex }) => ({ Name, Description, CreateIndex, ModifyIndex }));
  }

  policy(name: string): AclPolicy | undefined {
    const p = this.policies.get(name);
    return p && publicPolicy(p);
  }

  upsertPolicy(name: string, body: Record<string, unknown>): number {
    const bodyName = typeof body.Name === 'string' && body.Name !== '' ? body.Name : name;
    if (bodyName !== name) throw new AclRequestError(400, 'ACL policy name does not match request path');
    if (!POLICY_NAME.test(name)) throw new AclRequestError(400, `invalid name '${name}'`);
    const rules = typeof body.Rules === 'string' ? body.Rules : '';
    const grants = parsePolicyRules(rules);
    const description = typeof body.Description === 'string' ? body.Description : '';
    const previous = this.policies.get(name);
    return this.broker.publishWith((index) => {
      const policy = { Name: name, Description: description, Rules: rules, CreateIndex: previous?.CreateIndex ?? index, ModifyIndex: index, grants };
      this.policies.set(name, policy);
      return [{ Topic: 'ACLPolicy', Type: 'ACLPolicyUpserted', Key: name, Namespace: '', FilterKeys: null, Payload: { ACLPolicy: publicPolicy(policy) } }];
    }).Index;
  }

  deletePolicy(name: string): number {
    const policy = this.policies.get(name);
    if (!policy) throw new AclRequestError(404, `ACL policy ${JSON.stringify(name)} not found`);
    return this.broker.publishWith(() => {
      this.policies.delete(name);
      return [{ Topic: 'ACLPolicy', Type: 'ACLPolicyDeleted', Key: name, Namespace: '', FilterKeys: null, Payload: { ACLPolicy: publicPolicy(policy) } }];
    }).Index;
  }

  /** Token list stubs: no SecretID (Nomad's ACLTokenListStub). */
  listTokens(): Omit<AclToken, 'SecretID'>[] {
    return [...this.tokens.values()].map(withoutSecret);
  }

  createToken(body: Record<string, unknown>): AclToken {
    if (typeof body.AccessorID === 'string' && body.AccessorID !== '') throw new AclRequestError(400, 'this scheduler only creates tokens: AccessorID must be empty');
    const type = body.Type === undefined || body.Type === '' ? 'client' : body.Type;
    if (type !== 'client' && type !== 'management') throw new AclRequestError(400, 'Token type must be client or management');
    const policies = Array.isArray(body.Policies) ? body.Policies : [];
    if (!policies.every((p): p is string => typeof p === 'string')) throw new AclRequestError(400, 'Policies must be a list of policy names');
    if (type === 'client' && policies.length === 0) throw new AclRequestError(400, 'client token missing policies or roles');
    if (type === 'management' && policies.length > 0) throw new AclRequestError(400, 'management token cannot be associated with policies or roles');
    for (const p of policies) if (!this.policies.has(p)) throw new AclRequestError(400, `cannot find policy ${p}`);
    const name = typeof body.Name === 'string' ? body.Name : '';
    if (name.length > 256) throw new AclRequestError(400, 'token name too long');
    let token!: AclToken;
    this.broker.publishWith((index) => {
      token = { AccessorID: randomUUID(), SecretID: randomUUID(), Name: name, Type: type, Policies: [...policies], Global: body.Global === true, CreateTime: new Date().toISOString(), CreateIndex: index, ModifyIndex: index };
      this.tokens.set(token.SecretID, token);
      return [{ Topic: 'ACLToken', Type: 'ACLTokenUpserted', Key: token.AccessorID, Namespace: '', FilterKeys: null, Payload: { ACLToken: this.eventToken(token) } }];
    });
    return token;
  }

  private eventToken(t: AclToken): Record<string, unknown> {
    return this.secretBlanked ? { ...t, SecretID: '' } : withoutSecret(t);
  }

  tokenByAccessor(accessor: string): AclToken | undefined {
    return [...this.tokens.values()].find((t) => t.AccessorID === accessor);
  }

  deleteToken(accessor: string): number {
    const token = this.tokenByAccessor(accessor);
    if (!token) throw new AclRequestError(400, `Cannot delete nonexistent tokens: ${accessor}`);
    if (token.Name === 'Bootstrap Token' && token.CreateIndex === 1) throw new AclRequestError(400, 'the reference keeps its management token');
    return this.broker.publishWith(() => {
      this.tokens.delete(token.SecretID);
      return [{ Topic: 'ACLToken', Type: 'ACLTokenDeleted', Key: token.AccessorID, Namespace: '', FilterKeys: null, Payload: { ACLToken: this.eventToken(token) } }];
    }).Index;
  }
}

function publicPolicy(p: AclPolicy): AclPolicy {
  return { Name: p.Name, Description: p.Description, Rules: p.Rules, CreateIndex: p.CreateIndex, ModifyIndex: p.ModifyIndex };
}

function withoutSecret(t: AclToken): Omit<AclToken, 'SecretID'> {
  const { SecretID: _secret, ...rest } = t;
  return rest;
}
