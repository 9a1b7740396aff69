import { z } from 'zod';
import { tokenHeaders, type Dialect } from '../config/dialects.ts';
import type { HttpClient, HttpResponse } from './http-client.ts';
import { TargetError } from './target-error.ts';
import { serviceRulesHcl, type AclPolicySpec, type AclServiceRule, type MeshPoliciesToken, type MeshRuleToken } from './mesh-acl-rules.ts';

/** How long a leaf request answered 429 (a signing rate limit) is repeated before the rule is ERROR. */
export const LEAF_RATE_LIMIT_BUDGET_MS = 20_000;

export interface MeshCallOptions {
  query?: Record<string, string | undefined>;
  headers?: Record<string, string>;
  /** Another ACL token instead of the profile's; null sends none. */
  token?: string | null;
  timeoutMs?: number;
}

/** The mesh agent's connect endpoints (spec 001). */
export class MeshApi {
  constructor(
    readonly http: HttpClient,
    readonly dialect: Dialect,
  ) {}

  private headers(options: MeshCallOptions): { headers: Record<string, string>; bare: boolean } {
    if (options.token === undefined) return { headers: options.headers ?? {}, bare: false };
    const auth = options.token === null ? {} : tokenHeaders(this.dialect.mesh.token, options.token);
    return { headers: { ...auth, ...options.headers }, bare: true };
  }

  roots(options: MeshCallOptions = {}): Promise<HttpResponse> {
    return this.http.request({ method: 'GET', path: '/v1/agent/connect/ca/roots', query: options.query, timeoutMs: options.timeoutMs, ...this.headers(options) });
  }

  /**
   * A leaf. A 429 is no answer about the leaf: Consul's servers limit certificate signing
   * (csr_max_per_second, 50 a second by default, and csr_max_concurrent: ConnectCA.Sign returns
   * ErrRateLimited, which the agent answers 429 "rate limit exceeded"), so the request is repeated
   * with backoff within LEAF_RATE_LIMIT_BUDGET_MS,
   * and only a limit that lasts that long is a TargetError (the rule is ERROR, naming the limit).
   */
  async leaf(service: string, options: MeshCallOptions = {}): Promise<HttpResponse> {
    const started = Date.now();
    for (let delay = 100; ; delay = Math.min(delay * 2, 2_000)) {
      const res = await this.http.request({ method: 'GET', path: `/v1/agent/connect/ca/leaf/${encodeURIComponent(service)}`, query: options.query, timeoutMs: options.timeoutMs, ...this.headers(options) });
      if (res.status !== 429) return res;
      if (Date.now() - started + delay > LEAF_RATE_LIMIT_BUDGET_MS) {
        throw new TargetError(
          'rate-limited',
          `${res.exchange.method} ${res.exchange.url} answered 429 (${res.text.trim().slice(0, 120)}) for ${Math.round((Date.now() - started) / 1000)} s: the target's limit on certificate signing (Consul: csr_max_per_second, 50 a second by default, and csr_max_concurrent) lasted beyond the rule's bound`,
        );
      }
      await new Promise((r) => setTimeout(r, delay));
    }
  }

  authorize(body: Record<string, unknown>, options: MeshCallOptions = {}): Promise<HttpResponse> {
    return this.http.request({ method: 'POST', path: '/v1/agent/connect/authorize', json: body, query: options.query, timeoutMs: options.timeoutMs, ...this.headers(options) });
  }

  /**
   * Consul's intention check (GET /v1/connect/intentions/check, hashicorp dialect only): 200
   * {Allowed} with service:read on the destination, 403 without.
   */
  intentionCheck(source: string, destination: string, options: MeshCallOptions = {}): Promise<HttpResponse> {
    return this.http.request({ method: 'GET', path: '/v1/connect/intentions/check', query: { ...options.query, source, destination }, timeoutMs: options.timeoutMs, ...this.headers(options) });
  }

  /** Headers carrying a namespace. */
  namespaceHeader(ns: string): Record<string, string> {
    return { [this.dialect.mesh.namespaceHeader]: ns };
  }
}

/** The reference control interface's mesh routes: rotation, intentions, ACL tokens. */
export class MeshControlApi {
  constructor(private readonly http: HttpClient) {}

  private async json<S extends z.ZodType>(res: HttpResponse, schema: S, what: string): Promise<z.infer<S>> {
    if (res.status !== 200) throw new Error(`the mesh control interface refused to ${what}: ${res.status} ${res.text.slice(0, 200)}`);
    return res.parse(schema);
  }

  async rotate(): Promise<string> {
    return (await this.json(await this.http.post('/v1/control/mesh/rotate', {}), z.object({ root_id: z.string() }), 'rotate the CA')).root_id;
  }

  async token(serviceWrite: string[], namespace?: string, serviceRead: string[] = []): Promise<string> {
    return (await this.json(await this.http.post('/v1/control/mesh/tokens', { service_write: serviceWrite, service_read: serviceRead, namespace }), z.object({ token: z.string() }), 'make a token')).token;
  }

  /** A token whose policy holds these service rules, with what changes or deletes it. */
  async ruleToken(rules: AclServiceRule[], namespace?: string): Promise<MeshRuleToken> {
    const made = await this.json(await this.http.post('/v1/control/mesh/tokens', { rules: serviceRulesHcl(rules), namespace }), z.object({ token: z.string(), accessor: z.string(), policy_id: z.string() }), 'make a token from rules');
    return {
      secret: made.token,
      setRules: async (next) => void (await this.json(await this.http.request({ method: 'PUT', path: `/v1/control/mesh/policies/${made.policy_id}`, json: { rules: serviceRulesHcl(next) } }), z.object({ policy_id: z.string() }), 'change a policy')),
      remove: async () => void (await this.json(await this.http.request({ method: 'DELETE', path: `/v1/control/mesh/tokens/${made.accessor}` }), z.object({ accessor: z.string() }), 'delete a token')),
    };
  }

  /** A token linked to several policies (rules and datacenters each), with what deletes it. */
  async policiesToken(policies: AclPolicySpec[], namespace?: string): Promise<MeshPoliciesToken> {
    const body = { policies: policies.map((p) => ({ rules: serviceRulesHcl(p.rules), ...(p.datacenters ? { datacenters: p.datacenters } : {}) })), namespace };
    const made = await this.json(await this.http.post('/v1/control/mesh/tokens', body), z.object({ token: z.string(), accessor: z.string() }), 'make a token of several policies');
    return {
      secret: made.token,
      remove: async () => void (await this.json(await this.http.request({ method: 'DELETE', path: `/v1/control/mesh/tokens/${made.accessor}` }), z.object({ accessor: z.string() }), 'delete a token')),
    };
  }

  async intention(i: { source: string; destination: string; action: 'allow' | 'deny'; permissions?: unknown[]; source_namespace?: string; destination_namespace?: string }): Promise<string> {
    return (await this.json(await this.http.post('/v1/control/mesh/intentions', i), z.object({ id: z.string() }), 'make an intention')).id;
  }

  /** Makes a namespace (Enterprise namespaces must exist before anything is asked of them). */
  async namespace(name: string): Promise<void> {
    await this.json(await this.http.post('/v1/control/mesh/namespaces', { name }), z.object({ name: z.string() }), `make the namespace ${name}`);
  }

  /** The leaves' lifetime (LeafCertTTL) from now on; resolves to what puts the earlier one back. */
  async leafCertTtl(seconds: number): Promise<() => Promise<void>> {
    const set = (s: number) => this.http.post('/v1/control/mesh/leaf-lifetime', { seconds: s });
    const { previous_seconds } = await this.json(await set(seconds), z.object({ previous_seconds: z.number().int() }), 'set the leaf lifetime');
    return async () => void (await this.json(await set(previous_seconds), z.object({ seconds: z.number() }), 'restore the leaf lifetime'));
  }

  async deleteIntention(id: string): Promise<void> {
    await this.http.request({ method: 'DELETE', path: `/v1/control/mesh/intentions/${id}` });
  }
}

const timestamp = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'must be a timestamp');

/**
 * Spec 001, Leaf certificate response. Namespace is optional here: a target without namespaces
 * (Consul CE: IssuedCert's EnterpriseMeta is empty there) leaves it out; `leafSchemaFor` requires it
 * of a target that declares namespaces.
 */
export const leafSchema = z.object({
  SerialNumber: z.string(),
  CertPEM: z.string(),
  PrivateKeyPEM: z.string(),
  Service: z.string(),
  ServiceURI: z.string(),
  ValidAfter: timestamp,
  ValidBefore: timestamp,
  Namespace: z.string().optional(),
  CreateIndex: z.number().int(),
  ModifyIndex: z.number().int(),
});
export type LeafResponse = z.infer<typeof leafSchema>;

const leafWithNamespaceSchema = leafSchema.extend({ Namespace: z.string() });

/** The leaf schema for a target: Namespace is required when the target declares namespaces. */
export function leafSchemaFor(namespaces: boolean): z.ZodType<LeafResponse> {
  return namespaces ? leafWithNamespaceSchema : leafSchema;
}

/** Spec 001, Authorize response. */
export const authorizeSchema = z.object({ Authorized: z.boolean(), Reason: z.string() });
