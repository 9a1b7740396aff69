import type { EngineRequest } from './engine.ts';
import { badRequest, dataEnvelope, notFound, type EngineResult } from './respond.ts';

/**
 * The reference's own default policy: what a token needs to look after itself. Vault ships a
 * longer one; the reference does not enforce ACL policies (see PolicyStore), so this text is
 * stored and shown, never evaluated.
 */
const DEFAULT_POLICY = `# Lets a token look itself up, renew and revoke itself, and check its own capabilities.
path "auth/token/lookup-self" { capabilities = ["read"] }
path "auth/token/renew-self" { capabilities = ["update"] }
path "auth/token/revoke-self" { capabilities = ["update"] }
path "sys/capabilities-self" { capabilities = ["update"] }
`;

/** Policies that exist in every namespace and cannot be deleted; root cannot be written either (vault/policy_store.go). */
const ROOT = 'root';
const DEFAULT = 'default';

/**
 * The ACL policies of one namespace (sys/policies/acl). The reference stores them so that a
 * provisioner can make, read, list and remove them as on Vault, but it does not enforce them:
 * every valid token may use every path of its namespace. Nor does it parse the HCL (Vault answers
 * 400 to a policy it cannot parse); the text is kept as given.
 */
export class PolicyStore {
  private readonly policies = new Map<string, string>([[DEFAULT, DEFAULT_POLICY]]);

  constructor(private readonly rootNamespace: boolean) {}

  /** sys/policies/acl and sys/policies/acl/<name> (logical_system.go handlePolicies{List,Read,Set,Delete}). */
  handle(req: EngineRequest, name: string): EngineResult {
    if (req.operation === 'list') {
      if (name !== '') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
      // Stored names in order, then root, which only the root namespace lists.
      const keys = [...this.policies.keys()].sort();
      if (this.rootNamespace) keys.push(ROOT);
      return { kind: 'data', data: { keys } };
    }
    if (name === '') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
    const lower = name.toLowerCase();
    switch (req.operation) {
      case 'read': {
        if (lower === ROOT) return { kind: 'data', data: { name: ROOT, policy: '' } };
        const text = this.policies.get(lower);
        return text === undefined ? notFound() : { kind: 'data', data: { name: lower, policy: text } };
      }
      case 'delete':
        if (lower === ROOT) return badRequest('cannot delete root policy');
        if (lower === DEFAULT) return badRequest('cannot delete default policy');
        this.policies.delete(lower);
        return { kind: 'no-content' };
      case 'create-or-update':
        return this.write(name, lower, req.data.policy);
      default:
        return { kind: 'error', status: 405, errors: ['unsupported operation'] };
    }
  }

  private write(name: string, lower: string, raw: unknown): EngineResult {
    if (lower === ROOT) return badRequest('cannot update root policy');
    if (typeof raw !== 'string' || raw === '') return badRequest("'policy' parameter not supplied or empty");
    this.policies.set(lower, decodeIfBase64(raw));
    if (name === lower) return { kind: 'no-content' };
    return { kind: 'raw', status: 200, body: dataEnvelope(null, { warnings: [`policy name was converted to ${lower}`] }) };
  }
}

/** Vault takes a policy given base64-encoded as well as plain (Go's StdEncoding must decode it whole). */
function decodeIfBase64(text: string): string {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.length % 4 !== 0) return text;
  return Buffer.from(text, 'base64').toString('utf8');
}
