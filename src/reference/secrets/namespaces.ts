import { base62 } from './oidc/config.ts';
import type { MountTable } from './mount-table.ts';

export interface Namespace {
  /** '' for the root namespace, else a path ending in '/'. */
  path: string;
  /** 'root' for the root namespace, else five random characters, as Vault Enterprise names them. */
  id: string;
  customMetadata: Record<string, string>;
  mounts: MountTable;
}

/**
 * How a namespace came to be: the reference's start-up setup lays out the spec's fresh install in
 * it; one made through sys/namespaces starts like a new Vault Enterprise namespace, with only its
 * system and identity mounts.
 */
export type NamespaceOrigin = 'setup' | 'admin';

/** Normalises a namespace given in a header or a config: no leading slash, one trailing slash, '' for root. */
export function normalizeNamespace(raw: string | undefined): string {
  if (!raw) return '';
  const trimmed = raw.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '' : `${trimmed}/`;
}

/** The namespace tree of the secrets service; the request path is resolved against it. */
export class NamespaceTree {
  private readonly namespaces = new Map<string, Namespace>();

  constructor(private readonly mountsFor: (ns: { path: string; id: string }, origin: NamespaceOrigin) => MountTable) {
    this.add('', 'root', 'setup', {});
  }

  /** Reference setup (the spec does not show how namespaces are created): parents are created too. */
  create(path: string): Namespace {
    const parts = normalizeNamespace(path).split('/').filter(Boolean);
    let current = '';
    let ns = this.namespaces.get('')!;
    for (const part of parts) {
      current += `${part}/`;
      ns = this.namespaces.get(current) ?? this.add(current, base62(5), 'setup', {});
    }
    return ns;
  }

  /** A namespace made through the admin API, directly below an existing one. */
  createChild(parent: string, name: string, customMetadata: Record<string, string>): Namespace {
    return this.add(`${parent}${name}/`, base62(5), 'admin', customMetadata);
  }

  get(path: string): Namespace | undefined {
    return this.namespaces.get(path);
  }

  /** The namespaces directly below `parent`. */
  children(parent: string): Namespace[] {
    return [...this.namespaces.values()].filter((ns) => ns.path !== '' && ns.path.startsWith(parent) && ns.path !== parent && !ns.path.slice(parent.length, -1).includes('/'));
  }

  /** Removes a namespace that has no children; what was in it goes with it. */
  remove(path: string): boolean {
    if (path === '' || this.children(path).length > 0) return false;
    return this.namespaces.delete(path);
  }

  paths(): string[] {
    return [...this.namespaces.keys()].filter(Boolean).sort();
  }

  /** Splits a full path (namespace header already joined) into the deepest existing namespace and the rest. */
  resolve(fullPath: string): { namespace: Namespace; rest: string } {
    let best = this.namespaces.get('')!;
    for (const [path, ns] of this.namespaces) {
      if (path !== '' && fullPath.startsWith(path) && path.length > best.path.length) best = ns;
    }
    return { namespace: best, rest: fullPath.slice(best.path.length) };
  }

  private add(path: string, id: string, origin: NamespaceOrigin, customMetadata: Record<string, string>): Namespace {
    const ns: Namespace = { path, id, customMetadata, mounts: this.mountsFor({ path, id }, origin) };
    this.namespaces.set(path, ns);
    return ns;
  }
}
