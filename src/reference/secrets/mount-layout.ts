import type { Dialect } from '../../config/dialects.ts';
import type { ReferenceBehavior } from '../behavior.ts';
import type { FaultSet } from '../faults/types.ts';
import { CloudAuthEngine } from './cloud-auth.ts';
import type { SecretsFlavor } from './flavor.ts';
import { kvMounts } from './flavor.ts';
import type { AccessorLookup } from './identity-admin.ts';
import { IdentityOidcEngine } from './identity-oidc.ts';
import { KvV1Engine } from './kv-v1.ts';
import { KvV2Engine } from './kv-v2.ts';
import { MountTable } from './mount-table.ts';
import type { NamespaceOrigin, NamespaceTree } from './namespaces.ts';
import type { SigningKey } from './oidc/signing-key.ts';
import { SysEngine } from './sys-engine.ts';
import { TokenAuthEngine } from './token-auth-engine.ts';
import type { EngineCatalog } from './sys-mounts.ts';
import type { TokenStore } from './token-store.ts';
import { UserpassEngine } from './userpass-engine.ts';

/** What the engines of every namespace share with the service. */
export interface MountLayoutContext {
  dialect: Dialect;
  behavior: ReferenceBehavior;
  faults: FaultSet;
  flavor: SecretsFlavor;
  tokens: TokenStore;
  signingKeys: Map<string, SigningKey>;
  apiAddr: () => string;
  cloudBase: () => string;
  /** The service's namespace tree, once it exists (the tree is built from this layout). */
  tree: () => NamespaceTree;
}

/**
 * Which engines a namespace has, and which ones sys/mounts and sys/auth can add.
 * - A namespace of the reference's setup (the root among them) is the spec's fresh install: a
 *   version 1 key-value engine, the identity store with the OIDC provider, the cloud-identity auth
 *   method, and in the root namespace a version 2 key-value engine beside it.
 * - A namespace made through sys/namespaces starts like a new Vault Enterprise namespace: only its
 *   system and identity mounts.
 * - The hashicorp dialect adds the system backend at sys/ to every namespace; the spec dialect has none.
 */
export class MountLayout {
  readonly catalog: EngineCatalog;

  constructor(private readonly ctx: MountLayoutContext) {
    this.catalog = {
      kv: (version) => () => (version === '2' ? new KvV2Engine(ctx.faults, ctx.flavor) : new KvV1Engine(ctx.faults, ctx.flavor)),
      auth: (type, namespace) => {
        if (type === 'userpass') return (info) => new UserpassEngine({ tokens: ctx.tokens, namespace, mount: info, identity: () => this.identityOf(namespace) });
        if (type === ctx.dialect.secrets.cloudAuthMount) return () => this.cloudAuth(namespace);
        return undefined;
      },
    };
  }

  /** The mounts a new namespace starts with. */
  initialMounts(ns: { path: string; id: string }, origin: NamespaceOrigin): MountTable {
    const { faults, flavor } = this.ctx;
    const table = new MountTable();
    if (flavor.vaultChoices) {
      table.add({ prefix: 'sys/', kind: 'mounts', type: 'system', description: 'system endpoints used for control, policy and debugging' }, () => this.sys(ns.path));
      // Vault mounts its token method in every namespace (vault/auth.go, setupCredentials: "token/").
      table.add({ prefix: 'auth/token/', kind: 'auth', type: 'token', description: 'token based credentials' }, () => new TokenAuthEngine(this.ctx.tokens, ns.path));
    }
    table.add({ prefix: 'identity/', kind: 'mounts', type: 'identity', description: 'identity store' }, () => this.identity(ns));
    if (origin === 'admin') return table;
    const kv = kvMounts(flavor);
    // A fresh install has a key-value engine at secret/ (the fault leaves that mount empty).
    if (!(kv.v1 === 'secret/' && faults.has('secrets.kv-not-mounted'))) table.add({ prefix: kv.v1, kind: 'mounts', type: 'kv', options: { version: '1' } }, this.catalog.kv('1', ns.path));
    const authMount = this.ctx.dialect.secrets.cloudAuthMount;
    table.add({ prefix: `auth/${authMount}/`, kind: 'auth', type: authMount }, () => this.cloudAuth(ns.path));
    if (ns.path === '' && !(kv.v2 === 'secret/' && faults.has('secrets.kv-not-mounted'))) table.add({ prefix: kv.v2, kind: 'mounts', type: 'kv', options: { version: '2' } }, this.catalog.kv('2', ns.path));
    return table;
  }

  /** Where a mount accessor points, across every namespace. */
  readonly mountByAccessor: AccessorLookup = (accessor) => {
    const tree = this.ctx.tree();
    for (const path of ['', ...tree.paths()]) {
      const mount = tree.get(path)?.mounts.byAccessor(accessor);
      if (mount) return { namespace: path, mount };
    }
    return undefined;
  };

  private identityOf(namespace: string) {
    const engine = this.ctx.tree().get(namespace)?.mounts.get('identity/')?.engine;
    return engine instanceof IdentityOidcEngine ? engine.identity : undefined;
  }

  private identity(ns: { path: string; id: string }): IdentityOidcEngine {
    const { faults, flavor, tokens, signingKeys } = this.ctx;
    return new IdentityOidcEngine({ faults, flavor, tokens, keys: signingKeys, apiAddr: this.ctx.apiAddr, namespace: ns.path, namespaceId: ns.id, mountByAccessor: this.mountByAccessor });
  }

  private cloudAuth(namespace: string): CloudAuthEngine {
    const { faults, tokens, dialect, behavior } = this.ctx;
    return new CloudAuthEngine({ faults, tokens, cloudBase: this.ctx.cloudBase, namespace, dialect: dialect.name, behavior });
  }

  private sys(namespace: string): SysEngine {
    const { tokens, flavor, faults } = this.ctx;
    return new SysEngine({ tree: this.ctx.tree, tokens, faults, catalog: this.catalog, namespacesSupported: !flavor.vaultDeviations, namespace });
  }
}
