import { z } from 'zod';
import type { HttpClient, HttpResponse } from '../client/http-client.ts';

/**
 * The part of Nomad's HTTP API the scheduler provisioner uses (hashicorp/nomad command/agent/
 * job_endpoint.go, node_endpoint.go, acl_endpoint.go, namespace_endpoint.go, agent_endpoint.go,
 * meta_endpoint.go; api/*.go for the shapes): jobs and their allocations, node eligibility, ACL
 * policies and tokens, namespaces, dynamic node metadata. None of it is in the spec, which shows no
 * way to make a job, a token or an event. Nomad answers errors as plain text; every answer used is
 * parsed first.
 */
export class NomadAdminApi {
  constructor(readonly http: HttpClient) {}

  private async call(method: string, path: string, what: string, options: { query?: Record<string, string | undefined>; json?: unknown } = {}): Promise<HttpResponse> {
    const res = await this.http.request({ method, path, query: options.query, json: options.json });
    if (res.status !== 200) throw new NomadCallError(what, res.status, res.text.trim().slice(0, 200));
    return res;
  }

  /** `GET /v1/acl/token/self`, answered as is: the provisioner tells management, client and ACLs-off apart. */
  tokenSelf(): Promise<HttpResponse> {
    return this.http.request({ method: 'GET', path: '/v1/acl/token/self' });
  }

  /** The local client's node ID from `GET /v1/agent/self` (stats.client.node_id; absent on a server-only agent). */
  async agentNodeId(): Promise<string | undefined> {
    const res = await this.call('GET', '/v1/agent/self', 'read the agent');
    return res.parse(agentSelfSchema).stats?.client?.node_id || undefined;
  }

  async nodes(): Promise<NodeStub[]> {
    return (await this.call('GET', '/v1/nodes', 'list nodes')).parse(z.array(nodeStubSchema).nullable()) ?? [];
  }

  async node(id: string): Promise<NomadNode> {
    return (await this.call('GET', `/v1/node/${encodeURIComponent(id)}`, `read node ${id}`)).parse(nodeSchema);
  }

  /**
   * `POST /v1/node/:id/eligibility`. The reply's `Index` (WriteMeta, also sent as X-Nomad-Index) is
   * the raft index of the write, the index of the Node event: Node.UpdateEligibility
   * (nomad/node_endpoint.go) sets only `reply.Index`, and `EvalIDs` and `EvalCreateIndex` when the
   * node turns eligible with allocations or system jobs on it; `NodeModifyIndex` is never filled and
   * stays 0. When the node already has the eligibility asked for, UpdateEligibility returns before
   * its raft apply ("Nothing to do"): nothing is written, no event is published, and the answer is
   * 200 with every index 0. Read at v1.9.7, v1.10.5, v1.11.0 and main.
   */
  async setEligibility(nodeId: string, eligible: boolean): Promise<EligibilityUpdate> {
    const body = { NodeID: nodeId, Eligibility: eligible ? 'eligible' : 'ineligible' };
    return (await this.call('POST', `/v1/node/${encodeURIComponent(nodeId)}/eligibility`, `set node ${nodeId} ${body.Eligibility}`, { json: body })).parse(eligibilityResponseSchema);
  }

  /** `PUT /v1/jobs`: the JobModifyIndex is the index of the frame with the Job event. */
  async registerJob(job: Record<string, unknown> & { ID: string }): Promise<JobWriteResponse> {
    return (await this.call('PUT', '/v1/jobs', `register job ${job.ID}`, { json: { Job: job } })).parse(jobWriteResponseSchema);
  }

  /** `GET /v1/jobs?prefix=&namespace=` (namespace `*`: every namespace the token can see). */
  async jobs(prefix: string, namespace = '*'): Promise<JobStub[]> {
    return (await this.call('GET', '/v1/jobs', 'list jobs', { query: { prefix, namespace } })).parse(z.array(jobStubSchema).nullable()) ?? [];
  }

  async jobAllocations(jobId: string, namespace: string): Promise<AllocStub[]> {
    return (await this.call('GET', `/v1/job/${encodeURIComponent(jobId)}/allocations`, `list the allocations of job ${jobId}`, { query: { namespace } })).parse(z.array(allocStubSchema).nullable()) ?? [];
  }

  /**
   * `GET /v1/allocation/:id` (command/agent/alloc_endpoint.go AllocSpecificRequest): the allocation's
   * client status, answered as is; 404 "alloc not found" once the servers have collected it.
   */
  allocation(id: string): Promise<HttpResponse> {
    return this.http.request({ method: 'GET', path: `/v1/allocation/${encodeURIComponent(id)}` });
  }

  /** Whether the node still has the allocation's directory: `GET /v1/client/fs/ls/:id?path=/` answers 200. */
  async allocationDirPresent(id: string): Promise<boolean> {
    const res = await this.http.request({ method: 'GET', path: `/v1/client/fs/ls/${encodeURIComponent(id)}`, query: { path: '/' } });
    return res.status === 200;
  }

  /**
   * `GET /v1/client/allocation/:id/gc`: the node removes a stopped allocation's directory
   * (client/gc.go AllocGarbageCollector.Collect), answered as is.
   */
  collectAllocation(id: string): Promise<HttpResponse> {
    return this.http.request({ method: 'GET', path: `/v1/client/allocation/${encodeURIComponent(id)}/gc` });
  }

  /** `DELETE /v1/job/:id`: without purge the job stays, stopped (a Job event); with purge it is gone (no Job event). */
  async deregisterJob(jobId: string, namespace: string, purge: boolean): Promise<JobWriteResponse> {
    const res = await this.call('DELETE', `/v1/job/${encodeURIComponent(jobId)}`, `${purge ? 'purge' : 'stop'} job ${jobId}`, { query: { namespace, purge: String(purge) } });
    return res.parse(jobWriteResponseSchema);
  }

  /** `POST /v1/client/allocation/:id/signal` (Nomad since 0.9): a signal to one task of an allocation. */
  async signalTask(allocId: string, task: string, signal: string): Promise<void> {
    await this.call('POST', `/v1/client/allocation/${encodeURIComponent(allocId)}/signal`, `signal ${signal} to task ${task} of allocation ${allocId}`, { json: { Task: task, Signal: signal } });
  }

  /** The same purge, answered as is, for a sweep that counts what it could not remove. */
  purgeJob(jobId: string, namespace: string): Promise<HttpResponse> {
    return this.http.request({ method: 'DELETE', path: `/v1/job/${encodeURIComponent(jobId)}`, query: { namespace, purge: 'true' } });
  }

  /** `POST /v1/acl/policy/:name`: Nomad answers with no body; the X-Nomad-Index header is the ACLPolicy event's index. */
  async upsertPolicy(name: string, rules: string, description: string): Promise<number> {
    return indexOf(await this.call('POST', `/v1/acl/policy/${encodeURIComponent(name)}`, `write ACL policy ${name}`, { json: { Name: name, Description: description, Rules: rules } }), `write ACL policy ${name}`);
  }

  async deletePolicy(name: string): Promise<number> {
    return indexOf(await this.call('DELETE', `/v1/acl/policy/${encodeURIComponent(name)}`, `delete ACL policy ${name}`), `delete ACL policy ${name}`);
  }

  deletePolicyRaw(name: string): Promise<HttpResponse> {
    return this.http.request({ method: 'DELETE', path: `/v1/acl/policy/${encodeURIComponent(name)}` });
  }

  async policies(): Promise<{ Name: string }[]> {
    return (await this.call('GET', '/v1/acl/policies', 'list ACL policies')).parse(z.array(z.object({ Name: z.string() }).passthrough()).nullable()) ?? [];
  }

  /** `POST /v1/acl/token`: a client token with these policies; its CreateIndex is the ACLToken event's index. */
  async createToken(name: string, policies: string[]): Promise<{ AccessorID: string; SecretID: string; CreateIndex: number }> {
    const res = await this.call('POST', '/v1/acl/token', `create ACL token ${name}`, { json: { Name: name, Type: 'client', Policies: policies } });
    return res.parse(z.object({ AccessorID: z.string().min(1), SecretID: z.string().min(1), CreateIndex: z.number() }).passthrough());
  }

  async deleteToken(accessor: string): Promise<number> {
    return indexOf(await this.call('DELETE', `/v1/acl/token/${encodeURIComponent(accessor)}`, `delete ACL token ${accessor}`), `delete ACL token ${accessor}`);
  }

  deleteTokenRaw(accessor: string): Promise<HttpResponse> {
    return this.http.request({ method: 'DELETE', path: `/v1/acl/token/${encodeURIComponent(accessor)}` });
  }

  async tokens(): Promise<{ AccessorID: string; Name: string }[]> {
    const res = await this.call('GET', '/v1/acl/tokens', 'list ACL tokens');
    return (res.parse(z.array(z.object({ AccessorID: z.string(), Name: z.string().nullable().optional() }).passthrough()).nullable()) ?? []).map((t) => ({ AccessorID: t.AccessorID, Name: t.Name ?? '' }));
  }

  async namespaces(): Promise<{ Name: string }[]> {
    return (await this.call('GET', '/v1/namespaces', 'list namespaces')).parse(z.array(z.object({ Name: z.string() }).passthrough()).nullable()) ?? [];
  }

  async createNamespace(name: string, description: string): Promise<void> {
    await this.call('POST', `/v1/namespace/${encodeURIComponent(name)}`, `create namespace ${name}`, { json: { Name: name, Description: description } });
  }

  deleteNamespace(name: string): Promise<HttpResponse> {
    return this.http.request({ method: 'DELETE', path: `/v1/namespace/${encodeURIComponent(name)}` });
  }

  /** `GET /v1/client/metadata?node_id=`: Dynamic holds what was set through the API. */
  async metadata(nodeId: string): Promise<{ Meta: Record<string, string>; Dynamic: Record<string, string | null> }> {
    const res = await this.call('GET', '/v1/client/metadata', 'read the node metadata', { query: { node_id: nodeId } });
    const m = res.parse(z.object({ Meta: z.record(z.string(), z.string()).nullable().optional(), Dynamic: z.record(z.string(), z.string().nullable()).nullable().optional() }).passthrough());
    return { Meta: m.Meta ?? {}, Dynamic: m.Dynamic ?? {} };
  }

  /** Sets dynamic keys on the node (`POST /v1/client/metadata`, Nomad 1.5+). */
  async setMetadata(nodeId: string, meta: Record<string, string>): Promise<void> {
    await this.call('POST', '/v1/client/metadata', `set metadata on node ${nodeId}`, { query: { node_id: nodeId }, json: { Meta: meta } });
  }

  /** A null value unsets a dynamic key (client/meta_endpoint.go). */
  unsetMetadata(nodeId: string, keys: string[]): Promise<HttpResponse> {
    return this.http.request({ method: 'POST', path: '/v1/client/metadata', query: { node_id: nodeId }, json: { Meta: Object.fromEntries(keys.map((k) => [k, null])) } });
  }
}

/** The raft index of a write that answers only with the X-Nomad-Index header (ACL policy and token writes). */
function indexOf(res: HttpResponse, what: string): number {
  const index = Number(res.header('x-nomad-index'));
  if (!Number.isSafeInteger(index) || index <= 0) throw new NomadCallError(what, res.status, `no X-Nomad-Index header in the answer (got ${JSON.stringify(res.header('x-nomad-index') ?? null)})`);
  return index;
}

const agentSelfSchema = z.object({ stats: z.object({ client: z.object({ node_id: z.string().optional() }).passthrough().optional() }).passthrough().nullable().optional() }).passthrough();

const nodeStubSchema = z.object({ ID: z.string(), Name: z.string().optional(), Status: z.string().optional(), SchedulingEligibility: z.string().optional() }).passthrough();
export type NodeStub = z.infer<typeof nodeStubSchema>;

const driverSchema = z.object({ Detected: z.boolean().optional(), Healthy: z.boolean().optional(), HealthDescription: z.string().optional() }).passthrough();
const nodeSchema = z.object({ ID: z.string(), SchedulingEligibility: z.string(), Drivers: z.record(z.string(), driverSchema).nullable().optional() }).passthrough();
export type NomadNode = z.infer<typeof nodeSchema>;

const eligibilityResponseSchema = z.object({ Index: z.number(), NodeModifyIndex: z.number().optional(), EvalIDs: z.array(z.string()).nullable().optional(), EvalCreateIndex: z.number().optional() }).passthrough();
/** Nomad's NodeEligibilityUpdateResponse (nomad/structs/structs.go): `Index` is the write's; 0 when nothing was written. */
export type EligibilityUpdate = z.infer<typeof eligibilityResponseSchema>;

const jobWriteResponseSchema = z.object({ EvalID: z.string().optional(), JobModifyIndex: z.number(), Index: z.number().optional() }).passthrough();
export type JobWriteResponse = z.infer<typeof jobWriteResponseSchema>;

const jobStubSchema = z.object({ ID: z.string(), Namespace: z.string().optional(), Status: z.string().optional(), Stop: z.boolean().optional() }).passthrough();
export type JobStub = z.infer<typeof jobStubSchema>;

const allocStubSchema = z
  .object({
    ID: z.string(),
    JobID: z.string(),
    ClientStatus: z.string(),
    DesiredStatus: z.string().optional(),
    CreateIndex: z.number().optional(),
    TaskStates: z.record(z.string(), z.object({ State: z.string(), Failed: z.boolean().optional() }).passthrough()).nullable().optional(),
  })
  .passthrough();
export type AllocStub = z.infer<typeof allocStubSchema>;

/** What a Nomad call that went wrong says: the call, the status and Nomad's own words. */
export class NomadCallError extends Error {
  constructor(
    readonly what: string,
    readonly status: number,
    detail: string,
  ) {
    super(`${what}: answered ${status}${detail ? ` (${detail})` : ''}`);
  }
}
