import { randomUUID } from 'node:crypto';
import type { EngineRequest, HelpDocument, SecretsEngine } from './engine.ts';
import type { FaultSet } from '../faults/types.ts';
import { helpDocument } from './help.ts';
import { revokeNamespaceTokens } from './namespace-tokens.ts';
import { NamespaceAdmin, VAULT_UNSUPPORTED_PATH } from './namespace-admin.ts';
import type { NamespaceTree } from './namespaces.ts';
import { PolicyStore } from './policy-store.ts';
import type { EngineResult } from './respond.ts';
import { SysMounts, type EngineCatalog } from './sys-mounts.ts';
import type { TokenStore } from './token-store.ts';

const CLUSTER_ID = randomUUID();

export interface SysEngineContext {
  /** The namespace tree (a getter: the root namespace's system backend exists before the tree does). */
  tree: () => NamespaceTree;
  tokens: TokenStore;
  faults: FaultSet;
  catalog: EngineCatalog;
  /** Whether sys/namespaces exists (not on Vault CE, which the upstream behaviour stands in for). */
  namespacesSupported: boolean;
  /** The namespace this system backend belongs to ('' for root). */
  namespace: string;
}

/**
 * The system backend at sys/ of one namespace, in the hashicorp dialect only (the spec defines no
 * admin API): the parts of Vault's that a provisioner needs to make and remove fixtures.
 */
export class SysEngine implements SecretsEngine {
  readonly type = 'system';
  private readonly mounts: SysMounts;
  private readonly namespaces: NamespaceAdmin;
  private readonly policies: PolicyStore;

  constructor(private readonly ctx: SysEngineContext) {
    this.mounts = new SysMounts(ctx);
    this.namespaces = new NamespaceAdmin({ tree: ctx.tree, revokeTokensOf: (path) => revokeNamespaceTokens(ctx.tokens, path, ctx.faults), supported: ctx.namespacesSupported });
    this.policies = new PolicyStore(ctx.namespace === '');
  }

  /** Vault answers sys/health without a token (hashicorp/vault http/sys_health.go): load balancers and `stackproof init` probe it. */
  isUnauthenticated(path: string): boolean {
    return path === 'health' && this.ctx.namespace === '';
  }

  handle(req: EngineRequest): EngineResult {
    if (req.path === 'health' && this.ctx.namespace === '') return this.health(req);
    const ns = this.ctx.tree().get(req.namespace);
    const m = /^(mounts|auth|namespaces|policies\/acl)(?:\/(.*))?$/.exec(req.path.replace(/\/$/, ''));
    if (!ns || !m) return { kind: 'error', status: 404, errors: [VAULT_UNSUPPORTED_PATH] };
    const [, area, rest = ''] = m;
    switch (area) {
      case 'mounts':
        return this.mounts.handle(req, ns, 'mounts', rest);
      case 'auth':
        return this.mounts.handle(req, ns, 'auth', rest);
      case 'namespaces':
        return this.namespaces.handle(req, ns, rest);
      default:
        return this.policies.handle(req, rest);
    }
  }

  /**
   * An active, unsealed, initialised node: status 200 and the fields Vault's handler sends (its
   * body is not wrapped in the data envelope). `enterprise` says whether namespaces exist, as on Vault.
   */
  private health(req: EngineRequest): EngineResult {
    if (req.operation !== 'read') return { kind: 'error', status: 405, errors: [] };
    return {
      kind: 'raw',
      status: 200,
      body: {
        initialized: true,
        sealed: false,
        standby: false,
        performance_standby: false,
        replication_performance_mode: 'disabled',
        replication_dr_mode: 'disabled',
        server_time_utc: Math.floor(Date.now() / 1000),
        version: '0.0.0+stackproof-reference',
        enterprise: this.ctx.namespacesSupported,
        cluster_name: 'stackproof-reference',
        cluster_id: CLUSTER_ID,
      },
    };
  }

  help(path: string): HelpDocument | undefined {
    const m = /^(mounts|auth|namespaces|policies\/acl)(\/.+)?$/.exec(path.replace(/\/$/, ''));
    if (!m) return undefined;
    return helpDocument(`System: ${m[1]}`, `Vault's ${m[1]} endpoints at \`sys/${path}\`.`, { summary: `sys/${path}`, verbs: m[2] ? ['get', 'post', 'put', 'delete'] : ['get', 'list'] });
  }
}
