import type { FaultSet } from '../faults/types.ts';
import type { SecretsFlavor } from './flavor.ts';
import type { EngineRequest, HelpDocument, SecretsEngine } from './engine.ts';
import { helpDocument } from './help.ts';
import { IdentityStore } from './identity-store.ts';
import { NamedCollection } from './named-collection.ts';
import { OidcConfig } from './oidc/config.ts';
import { OidcFlows } from './oidc/flows.ts';
import type { SigningKey } from './oidc/signing-key.ts';
import { notFound, type EngineResult } from './respond.ts';
import type { TokenStore } from './token-store.ts';

export interface IdentityEngineContext {
  faults: FaultSet;
  flavor: SecretsFlavor;
  tokens: TokenStore;
  /** Signing keys by name; 'default' is the built-in one. */
  keys: Map<string, SigningKey>;
  apiAddr: () => string;
  namespace: string;
}

const KINDS = ['provider', 'scope', 'client', 'assignment'] as const;
type Kind = (typeof KINDS)[number];

/**
 * The identity store of one namespace, mounted at identity/: its entities and groups, and the OIDC
 * provider (configuration resources and the flow endpoints).
 */
export class IdentityOidcEngine implements SecretsEngine {
  readonly type = 'identity';
  readonly identity = new IdentityStore();
  readonly config: OidcConfig;
  readonly flows: OidcFlows;

  get namespacePath(): string {
    return this.ctx.namespace;
  }

  constructor(private readonly ctx: IdentityEngineContext) {
    this.config = new OidcConfig(ctx.faults, [...ctx.keys.keys()], ctx.flavor.vaultDeviations ? (name, provider) => this.flows.issuer(name, provider) : undefined);
    this.flows = new OidcFlows({ ...ctx, config: this.config, identity: this.identity });
  }

  async handle(req: EngineRequest): Promise<EngineResult> {
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
    const m = /^oidc\/(provider|scope|client|assignment)(\/[^/]+)?$/.exec(path);
    if (!m) return undefined;
    return m[2]
      ? helpDocument(`OIDC ${m[1]}`, `Create, read, update and delete the OIDC ${m[1]} at \`${path}\`.`, { summary: `the named ${m[1]}`, verbs: ['get', 'post', 'put', 'delete'] })
      : helpDocument(`OIDC ${m[1]}s`, `List the OIDC ${m[1]}s at \`${path}\`.`, { summary: `the names of the ${m[1]}s`, verbs: ['list'] }, { summary: `one named ${m[1]}`, verbs: ['get', 'post', 'put', 'delete'] });
  }
}
