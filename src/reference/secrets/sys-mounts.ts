import type { EngineRequest, SecretsEngine } from './engine.ts';
import type { MountInfo, MountKind, MountTable } from './mount-table.ts';
import type { Namespace, NamespaceTree } from './namespaces.ts';
import { FieldError, optionalString, stringMap } from './named-collection.ts';
import { badRequest, dataEnvelope, type EngineResult } from './respond.ts';
import type { TokenStore } from './token-store.ts';
import { vaultDuration } from './vault-fields.ts';

/** Builds the engine of a mount once its entry (and accessor) exists. */
export type EngineBuilder = (info: MountInfo) => SecretsEngine;

/** The engines the reference can mount through sys/mounts and sys/auth, by Vault type name. */
export interface EngineCatalog {
  /** `kv` at version '1' or '2'. */
  kv(version: '1' | '2', namespace: string): EngineBuilder;
  /** An auth method type ('userpass', the dialect's cloud-identity type), or undefined when there is none. */
  auth(type: string, namespace: string): EngineBuilder | undefined;
}

/** Paths a secrets engine may not be mounted at or below (vault/mount.go protectedMounts). */
const PROTECTED = ['audit/', 'auth/', 'sys/', 'cubbyhole/', 'identity/'];

/** Vault's sanitizePath: no leading slash, one trailing slash. */
function sanitize(path: string): string {
  const trimmed = path.replace(/^\/+/, '').replace(/\/+$/, '');
  return trimmed === '' ? '' : `${trimmed}/`;
}

export interface SysMountsContext {
  /** The namespace tree (a getter: the root namespace's system backend exists before the tree does). */
  tree: () => NamespaceTree;
  tokens: TokenStore;
  catalog: EngineCatalog;
}

/**
 * sys/mounts and sys/auth of the hashicorp dialect (hashicorp/vault vault/logical_system.go
 * handleMountTable, handleMount, handleUnmount, handleAuthTable, handleEnableAuth,
 * handleDisableAuth; vault/mount.go, vault/auth.go). Mounting makes a real engine in the
 * namespace's mount table; unmounting drops it with all it held.
 */
export class SysMounts {
  /** Lease TTLs set by tuning, in seconds (0: the system's); a mount never tuned has none. */
  private readonly tuned = new WeakMap<MountInfo, { defaultLeaseTtl: number; maxLeaseTtl: number }>();

  constructor(private readonly ctx: SysMountsContext) {}

  handle(req: EngineRequest, ns: Namespace, kind: MountKind, rawPath: string): EngineResult {
    // logical_system.go registers mounts/(?P<path>.+?)/tune$ (and auth/…/tune) before the mount itself.
    const tune = /^(.+?)\/tune\/?$/.exec(rawPath);
    if (tune) {
      try {
        return this.tune(req, ns, kind, sanitize(tune[1]!));
      } catch (err) {
        if (err instanceof FieldError) return badRequest(err.message);
        throw err;
      }
    }
    const path = sanitize(rawPath);
    try {
      if (path === '') return req.operation === 'read' ? injected(this.table(ns.mounts, kind)) : { kind: 'error', status: 405, errors: ['unsupported operation'] };
      switch (req.operation) {
        case 'read':
          return this.readOne(ns.mounts, kind, path);
        case 'create-or-update':
          return kind === 'mounts' ? this.mountSecrets(ns, path, req.data) : this.enableAuth(ns, path, req.data);
        case 'delete':
          return kind === 'mounts' ? this.unmount(ns, path) : this.disableAuth(ns, path);
        default:
          return { kind: 'error', status: 405, errors: ['unsupported operation'] };
      }
    } catch (err) {
      if (err instanceof FieldError) return badRequest(err.message);
      throw err;
    }
  }

  private table(mounts: MountTable, kind: MountKind): Record<string, unknown> {
    const strip = kind === 'auth' ? 'auth/'.length : 0;
    return Object.fromEntries(mounts.entries(kind).map((e) => [e.prefix.slice(strip), mountView(e, this.tuned.get(e))]));
  }

  /**
   * logical_system.go handleTuneReadCommon and handleTuneWriteCommon: the effective lease TTLs
   * (the system's 768h where the mount sets none), description and options; a write sets the TTLs
   * ("" keeps one, "system" resets it), the description and options. Changing a KV mount's version
   * is refused: Vault upgrades the data in place, which the reference does not do.
   */
  private tune(req: EngineRequest, ns: Namespace, kind: MountKind, path: string): EngineResult {
    const entry = ns.mounts.get(kind === 'auth' ? `auth/${path}` : path);
    const found = entry && entry.kind === kind ? entry : undefined;
    const shown = kind === 'auth' ? `auth/${path}` : path;
    if (req.operation === 'read') {
      if (!found) return badRequest(`cannot fetch sysview for path ${JSON.stringify(shown)}`);
      const ttls = this.tuned.get(found);
      const data: Record<string, unknown> = {
        description: found.description,
        default_lease_ttl: ttls?.defaultLeaseTtl || SYSTEM_DEFAULT_LEASE_TTL,
        max_lease_ttl: ttls?.maxLeaseTtl || SYSTEM_MAX_LEASE_TTL,
        force_no_cache: false,
      };
      if (kind === 'auth') data.token_type = 'default-service';
      if (found.options && Object.keys(found.options).length) data.options = found.options;
      return injected(data);
    }
    if (req.operation !== 'create-or-update') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
    if (UNTUNABLE.some((p) => shown.startsWith(p))) return badRequest(`cannot tune ${JSON.stringify(shown)}`);
    if (!found) return badRequest(`tune of path ${JSON.stringify(shown)} failed: no mount entry found`);
    const d = req.data;
    const before = this.tuned.get(found) ?? { defaultLeaseTtl: 0, maxLeaseTtl: 0 };
    const ttl = (field: string, current: number): number => {
      const raw = d[field];
      if (raw === undefined || raw === '') return current;
      if (raw === 'system') return 0;
      const seconds = vaultDuration(raw);
      if (Number.isNaN(seconds)) throw new FieldError(`unable to parse ${field}: time: invalid duration ${JSON.stringify(String(raw))}`);
      return seconds;
    };
    const next = { defaultLeaseTtl: ttl('default_lease_ttl', before.defaultLeaseTtl), maxLeaseTtl: ttl('max_lease_ttl', before.maxLeaseTtl) };
    const effectiveMax = next.maxLeaseTtl || SYSTEM_MAX_LEASE_TTL;
    if (next.defaultLeaseTtl > effectiveMax) return badRequest(`backend max lease TTL of ${effectiveMax} would be less than backend default lease TTL of ${next.defaultLeaseTtl}`);
    const options = stringMap(d.options, 'options');
    if (options?.version !== undefined && options.version !== (found.options?.version ?? '')) {
      const asked = Number(options.version);
      if (!Number.isInteger(asked) || (asked !== 1 && asked !== 2)) return badRequest(`invalid version provided: ${options.version}`);
      if (asked < Number(found.options?.version ?? 1)) return badRequest(`cannot downgrade mount from version ${found.options?.version}`);
      return badRequest('the reference does not upgrade a mount from version 1 to version 2 in place (Vault does, and the mount is briefly unavailable): mount a version 2 engine instead');
    }
    if (options) {
      // Upserted; an empty value removes the key (logical_system.go handleTuneWriteCommon).
      const merged = { ...found.options };
      for (const [k, v] of Object.entries(options)) if (v === '' && k !== 'version') delete merged[k];
      else merged[k] = v;
      found.options = Object.keys(merged).length ? merged : null;
    }
    const description = optionalString(d.description, 'description');
    if (description !== undefined) found.description = description;
    this.tuned.set(found, next);
    return { kind: 'no-content' };
  }

  private readOne(mounts: MountTable, kind: MountKind, path: string): EngineResult {
    const entry = mounts.get(kind === 'auth' ? `auth/${path}` : path);
    if (!entry || entry.kind !== kind) return badRequest(kind === 'auth' ? `No auth engine at ${path}` : `No secret engine mount at ${path}`);
    return injected(mountView(entry, this.tuned.get(entry)));
  }

  private mountSecrets(ns: Namespace, path: string, d: Record<string, unknown>): EngineResult {
    let type = optionalString(d.type, 'type') ?? '';
    if (type === '') return badRequest('backend type must be specified as a string');
    let options = stringMap(d.options, 'options') ?? null;
    if (type === 'kv-v1' || type === 'kv-v2') {
      options = { ...options, version: type.slice(-1) };
      type = 'kv';
    }
    if (type !== 'kv') {
      if (options?.version) return badRequest(`secrets engine "${type}" does not allow setting a version`);
      return badRequest(`plugin not found in the catalog: ${type}`);
    }
    const version = options?.version ?? '';
    if (version !== '' && version !== '1' && version !== '2') return badRequest(`invalid version "${version}" for the kv secrets engine: 1 or 2`);
    if (PROTECTED.some((p) => path.startsWith(p))) return badRequest(`cannot mount "${path}"`);
    const refusal = this.conflict(ns, path, 'mounts');
    if (refusal) return refusal;
    ns.mounts.add(
      { prefix: path, kind: 'mounts', type, description: optionalString(d.description, 'description'), options, local: d.local === true, sealWrap: d.seal_wrap === true },
      this.ctx.catalog.kv(version === '2' ? '2' : '1', ns.path),
    );
    return { kind: 'no-content' };
  }

  private enableAuth(ns: Namespace, path: string, d: Record<string, unknown>): EngineResult {
    const type = optionalString(d.type, 'type') ?? '';
    if (type === '') return badRequest('backend type must be specified as a string');
    if (stringMap(d.options, 'options')?.version) return badRequest(`auth method "${type}" does not allow setting a version`);
    if (type === 'token') return badRequest('token credential backend cannot be instantiated');
    const builder = this.ctx.catalog.auth(type, ns.path);
    if (!builder) return badRequest(`plugin not found in the catalog: ${type}`);
    const refusal = this.conflict(ns, `auth/${path}`, 'auth');
    if (refusal) return refusal;
    ns.mounts.add({ prefix: `auth/${path}`, kind: 'auth', type, description: optionalString(d.description, 'description'), options: stringMap(d.options, 'options') ?? null, local: d.local === true, sealWrap: d.seal_wrap === true }, builder);
    return { kind: 'no-content' };
  }

  /** Vault's answer to a path that overlaps another mount; also a child namespace's name, which would hide it. */
  private conflict(ns: Namespace, prefix: string, kind: MountKind): EngineResult | undefined {
    const other = ns.mounts.conflict(prefix, kind);
    if (other) return badRequest(`path is already in use at ${kind === 'auth' ? other.prefix.slice('auth/'.length) : other.prefix}`);
    const child = this.ctx.tree().children(ns.path).find((c) => `${ns.path}${prefix}`.startsWith(c.path));
    if (child) return badRequest(`path is already in use by the namespace ${child.path}`);
    return undefined;
  }

  /** 204 also when nothing is mounted there, "to not expose if the mount existed". */
  private unmount(ns: Namespace, path: string): EngineResult {
    if (PROTECTED.some((p) => path.startsWith(p))) return badRequest(`cannot unmount "${path}"`);
    const entry = ns.mounts.get(path);
    if (entry?.kind === 'mounts') ns.mounts.remove(path);
    return { kind: 'no-content' };
  }

  /** Disabling an auth method drops its users and revokes the tokens it issued; entity aliases on its accessor stay, as in Vault. */
  private disableAuth(ns: Namespace, path: string): EngineResult {
    if (path === 'token/') return badRequest('token credential backend cannot be disabled');
    const entry = ns.mounts.get(`auth/${path}`);
    if (entry?.kind !== 'auth') return { kind: 'no-content' };
    ns.mounts.remove(entry.prefix);
    this.ctx.tokens.revokeWhere((t) => t.issuedBy?.accessor === entry.accessor);
    return { kind: 'no-content' };
  }
}

/** A dev server's lease TTLs, which a mount that sets none takes (vault/core.go defaultLeaseTTL, maxLeaseTTL: 768h). */
const SYSTEM_DEFAULT_LEASE_TTL = 768 * 3600;
const SYSTEM_MAX_LEASE_TTL = 768 * 3600;

/** Mounts no tune may change (vault/logical_system.go untunableMounts). */
const UNTUNABLE = ['cubbyhole/', 'sys/', 'audit/', 'identity/'];

/** What sys/mounts and sys/auth show of a mount (logical_system.go mountInfo): its own TTLs, 0 where it sets none. */
function mountView(e: MountInfo, ttls?: { defaultLeaseTtl: number; maxLeaseTtl: number }): Record<string, unknown> {
  const config: Record<string, unknown> = { default_lease_ttl: ttls?.defaultLeaseTtl ?? 0, max_lease_ttl: ttls?.maxLeaseTtl ?? 0, force_no_cache: false };
  if (e.kind === 'auth') config.token_type = 'default-service';
  return {
    type: e.type,
    description: e.description,
    accessor: e.accessor,
    local: e.local,
    seal_wrap: e.sealWrap,
    external_entropy_access: false,
    options: e.options,
    uuid: e.uuid,
    plugin_version: '',
    running_plugin_version: '',
    running_sha256: '',
    config,
  };
}

/**
 * Vault answers these sys/ reads with the data both in `data` and at the top level of the body
 * (sdk/logical/translate_response.go HTTPSysInjector).
 */
function injected(data: Record<string, unknown>): EngineResult {
  return { kind: 'raw', status: 200, body: { ...data, ...dataEnvelope(data), mount_type: 'system' } };
}
