import type { SecretsEngine } from './engine.ts';

export interface Namespace {
  /** '' for the root namespace, else a path ending in '/'. */
  path: string;
  mounts: Map<string, SecretsEngine>;
}

/** Normalises a namespace given in a header or a config: no leading slash, one trailing slash, '' for root. */
export function normalizeNamespace(raw: string | undefined): string {
  const trimmed = (raw ?? '').replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '' : `${trimmed}/`;
}

/** The namespace tree of the secrets service; the request path is resolved against it. */
export class NamespaceTree {
  private readonly namespaces = new Map<string, Namespace>();

  constructor(private readonly mountsFor: (path: string) => Map<string, SecretsEngine>) {
    this.create('');
  }

  /** Reference setup (the spec does not show how namespaces are created): parents are created too. */
  create(path: string): Namespace {
    const normalized = normalizeNamespace(path);
    const parts = normalized.split('/').filter(Boolean);
    let current = '';
    let ns = this.namespaces.get('');
    for (const part of parts) {
      current += `${part}/`;
      ns = this.namespaces.get(current);
      if (!ns) {
        ns = { path: current, mounts: this.mountsFor(current) };
        this.namespaces.set(current, ns);
      }
    }
    if (!ns) {
      ns = { path: '', mounts: this.mountsFor('') };
      this.namespaces.set('', ns);
    }
    return ns;
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
}
