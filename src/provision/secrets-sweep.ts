import { z } from 'zod';
import type { HttpResponse } from '../client/http-client.ts';
import type { SecretsApi } from '../client/secrets-api.ts';
import { madeByRun } from './run-prefix.ts';
import { Sweeper, type SweepReport } from './sweep-report.ts';
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

/**
 * How long a deleted namespace may stay listed. OpenBao (2.3 and later) deletes a namespace in the
 * background: its DELETE answers `{"status":"in-progress"}` and the namespace stays in its parent's
 * listing, tainted, until its mounts and storage are gone (openbao/openbao vault/namespace_store.go
 * DeleteNamespace, namespaceDeletionJob), and a parent with a child still listed is refused
 * ("unable to delete namespace containing child namespaces"). Seconds on an idle machine; generous.
 */
export const NAMESPACE_GONE_MS = 120_000;

/** OIDC resources go in this order: Vault refuses to delete what a provider or client still references. */
const OIDC_ORDER = ['provider', 'client', 'assignment', 'scope'] as const;

/**
 * Removes what a run (or, with 'all', any stackproof run) left on a secrets target: OIDC
 * resources, key-value keys and cloud-identity roles under the run prefix, through the spec's own
 * endpoints; then, with the admin API (hashicorp dialect), entities, groups, signing keys, auth
 * methods, mounts, auth plugin catalog entries and namespaces under the prefix. Names without the prefix are never touched.
 */
export async function sweepSecrets(api: SecretsApi, admin: VaultAdminApi | undefined, scope: SweepScope, prefix: string | 'all', options: { dryRun?: boolean; namespaceGoneMs?: number } = {}): Promise<SweepReport> {
  const sweep = new SecretsSweep(api, new Sweeper(options.dryRun), (name) => madeByRun(name, prefix), options.namespaceGoneMs ?? NAMESPACE_GONE_MS);
  for (const ns of scope.namespaces) {
    for (const kind of OIDC_ORDER) await sweep.listed(`identity/oidc/${kind}`, ns);
    for (const mount of scope.kvV1Mounts) {
      for (const top of (await sweep.list(mount, ns)).filter(sweep.mine)) await sweep.kvTree(ns, `${mount}${top}`);
    }
    for (const mount of scope.kvV2Mounts) {
      // A mount of either version (secret/): a version-2 path written to a version-1 mount
      // (secrets.core.kv-mounted-at-secret probes both with data/<run>/…) is a key named
      // data/<run>/…, the run's name one level down; a version-2 mount does not list data/.
      for (const top of (await sweep.list(`${mount}data/`, ns)).filter(sweep.mine)) await sweep.kvTree(ns, `${mount}data/${top}`);
      for (const top of (await sweep.list(`${mount}metadata/`, ns)).filter(sweep.mine)) {
        await sweep.delete(ns, `${mount}metadata/${top.replace(/\/$/, '')}`);
        if (top.endsWith('/')) await sweep.kvV2Tree(ns, mount, top);
      }
    }
    for (const mount of scope.cloudAuthMounts) await sweep.listed(`auth/${mount}/role`, ns);
  }
  if (!admin) return sweep.sweeper.report;

  for (const ns of scope.namespaces) {
    for (const path of ['identity/oidc/key', 'identity/group/name', 'identity/entity/name', 'sys/policies/acl']) await sweep.listed(path, ns);
    await sweep.loginEntities(ns);
    for (const kind of ['auth', 'mounts'] as const) {
      const table = (await sweep.sweeper.attempt(`read ${ns}sys/${kind}`, () => admin.mounts(kind, ns || undefined))) ?? {};
      for (const path of Object.keys(table).filter(sweep.mine)) {
        const bare = path.replace(/\/$/, '');
        await sweep.sweeper.remove(`${ns}sys/${kind}/${bare}`, () => admin.disable(kind, bare, ns || undefined));
      }
    }
  }
  // A run's copies of a plugin (the cloud-identity route, cloud-plugin-route.ts) go after the auth
  // methods that ran them. The catalog is the root namespace's.
  for (const name of (await sweep.list('sys/plugins/catalog/auth', '')).filter(sweep.mine)) {
    await sweep.sweeper.remove(`sys/plugins/catalog/auth/${name}`, () => admin.deletePlugin('auth', name));
  }
  // Namespaces last, children before parents, each gone before its parent goes: Vault and OpenBao
  // refuse to delete a namespace with children.
  for (const ns of scope.namespaces) {
    for (const child of (await sweep.list('sys/namespaces', ns)).filter(sweep.mine)) await sweep.namespace(admin, `${ns}${child.replace(/\/$/, '')}/`);
  }
  return sweep.sweeper.report;
}

/** The listing and deleting a secrets sweep is made of, through the spec's LIST and DELETE. */
class SecretsSweep {
  constructor(
    private readonly api: SecretsApi,
    readonly sweeper: Sweeper,
    readonly mine: (name: string) => boolean,
    private readonly namespaceGoneMs: number,
  ) {}

  /** The keys at a LIST path; none where it answers otherwise (404 is an empty list). */
  async list(path: string, ns: string): Promise<string[]> {
    const res = await this.sweeper.attempt(`list ${ns}${path}`, () => this.api.list(path, 'verb', { namespace: ns || undefined }));
    if (res?.status !== 200) return [];
    const keys = (res.json() as { data?: { keys?: unknown } }).data?.keys;
    return Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : [];
  }

  async delete(ns: string, path: string): Promise<void> {
    await this.sweeper.remove(`${ns}${path}`, () => this.api.delete(path, { namespace: ns || undefined }));
  }

  /** Deletes each run-made name listed at `path` (`path/<name>`). */
  async listed(path: string, ns: string): Promise<void> {
    for (const name of (await this.list(path, ns)).filter(this.mine)) await this.delete(ns, `${path}/${name}`);
  }

  /**
   * The entities a login made for itself: a login through an auth method gives the caller an entity
   * (named entity_<random>, not under the run prefix) with an alias on the method's accessor, and
   * disabling the method leaves both (met on OpenBao 2.6.2). An entity goes when every alias it has
   * is on an accessor of a run's auth method: `auth_<type>_<random>`, and the run's own plugin types
   * (cloud-plugin-route.ts) are named under its prefix. Entities with other aliases are left alone.
   */
  async loginEntities(ns: string): Promise<void> {
    const res = await this.sweeper.attempt(`list ${ns}identity/entity/id`, () => this.api.list('identity/entity/id', 'verb', { namespace: ns || undefined }));
    if (res?.status !== 200) return;
    const parsed = entityListSchema.safeParse(safeJson(res));
    if (!parsed.success) return void this.sweeper.report.problems.push(`${ns}identity/entity/id: answered a listing without key_info`);
    const runAccessor = (accessor: string) => /^auth_/.test(accessor) && this.mine(accessor.replace(/^auth_/, ''));
    for (const [id, info] of Object.entries(parsed.data.data.key_info)) {
      const aliases = info.aliases ?? [];
      if (aliases.length === 0 || !aliases.every((a) => runAccessor(a.mount_accessor))) continue;
      // Named with the accessor, whose run prefix tells `stackproof cleanup` whose it is.
      const what = `${ns}identity/entity/id/${id} (made by a login through ${aliases[0]!.mount_accessor})`;
      await this.sweeper.remove(what, () => this.api.delete(`identity/entity/id/${id}`, { namespace: ns || undefined }));
    }
  }

  /** Deletes every key below a version 1 path (a LIST shows one level at a time). */
  async kvTree(ns: string, path: string, depth = 0): Promise<void> {
    if (!path.endsWith('/') || this.sweeper.dryRun) return this.delete(ns, path);
    if (depth > 32) return void this.sweeper.report.problems.push(`${ns}${path}: deeper than 32 levels, left alone`);
    for (const key of await this.list(path, ns)) await this.kvTree(ns, `${path}${key}`, depth + 1);
  }

  /** Version 2: deleting metadata/<key> removes every version of it; folders are walked. */
  async kvV2Tree(ns: string, mount: string, dir: string, depth = 0): Promise<void> {
    if (depth > 32 || this.sweeper.dryRun) return;
    for (const key of await this.list(`${mount}metadata/${dir}`, ns)) {
      if (key.endsWith('/')) await this.kvV2Tree(ns, mount, `${dir}${key}`, depth + 1);
      else await this.delete(ns, `${mount}metadata/${dir}${key}`);
    }
  }

  /**
   * A namespace and, first, its children; whether it is gone from its parent's listing. A parent is
   * left (and said so) while a child is still there, rather than refused.
   */
  async namespace(admin: VaultAdminApi, path: string): Promise<boolean> {
    if (!this.sweeper.dryRun) {
      let childrenGone = true;
      for (const child of await this.list('sys/namespaces', path)) childrenGone = (await this.namespace(admin, `${path}${child.replace(/\/$/, '')}/`)) && childrenGone;
      if (!childrenGone) {
        this.sweeper.report.problems.push(`sys/namespaces/${path}: left, as a namespace inside it is still there`);
        return false;
      }
    }
    const parts = path.replace(/\/$/, '').split('/');
    const name = parts.pop()!;
    const parent = parts.length ? `${parts.join('/')}/` : '';
    if (!(await this.sweeper.remove(`sys/namespaces/${path}`, () => admin.deleteNamespace(name, parent || undefined)))) return false;
    return this.sweeper.dryRun || this.untilUnlisted(parent, name, path);
  }

  /** Waits for a deleted namespace to leave its parent's listing (the product's signal that it is gone). */
  private async untilUnlisted(parent: string, name: string, path: string): Promise<boolean> {
    const started = Date.now();
    for (;;) {
      let listed: boolean;
      try {
        const res = await this.api.list('sys/namespaces', 'verb', { namespace: parent || undefined });
        const keys = res.status === 200 ? (res.json() as { data?: { keys?: unknown } }).data?.keys : [];
        listed = Array.isArray(keys) && keys.includes(`${name}/`);
      } catch (err) {
        this.sweeper.report.problems.push(`sys/namespaces/${path}: deleted, but listing ${parent || '(root)'} to see it gone failed: ${(err as Error).message}`);
        return false;
      }
      if (!listed) return true;
      if (Date.now() - started > this.namespaceGoneMs) {
        this.sweeper.report.problems.push(`sys/namespaces/${path}: deleted (the target deletes it in the background), but still listed ${Math.round(this.namespaceGoneMs / 1000)} s later`);
        return false;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** LIST identity/entity/id: each entity's aliases, with the accessor of the auth method each is on. */
const entityListSchema = z.object({
  data: z.object({
    key_info: z.record(z.string(), z.object({ aliases: z.array(z.object({ mount_accessor: z.string() }).passthrough()).nullable().optional() }).passthrough()),
  }),
});

function safeJson(res: HttpResponse): unknown {
  try {
    return res.json();
  } catch {
    return undefined;
  }
}
