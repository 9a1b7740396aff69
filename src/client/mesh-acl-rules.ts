/** How the mesh fixtures write a token's service rules, for Consul's API and the reference's control listener alike. */

/** One rule of an ACL policy: `service "name"` or `service_prefix "name"`, with its policy word. */
export interface AclServiceRule {
  name: string;
  prefix: boolean;
  access: 'read' | 'write' | 'deny';
}

/** A token made from service rules, whose policy can be changed and which can be deleted. */
export interface MeshRuleToken {
  secret: string;
  /** Replaces the rules of the token's policy. */
  setRules(rules: AclServiceRule[]): Promise<void>;
  /** Deletes the token (its policy stays until the run's end). */
  remove(): Promise<void>;
}

/** One policy of a token of several: its service rules and the datacenters it is scoped to (none: every datacenter). */
export interface AclPolicySpec {
  rules: AclServiceRule[];
  datacenters?: string[];
}

/** A token linked to several policies, which can be deleted (its policies stay until the run's end). */
export interface MeshPoliciesToken {
  secret: string;
  remove(): Promise<void>;
}

/** The rules as Consul's HCL policy language writes them (acl/policy.go). */
export function serviceRulesHcl(rules: AclServiceRule[]): string {
  return rules.map((r) => `${r.prefix ? 'service_prefix' : 'service'} ${JSON.stringify(r.name)} { policy = "${r.access}" }`).join('\n');
}
