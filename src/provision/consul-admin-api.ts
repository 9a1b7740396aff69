import { z } from 'zod';
import type { HttpClient, HttpResponse } from '../client/http-client.ts';
import { TargetError } from '../client/target-error.ts';

/**
 * The part of Consul's HTTP API the mesh provisioner uses (hashicorp/consul agent/*_endpoint.go,
 * api/*.go): intentions, config entries, ACL policies and tokens, the CA configuration and
 * Enterprise namespaces. None of it is in the spec, which shows no way to make intentions or tokens
 * or to rotate a CA. Consul answers errors as plain text; every answer used is parsed first.
 */
export class ConsulAdminApi {
  constructor(readonly http: HttpClient) {}

  private async call(method: string, path: string, what: string, options: { query?: Record<string, string | undefined>; json?: unknown } = {}): Promise<HttpResponse> {
    const res = await this.http.request({ method, path, query: options.query, json: options.json });
    if (res.status !== 200) throw new ConsulCallError(what, res.status, res.text.trim().slice(0, 200));
    return res;
  }

  /** `PUT /v1/connect/intentions/exact`: one L4 intention (a service-intentions source, Consul ≥ 1.9). */
  async putIntention(source: string, destination: string, action: 'allow' | 'deny', description: string): Promise<void> {
    await this.call('PUT', '/v1/connect/intentions/exact', `intention ${source} -> ${destination}`, { query: { source, destination }, json: { SourceType: 'consul', Action: action, Description: description } });
  }

  /** `DELETE /v1/connect/intentions/exact` (Consul ≥ 1.9): one intention by its source and destination. */
  deleteExactIntention(source: string, destination: string): Promise<HttpResponse> {
    return this.http.request({ method: 'DELETE', path: '/v1/connect/intentions/exact', query: { source, destination } });
  }

  /**
   * `POST /v1/connect/intentions`: one L4 intention the way Consul before 1.9 takes it (SourceName,
   * DestinationName, Action; agent/intentions_endpoint.go IntentionCreate at v1.8.7). Resolves to its ID.
   */
  async createLegacyIntention(intention: LegacyIntention): Promise<string> {
    const res = await this.call('POST', '/v1/connect/intentions', `intention ${intention.SourceName} -> ${intention.DestinationName}`, { json: intention });
    return res.parse(z.object({ ID: z.string().min(1) }).passthrough()).ID;
  }

  /** `PUT /v1/connect/intentions/:id` (before 1.9): replaces the intention with that ID. */
  async updateLegacyIntention(id: string, intention: LegacyIntention): Promise<void> {
    await this.call('PUT', `/v1/connect/intentions/${encodeURIComponent(id)}`, `intention ${intention.SourceName} -> ${intention.DestinationName}`, { json: { ...intention, ID: id } });
  }

  /** `GET /v1/connect/intentions`: every intention, with its ID (any version). */
  async listIntentions(): Promise<{ id: string; source: string; destination: string; sourceNs?: string; destinationNs?: string }[]> {
    const res = await this.call('GET', '/v1/connect/intentions', 'list intentions');
    const rows = res.parse(z.array(z.object({ ID: z.string().optional(), SourceName: z.string(), DestinationName: z.string(), SourceNS: z.string().optional(), DestinationNS: z.string().optional() }).passthrough()).nullable()) ?? [];
    return rows.map((r) => ({ id: r.ID ?? '', source: r.SourceName, destination: r.DestinationName, sourceNs: r.SourceNS, destinationNs: r.DestinationNS }));
  }

  /** `DELETE /v1/connect/intentions/:id` (the intentions made with an ID, before 1.9). */
  deleteIntention(id: string): Promise<HttpResponse> {
    return this.http.request({ method: 'DELETE', path: `/v1/connect/intentions/${encodeURIComponent(id)}` });
  }

  /** `GET /v1/agent/self` (agent:read): the agent's configuration, whose Config.Version names its version. */
  agentSelf(): Promise<HttpResponse> {
    return this.http.request({ method: 'GET', path: '/v1/agent/self' });
  }

  async configEntry(kind: string, name: string, namespace?: string): Promise<Record<string, unknown> | undefined> {
    const res = await this.http.request({ method: 'GET', path: `/v1/config/${kind}/${encodeURIComponent(name)}`, query: { ns: namespace } });
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw new ConsulCallError(`read config entry ${kind}/${name}`, res.status, res.text.trim().slice(0, 200));
    return res.parse(z.record(z.string(), z.unknown()));
  }

  async putConfigEntry(entry: Record<string, unknown> & { Kind: string; Name: string }, namespace?: string): Promise<void> {
    await this.call('PUT', '/v1/config', `write config entry ${entry.Kind}/${entry.Name}`, { json: entry, query: { ns: namespace } });
  }

  async listConfigEntries(kind: string, namespace?: string): Promise<string[]> {
    const res = await this.call('GET', `/v1/config/${kind}`, `list ${kind} config entries`, { query: { ns: namespace } });
    return (res.parse(z.array(z.object({ Name: z.string() }).passthrough()).nullable()) ?? []).map((e) => e.Name);
  }

  deleteConfigEntry(kind: string, name: string, namespace?: string): Promise<HttpResponse> {
    return this.http.request({ method: 'DELETE', path: `/v1/config/${kind}/${encodeURIComponent(name)}`, query: { ns: namespace } });
  }

  /** `PUT /v1/acl/policy`; `datacenters` scopes it (agent/consul/acl.go filterPoliciesByScope: none means every datacenter). */
  async createPolicy(name: string, rules: string, namespace?: string, datacenters?: string[]): Promise<string> {
    const res = await this.call('PUT', '/v1/acl/policy', `create ACL policy ${name}`, { json: { Name: name, Description: 'stackproof run fixture', Rules: rules, ...(namespace ? { Namespace: namespace } : {}), ...(datacenters ? { Datacenters: datacenters } : {}) } });
    return res.parse(z.object({ ID: z.string().min(1) }).passthrough()).ID;
  }

  /** `PUT /v1/acl/policy/:id`: replaces a policy's rules (tokens that link it get them at once on a server). */
  async updatePolicy(id: string, name: string, rules: string, namespace?: string): Promise<void> {
    await this.call('PUT', `/v1/acl/policy/${encodeURIComponent(id)}`, `update ACL policy ${name}`, { json: { ID: id, Name: name, Description: 'stackproof run fixture', Rules: rules, ...(namespace ? { Namespace: namespace } : {}) } });
  }

  /** `PUT /v1/acl/token` linking one policy or several, in the order given. */
  async createToken(description: string, policyIds: string | string[], namespace?: string): Promise<{ accessor: string; secret: string }> {
    const ids = typeof policyIds === 'string' ? [policyIds] : policyIds;
    const res = await this.call('PUT', '/v1/acl/token', `create ACL token ${description}`, { json: { Description: description, Policies: ids.map((ID) => ({ ID })), ...(namespace ? { Namespace: namespace } : {}) } });
    const t = res.parse(z.object({ AccessorID: z.string().min(1), SecretID: z.string().min(1) }).passthrough());
    return { accessor: t.AccessorID, secret: t.SecretID };
  }

  async listPolicies(): Promise<{ id: string; name: string }[]> {
    const res = await this.call('GET', '/v1/acl/policies', 'list ACL policies');
    return res.parse(z.array(z.object({ ID: z.string(), Name: z.string() }).passthrough())).map((p) => ({ id: p.ID, name: p.Name }));
  }

  async listTokens(): Promise<{ accessor: string; description: string }[]> {
    const res = await this.call('GET', '/v1/acl/tokens', 'list ACL tokens');
    return res.parse(z.array(z.object({ AccessorID: z.string(), Description: z.string().optional() }).passthrough())).map((t) => ({ accessor: t.AccessorID, description: t.Description ?? '' }));
  }

  deletePolicy(id: string): Promise<HttpResponse> {
    return this.http.request({ method: 'DELETE', path: `/v1/acl/policy/${encodeURIComponent(id)}` });
  }

  deleteToken(accessor: string, namespace?: string): Promise<HttpResponse> {
    return this.http.request({ method: 'DELETE', path: `/v1/acl/token/${encodeURIComponent(accessor)}`, query: { ns: namespace } });
  }

  async caConfiguration(): Promise<CaConfiguration> {
    return (await this.call('GET', '/v1/connect/ca/configuration', 'read the CA configuration')).parse(caConfigurationSchema);
  }

  async putCaConfiguration(config: { Provider: string; Config: Record<string, unknown> }): Promise<void> {
    await this.call('PUT', '/v1/connect/ca/configuration', 'update the CA configuration', { json: config });
  }

  /** Enterprise namespaces: `GET /v1/namespaces` answers 200 only where they exist. */
  namespaces(): Promise<HttpResponse> {
    return this.http.request({ method: 'GET', path: '/v1/namespaces' });
  }

  async createNamespace(name: string): Promise<void> {
    await this.call('PUT', '/v1/namespace', `create namespace ${name}`, { json: { Name: name, Description: 'stackproof run fixture' } });
  }

  deleteNamespace(name: string): Promise<HttpResponse> {
    return this.http.request({ method: 'DELETE', path: `/v1/namespace/${encodeURIComponent(name)}` });
  }
}

/** An intention as Consul before 1.9 takes it in its body (structs.Intention). */
export interface LegacyIntention {
  SourceName: string;
  DestinationName: string;
  SourceNS?: string;
  DestinationNS?: string;
  SourceType: 'consul';
  Action: 'allow' | 'deny';
  Description: string;
}

const caConfigurationSchema = z.object({ Provider: z.string(), Config: z.record(z.string(), z.unknown()) }).passthrough();
export type CaConfiguration = z.infer<typeof caConfigurationSchema>;

/**
 * What a Consul call that went wrong says: the call, the status and Consul's own words. A fixture
 * the agent would not make leaves its rule without a verdict (ERROR), never a FAIL: it is a
 * TargetError (of kind 'protocol').
 */
export class ConsulCallError extends TargetError {
  constructor(
    readonly what: string,
    readonly status: number,
    detail: string,
  ) {
    super('protocol', `${what}: answered ${status}${detail ? ` (${detail})` : ''}`);
  }
}
