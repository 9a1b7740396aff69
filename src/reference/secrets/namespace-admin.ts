import type { EngineRequest } from './engine.ts';
import type { Namespace, NamespaceTree } from './namespaces.ts';
import { FieldError, stringMap } from './named-collection.ts';
import { badRequest, dataEnvelope, notFound, type EngineResult } from './respond.ts';

/** What Vault CE answers for a sys/ path it does not have: its system backend knows no such path. */
export const VAULT_UNSUPPORTED_PATH = '1 error occurred:\n\t* unsupported path\n\n';

/** Namespace names: word characters, dashes and dots, as in a path segment. */
const NAME = /^[\w.-]+$/;

export interface NamespaceAdminContext {
  /** The namespace tree (a getter: the root namespace's system backend exists before the tree does). */
  tree: () => NamespaceTree;
  /** Revokes the tokens made in a deleted namespace and below it. */
  revokeTokensOf: (path: string) => void;
  /** Vault CE (and `vault server -dev`) has no namespaces: sys/namespaces is an unsupported path there. */
  supported: boolean;
}

/**
 * sys/namespaces in the hashicorp dialect. Vault Enterprise's source is closed; the shapes follow
 * its API documentation and OpenBao's port (internal/vault/logical_system_namespaces.go): create,
 * read and list the children of the request's namespace, and delete one that has no children of
 * its own, with everything in it.
 */
export class NamespaceAdmin {
  constructor(private readonly ctx: NamespaceAdminContext) {}

  handle(req: EngineRequest, parent: Namespace, name: string): EngineResult {
    if (!this.ctx.supported) return { kind: 'error', status: 404, errors: [VAULT_UNSUPPORTED_PATH] };
    try {
      if (req.operation === 'list') return name === '' ? this.list(parent) : { kind: 'error', status: 405, errors: ['unsupported operation'] };
      if (name === '') return { kind: 'error', status: 405, errors: ['unsupported operation'] };
      if (req.operation === 'read') {
        const ns = this.ctx.tree().get(`${parent.path}${name}/`);
        return ns && !name.includes('/') ? { kind: 'data', data: view(ns) } : notFound();
      }
      if (req.operation === 'create-or-update') return this.create(parent, name, req.data);
      // What is left is a delete: service.ts answers help itself and refuses PATCH (405) before an
      // engine without `patches`, as this system backend is.
      return this.remove(parent, name);
    } catch (err) {
      if (err instanceof FieldError) return badRequest(err.message);
      throw err;
    }
  }

  private list(parent: Namespace): EngineResult {
    // In the order they were made, as OpenBao lists them (no order is given by the spec or the products' docs).
    const children = this.ctx.tree().children(parent.path);
    if (children.length === 0) return notFound();
    const key = (ns: Namespace) => ns.path.slice(parent.path.length);
    return { kind: 'data', data: { keys: children.map(key), key_info: Object.fromEntries(children.map((ns) => [key(ns), view(ns)])) } };
  }

  private create(parent: Namespace, name: string, d: Record<string, unknown>): EngineResult {
    // hashicorp/vault#5191: a nested namespace is made inside its parent, never by a path with '/'.
    if (name.includes('/')) return badRequest('"/" is not allowed in namespace names');
    if (!NAME.test(name)) return badRequest(`invalid namespace name "${name}"`);
    const customMetadata = stringMap(d.custom_metadata, 'custom_metadata');
    const existing = this.ctx.tree().get(`${parent.path}${name}/`);
    if (existing) {
      if (customMetadata) existing.customMetadata = customMetadata;
      return { kind: 'data', data: view(existing) };
    }
    // The reference resolves a namespace before a mount, so a namespace may not hide a mount of its parent.
    const mount = parent.mounts.entries().find((e) => e.prefix.startsWith(`${name}/`));
    if (mount) return badRequest(`namespace name "${name}" is in use by the mount ${mount.prefix}`);
    return { kind: 'data', data: view(this.ctx.tree().createChild(parent.path, name, customMetadata ?? {})) };
  }

  private remove(parent: Namespace, name: string): EngineResult {
    if (name.includes('/')) return badRequest('"/" is not allowed in namespace names');
    const path = `${parent.path}${name}/`;
    if (!this.ctx.tree().get(path)) return { kind: 'no-content' };
    // The tree keeps a namespace that has children (Vault Enterprise and OpenBao refuse to delete one).
    if (!this.ctx.tree().remove(path)) return badRequest(`cannot delete namespace ("${path}") containing child namespaces`);
    this.ctx.revokeTokensOf(path);
    // Vault Enterprise deletes in the background and says so; here the namespace is already gone.
    return { kind: 'raw', status: 200, body: dataEnvelope(null, { warnings: ["Namespace deletion has been queued. Progress will be reported in debug-level logs in Vault's server log."] }) };
  }
}

function view(ns: Namespace): Record<string, unknown> {
  return { id: ns.id, path: ns.path, custom_metadata: ns.customMetadata };
}
