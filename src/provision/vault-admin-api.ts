import { z } from 'zod';
import type { HttpResponse } from '../client/http-client.ts';
import type { SecretsApi } from '../client/secrets-api.ts';

/**
 * The part of Vault's own admin API the secrets provisioner uses (hashicorp/vault
 * vault/logical_system.go, builtin/credential/userpass, vault/identity_store_*.go). None of it is
 * in the spec, which shows no way to make mounts, entities or keys; it exists in the hashicorp
 * dialect only. Every answer is parsed before use, so a target that answers oddly gives a clear
 * error naming the call.
 */
export class VaultAdminApi {
  constructor(readonly secrets: SecretsApi) {}

  /** `{ "<path>/": {type, accessor, options} }`, read under `data` (Vault also repeats it at the top level). */
  async mounts(kind: 'mounts' | 'auth', namespace?: string): Promise<Record<string, MountEntry>> {
    const res = await this.secrets.read(`sys/${kind}`, { namespace });
    return expectOk(res, `read sys/${kind}`, mountTableSchema).data;
  }

  async enableSecrets(path: string, type: string, options: Record<string, string>, namespace?: string): Promise<void> {
    expectDone(await this.secrets.write(`sys/mounts/${path}`, { type, options, description: 'stackproof run fixture' }, 'POST', { namespace }), `mount ${type} at ${path}/`);
  }

  async enableAuth(path: string, type: string, namespace?: string): Promise<void> {
    expectDone(await this.secrets.write(`sys/auth/${path}`, { type, description: 'stackproof run fixture' }, 'POST', { namespace }), `enable auth method ${type} at auth/${path}/`);
  }

  async disable(kind: 'mounts' | 'auth', path: string, namespace?: string): Promise<HttpResponse> {
    return this.secrets.delete(`sys/${kind}/${path}`, { namespace });
  }

  async accessorOf(authPath: string, namespace?: string): Promise<string> {
    const table = await this.mounts('auth', namespace);
    const entry = table[`${authPath}/`];
    if (!entry?.accessor) throw new Error(`sys/auth lists no accessor for auth/${authPath}/`);
    return entry.accessor;
  }

  /** Creates a namespace below `parent` (root when absent); 404 means the target has no namespaces. */
  createNamespace(name: string, parent?: string): Promise<HttpResponse> {
    return this.secrets.write(`sys/namespaces/${name}`, {}, 'POST', { namespace: parent });
  }

  deleteNamespace(name: string, parent?: string): Promise<HttpResponse> {
    return this.secrets.delete(`sys/namespaces/${name}`, { namespace: parent });
  }

  /** The names listed at a LIST path; an empty list answers 404 in Vault. */
  async listKeys(path: string, namespace?: string): Promise<string[]> {
    const res = await this.secrets.list(path, 'verb', { namespace });
    if (res.status === 404) return [];
    return expectOk(res, `list ${path}`, listSchema).data.keys;
  }

  async createEntity(name: string, metadata: Record<string, string>, namespace?: string): Promise<string> {
    const res = await this.secrets.write('identity/entity', { name, metadata }, 'POST', { namespace });
    return expectOk(res, `create entity ${name}`, idSchema).data.id;
  }

  async createEntityAlias(name: string, entityId: string, mountAccessor: string, namespace?: string): Promise<void> {
    expectOk(await this.secrets.write('identity/entity-alias', { name, canonical_id: entityId, mount_accessor: mountAccessor }, 'POST', { namespace }), `create entity alias ${name}`, idSchema);
  }

  /** The group named `name`, or undefined. */
  async group(name: string, namespace?: string): Promise<{ id: string; members: string[] } | undefined> {
    const res = await this.secrets.read(`identity/group/name/${name}`, { namespace });
    if (res.status === 404) return undefined;
    const data = expectOk(res, `read group ${name}`, groupSchema).data;
    return { id: data.id, members: data.member_entity_ids ?? [] };
  }

  /** Creates the group, or (Vault's create-or-update by name) replaces its member list. */
  async writeGroup(name: string, memberEntityIds: string[], namespace?: string): Promise<string | undefined> {
    const res = await this.secrets.write('identity/group', { name, member_entity_ids: memberEntityIds }, 'POST', { namespace });
    if (res.status === 204) return undefined;
    return expectOk(res, `write group ${name}`, idSchema).data.id;
  }

  async createUser(mount: string, name: string, password: string, namespace?: string): Promise<void> {
    expectDone(await this.secrets.write(`auth/${mount}/users/${name}`, { password }, 'POST', { namespace }), `create userpass user ${name}`);
  }

  async login(mount: string, name: string, password: string, namespace?: string): Promise<{ token: string; entityId: string }> {
    const res = await this.secrets.write(`auth/${mount}/login/${name}`, { password }, 'POST', { namespace, bare: true });
    const auth = expectOk(res, `log in as ${name}`, loginSchema).auth;
    return { token: auth.client_token, entityId: auth.entity_id };
  }

  /** Writes an ACL policy (vault/logical_system.go handlePoliciesSet); Vault and OpenBao take HCL. */
  async writePolicy(name: string, policy: string, namespace?: string): Promise<void> {
    expectDone(await this.secrets.write(`sys/policies/acl/${name}`, { policy }, 'POST', { namespace }), `write ACL policy ${name}`);
  }

  /**
   * A plugin catalog entry (vault/logical_system.go handlePluginCatalogRead): the raw answer, for
   * the caller to tell "no such plugin" (404) from "no right to read the catalog" (403). Both
   * products leave the entry's env out of the answer.
   */
  pluginEntry(kind: 'auth', name: string): Promise<HttpResponse> {
    return this.secrets.read(`sys/plugins/catalog/${kind}/${name}`);
  }

  /** Registers a catalog entry: the fields Vault and OpenBao both accept (handlePluginCatalogUpdate). */
  registerPlugin(kind: 'auth', name: string, entry: { sha256: string; command: string; args: string[]; env: string[] }): Promise<HttpResponse> {
    return this.secrets.write(`sys/plugins/catalog/${kind}/${name}`, entry);
  }

  deletePlugin(kind: 'auth', name: string): Promise<HttpResponse> {
    return this.secrets.delete(`sys/plugins/catalog/${kind}/${name}`);
  }

  async createOidcKey(name: string, namespace?: string): Promise<void> {
    expectDone(await this.secrets.write(`identity/oidc/key/${name}`, { algorithm: 'RS256', allowed_client_ids: ['*'] }, 'POST', { namespace }), `create OIDC signing key ${name}`);
  }
}

export interface MountEntry {
  type: string;
  accessor?: string;
}

/** A catalog entry as handlePluginCatalogRead answers it; a builtin one has no command or sha256. */
export const pluginEntrySchema = z.object({
  data: z
    .object({
      builtin: z.boolean().optional(),
      command: z.string().optional(),
      sha256: z.string().optional(),
      args: z.array(z.string()).nullable().optional(),
      version: z.string().optional(),
    })
    .passthrough(),
});

const mountTableSchema = z.object({ data: z.record(z.string(), z.object({ type: z.string(), accessor: z.string().optional() }).passthrough()) });
const listSchema = z.object({ data: z.object({ keys: z.array(z.string()) }) });
const idSchema = z.object({ data: z.object({ id: z.string().min(1) }).passthrough() });
const groupSchema = z.object({ data: z.object({ id: z.string(), member_entity_ids: z.array(z.string()).nullable().optional() }).passthrough() });
const loginSchema = z.object({ auth: z.object({ client_token: z.string().min(1), entity_id: z.string() }).passthrough() });

/** What a provisioning call that went wrong says: the call, the status and the target's own words. */
export class ProvisionError extends Error {
  constructor(
    readonly what: string,
    readonly status: number,
    detail: string,
  ) {
    super(`${what}: answered ${status}${detail ? ` (${detail})` : ''}`);
  }
}

function errorsOf(res: HttpResponse): string {
  try {
    const body = res.json() as { errors?: unknown };
    if (Array.isArray(body.errors)) return body.errors.map(String).join('; ').slice(0, 200);
  } catch {
    // Not JSON: the raw text says it.
  }
  return res.text.slice(0, 200);
}

function expectDone(res: HttpResponse, what: string): void {
  if (res.status >= 300) throw new ProvisionError(what, res.status, errorsOf(res));
}

function expectOk<T>(res: HttpResponse, what: string, schema: z.ZodType<T>): T {
  if (res.status !== 200) throw new ProvisionError(what, res.status, errorsOf(res));
  const parsed = schema.safeParse(safeJson(res));
  if (!parsed.success) throw new ProvisionError(what, res.status, `unexpected body: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

function safeJson(res: HttpResponse): unknown {
  try {
    return res.json();
  } catch {
    return undefined;
  }
}
