import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { HttpClient } from '../client/http-client.ts';
import { ConsulAdminApi, ConsulCallError } from './consul-admin-api.ts';
import { serviceRulesHcl, type AclPolicySpec, type AclServiceRule, type MeshPoliciesToken, type MeshRuleToken } from '../client/mesh-acl-rules.ts';

export type { AclPolicySpec, AclServiceRule, MeshPoliciesToken, MeshRuleToken } from '../client/mesh-acl-rules.ts';
import { caChangesClosed, ConsulKv, countCaRotation, recordCaConfiguration, refuseCaChangeWhenClosed } from './ca-configuration-record.ts';

export interface IntentionSpec {
  source: string;
  destination: string;
  action: 'allow' | 'deny';
  /** L7 permissions: such an intention never authorizes at L4. */
  permissions?: unknown[];
  source_namespace?: string;
  destination_namespace?: string;
}

/**
 * What the mesh suites ask for, whoever makes it: the reference's control listener (spec dialect)
 * or Consul's own API (hashicorp dialect). The suites never know which.
 */
export interface MeshFixtures {
  intention(spec: IntentionSpec): Promise<unknown>;
  /**
   * An ACL token in a namespace with service:write on these services ('*': every service) and
   * service:read on `serviceRead`, each name matched exactly (Consul's `service`, not `service_prefix`).
   */
  token(serviceWrite: string[], namespace?: string, serviceRead?: string[]): Promise<string>;
  /** A token in a namespace whose one policy holds these service rules (exact, prefix, deny). */
  ruleToken(rules: AclServiceRule[], namespace?: string): Promise<MeshRuleToken>;
  /** A token in a namespace linked to several policies, in this order, each with its service rules and datacenters. */
  policiesToken(policies: AclPolicySpec[], namespace?: string): Promise<MeshPoliciesToken>;
  /** Makes an Enterprise namespace (they must exist before they are used). */
  namespace(name: string): Promise<void>;
  /** Rotates the CA; resolves once the roots endpoint shows the new active root, with its ID. */
  rotate(): Promise<string>;
  /** Sets the CA configuration's LeafCertTTL for leaves signed from now on; resolves to what puts the earlier value back. */
  leafCertTtl(seconds: number): Promise<() => Promise<void>>;
}

/**
 * The mesh fixtures through Consul's own API, with the profile's management token. Names come from
 * the suites (under the run prefix); policies and tokens are named after them, so cleanup finds them.
 */
export class ConsulMeshFixtures implements MeshFixtures {
  private readonly api: ConsulAdminApi;
  private readonly kv: ConsulKv;
  private recorded: Promise<void> | undefined;

  constructor(
    http: HttpClient,
    private readonly runPrefix: string,
    /** How the agent's version takes intentions (the provisioner found it): Consul 1.9+ `exact`, before it `legacy`. */
    private readonly intentionApi: 'exact' | 'legacy' = 'exact',
  ) {
    this.api = new ConsulAdminApi(http);
    this.kv = new ConsulKv(http);
  }

  /**
   * Before the run first changes the CA configuration, it records it on the agent (KV
   * stackproof/<run prefix>/ca-configuration, see ca-configuration-record.ts), so that its end, a
   * Ctrl-C or `stackproof cleanup` after a kill puts it back; without a record the change does not
   * go ahead. Once the run is being stopped no change is made.
   */
  private async beforeCaChange(): Promise<void> {
    refuseCaChangeWhenClosed(this.runPrefix);
    this.recorded ??= recordCaConfiguration(this.api, this.kv, this.runPrefix).catch((err: Error) => {
      this.recorded = undefined;
      throw new Error(`the CA configuration could not be recorded before changing it (${err.message}), so it is not changed: the management token needs key write on stackproof/`);
    });
    await this.recorded;
    refuseCaChangeWhenClosed(this.runPrefix);
  }

  async intention(spec: IntentionSpec): Promise<void> {
    if (this.intentionApi === 'legacy') return this.legacyIntention(spec);
    const source = spec.source_namespace ? `${spec.source_namespace}/${spec.source}` : spec.source;
    if (!spec.permissions) {
      const destination = spec.destination_namespace ? `${spec.destination_namespace}/${spec.destination}` : spec.destination;
      return this.api.putIntention(source, destination, spec.action, `stackproof ${this.runPrefix}`);
    }
    // L7 permissions live in the destination's service-intentions entry, which needs an HTTP
    // protocol in its service-defaults (agent/structs/config_entry_intentions.go). The entry holds
    // every source of the destination: read it, add this source, write it back.
    const ns = spec.destination_namespace;
    await this.api.putConfigEntry({ Kind: 'service-defaults', Name: spec.destination, Protocol: 'http' }, ns);
    const current = await this.api.configEntry('service-intentions', spec.destination, ns);
    const sources = z.array(z.record(z.string(), z.unknown())).catch([]).parse(current?.Sources ?? []);
    const entry = { Name: spec.source, ...(spec.source_namespace ? { Namespace: spec.source_namespace } : {}), Permissions: spec.permissions, Description: `stackproof ${this.runPrefix}` };
    await this.api.putConfigEntry({ Kind: 'service-intentions', Name: spec.destination, Sources: [...sources.filter((s) => s.Name !== spec.source), entry] }, ns);
  }

  /**
   * Before Consul 1.9: `POST /v1/connect/intentions` with SourceName, DestinationName and Action, or,
   * when the pair already has one, `PUT /v1/connect/intentions/:id` (an agent keeps one intention
   * per pair: agent/consul/intention_endpoint.go Intention.Apply at v1.8.7 refuses a duplicate).
   * L7 Permissions do not exist there: the suites SKIP before asking (missing.l7Permissions).
   */
  private async legacyIntention(spec: IntentionSpec): Promise<void> {
    if (spec.permissions) throw new Error('this Consul version has no L7 intention permissions (they came in 1.9.0): the rule should have been skipped (missing.l7Permissions)');
    const body = {
      SourceName: spec.source,
      DestinationName: spec.destination,
      ...(spec.source_namespace ? { SourceNS: spec.source_namespace } : {}),
      ...(spec.destination_namespace ? { DestinationNS: spec.destination_namespace } : {}),
      SourceType: 'consul' as const,
      Action: spec.action,
      Description: `stackproof ${this.runPrefix}`,
    };
    try {
      await this.api.createLegacyIntention(body);
    } catch (err) {
      if (!(err instanceof ConsulCallError && /duplicate/i.test(err.message))) throw err;
      const same = (await this.api.listIntentions()).find(
        (i) => i.source === spec.source && i.destination === spec.destination && (i.sourceNs ?? 'default') === (spec.source_namespace ?? 'default') && (i.destinationNs ?? 'default') === (spec.destination_namespace ?? 'default'),
      );
      if (!same?.id) throw err;
      await this.api.updateLegacyIntention(same.id, body);
    }
  }

  async token(serviceWrite: string[], namespace?: string, serviceRead: string[] = []): Promise<string> {
    // Unique across the run's worker threads, which share a process and make fixtures of their own.
    const name = `${this.runPrefix}-acl-${randomBytes(5).toString('hex')}`;
    const exact = (names: string[], policy: string) => names.map((s) => `service ${JSON.stringify(s)} { policy = "${policy}" }`);
    const rules = [...(serviceWrite.includes('*') ? ['service_prefix "" { policy = "write" }'] : exact(serviceWrite, 'write')), ...exact(serviceRead, 'read')].join('\n');
    const policy = await this.api.createPolicy(name, rules, namespace);
    return (await this.api.createToken(name, policy, namespace)).secret;
  }

  async ruleToken(rules: AclServiceRule[], namespace?: string): Promise<MeshRuleToken> {
    const name = `${this.runPrefix}-acl-${randomBytes(5).toString('hex')}`;
    const policy = await this.api.createPolicy(name, serviceRulesHcl(rules), namespace);
    const { secret, accessor } = await this.api.createToken(name, policy, namespace);
    return {
      secret,
      setRules: (next) => this.api.updatePolicy(policy, name, serviceRulesHcl(next), namespace),
      remove: async () => {
        const res = await this.api.deleteToken(accessor, namespace);
        if (res.status !== 200) throw new ConsulCallError(`delete ACL token ${name}`, res.status, res.text.trim().slice(0, 200));
      },
    };
  }

  async policiesToken(policies: AclPolicySpec[], namespace?: string): Promise<MeshPoliciesToken> {
    const name = `${this.runPrefix}-acl-${randomBytes(5).toString('hex')}`;
    const ids: string[] = [];
    for (const [i, p] of policies.entries()) ids.push(await this.api.createPolicy(`${name}-${i}`, serviceRulesHcl(p.rules), namespace, p.datacenters));
    const { secret, accessor } = await this.api.createToken(name, ids, namespace);
    return {
      secret,
      remove: async () => {
        const res = await this.api.deleteToken(accessor, namespace);
        if (res.status !== 200) throw new ConsulCallError(`delete ACL token ${name}`, res.status, res.text.trim().slice(0, 200));
      },
    };
  }

  namespace(name: string): Promise<void> {
    return this.api.createNamespace(name);
  }

  /**
   * A new root from a new private key of the configured type, through the built-in provider: Consul
   * cross-signs it with the old root (agent/consul/leader_connect_ca.go). Resolves once
   * /v1/agent/connect/ca/roots names it active.
   */
  async rotate(): Promise<string> {
    const before = await this.activeRootId();
    const current = await this.api.caConfiguration();
    if (current.Provider !== 'consul') throw new Error(`the CA provider is "${current.Provider}": stackproof rotates only the built-in provider ("consul")`);
    await this.beforeCaChange();
    const { RootCert: _root, ...config } = current.Config;
    await this.api.putCaConfiguration({ Provider: 'consul', Config: { ...config, PrivateKey: newCaKey(current.Config) } });
    // Counted in the record, which the run's end reports (a rotation cannot be undone).
    await countCaRotation(this.kv, this.runPrefix).catch(() => undefined);
    // Consul has made the new root active by the time the PUT answers (the CA configuration update
    // rotates in the same write); the wait, under a generous bound, is for the agent's cached roots.
    // An ActiveRootID still unchanged after it is the product's answer, not a slow one: it is
    // returned as it is, and the rules that need a new root judge it (mesh.roots.rotation FAILs).
    const deadline = Date.now() + 30_000;
    for (;;) {
      const now = await this.activeRootId();
      if ((now && now !== before) || Date.now() > deadline) return now;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /**
   * LeafCertTTL through PUT /v1/connect/ca/configuration with SkipValidate (Consul refuses less than
   * 1 h otherwise: structs.ConsulCAProviderConfig validation). Without a new PrivateKey or RootCert
   * the provider keeps its root: only the configuration changes.
   */
  async leafCertTtl(seconds: number): Promise<() => Promise<void>> {
    await this.beforeCaChange();
    const current = await this.api.caConfiguration();
    await this.api.putCaConfiguration({ Provider: current.Provider, Config: { ...current.Config, LeafCertTTL: `${seconds}s`, SkipValidate: true } });
    // Once the run is being stopped, the recorded configuration is put back by the run itself.
    return async () => (caChangesClosed(this.runPrefix) ? undefined : this.api.putCaConfiguration({ Provider: current.Provider, Config: current.Config }));
  }

  private async activeRootId(): Promise<string> {
    const res = await this.api.http.request({ method: 'GET', path: '/v1/agent/connect/ca/roots' });
    if (res.status !== 200) throw new Error(`CA roots answered ${res.status}`);
    return res.parse(z.object({ ActiveRootID: z.string() }).passthrough()).ActiveRootID;
  }
}

/** A PEM private key of the type the CA configuration names (Consul's default: EC P-256). */
function newCaKey(config: Record<string, unknown>): string {
  const type = String(config.PrivateKeyType ?? 'ec').toLowerCase();
  const bits = Number(config.PrivateKeyBits ?? (type === 'rsa' ? 2048 : 256));
  const { privateKey } =
    type === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: bits })
      : generateKeyPairSync('ec', { namedCurve: bits === 384 ? 'P-384' : bits === 521 ? 'P-521' : 'P-256' });
  // Consul parses EC keys in SEC 1 ("EC PRIVATE KEY") and RSA keys in PKCS #1 form (connect.ParseSigner takes both and PKCS #8).
  return privateKey.export({ format: 'pem', type: type === 'rsa' ? 'pkcs1' : 'sec1' }).toString();
}
