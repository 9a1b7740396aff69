import type { OpenBaoServer } from './openbao-server.ts';

/**
 * What a run could change or leave behind on an OpenBao (or Vault) server, as its own listings show
 * it: namespaces, secrets engines and auth methods, the plugin catalog, policies, tokens (by
 * accessor), identity entities and groups, and the OIDC provider's keys, clients, assignments,
 * scopes and providers (a fresh server already has the key `default`, the assignment `allow_all` and
 * the provider `default`).
 */
export interface OpenBaoListings {
  namespaces: string[];
  mounts: string[];
  auth: string[];
  pluginCatalog: string[];
  policies: string[];
  tokenAccessors: string[];
  entities: string[];
  groups: string[];
  oidc: Record<'key' | 'client' | 'assignment' | 'scope' | 'provider', string[]>;
}

async function call(server: OpenBaoServer, method: 'GET' | 'LIST', path: string): Promise<any> {
  const res = await fetch(`${server.url}/v1/${path}`, { method, headers: { 'x-vault-token': server.token } });
  const text = await res.text();
  // An empty list answers 404 in the Vault family.
  if (method === 'LIST' && res.status === 404) return { data: { keys: [] } };
  if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

const keys = async (server: OpenBaoServer, path: string) => [...(((await call(server, 'LIST', path)).data?.keys ?? []) as string[])].sort();

export async function openBaoListings(server: OpenBaoServer): Promise<OpenBaoListings> {
  const catalog = (await call(server, 'GET', 'sys/plugins/catalog')).data as Record<string, unknown>;
  return {
    namespaces: await keys(server, 'sys/namespaces'),
    mounts: Object.keys((await call(server, 'GET', 'sys/mounts')).data).sort(),
    auth: Object.keys((await call(server, 'GET', 'sys/auth')).data).sort(),
    pluginCatalog: ['auth', 'secret', 'database'].flatMap((kind) => ((catalog[kind] ?? []) as string[]).map((n) => `${kind}/${n}`)).sort(),
    policies: await keys(server, 'sys/policies/acl'),
    tokenAccessors: await keys(server, 'auth/token/accessors'),
    entities: await keys(server, 'identity/entity/name'),
    groups: await keys(server, 'identity/group/name'),
    oidc: {
      key: await keys(server, 'identity/oidc/key'),
      client: await keys(server, 'identity/oidc/client'),
      assignment: await keys(server, 'identity/oidc/assignment'),
      scope: await keys(server, 'identity/oidc/scope'),
      provider: await keys(server, 'identity/oidc/provider'),
    },
  };
}
