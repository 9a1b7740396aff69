import { randomBytes, randomUUID } from 'node:crypto';
import type { SecretsEngine } from './engine.ts';

/** Vault keeps secrets engines and auth methods in two tables (sys/mounts and sys/auth). */
export type MountKind = 'mounts' | 'auth';

/** What sys/mounts and sys/auth describe about one mount, beside the engine that serves it. */
export interface MountInfo {
  /** Where the engine answers in its namespace: 'secret/' or 'auth/userpass/'. */
  prefix: string;
  kind: MountKind;
  /** Vault's type name: 'kv', 'identity', 'system', 'userpass', 'azure'. */
  type: string;
  /** `<type>_<8 hex>`, `auth_<type>_<8 hex>` for auth methods (vault/mount.go generateMountAccessor). */
  accessor: string;
  uuid: string;
  description: string;
  options: Record<string, string> | null;
  local: boolean;
  sealWrap: boolean;
}

export interface MountEntry extends MountInfo {
  engine: SecretsEngine;
}

export interface MountRequest {
  prefix: string;
  kind: MountKind;
  type: string;
  description?: string;
  options?: Record<string, string> | null;
  local?: boolean;
  sealWrap?: boolean;
}

/**
 * The mounts of one namespace: routing by longest prefix, and the metadata the sys/ endpoints show.
 * The engine is built once the entry exists, so that an auth method knows its own accessor.
 */
export class MountTable {
  private readonly byPrefix = new Map<string, MountEntry>();

  add(request: MountRequest, engineFor: (info: MountInfo) => SecretsEngine): MountEntry {
    const info: MountInfo = {
      prefix: request.prefix,
      kind: request.kind,
      type: request.type,
      accessor: this.newAccessor(request.kind === 'auth' ? `auth_${request.type}` : request.type),
      uuid: randomUUID(),
      description: request.description ?? '',
      options: request.options ?? null,
      local: request.local ?? false,
      sealWrap: request.sealWrap ?? false,
    };
    const entry: MountEntry = { ...info, engine: engineFor(info) };
    this.byPrefix.set(entry.prefix, entry);
    return entry;
  }

  remove(prefix: string): MountEntry | undefined {
    const entry = this.byPrefix.get(prefix);
    this.byPrefix.delete(prefix);
    return entry;
  }

  get(prefix: string): MountEntry | undefined {
    return this.byPrefix.get(prefix);
  }

  entries(kind?: MountKind): MountEntry[] {
    return [...this.byPrefix.values()].filter((e) => kind === undefined || e.kind === kind);
  }

  byAccessor(accessor: string): MountEntry | undefined {
    return this.entries().find((e) => e.accessor === accessor);
  }

  /** The mount serving a path (relative to the namespace): the longest prefix that contains it. */
  find(path: string): MountEntry | undefined {
    let best: MountEntry | undefined;
    for (const entry of this.byPrefix.values()) {
      // A path that is the prefix without its slash names the mount itself.
      const names = path.length === entry.prefix.length - 1 && entry.prefix.startsWith(path);
      if ((names || path.startsWith(entry.prefix)) && (!best || entry.prefix.length > best.prefix.length)) best = entry;
    }
    return best;
  }

  /** A mount of the same table whose path contains, or lies within, the given one (vault/mount.go mountInternal). */
  conflict(prefix: string, kind: MountKind): MountEntry | undefined {
    return this.entries(kind).find((e) => e.prefix.startsWith(prefix) || prefix.startsWith(e.prefix));
  }

  private newAccessor(base: string): string {
    for (;;) {
      const accessor = `${base}_${randomBytes(4).toString('hex')}`;
      if (!this.byAccessor(accessor)) return accessor;
    }
  }
}
