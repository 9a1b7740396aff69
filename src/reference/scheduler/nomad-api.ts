import { hostname } from 'node:os';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyError, closeAfterResponse, readBody } from '../http/body.ts';
import { sendJsonBody, sendPlainError } from '../http/plain-errors.ts';
import { Router } from '../http/router.ts';
import { AclRequestError, type AclStore } from './acl-policies.ts';
import { SchedulerAcl, type NamespaceCapability, type SchedulerToken } from './acl.ts';
import { ClusterError, type Cluster } from './cluster.ts';
import { NOMAD_VERSION } from './nomad-version.ts';
import { admitJob } from './nomad-job/admit.ts';
import { decodeGoValue, type GoType } from './nomad-job/api-job.ts';
import { unrenderableTemplate } from './runnable-job.ts';
import type { EventBroker } from './event-broker.ts';

/** The build metadata of the version the reference reports: the release it answers as, marked as the reference's. */
const REFERENCE_METADATA = 'stackproof-reference';

const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The node the API manages: its record, and the eligibility change (which publishes the Node event). */
export interface ManagedNode {
  readonly nodeId: string;
  node(): Record<string, unknown>;
  /** Returns the index of the Node event's frame; 0 when the node already had that eligibility (nothing written, no event). */
  setEligibility(eligible: boolean): number;
}

export interface NomadApiOptions {
  cluster: Cluster;
  acls: AclStore;
  broker: EventBroker;
  node: ManagedNode;
  /** Nomad's choices (hashicorp dialect); otherwise the control prefix serves it in the spec dialect. */
  nomad: boolean;
  /** The agent's region, the default of a job's. */
  region: string;
  /** The Nomad release to answer as (default nomad-version.ts NOMAD_VERSION): what /v1/agent/self reports, and job admission's checks. */
  version?: string;
}

interface ApiContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Record<string, string>;
  token: SchedulerToken;
  /** The raw token secret ('' under the control prefix, which acts as management). */
  secret: string;
}

type ApiHandler = (ctx: ApiContext) => void | Promise<void>;

class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const PERMISSION_DENIED = 'Permission denied';

/** nomad/structs/structs.go AllocSignalRequest, as decodeBody fills it. */
const ALLOC_SIGNAL_REQUEST: GoType = { k: 'struct', go: 'structs.AllocSignalRequest', name: 'AllocSignalRequest', fields: { Task: { k: 'string' }, Signal: { k: 'string' } } };

/**
 * The part of Nomad's HTTP API stackproof's scheduler fixtures use (jobs, allocations of a job,
 * nodes and eligibility, ACL policies and tokens, namespaces), with Nomad's request and response
 * shapes: command/agent/job_endpoint.go, node_endpoint.go, acl_endpoint.go, namespace_endpoint.go,
 * agent_endpoint.go; nomad/structs/structs.go for the fields. Served by the hashicorp dialect's
 * scheduler listener, and by the control listener under /v1/control/scheduler/nomad as management.
 */
export class NomadApi {
  private readonly router = new Router<ApiHandler>();

  private get version(): string {
    return this.o.version ?? NOMAD_VERSION;
  }

  constructor(private readonly o: NomadApiOptions) {
    const r = this.router;
    r.add(['PUT', 'POST'], '/v1/jobs', (c) => this.register(c));
    r.add('GET', '/v1/jobs', (c) => this.listJobs(c));
    r.add('GET', '/v1/job/:id', (c) => this.readJob(c));
    r.add('DELETE', '/v1/job/:id', (c) => this.deregister(c));
    r.add('GET', '/v1/job/:id/allocations', (c) => this.jobAllocations(c));
    r.add('GET', '/v1/allocation/:id', (c) => this.readAllocation(c));
    r.add(['PUT', 'POST'], '/v1/client/allocation/:id/signal', (c) => this.signalAllocation(c));
    r.add('GET', '/v1/nodes', (c) => this.listNodes(c));
    r.add('GET', '/v1/node/:id', (c) => this.readNode(c));
    r.add(['PUT', 'POST'], '/v1/node/:id/eligibility', (c) => this.eligibility(c));
    r.add('GET', '/v1/agent/self', (c) => this.agentSelf(c));
    r.add('GET', '/v1/acl/token/self', (c) => this.tokenSelf(c));
    r.add('GET', '/v1/acl/policies', (c) => this.management(c, () => this.json(c, this.o.acls.listPolicies())));
    r.add('GET', '/v1/acl/policy/:name', (c) => this.management(c, () => this.json(c, this.found(this.o.acls.policy(c.params.name!), 'ACL policy not found'))));
    r.add(['PUT', 'POST'], '/v1/acl/policy/:name', (c) => this.management(c, async () => this.written(c, this.o.acls.upsertPolicy(c.params.name!, await this.body(c)), null)));
    r.add('DELETE', '/v1/acl/policy/:name', (c) => this.management(c, () => this.written(c, this.o.acls.deletePolicy(c.params.name!), null)));
    r.add('GET', '/v1/acl/tokens', (c) => this.management(c, () => this.json(c, this.o.acls.listTokens())));
    r.add(['PUT', 'POST'], '/v1/acl/token', (c) => this.management(c, async () => {
      const token = this.o.acls.createToken(await this.body(c));
      this.written(c, token.CreateIndex, token);
    }));
    r.add('GET', '/v1/acl/token/:accessor', (c) => this.management(c, () => this.json(c, this.found(this.o.acls.tokenByAccessor(c.params.accessor!), 'ACL token not found'))));
    r.add('DELETE', '/v1/acl/token/:accessor', (c) => this.management(c, () => this.written(c, this.o.acls.deleteToken(c.params.accessor!), null)));
    r.add('GET', '/v1/namespaces', (c) => this.json(c, this.o.cluster.listNamespaces().filter((ns) => c.token.management || SchedulerAcl.can(c.token, ns.Name, 'list-jobs') || SchedulerAcl.can(c.token, ns.Name, 'read-job'))));
    r.add('GET', '/v1/namespace/:name', (c) => this.json(c, this.found(this.o.cluster.namespace(c.params.name!), 'Namespace not found')));
    r.add(['PUT', 'POST'], '/v1/namespace/:name', (c) => this.management(c, async () => this.written(c, this.o.cluster.upsertNamespace(c.params.name!, await this.body(c)), null)));
    r.add('DELETE', '/v1/namespace/:name', (c) => this.management(c, () => this.written(c, this.o.cluster.deleteNamespace(c.params.name!, this.o.nomad ? 500 : 409), null)));
  }

  /** Whether this API serves a path (any method): the scheduler listener asks before its own routes. */
  serves(pathname: string): boolean {
    return this.router.match('GET', pathname).kind !== 'not-found';
  }

  /**
   * Answers one request. `token` is the caller's grants, undefined for an unknown token (403, as
   * Nomad answers "ACL token not found"); the control prefix passes a management one.
   */
  async handle(req: IncomingMessage, res: ServerResponse, method: string, pathname: string, url: URL, token: SchedulerToken | undefined, secret: string): Promise<void> {
    const match = this.router.match(method, pathname);
    if (match.kind !== 'found') {
      req.resume();
      return sendPlainError(res, match.kind === 'not-found' ? 404 : 405, match.kind === 'not-found' ? 'Not Found' : 'Invalid method');
    }
    if (!token) {
      req.resume();
      return sendPlainError(res, 403, secret ? 'ACL token not found' : PERMISSION_DENIED);
    }
    try {
      await match.handler({ req, res, url, params: match.params, token, secret });
    } catch (err) {
      if (err instanceof ApiError || err instanceof ClusterError || err instanceof AclRequestError) {
        if (!req.complete) req.resume();
        return sendPlainError(res, err.status, err.message);
      }
      if (err instanceof BodyError) {
        if (err.status === 413) closeAfterResponse(req, res);
        return sendPlainError(res, err.status, err.message);
      }
      throw err;
    }
  }

  // --- helpers ----------------------------------------------------------------------------

  private json(c: ApiContext, body: unknown): void {
    sendJsonBody(c.res, 200, body, { 'x-nomad-index': String(Math.max(1, this.o.broker.latestIndex)), 'x-nomad-knownleader': 'true', 'x-nomad-lastcontact': '0' });
  }

  /** A write's answer: its index in X-Nomad-Index, and a body (null like Nomad's for policy and namespace writes). */
  private written(c: ApiContext, index: number, body: unknown): void {
    sendJsonBody(c.res, 200, body, { 'x-nomad-index': String(index) });
  }

  private found<T>(value: T | undefined, message: string): T {
    if (value === undefined) throw new ApiError(404, message);
    return value;
  }

  private async management(c: ApiContext, run: () => void | Promise<void>): Promise<void> {
    if (!c.token.management) {
      c.req.resume();
      throw new ApiError(403, PERMISSION_DENIED);
    }
    await run();
  }

  private require(c: ApiContext, namespace: string, capability: NamespaceCapability): void {
    if (!SchedulerAcl.can(c.token, namespace, capability)) throw new ApiError(403, PERMISSION_DENIED);
  }

  private async body(c: ApiContext): Promise<Record<string, unknown>> {
    const raw = await readBody(c.req, MAX_BODY_BYTES);
    let value: unknown;
    try {
      value = JSON.parse(raw.toString('utf8'));
    } catch (err) {
      throw new ApiError(400, `Failed to decode request: ${(err as Error).message}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ApiError(400, 'Failed to decode request: the body must be a JSON object');
    return value as Record<string, unknown>;
  }

  private namespaceOf(c: ApiContext): string {
    return c.url.searchParams.get('namespace') || 'default';
  }

  // --- jobs -------------------------------------------------------------------------------

  /**
   * Nomad's job registration: the body decoded and the job canonicalized and validated as Nomad
   * does (nomad-job/admit.ts, each check citing its source), after the caller's submit-job in the
   * job's namespace (nomad/job_endpoint.go Register checks the ACL before its admission controllers).
   */
  private async register(c: ApiContext): Promise<void> {
    const body = await this.body(c);
    const job = body.Job;
    // The namespace the job goes to, as command/agent/job_endpoint.go namespaceForJob picks it: the
    // query's, else the request body's, else the job's.
    const given = typeof job === 'object' && job !== null && !Array.isArray(job) ? (job as Record<string, unknown>).Namespace : undefined;
    const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
    const namespace = text(c.url.searchParams.get('namespace')) ?? text(body.Namespace) ?? text(given) ?? 'default';
    this.require(c, namespace, 'submit-job');
    const admitted = admitJob(body, { namespaceParam: c.url.searchParams.get('namespace'), region: this.o.region, version: this.version });
    if (!admitted.ok) throw new ApiError(admitted.status, admitted.message);
    const unrenderable = unrenderableTemplate(admitted.job);
    if (unrenderable) throw new ApiError(400, unrenderable);
    const reply = this.o.cluster.register(admitted.job);
    this.written(c, reply.Index, { ...reply, Warnings: admitted.warnings.join('\n'), LastContact: 0, KnownLeader: true });
  }

  private listJobs(c: ApiContext): void {
    const namespace = this.namespaceOf(c);
    const visible = (ns: string) => SchedulerAcl.can(c.token, ns, 'list-jobs') || SchedulerAcl.can(c.token, ns, 'read-job');
    if (namespace !== '*' && !visible(namespace)) throw new ApiError(403, PERMISSION_DENIED);
    this.json(c, this.o.cluster.listJobs(namespace, c.url.searchParams.get('prefix') ?? '', visible));
  }

  private readJob(c: ApiContext): void {
    const namespace = this.namespaceOf(c);
    this.require(c, namespace, 'read-job');
    this.json(c, this.found(this.o.cluster.job(namespace, c.params.id!), 'job not found'));
  }

  private jobAllocations(c: ApiContext): void {
    const namespace = this.namespaceOf(c);
    this.require(c, namespace, 'read-job');
    this.json(c, this.o.cluster.allocationsOf(namespace, c.params.id!));
  }

  /** command/agent/alloc_endpoint.go allocGet: read-job in the allocation's namespace; 404 "alloc not found". */
  private readAllocation(c: ApiContext): void {
    const alloc = this.found(this.o.cluster.allocation(c.params.id!), 'alloc not found');
    this.require(c, String(alloc.Namespace), 'read-job');
    this.json(c, alloc);
  }

  /**
   * command/agent/alloc_endpoint.go allocSignal: the body decoded ("Failed to decode body: " 400;
   * decodeBody's "Request body is empty" for none), then client/alloc_endpoint.go Allocations.Signal:
   * the allocation looked up first (404 "Unknown allocation"), then alloc-lifecycle in its namespace
   * (403), then the signal (Cluster.signalAllocation). Answers an empty GenericResponse.
   */
  private async signalAllocation(c: ApiContext): Promise<void> {
    const raw = (await readBody(c.req, MAX_BODY_BYTES)).toString('utf8');
    if (raw === '') throw new ApiError(400, 'Failed to decode body: Request body is empty');
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch (err) {
      throw new ApiError(400, `Failed to decode body: ${(err as Error).message}`);
    }
    const decoded = decodeGoValue(body, ALLOC_SIGNAL_REQUEST);
    if (!decoded.ok) throw new ApiError(400, `Failed to decode body: ${decoded.message}`);
    const task = String(decoded.value.Task ?? '');
    const signal = String(decoded.value.Signal ?? '');
    const alloc = this.o.cluster.allocation(c.params.id!);
    if (!alloc) throw new ApiError(404, `Unknown allocation ${JSON.stringify(c.params.id)}`);
    this.require(c, String(alloc.Namespace), 'alloc-lifecycle');
    this.o.cluster.signalAllocation(c.params.id!, task, signal);
    this.json(c, { Index: 0 });
  }

  private deregister(c: ApiContext): void {
    const namespace = this.namespaceOf(c);
    this.require(c, namespace, 'submit-job');
    const raw = c.url.searchParams.get('purge');
    if (raw !== null && raw !== '' && !/^(true|false|1|0)$/i.test(raw)) throw new ApiError(400, `Failed to parse value of "purge" (${raw}) as a bool`);
    const reply = this.o.cluster.deregister(namespace, c.params.id!, raw !== null && /^(true|1)$/i.test(raw));
    this.written(c, reply.Index, { ...reply, VolumeEvalID: '', VolumeEvalIndex: 0, LastContact: 0, KnownLeader: true });
  }

  // --- nodes ------------------------------------------------------------------------------

  private nodeRead(c: ApiContext): void {
    if (!c.token.management && !c.token.nodeRead) throw new ApiError(403, PERMISSION_DENIED);
  }

  private listNodes(c: ApiContext): void {
    this.nodeRead(c);
    const n = this.o.node.node();
    const stub = { Address: '127.0.0.1', ID: n.ID, Datacenter: n.Datacenter, Name: n.Name, NodeClass: n.NodeClass, NodePool: 'default', Version: this.version, Drain: n.Drain, SchedulingEligibility: n.SchedulingEligibility, Status: n.Status, StatusDescription: n.StatusDescription, Drivers: n.Drivers, NodeResources: n.NodeResources, ReservedResources: n.ReservedResources, LastDrain: null, CreateIndex: n.CreateIndex, ModifyIndex: n.ModifyIndex };
    const prefix = c.url.searchParams.get('prefix') ?? '';
    this.json(c, String(n.ID).startsWith(prefix) ? [stub] : []);
  }

  private readNode(c: ApiContext): void {
    this.nodeRead(c);
    if (c.params.id !== this.o.node.nodeId) throw new ApiError(404, 'node not found');
    this.json(c, this.o.node.node());
  }

  /**
   * Node writes are kept to management tokens here (Nomad also lets node:write change eligibility).
   * As Nomad's nodeToggleEligibility (command/agent/node_endpoint.go) and Node.UpdateEligibility
   * (nomad/node_endpoint.go), read at v1.9.7, v1.10.5, v1.11.0 and main: the body's NodeID, when
   * given, names the node (the path's otherwise); the reply is NodeEligibilityUpdateResponse with
   * only Index set (X-Nomad-Index too), never NodeModifyIndex; EvalIDs and EvalCreateIndex stay
   * empty as the reference makes no node-update evaluations (Nomad's createNodeEvals does, for the
   * node's allocations and system jobs, when it turns eligible). The eligibility the node already
   * has is "Nothing to do": 200 with every index 0 and no event. Nomad's errors here are plain RPC
   * errors, 500 (command/agent/http.go errCodeFromHandler); the spec dialect's control prefix keeps
   * 404 and 400.
   */
  private eligibility(c: ApiContext): Promise<void> {
    return this.management(c, async () => {
      const body = await this.body(c);
      const nodeId = typeof body.NodeID === 'string' && body.NodeID !== '' ? body.NodeID : c.params.id;
      if (this.o.nomad) {
        if (body.Eligibility !== 'eligible' && body.Eligibility !== 'ineligible') throw new ApiError(500, `invalid scheduling eligibility ${JSON.stringify(body.Eligibility ?? '')}`);
        if (nodeId !== this.o.node.nodeId) throw new ApiError(500, 'node not found');
      } else {
        if (c.params.id !== this.o.node.nodeId) throw new ApiError(404, 'node not found');
        if (body.NodeID !== undefined && body.NodeID !== c.params.id) throw new ApiError(400, 'NodeID in the body does not match the request path');
        if (body.Eligibility !== 'eligible' && body.Eligibility !== 'ineligible') throw new ApiError(400, 'invalid scheduling eligibility');
      }
      const index = this.o.node.setEligibility(body.Eligibility === 'eligible');
      this.written(c, index, { NodeModifyIndex: 0, EvalIDs: null, EvalCreateIndex: 0, Index: index });
    });
  }

  /**
   * Nomad needs agent:read here; the reference grants it to management tokens only. Its version
   * (command/agent/config.go Config.Version, a version.VersionInfo) is the release it answers as,
   * with build metadata naming the reference, so a run does not apply Nomad's version ranges to it:
   * under the upstream behaviour it reproduces every listed deviation, whatever release it claims.
   */
  private agentSelf(c: ApiContext): Promise<void> {
    return this.management(c, () => {
      const name = hostname();
      this.json(c, {
        config: { Region: 'global', Datacenter: 'dc1', NodeName: name, Client: { Enabled: true }, Server: { Enabled: true }, ACL: { Enabled: true }, Version: { BuildDate: null, Revision: '', Version: this.version, VersionPrerelease: '', VersionMetadata: REFERENCE_METADATA } },
        member: { Name: `${name}.global`, Addr: '127.0.0.1', Port: 4648, Status: 'alive', Tags: { region: 'global', dc: 'dc1', role: 'nomad', build: this.version } },
        stats: { client: { node_id: this.o.node.nodeId, known_servers: '127.0.0.1:4647', num_allocations: '0', last_heartbeat: '0', heartbeat_ttl: '0' } },
      });
    });
  }

  /** The caller's own token, secret included (Nomad's ACL.GetTokenSelf); under the control prefix the management token. */
  private tokenSelf(c: ApiContext): void {
    const token = c.secret ? this.o.acls.token(c.secret) : this.o.acls.managementToken();
    this.json(c, this.found(token, 'ACL token not found'));
  }
}
