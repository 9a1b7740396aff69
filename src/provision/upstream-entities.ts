import { randomBytes } from 'node:crypto';
import type { EntityFixture } from '../client/identity-fixtures.ts';
import type { VaultAdminApi } from './vault-admin-api.ts';

export interface UserpassMount {
  /** '' for the root namespace, else a path ending in '/'. */
  namespace: string;
  mount: string;
  accessor: string;
}

/**
 * An identity entity with a client token of its own, made the way a Vault operator would: the
 * entity (with its metadata), a userpass user of the same name, an alias tying that user to the
 * entity, the groups it belongs to, and a login. Vault ties the login's token to the entity
 * through the alias (vault/identity_store_util.go CreateOrFetchEntity), so the OIDC provider sees
 * that entity, its metadata and its groups. Names come from the suite (under the run prefix).
 */
export async function createUpstreamEntity(
  admin: VaultAdminApi,
  userpass: UserpassMount,
  spec: { name: string; metadata?: Record<string, string>; groups?: string[] },
): Promise<EntityFixture> {
  const ns = userpass.namespace || undefined;
  // Vault lowercases userpass user names (builtin/credential/userpass path_users.go).
  const name = spec.name.toLowerCase();
  const metadata = spec.metadata ?? {};
  const id = await admin.createEntity(name, metadata, ns);
  const groups: { id: string; name: string }[] = [];
  for (const group of spec.groups ?? []) {
    const existing = await admin.group(group, ns);
    const groupId = await admin.writeGroup(group, [...(existing?.members ?? []), id], ns);
    const resolved = groupId ?? existing?.id ?? (await admin.group(group, ns))?.id;
    if (!resolved) throw new Error(`group ${group} was written but cannot be read back`);
    groups.push({ id: resolved, name: group });
  }
  const password = randomBytes(18).toString('base64url');
  await admin.createUser(userpass.mount, name, password, ns);
  await admin.createEntityAlias(name, id, userpass.accessor, ns);
  const login = await admin.login(userpass.mount, name, password, ns);
  if (login.entityId !== id) throw new Error(`the login of ${name} is tied to entity ${login.entityId || '(none)'}, not to ${id} through its alias`);
  return { id, name, token: login.token, metadata, groups };
}
