import type { FaultSet } from '../faults/types.ts';
import type { SecretsFlavor } from './flavor.ts';
import type { EngineRequest, HelpDocument, SecretsEngine } from './engine.ts';
import { helpDocument } from './help.ts';
import { IdentityAdmin, type AccessorLookup } from './identity-admin.ts';
import { IdentityStore } from './identity-store.ts';
import { NamedCollection } from './named-collection.ts';
import { OidcKeyAdmin } from './oidc-keys.ts';
import { OidcRoleAdmin } from './oidc-roles.ts';
import { OidcConfig } from './oidc/config.ts';
import { OidcFlows } from './oidc/flows.ts';
import { OidcKeyRing } from './oidc/key-ring.ts';
import { scopeTemplates } from './oidc/scope-templates.ts';
import type { SigningKey } from './oidc/signing-key.ts';
import { mayConfigureOidc, OIDC_CONFIG_PATH } from './oidc/access.ts';
import { notFound, type EngineResult } from './respond.ts';
import type { TokenStore } from './token-store.ts';

export interface IdentityEngineContext {
  faults: FaultSet;
  flavor: SecretsFlavor;
  tokens: TokenStore;
  /** The reference's start-up signing keys; 'default' is the built-in one. */
  keys: Map<string, SigningKey>;
  apiAddr: () => string;
  namespace: string;
  /** The namespace's ID ('root' for root), as entities and groups report it. */
  namespaceId: string;
  /** Where a mount accessor points, for entity aliases. */
  mountByAccessor: AccessorLookup;
}

const KINDS = ['provider', 'scope', 'client', 'assignment'] as const;
type Kind = (typeof KINDS)[number];

/**
 * The identity store of one namespace, mounted at identity/: its entities and groups, and the OIDC
 * provider (configuration resources and the flow endpoints). In the hashicorp dialect it also
 * serves Vault's identity API for entities, aliases, groups and named keys; the spec defines no
 * such API, so in the spec dialect those paths stay unsupported.
 */
export class IdentityOidcEngine implements SecretsEngine {
  readonly type = 'identity';
  readonly identity = new IdentityStore();
  readonly keys: OidcKeyRing;
  readonly config: OidcConfig;
  readonly flows: OidcFlows;
  private readonly admin?: { identity: IdentityAdmin; keys: OidcKeyAdmin; roles: OidcRoleAdmin };

  get namespacePath(): string {
    return this.ctx.namespace;
  }

  constructor(private readonly ctx: IdentityEngineContext) {
    this.keys = new OidcKeyRing(ctx.keys);
    this.config = new OidcConfig(ctx.faults, this.keys, scopeTemplates(ctx.flavor.vaultChoices), ctx.flavor.vaultDeviations ? (name, provider) => this.flows.issuer(name, provider) : undefined);
    this.flows = new OidcFlows({ ...ctx, keys: this.keys, config: this.config, identity: this.identity });
    if (ctx.flavor.vaultChoices) {
      const roles = new OidcRoleAdmin(this.keys, this.config.templates);
      this.admin = {
        identity: new IdentityAdmin({ identity: this.identity, namespace: ctx.namespace, namespaceId: ctx.namespaceId, mountByAccessor: ctx.mountByAccessor }),
        keys: new OidcKeyAdmin(this.keys, this.config.clients, roles),
        roles,
      };
    }
  }

  /** The configuration routes need a client token like every other route; a fault opens them. */
  isUnauthenticated(path: string): boolean {
    return this.ctx.faults.has('secrets.oidc-config-open') && OIDC_CONFIG_PATH.test(path);
  }

  handle(req: EngineRequest): EngineResult | Promise<EngineResult> {
    const f = this.ctx.faults;
    if (OIDC_CONFIG_PATH.test(req.path) && !f.has('secrets.oidc-config-open') && !f.has('secrets.oidc-config-any-token') && (!mayConfigureOidc(req.token) || (f.has('secrets.oidc-config-default-taints') && req.token?.policies.includes('default') === true))) {
      return { kind: 'error', status: 403, errors: ['permission denied'] };
    }
    if (this.admin) {
      const key = /^oidc\/key(?:\/([^/]*))?$/.exec(req.path);
      if (key) return this.admin.keys.handle(req, key[1] ?? '');
      const role = /^oidc\/role(?:\/([^/]*))?$/.exec(req.path);
      if (role) return this.admin.roles.handle(req, role[1] ?? '');
      const answer = this.admin.identity.handle(req);
      if (answer) return answer;
    }
    const m = /^oidc\/(provider|scope|client|assignment)(?:\/([^/]*))?(?:\/(.+))?$/.exec(req.path);
    if (!m) return { kind: 'error', status: 404, errors: [`unsupported path: ${req.path}`] };
    const [, kind, name = '', endpoint] = m as unknown as [string, Kind, string | undefined, string | undefined];
    if (name !== '' && !NamedCollection.validName(name, this.ctx.faults.has('secrets.trailing-period-accepted'))) {
      return this.ctx.faults.has('secrets.unsupported-path-message') ? notFound() : NamedCollection.unsupported(name);
    }
    if (endpoint !== undefined) {
      if (kind !== 'provider') return { kind: 'error', status: 404, errors: [`unsupported path: ${req.path}`] };
      return this.flows.handle(name, endpoint, req);
    }
    return this.config.handle(kind, name, req);
  }

  help(path: string): HelpDocument | undefined {
    if (this.admin && /^(entity|entity-alias|group)(\/(id|name)(\/[^/]+)?)?$/.test(path)) {
      return helpDocument('Identity', `Entities, entity aliases and groups at \`${path}\`.`, { summary: path, verbs: ['get', 'post', 'put', 'delete', 'list'] });
    }
    if (this.admin && /^oidc\/role(\/[^/]+)?$/.test(path)) {
      return helpDocument('OIDC roles', `Create, read, list and delete identity-token roles at \`${path}\`.`, { summary: path, verbs: ['get', 'post', 'put', 'delete', 'list'] });
    }
    if (this.admin && /^oidc\/key(\/[^/]+)?$/.test(path)) {
      return helpDocument('OIDC named keys', `Create, read, list and delete named signing keys at \`${path}\`.`, { summary: path, verbs: ['get', 'post', 'put', 'delete', 'list'] });
    }
    const m = /^oidc\/(provider|scope|client|assignment)(\/[^/]+)?$/.exec(path);
    if (!m) return undefined;
    return m[2]
      ? helpDocument(`OIDC ${m[1]}`, `Create, read, update and delete the OIDC ${m[1]} at \`${path}\`.`, { summary: `the named ${m[1]}`, verbs: ['get', 'post', 'put', 'delete'] })
      : helpDocument(`OIDC ${m[1]}s`, `List the OIDC ${m[1]}s at \`${path}\`.`, { summary: `the names of the ${m[1]}s`, verbs: ['list'] }, { summary: `one named ${m[1]}`, verbs: ['get', 'post', 'put', 'delete'] });
  }
}
