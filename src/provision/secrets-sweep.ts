import type { SecretsApi } from '../client/secrets-api.ts';
import { madeByRun } from './run-prefix.ts';
import type { VaultAdminApi } from './vault-admin-api.ts';

/** Where a sweep looks: the namespaces and mounts of the profile that the run did not make itself. */
export interface SweepScope {
  /** '' (root) and the profile's namespaces, each ending in '/'. */
  namespaces: string[];
  /** Key-value mounts the run wrote keys into without having made them (e.g. secret/). */
  kvV1Mounts: string[];
  kvV2Mounts: string[];
  /** Cloud-identity auth mounts the run wrote roles into without having made them. */
  cloudAuthMounts: string[];
}

export interface SweepReport {
  removed: string[];
  problems: string[];
}

/** OIDC resources go in this order: Vault refuses to delete what a provider or client still references. */
const OIDC_ORDER = ['provider', 'client', 'assignment', 'scope'] as const;

/**
 * Removes what a run (or, with 'all', any stackproof run) left on a secrets target: OIDC
 * resources, key-value keys and cloud-identity roles under the run prefix, through the spec's own
 * endpoints; then, with the admin API (hashicorp dialect), entities, groups, signing keys, auth
 * methods, mounts and namespaces under the prefix. Names without the prefix are never touched.
 */
export async function sweepSecrets(api: SecretsApi, admin: VaultAdminApi | undefined, scope: SweepScope, prefix: string | 'all', options: { dryRun?: boolean } = {}): Promise<SweepReport> {
  const report: SweepReport = { removed: [], problems: [] };
  const mine = (name: string) => madeByRun(name, prefix);
  const remove = async (what: string, call: () => Promise<{ status: number; text: string }>) => {
    if (options.dryRun) return void report.removed.push(what);
    try {
      const res = await call();
      if (res.status < 300 || res.status === 404) report.removed.push(what);
      else report.problems.push(`${what}: answered ${res.status} ${res.text.slice(0, 160)}`);
    } catch (err) {
      report.problems.push(`${what}: ${(err as Error).message}`);
    }
  };
  const list = async (path: string, namespace: string): Promise<string[]> => {
    try {
      const res = await api.list(path, 'verb', { namespace: namespace || undefined });
      if (res.status !== 200) return [];
      const keys = (res.json() as { data?: { keys?: unknown } }).data?.keys;
      return Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : [];
    } catch (err) {
      report.problems.push(`list ${namespace}${path}: ${(err as Error).message}`);
      return [];
    }
  };
  const nsOpt = (ns: string) => ({ namespace: ns || undefined });

  for (const ns of scope.namespaces) {
    for (const kind of OIDC_ORDER) {
      for (const name of (await list(`identity/oidc/${kind}`, ns)).filter(mine)) {
        await remove(`${ns}identity/oidc/${kind}/${name}`, () => api.delete(`identity/oidc/${kind}/${name}`, nsOpt(ns)));
      }
    }
    for (const mount of scope.kvV1Mounts) {
      for (const top of (await list(mount, ns)).filter(mine)) {
        if (options.dryRun) report.removed.push(`${ns}${mount}${top}`);
        else await sweepKvTree(api, ns, `${mount}${top}`, report);
      }
    }
    for (const mount of scope.kvV2Mounts) {
      for (const top of (await list(`${mount}metadata/`, ns)).filter(mine)) {
        await remove(`${ns}${mount}metadata/${top}`, () => api.delete(`${mount}metadata/${top.replace(/\/$/, '')}`, nsOpt(ns)));
        if (top.endsWith('/') && !options.dryRun) await sweepKvV2Tree(api, ns, mount, top, report);
      }
    }
    for (const mount of scope.cloudAuthMounts) {
      for (const role of (await list(`auth/${mount}/role`, ns)).filter(mine)) {
        await remove(`${ns}auth/${mount}/role/${role}`, () => api.delete(`auth/${mount}/role/${role}`, nsOpt(ns)));
      }
    }
  }
  if (!admin) return report;

  for (const ns of scope.namespaces) {
    for (const name of (await list('identity/oidc/key', ns)).filter(mine)) {
      await remove(`${ns}identity/oidc/key/${name}`, () => api.delete(`identity/oidc/key/${name}`, nsOpt(ns)));
    }
    for (const name of (await list('identity/group/name', ns)).filter(mine)) {
      await remove(`${ns}identity/group/name/${name}`, () => api.delete(`identity/group/name/${name}`, nsOpt(ns)));
    }
    for (const name of (await list('identity/entity/name', ns)).filter(mine)) {
      await remove(`${ns}identity/entity/name/${name}`, () => api.delete(`identity/entity/name/${name}`, nsOpt(ns)));
    }
    for (const name of (await list('sys/policies/acl', ns)).filter(mine)) {
      await remove(`${ns}sys/policies/acl/${name}`, () => api.delete(`sys/policies/acl/${name}`, nsOpt(ns)));
    }
    for (const kind of ['auth', 'mounts'] as const) {
      let table: Record<string, unknown> = {};
      try {
        table = await admin.mounts(kind, ns || undefined);
      } catch (err) {
        report.problems.push(`read ${ns}sys/${kind}: ${(err as Error).message}`);
      }
      for (const path of Object.keys(table).filter(mine)) {
        const bare = path.replace(/\/$/, '');
        await remove(`${ns}sys/${kind}/${bare}`, () => admin.disable(kind, bare, ns || undefined));
      }
    }
  }
  // Namespaces last, children before parents: Vault refuses to delete a namespace with children.
  for (const ns of scope.namespaces) {
    for (const child of (await list('sys/namespaces', ns)).filter(mine)) {
      if (options.dryRun) report.removed.push(`${ns}sys/namespaces/${child}`);
      else await sweepNamespace(api, admin, `${ns}${child.replace(/\/$/, '')}/`, report);
    }
  }
  return report;
}

async function sweepNamespace(api: SecretsApi, admin: VaultAdminApi, path: string, report: SweepReport): Promise<void> {
  const res = await api.list('sys/namespaces', 'verb', { namespace: path });
  const keys = res.status === 200 ? ((res.json() as { data?: { keys?: string[] } }).data?.keys ?? []) : [];
  for (const child of keys) await sweepNamespace(api, admin, `${path}${child.replace(/\/$/, '')}/`, report);
  const parts = path.replace(/\/$/, '').split('/');
  const name = parts.pop()!;
  const parent = parts.length ? `${parts.join('/')}/` : undefined;
  const del = await admin.deleteNamespace(name, parent);
  if (del.status < 300 || del.status === 404) report.removed.push(`sys/namespaces/${path}`);
  else report.problems.push(`sys/namespaces/${path}: answered ${del.status} ${del.text.slice(0, 160)}`);
}

/** Deletes every key below a version 1 path (a LIST shows one level at a time). */
async function sweepKvTree(api: SecretsApi, ns: string, path: string, report: SweepReport, depth = 0): Promise<void> {
  const opt = { namespace: ns || undefined };
  if (!path.endsWith('/')) {
    const res = await api.delete(path, opt);
    if (res.status < 300 || res.status === 404) report.removed.push(`${ns}${path}`);
    else report.problems.push(`${ns}${path}: answered ${res.status}`);
    return;
  }
  if (depth > 32) return void report.problems.push(`${ns}${path}: deeper than 32 levels, left alone`);
  const res = await api.list(path, 'verb', opt);
  const keys = res.status === 200 ? ((res.json() as { data?: { keys?: string[] } }).data?.keys ?? []) : [];
  for (const key of keys) await sweepKvTree(api, ns, `${path}${key}`, report, depth + 1);
}

/** Version 2: deleting metadata/<key> removes every version of it; folders are walked. */
async function sweepKvV2Tree(api: SecretsApi, ns: string, mount: string, dir: string, report: SweepReport, depth = 0): Promise<void> {
  if (depth > 32) return;
  const opt = { namespace: ns || undefined };
  const res = await api.list(`${mount}metadata/${dir}`, 'verb', opt);
  const keys = res.status === 200 ? ((res.json() as { data?: { keys?: string[] } }).data?.keys ?? []) : [];
  for (const key of keys) {
    if (key.endsWith('/')) await sweepKvV2Tree(api, ns, mount, `${dir}${key}`, report, depth + 1);
    else {
      const del = await api.delete(`${mount}metadata/${dir}${key}`, opt);
      if (del.status < 300 || del.status === 404) report.removed.push(`${ns}${mount}metadata/${dir}${key}`);
      else report.problems.push(`${ns}${mount}metadata/${dir}${key}: answered ${del.status}`);
    }
  }
}
