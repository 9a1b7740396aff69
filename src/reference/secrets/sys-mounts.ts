import type { EngineRequest, SecretsEngine } from './engine.ts';
import type { MountInfo, MountKind, MountTable } from './mount-table.ts';
import type { Namespace, NamespaceTree } from './namespaces.ts';
import { FieldError, optionalString, stringMap } from './named-collection.ts';
import { badRequest, dataEnvelope, type EngineResult } from './respond.ts';
import type { TokenStore } from './token-store.ts';

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
  constructor(private readonly ctx: SysMountsContext) {}

  handle(req: EngineRequest, ns: Namespace, kind: MountKind, rawPath: string): EngineResult {
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
    return Object.fromEntries(mounts.entries(kind).map((e) => [e.prefix.slice(strip), mountView(e)]));
  }

  private readOne(mounts: MountTable, kind: MountKind, path: string): EngineResult {
    const entry = mounts.get(kind === 'auth' ? `auth/${path}` : path);
    if (!entry || entry.kind !== kind) return badRequest(kind === 'auth' ? `No auth engine at ${path}` : `No secret engine mount at ${path}`);
    return injected(mountView(entry));
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

/** What sys/mounts and sys/auth show of a mount (logical_system.go mountInfo). */
function mountView(e: MountInfo): Record<string, unknown> {
  const config: Record<string, unknown> = { default_lease_ttl: 0, max_lease_ttl: 0, force_no_cache: false };
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
