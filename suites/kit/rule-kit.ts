import fc from 'fast-check';
import { Agent } from 'undici';
import { dialectFor, tokenHeaders } from '../../src/config/dialects.ts';
import type { SecretsTarget } from '../../src/config/schema.ts';
import type { ExchangeObserver } from '../../src/client/exchange.ts';
import { secretsConventionObserver } from './observers/secrets-conventions.ts';
import { HttpClient } from '../../src/client/http-client.ts';
import { MeshApi, MeshControlApi } from '../../src/client/mesh-api.ts';
import { ConsulMeshFixtures, type AclPolicySpec, type AclServiceRule, type MeshFixtures } from '../../src/provision/mesh-fixtures.ts';
import { Redactor } from '../../src/client/redact.ts';
import { SchedulerApi } from '../../src/client/scheduler-api.ts';
import { NomadSchedulerFixtures } from '../../src/provision/nomad-scheduler-fixtures.ts';
import type { SchedulerFixtures, TokenGrants } from '../../src/provision/scheduler-fixtures.ts';
import { CONTROL_NOMAD_PREFIX } from '../../src/provision/scheduler-provisioner.ts';
import { SecretsApi } from '../../src/client/secrets-api.ts';
import { OidcApi } from '../../src/client/oidc-api.ts';
import { IdentityFixtures, type EntitySpec } from '../../src/client/identity-fixtures.ts';
import { createUpstreamEntity } from '../../src/provision/upstream-entities.ts';
import { VaultAdminApi } from '../../src/provision/vault-admin-api.ts';
import { CloudAuthApi, CloudSimulatorApi } from '../../src/client/cloud-identity-api.ts';
import { TargetError } from '../../src/client/target-error.ts';
import type { Rule } from '../../src/rules/types.ts';
import type { Observation, RuleEvidence } from '../../src/run/evidence.ts';
import type { SuiteContext } from '../../src/run/suite-context.ts';
import { ExchangeLog } from './exchange-log.ts';
import { uniqueName } from './run-names.ts';
import { KIT_BOUNDS, KIT_MARGINS } from './bounds/bound.ts';

/** A tenant for the config of an auth method no login goes through (any well-formed ID is taken). */
const RUN_TENANT_ID = '5f0c2a8e-7d41-4b6a-9c3e-2b1d8f6a4e70';

/** '' for the root namespace, else the path with one trailing slash. */
function normalizeNamespacePath(ns: string | undefined): string {
  const t = (ns ?? '').replace(/^\/+|\/+$/g, '');
  return t ? `${t}/` : '';
}

/** A rule's precondition is not met by the target's declared configuration: the rule is SKIP. */
export class SkipRule extends Error {}

let sharedAgent: Agent | undefined;
/** One connection pool per worker: rules reuse keep-alive connections to the same target. */
function agentFor(timeoutMs: number): Agent {
  sharedAgent ??= new Agent({ connectTimeout: Math.min(timeoutMs, KIT_BOUNDS.connect.ms), headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: KIT_MARGINS.keepAlive.ms });
  return sharedAgent;
}

/** Everything a rule's test uses: clients for the targets, property checking, and the evidence it leaves. */
export class RuleKit {
  readonly log = new ExchangeLog();
  readonly redactor = new Redactor();
  readonly observations: Observation[] = [];
  readonly notes: string[] = [];
  private counterexample: RuleEvidence['counterexample'];
  private readonly clients = new Map<string, HttpClient>();

  constructor(
    readonly rule: Rule,
    readonly ctx: SuiteContext,
  ) {
    for (const secret of ctx.secrets) this.redactor.add(secret);
  }

  private client(key: string, baseUrl: string, defaultHeaders: Record<string, string>, observers: ExchangeObserver[] = [], localAddress?: string): HttpClient {
    let client = this.clients.get(key);
    if (!client) {
      client = new HttpClient({
        baseUrl,
        defaultHeaders,
        timeoutMs: this.ctx.requestTimeoutMs,
        redactor: this.redactor,
        dispatcher: localAddress ? undefined : agentFor(this.ctx.requestTimeoutMs),
        localAddress,
        observers: [(exchange) => this.log.add(exchange), ...observers],
      });
      this.clients.set(key, client);
    }
    return client;
  }

  /** The secrets target's profile; SKIP when there is none. */
  get secretsTarget(): SecretsTarget {
    const target = this.ctx.targets.secrets;
    if (!target) throw new SkipRule('no secrets target is configured');
    return target;
  }

  /**
   * The secrets API with the client token and, like the upstream CLI and SDK, the request header.
   * Every exchange also feeds the service-wide convention checks.
   */
  get secrets(): SecretsApi {
    return this.secretsAt(this.secretsTarget.url, 'secrets');
  }

  /** The OIDC provider endpoints of the secrets target (in `namespace`, root by default). */
  oidc(namespace = ''): OidcApi {
    return new OidcApi(this.secrets, namespace);
  }

  /** Why the target lacks a capability (what the provisioner found), or the generic reason. */
  missing(capability: string, fallback: string): string {
    return this.ctx.provisioned?.secrets?.missing[capability] ?? fallback;
  }

  /**
   * Vault's own admin API, for the fixtures the upstream provisioner makes while a rule runs. Its
   * exchanges go into the evidence but not into the service-wide convention checks: they are
   * fixtures, not what the rule judges.
   */
  private get vaultAdmin(): VaultAdminApi {
    const target = this.secretsTarget;
    const dialect = dialectFor(target.dialect);
    const headers = { [dialect.secrets.tokenHeader]: target.token, [dialect.secrets.requestHeader]: 'true' };
    return new VaultAdminApi(new SecretsApi(this.client('secrets-admin', target.url, headers), dialect));
  }

  /** Identity entities, as the target profile says they are had (or the provisioner makes them); SKIP when nobody can. */
  get fixtures(): IdentityFixtures {
    const target = this.secretsTarget;
    const f = target.fixtures ?? { entities: [] };
    if (!target.capabilities.identityFixtures) throw new SkipRule(this.missing('identityFixtures', 'the secrets target declares no identity fixtures (capabilities.identityFixtures)'));
    const userpass = this.ctx.provisioned?.secrets?.userpass;
    const upstream = userpass
      ? (spec: EntitySpec) => {
          const mount = userpass.find((u) => u.namespace === normalizeNamespacePath(spec.namespace));
          if (!mount) throw new SkipRule(`the provisioner made no userpass mount in namespace "${spec.namespace}"`);
          return createUpstreamEntity(this.vaultAdmin, mount, spec);
        }
      : undefined;
    const control = f.controlUrl
      ? this.client('secrets-control', f.controlUrl, f.controlToken ? { authorization: `Bearer ${f.controlToken}` } : {})
      : undefined;
    const fixtures = new IdentityFixtures(f, control, upstream);
    const entity = fixtures.entity.bind(fixtures);
    // Every entity token handed to a test is a secret.
    fixtures.entity = async (spec) => {
      const e = await entity(spec);
      this.secret(e.token);
      return e;
    };
    return fixtures;
  }

  /**
   * An ACL policy that lets a token read `path`, for a rule whose login token must use it: Vault
   * and OpenBao enforce policies, and the spec shows neither their language nor how they are made
   * ("Permission policies decide access per path ... The policy language and the capability
   * required per endpoint: not shown"). Made through the product's admin API where the upstream
   * provisioner works, named under the run prefix (the sweep removes it); undefined elsewhere,
   * where the profile is taken to let any valid token of its namespace read it (the embedded
   * reference does not enforce policies).
   */
  async readPolicy(path: string): Promise<string | undefined> {
    if (!this.writesPolicies) return undefined;
    return this.pathPolicy('read', path, ['read']);
  }

  /**
   * A policy that lets a token read and list the OIDC configuration (identity/oidc/*), for a rule
   * whose login token must use those routes beside its default policy. Made through the product's
   * admin API where the upstream provisioner works, named under the run prefix (the sweep removes
   * it); elsewhere a name alone, the profile being taken to let a token with a policy other than
   * default use those routes (the embedded reference evaluates no policy text, and refuses there
   * only a token of the default policy alone: src/reference/secrets/oidc/access.ts).
   */
  async oidcConfigPolicy(): Promise<string> {
    if (!this.writesPolicies) return uniqueName('oidcread');
    return this.pathPolicy('oidcread', 'identity/oidc/*', ['read', 'list']);
  }

  /** Whether the target's policies are written through its admin API (the upstream provisioner). */
  private get writesPolicies(): boolean {
    return this.ctx.provisioned?.secrets?.provisioner === 'upstream';
  }

  /** A one-path policy written through the admin API, named under the run prefix (the sweep removes it). */
  private async pathPolicy(prefix: string, path: string, capabilities: string[]): Promise<string> {
    const name = uniqueName(prefix);
    await this.vaultAdmin.writePolicy(name, `path "${path}" {\n  capabilities = [${capabilities.map((c) => `"${c}"`).join(', ')}]\n}\n`);
    return name;
  }

  /** The reference's control interface for secrets fixtures (namespaces, entities), when the profile names one. */
  get secretsControl(): HttpClient | undefined {
    const f = this.secretsTarget.fixtures;
    return f?.controlUrl ? this.client('secrets-control', f.controlUrl, f.controlToken ? { authorization: `Bearer ${f.controlToken}` } : {}) : undefined;
  }

  /** The secrets API through the request-header proxy the target declares. */
  get secretsProxy(): SecretsApi {
    const url = this.secretsTarget.requestHeaderProxyUrl;
    if (!url) throw new SkipRule('the secrets target declares no request-header proxy URL');
    return this.secretsAt(url, 'secrets-proxy');
  }

  private secretsAt(url: string, key: string, localAddress?: string): SecretsApi {
    const target = this.secretsTarget;
    const dialect = dialectFor(target.dialect);
    const headers = { [dialect.secrets.tokenHeader]: target.token, [dialect.secrets.requestHeader]: 'true' };
    return new SecretsApi(this.client(key, url, headers, [secretsConventionObserver((o) => this.observe(o))], localAddress), dialect);
  }

  /** The secrets API from a given local source address (for token_bound_cidrs). */
  secretsFrom(localAddress: string): SecretsApi {
    return this.secretsAt(this.secretsTarget.url, `secrets-from-${localAddress}`, localAddress);
  }

  /**
   * A cloud-identity auth method to configure and write roles to: the one the profile's simulator
   * trusts, else one the provisioner enabled for this run (a real Vault's azure plugin takes any
   * tenant ID in its config; only logins reach the cloud). SKIP when there is none.
   */
  get cloudAuth(): { auth: CloudAuthApi; tenantId: string; mount: string } {
    const target = this.secretsTarget;
    if (target.capabilities.cloudIdentity && target.cloudIdentity) {
      const { auth, tenantId, mount } = this.cloudIdentity;
      return { auth, tenantId, mount };
    }
    const mount = this.ctx.provisioned?.secrets?.cloudAuthMount;
    if (!mount) throw new SkipRule(this.missing('cloudIdentityMount', 'the secrets target declares no cloud-identity auth method (capabilities.cloudIdentity)'));
    return { auth: new CloudAuthApi(this.secrets, mount), tenantId: RUN_TENANT_ID, mount };
  }

  /** The cloud-identity auth method and the simulator its trust is set up with; SKIP when the profile names none. */
  get cloudIdentity(): { auth: CloudAuthApi; sim: CloudSimulatorApi; tenantId: string; mount: string; addresses?: [string, string] } {
    const target = this.secretsTarget;
    const c = target.cloudIdentity;
    if (!target.capabilities.cloudIdentity || !c) throw new SkipRule(this.missing('cloudIdentity', 'the secrets target declares no cloud-identity trust (capabilities.cloudIdentity)'));
    const mount = c.mount ?? dialectFor(target.dialect).secrets.cloudAuthMount;
    const sim = new CloudSimulatorApi(this.client('cloud-simulator', c.simulatorUrl, { authorization: `Bearer ${c.simulatorToken}` }));
    return { auth: new CloudAuthApi(this.secrets, mount), sim, tenantId: c.tenantId, mount, addresses: c.clientAddresses as [string, string] | undefined };
  }

  /**
   * Intentions, ACL tokens, namespaces and CA rotations, made through Consul's own API (the upstream
   * provisioner) or the reference's control listener; SKIP when nobody can make them.
   */
  get meshFixtures(): MeshFixtures {
    const target = this.ctx.targets.mesh;
    if (!target) throw new SkipRule('no mesh target is configured');
    const provisioned = this.ctx.provisioned?.mesh;
    let fixtures: MeshFixtures;
    if (provisioned?.provisioner === 'upstream') {
      const dialect = dialectFor(target.dialect);
      fixtures = new ConsulMeshFixtures(this.client('mesh-admin', target.url, tokenHeaders(dialect.mesh.token, target.token)), this.ctx.runPrefix, provisioned.intentionApi);
    } else {
      if (!target.capabilities.meshFixtures || !target.fixtures) throw new SkipRule(provisioned?.missing.meshFixtures ?? 'the mesh target declares no fixtures (capabilities.meshFixtures)');
      fixtures = new MeshControlApi(this.client('mesh-control', target.fixtures.controlUrl, { authorization: `Bearer ${target.fixtures.controlToken}` }));
    }
    const rotate = fixtures.rotate.bind(fixtures);
    const token = fixtures.token.bind(fixtures);
    const ruleToken = fixtures.ruleToken.bind(fixtures);
    const policiesToken = fixtures.policiesToken.bind(fixtures);
    return Object.assign(Object.create(fixtures) as MeshFixtures, {
      rotate: async () => {
        const why = provisioned?.missing.caRotation;
        if (why) throw new SkipRule(why);
        return rotate();
      },
      token: async (services: string[], namespace?: string, serviceRead?: string[]) => {
        const t = await token(services, namespace, serviceRead);
        this.secret(t);
        return t;
      },
      ruleToken: async (rules: AclServiceRule[], namespace?: string) => {
        const t = await ruleToken(rules, namespace);
        this.secret(t.secret);
        return t;
      },
      policiesToken: async (policies: AclPolicySpec[], namespace?: string) => {
        const t = await policiesToken(policies, namespace);
        this.secret(t.secret);
        return t;
      },
    });
  }

  /** Kept for the suites written before the provisioner: the same as meshFixtures. */
  get meshControl(): MeshFixtures {
    return this.meshFixtures;
  }

  /** SKIP with the provisioner's reason when the mesh target lacks what a rule relies on (e.g. `aclEnforced`). */
  requireMesh(capability: string): void {
    const why = this.ctx.provisioned?.mesh?.missing[capability];
    if (why) throw new SkipRule(why);
  }

  /** Whether the mesh target allows what part of a rule relies on (e.g. `l7Permissions`; the rest of the rule runs either way). */
  meshAllows(capability: string): boolean {
    return !this.ctx.provisioned?.mesh?.missing[capability];
  }

  /**
   * Jobs, allocations with known files and logs, eligibility toggles, ACL policies and tokens and
   * namespaces, made through Nomad's own API: on the target itself (the upstream provisioner) or on
   * the reference's control listener, which serves the same API under its prefix; SKIP when nobody
   * can make them.
   */
  get schedulerFixtures(): SchedulerFixtures {
    const target = this.ctx.targets.scheduler;
    if (!target) throw new SkipRule('no scheduler target is configured');
    const provisioned = this.ctx.provisioned?.scheduler;
    let http: HttpClient;
    // The node's dynamic metadata (where a run records the eligibility it found) is on the target's own API.
    let metadataHttp: HttpClient | undefined;
    const admin = () => this.client('scheduler-admin', target.url, tokenHeaders(dialectFor(target.dialect).scheduler.token, target.token));
    if (provisioned?.provisioner === 'upstream') {
      http = admin();
    } else if ((provisioned?.provisioner === 'control' || (!provisioned && target.capabilities.schedulerFixtures)) && target.fixtures) {
      // No provisioner ran (the fault matrix): the control listener the profile declares serves the API.
      http = this.client('scheduler-control', `${target.fixtures.controlUrl.replace(/\/+$/, '')}${CONTROL_NOMAD_PREFIX}`, { authorization: `Bearer ${target.fixtures.controlToken}` });
      metadataHttp = admin();
    } else {
      throw new SkipRule(provisioned?.missing.schedulerFixtures ?? 'the scheduler target has no fixtures: no provisioner made any (provisioned.scheduler.missing.schedulerFixtures)');
    }
    const nodeId = provisioned?.nodeId ?? target.nodeId;
    if (!nodeId) throw new SkipRule('the node the fixture allocations run on is not known (no nodeId detected or in the profile)');
    const fixtures = new NomadSchedulerFixtures(http, { nodeId, runPrefix: this.ctx.runPrefix, metadataHttp });
    const token = fixtures.token.bind(fixtures);
    // Every token secret handed to a test is a secret of the evidence.
    return Object.assign(Object.create(fixtures) as SchedulerFixtures, {
      token: async (name: string, grants: TokenGrants) => {
        const t = await token(name, grants);
        this.secret(t.secret);
        return t;
      },
    });
  }

  /** SKIP with the provisioner's reason when the scheduler target lacks what a rule relies on (`acl`, `management`, `namespaces`, `eligibility`). */
  requireScheduler(capability: string): void {
    const why = this.ctx.provisioned?.scheduler?.missing[capability];
    if (why) throw new SkipRule(why);
  }

  /** Whether the scheduler target allows what part of a rule relies on (the rest of the rule runs either way). */
  schedulerAllows(capability: string): boolean {
    return !this.ctx.provisioned?.scheduler?.missing[capability];
  }

  get mesh(): MeshApi {
    const target = this.ctx.targets.mesh;
    if (!target) throw new SkipRule('no mesh target is configured');
    const dialect = dialectFor(target.dialect);
    return new MeshApi(this.client('mesh', target.url, tokenHeaders(dialect.mesh.token, target.token)), dialect);
  }

  get scheduler(): SchedulerApi {
    const target = this.ctx.targets.scheduler;
    if (!target) throw new SkipRule('no scheduler target is configured');
    const dialect = dialectFor(target.dialect);
    return new SchedulerApi(this.client('scheduler', target.url, tokenHeaders(dialect.scheduler.token, target.token)), dialect, target.nodeId);
  }

  /** Registers a secret learnt during the test (a client secret, a token) so it is redacted. */
  secret(value: string | undefined): void {
    this.redactor.add(value);
  }

  note(text: string): void {
    this.notes.push(this.redactor.text(text));
  }

  /**
   * Records a cross-cutting check. Only breaches are kept as evidence (a property run makes
   * thousands of passing ones); the first few of each rule are enough to act on.
   */
  observe(observation: Observation): void {
    if (observation.ok) return;
    if (this.observations.filter((o) => o.rule === observation.rule).length >= 5) return;
    this.observations.push({ ...observation, detail: this.redactor.text(observation.detail) });
  }

  /**
   * Checks a property over generated inputs against the live target. The run's seed makes it
   * replayable; a failure records the shrunk counterexample, its seed and path, and the exchanges
   * of that one case. A target that misbehaves stops the property at once as ERROR instead of
   * being shrunk like a counterexample.
   */
  async property<T>(arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, options: { numRuns?: number; examples?: T[] } = {}): Promise<void> {
    let targetError: TargetError | undefined;
    const guarded = async (value: T): Promise<void> => {
      if (targetError) throw targetError;
      try {
        await predicate(value);
      } catch (err) {
        if (err instanceof TargetError) targetError = err;
        throw err;
      }
    };
    // fast-check counts the examples among numRuns: every example runs, and numRuns generated cases besides.
    const numRuns = (options.numRuns ?? this.ctx.runs) + (options.examples?.length ?? 0);
    const details = await fc.check(fc.asyncProperty(arbitrary, guarded), {
      numRuns,
      seed: this.ctx.seed,
      path: this.ctx.path,
      endOnFailure: false,
      // Hand-picked cases run first, so the corners a rule is about are always reached.
      examples: options.examples?.map((e) => [e] as [T]),
    });
    if (targetError) throw targetError;
    if (!details.failed) return;
    const value = details.counterexample?.[0] as T;
    // Run the shrunk case once more on a clean log so the evidence shows exactly its exchanges.
    this.log.clear();
    let failure: unknown = details.errorInstance;
    try {
      await predicate(value);
    } catch (err) {
      failure = err;
    }
    if (failure instanceof TargetError) throw failure;
    this.counterexample = {
      value: this.redactor.text(fc.stringify(value)),
      seed: details.seed,
      path: details.counterexamplePath ?? '',
      numRuns: details.numRuns,
      shrinks: details.numShrinks,
    };
    const original = failure instanceof Error ? failure : new Error(String(failure));
    original.message = `counterexample ${this.counterexample.value} (seed ${details.seed}, path ${this.counterexample.path}): ${original.message}`;
    throw original;
  }

  evidence(skipReason?: string): RuleEvidence {
    return {
      ruleId: this.rule.id,
      exchanges: this.log.entries(),
      droppedExchanges: this.log.droppedCount(),
      observations: this.observations,
      counterexample: this.counterexample,
      skipReason,
      notes: this.notes,
    };
  }
}
