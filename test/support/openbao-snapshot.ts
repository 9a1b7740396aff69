import type { OpenBaoServer } from './openbao-server.ts';

/**
 * What a run could change or leave behind on an OpenBao server, as its own listings show it, in the
 * root namespace and in every namespace below it: namespaces, secrets mounts, auth methods, the
 * plugin catalog, ACL policies, token accessors, entities, groups, the OIDC provider's keys, clients,
 * assignments, scopes and providers, and the keys of the KV engine at secret/.
 */
export interface NamespaceSnapshot {
  mounts: string[];
  auth: string[];
  policies: string[];
  tokenAccessors: string[];
  entities: string[];
  groups: string[];
  oidc: Record<'key' | 'client' | 'assignment' | 'scope' | 'provider', string[]>;
  secretKeys: string[];
}

export interface Snapshot {
  /** Every namespace path below the root ('' is the root), sorted. */
  namespaces: string[];
  pluginCatalog: string[];
  byNamespace: Record<string, NamespaceSnapshot>;
}

async function call(server: OpenBaoServer, method: string, path: string, namespace: string): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = { 'x-vault-token': server.token };
  if (namespace) headers['x-vault-namespace'] = namespace;
  const res = await fetch(`${server.url}/v1/${path}`, { method, headers });
  const text = await res.text();
  if (res.status !== 200 && res.status !== 404) throw new Error(`${method} ${namespace}${path} answered ${res.status}: ${text.slice(0, 200)}`);
  return { status: res.status, json: res.status === 200 && text ? JSON.parse(text) : undefined };
}

/** The keys of a LIST; 404 is the empty list. */
async function keys(server: OpenBaoServer, path: string, namespace: string): Promise<string[]> {
  const res = await call(server, 'LIST', path, namespace);
  return res.status === 200 ? ((res.json.data.keys as string[]) ?? []).slice().sort() : [];
}

/** A KV version 2 tree, walked through its metadata listings. */
async function kvKeys(server: OpenBaoServer, mount: string, namespace: string, dir = '', depth = 0): Promise<string[]> {
  if (depth > 16) return [`${dir}…`];
  const out: string[] = [];
  for (const key of await keys(server, `${mount}metadata/${dir}`, namespace)) {
    if (key.endsWith('/')) out.push(...(await kvKeys(server, mount, namespace, `${dir}${key}`, depth + 1)));
    else out.push(`${dir}${key}`);
  }
  return out.sort();
}

async function table(server: OpenBaoServer, path: string, namespace: string): Promise<string[]> {
  const data = (await call(server, 'GET', path, namespace)).json.data as Record<string, { type: string; accessor?: string }>;
  return Object.entries(data)
    .map(([p, m]) => `${p} ${m.type} ${m.accessor ?? ''}`.trim())
    .sort();
}

async function namespaceSnapshot(server: OpenBaoServer, ns: string): Promise<NamespaceSnapshot> {
  const mounts = await table(server, 'sys/mounts', ns);
  const oidc = {} as NamespaceSnapshot['oidc'];
  for (const kind of ['key', 'client', 'assignment', 'scope', 'provider'] as const) oidc[kind] = await keys(server, `identity/oidc/${kind}`, ns);
  return {
    mounts,
    auth: await table(server, 'sys/auth', ns),
    policies: await keys(server, 'sys/policies/acl', ns),
    tokenAccessors: await keys(server, 'auth/token/accessors', ns),
    entities: await keys(server, 'identity/entity/id', ns),
    groups: await keys(server, 'identity/group/id', ns),
    oidc,
    secretKeys: mounts.some((m) => m.startsWith('secret/ kv')) ? await kvKeys(server, 'secret/', ns) : [],
  };
}

/** Namespaces below `parent`, depth first ('' is the root). */
async function namespacesBelow(server: OpenBaoServer, parent: string): Promise<string[]> {
  const out: string[] = [];
  for (const child of await keys(server, 'sys/namespaces', parent)) {
    const path = `${parent}${child}`;
    out.push(path, ...(await namespacesBelow(server, path)));
  }
  return out;
}

export async function snapshot(server: OpenBaoServer): Promise<Snapshot> {
  const namespaces = (await namespacesBelow(server, '')).sort();
  const catalog = (await call(server, 'GET', 'sys/plugins/catalog', '')).json.data.detailed as { type: string; name: string; version?: string; sha256?: string; builtin: boolean }[];
  const byNamespace: Record<string, NamespaceSnapshot> = {};
  for (const ns of ['', ...namespaces]) byNamespace[ns] = await namespaceSnapshot(server, ns);
  return {
    namespaces,
    pluginCatalog: catalog.map((p) => `${p.type}/${p.name} ${p.version ?? ''} ${p.builtin ? 'builtin' : (p.sha256 ?? '')}`).sort(),
    byNamespace,
  };
}
