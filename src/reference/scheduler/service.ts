import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dialect } from '../../config/dialects.ts';
import type { ReferenceBehavior } from '../behavior.ts';
import type { FaultSet } from '../faults/types.ts';
import { BodyError, closeAfterResponse, parseJsonObject, readBody } from '../http/body.ts';
import { sendJsonBody, sendPlainError } from '../http/plain-errors.ts';
import { Router, type RouteContext, type RouteHandler } from '../http/router.ts';
import { SchedulerAcl, type NamespaceCapability, type SchedulerToken } from './acl.ts';
import { AclStore } from './acl-policies.ts';
import { AllocationFs, PathEscapeError } from './alloc-fs.ts';
import { Cluster } from './cluster.ts';
import { NomadApi } from './nomad-api.ts';
import { admitJob } from './nomad-job/admit.ts';
import { EventBroker, type Frame, type MatchRules, type Subscription } from './event-broker.ts';
import { StreamFanout } from './stream-fanout.ts';
import { streamFile } from './file-stream.ts';
import { MetadataError, NodeMetadata } from './node-metadata.ts';
import { nodeRecord } from './node.ts';
import { allocationStats, hostStats } from './stats.ts';

const MAX_BODY_BYTES = 1024 * 1024;
const FULL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SHORT_ID = /^[0-9a-f]{8}$/;
/** In the hashicorp dialect, how long after answering GC of all the stopped allocations' files go. */
const GC_ALL_DELAY_MS = 250;

export interface SchedulerServiceOptions {
  dialect: Dialect;
  behavior: ReferenceBehavior;
  faults: FaultSet;
  nodeId: string;
  managementToken: string;
  staticMeta: Record<string, string>;
  allocRoot: string;
  nextIndex: () => number;
  /** How often an idle event stream sends a {} heartbeat. */
  heartbeatMs?: number;
  /** Whether the raw_exec driver is detected (default true, as `nomad agent -dev` has it). */
  rawExec?: boolean;
  /** At most this many allocations run at once (default 64). */
  maxRunningAllocations?: number;
}

/** The agent's region and the node's datacenter, as `nomad agent -dev` names them. */
export const REGION = 'global';

/** A request that cannot be served: the status and the plain-text message. */
class ClientError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * How many frames the event broker keeps. Nomad's default event_buffer_size is 100, and behaviour
 * upstream keeps that. Otherwise the buffer is larger: every action now produces several frames
 * (register, plan, evaluation, client updates), and with 100 a run's own earlier frames would leave
 * the buffer before the rules that replay them from an index read them.
 */
export const EVENT_BUFFER_FRAMES = { upstream: 100, otherwise: 256 } as const;

/** The Node fields the fault scheduler.events-node-payload-missing-fields leaves out of Node events. */
const NODE_FIELDS_DROPPED = ['Datacenter', 'SchedulingEligibility', 'Status', 'Drain'];

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The fault scheduler.events-node-network-mbits-text: network entries carry MBits as text ("1000 Mbit/s"). */
function mbitsAsText(node: Record<string, unknown>): void {
  const networks = (node.NodeResources as { Networks?: { MBits?: unknown }[] } | undefined)?.Networks ?? [];
  for (const n of networks) n.MBits = `${String(n.MBits)} Mbit/s`;
}

/**
 * The embedded scheduler: its event stream and one client node answering the /v1/client endpoints.
 * In the hashicorp dialect it does what Nomad does where spec 002 leaves a choice; with behaviour
 * `upstream` it also reproduces Nomad's spec deviations listed in expectations/nomad.json.
 */
export class SchedulerService {
  private readonly router = new Router<RouteHandler>();
  private readonly metadata: NodeMetadata;
  readonly acl = new SchedulerAcl();
  readonly broker: EventBroker;
  private readonly fanout: StreamFanout;
  readonly fs: AllocationFs;
  readonly cluster: Cluster;
  readonly acls: AclStore;
  /** Nomad's job, node, ACL and namespace API (hashicorp dialect listener; the control prefix in every dialect). */
  readonly nomadApi: NomadApi;
  private nodeState = { drain: false, eligibility: 'eligible', index: 1 };
  /** Nomad's choices where the spec leaves one (hashicorp dialect). */
  private readonly nomad: boolean;
  /** Nomad's spec deviations (behaviour upstream). */
  private readonly upstream: boolean;
  private readonly matchRules: MatchRules;

  constructor(private readonly options: SchedulerServiceOptions) {
    const f = options.faults;
    this.nomad = options.dialect.name === 'hashicorp';
    this.upstream = options.behavior === 'upstream';
    this.matchRules = {
      repeatPerKey: this.nomad,
      wildcardOnlyAlone: this.upstream || f.has('scheduler.events-wildcard-lost-with-keys'),
      filterKeysIgnored: f.has('scheduler.events-filter-key-ignored'),
      namespaceIgnored: f.has('scheduler.events-namespace-ignored'),
    };
    this.metadata = new NodeMetadata(options.staticMeta, options.faults, this.nomad ? 'nomad' : 'spec');
    this.broker = new EventBroker(this.upstream ? EVENT_BUFFER_FRAMES.upstream : EVENT_BUFFER_FRAMES.otherwise, options.nextIndex);
    this.fanout = new StreamFanout(this.broker, {
      rules: this.matchRules,
      omitFilterKeys: f.has('scheduler.events-missing-filterkeys'),
      repeatFrames: f.has('scheduler.events-frame-repeated'),
      backlogOutOfOrder: f.has('scheduler.events-backlog-out-of-order'),
    });
    this.fs = new AllocationFs(options.allocRoot, options.faults.has('scheduler.fs-path-escape'));
    this.acl.add({ management: true, nodeRead: true, nodeWrite: true, readJob: ['*'] }, options.managementToken);
    this.acls = new AclStore(this.broker, options.managementToken, this.nomad);
    this.acl.resolve = (secret) => this.acls.grantsOf(secret);
    this.cluster = new Cluster({
      broker: this.broker,
      fs: this.fs,
      faults: f,
      nodeId: options.nodeId,
      nextIndex: options.nextIndex,
      framePerTransaction: this.nomad,
      nodeEligible: () => this.nodeState.eligibility === 'eligible',
      nodeFacts: () => this.nodeFacts(),
      rawExec: options.rawExec !== false,
      maxRunningAllocations: options.maxRunningAllocations ?? 64,
      region: REGION,
    });
    this.nomadApi = new NomadApi({ cluster: this.cluster, acls: this.acls, broker: this.broker, node: this, nomad: this.nomad, region: REGION });
    const r = this.router;
    r.add('GET', '/v1/event/stream', (ctx) => this.eventStream(ctx));
    r.add('GET', '/v1/client/metadata', (ctx) => this.readMetadata(ctx));
    r.add('POST', '/v1/client/metadata', (ctx) => this.updateMetadata(ctx));
    r.add('GET', '/v1/client/stats', (ctx) => this.stats(ctx));
    r.add('GET', '/v1/client/allocation/:alloc/stats', (ctx) => this.allocStats(ctx));
    r.add('GET', '/v1/client/allocation/:alloc/gc', (ctx) => this.gcAlloc(ctx));
    r.add('GET', '/v1/client/gc', (ctx) => this.gcAll(ctx));
    r.add('GET', '/v1/client/fs/:op/:alloc', (ctx) => this.fsOp(ctx));
  }

  get nodeId(): string {
    return this.options.nodeId;
  }

  /** The management token's secret: what the control listener presents to the scheduler's API. */
  get managementSecret(): string {
    return this.options.managementToken;
  }

  /** The node's record as the node topics carry it. */
  node(): Record<string, unknown> {
    const node = nodeRecord(this.options.nodeId, this.metadata.view().Meta, this.nodeState, { rawExec: this.options.rawExec !== false });
    // Nomad 1.11 on no longer has the deprecated Resources and Reserved (expectations/nomad.json).
    if (this.upstream) for (const k of ['Resources', 'Reserved']) delete node[k];
    return node;
  }

  publishNode(type: string, topic = 'Node'): Frame {
    return this.broker.publishWith((index) => {
      this.nodeState.index = index;
      const node = this.node();
      if (this.options.faults.has('scheduler.events-node-payload-missing-fields')) for (const k of NODE_FIELDS_DROPPED) delete node[k];
      if (this.options.faults.has('scheduler.events-node-network-mbits-text')) mbitsAsText(node);
      return [{ Topic: topic, Type: type, Key: this.options.nodeId, Namespace: '', FilterKeys: null, Payload: { Node: node } }];
    });
  }

  /**
   * Returns the Node event's frame index, or 0 when the node already had this eligibility: Nomad's
   * Node.UpdateEligibility (nomad/node_endpoint.go) returns before its raft apply then ("Nothing to
   * do"), so nothing is written and no event is published. Nomad publishes a change as a Node event
   * of type NodeEligibility at main (nomad/state/events.go MsgTypeEvents:
   * NodeUpdateEligibilityRequestType maps to TypeNodeEligibilityUpdate; v1.9.7 to v1.11.0 map it to
   * TypeNodeDrain, "NodeDrain").
   */
  setEligibility(eligible: boolean): number {
    const wanted = eligible ? 'eligible' : 'ineligible';
    if (this.nodeState.eligibility === wanted) return 0;
    this.nodeState.eligibility = wanted;
    const index = this.publishNode('NodeEligibility').Index;
    if (eligible) this.cluster.nodeBecameEligible();
    return index;
  }

  /** Whether the node runs raw_exec tasks. */
  get rawExec(): boolean {
    return this.options.rawExec !== false;
  }

  /** Registers one of the reference's own jobs (setup), through the same validation as the API's. */
  registerOwnJob(body: unknown): void {
    const admitted = admitJob(body, { namespaceParam: null, region: REGION });
    if (!admitted.ok) throw new Error(`the reference's own job is invalid: ${admitted.message}`);
    this.cluster.register(admitted.job);
  }

  /** The node as job constraints see it. */
  private nodeFacts() {
    const n = this.node();
    return { id: this.options.nodeId, name: String(n.Name), datacenter: String(n.Datacenter), nodeClass: String(n.NodeClass ?? ''), nodePool: 'default', attributes: n.Attributes as Record<string, string>, meta: this.metadata.view().Meta };
  }

  /** Stops every running task (the reference shuts down). */
  async stop(): Promise<void> {
    await this.cluster.stopAll();
  }

  async handle(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://reference.invalid');
    // The spec dialect's listener serves spec 002 only: Nomad's job API is reached there through the control prefix.
    if (this.nomad && this.nomadApi.serves(url.pathname)) {
      const secret = this.secretOf(req) ?? '';
      return this.nomadApi.handle(req, res, method, url.pathname, url, this.acl.get(secret), secret);
    }
    const match = this.router.match(method, url.pathname);
    if (match.kind !== 'found') {
      req.resume();
      return sendPlainError(res, match.kind === 'not-found' ? 404 : 405, 'Invalid method');
    }
    const token = this.token(req);
    if (!token) {
      req.resume();
      return sendPlainError(res, 403, 'Permission denied');
    }
    try {
      await match.handler({ req, res, url, params: match.params });
    } catch (err) {
      if (err instanceof ClientError) return sendPlainError(res, err.status, err.message);
      if (err instanceof PathEscapeError) return sendPlainError(res, this.escapeStatus(url.pathname), err.message);
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return sendPlainError(res, 404, 'no such file or directory');
      throw err;
    }
  }

  /**
   * The status of a path that leaves the allocation directory. Nomad: ls and stat return the
   * allocdir error as a plain error, which errCodeFromHandler (command/agent/http.go) makes a 500;
   * cat, readat and stream fail their Stat with code 400 (client/fs_endpoint.go stream).
   */
  private escapeStatus(pathname: string): number {
    return this.nomad && /^\/v1\/client\/fs\/(ls|stat)\//.test(pathname) ? 500 : 400;
  }

  private secretOf(req: IncomingMessage): string | undefined {
    const carrier = this.options.dialect.scheduler.token;
    const raw = req.headers[carrier.header.toLowerCase()];
    const fromCarrier = typeof raw === 'string' ? (carrier.scheme ? /^Bearer\s+(.+)$/i.exec(raw)?.[1] : raw) : undefined;
    const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    return (fromCarrier ?? bearer)?.trim();
  }

  private token(req: IncomingMessage): SchedulerToken | undefined {
    return this.acl.get(this.secretOf(req));
  }

  private tokenOf(req: IncomingMessage): SchedulerToken {
    return this.token(req)!;
  }

  /**
   * Spec 002's "ACL required" column for the node's endpoints (node:read, node:write). Nomad's
   * node policy "write" includes read (nomad/acl/acl.go AllowNodeRead); the spec leaves that open.
   */
  private requireNode(req: IncomingMessage, level: 'read' | 'write'): void {
    const f = this.options.faults;
    if (f.has('scheduler.client-acl-unchecked')) return;
    const t = this.tokenOf(req);
    const ok = level === 'read' || f.has('scheduler.client-acl-node-read-writes') ? t.nodeRead || t.nodeWrite : t.nodeWrite;
    if (!ok && !t.management) throw new ClientError(403, 'Permission denied');
  }

  /**
   * The column's namespace capabilities, in the allocation's namespace; any one of `caps` suffices
   * (logs: read-logs or read-fs). Nomad checks them on the client after looking the allocation up
   * (client/fs_endpoint.go, client/alloc_endpoint.go: AllowNsOp(alloc.Namespace, ...)).
   */
  private requireNamespace(req: IncomingMessage, namespace: string, caps: NamespaceCapability[]): void {
    const f = this.options.faults;
    if (f.has('scheduler.client-acl-unchecked')) return;
    const t = this.tokenOf(req);
    let wanted = caps;
    if (f.has('scheduler.client-acl-read-job-reads-fs') && caps.includes('read-fs')) wanted = [...caps, 'read-job'];
    if (f.has('scheduler.client-acl-logs-needs-read-fs') && caps.includes('read-logs')) wanted = caps.filter((c) => c !== 'read-logs');
    const holds = (c: NamespaceCapability) => SchedulerAcl.can(t, namespace, c) || (f.has('scheduler.client-acl-namespace-ignored') && SchedulerAcl.canAnywhere(t, c));
    if (!wanted.some(holds)) throw new ClientError(403, 'Permission denied');
  }

  /** node_id may be omitted (this node answers) or must be this node's full ID. */
  private checkNode(nodeId: string | null | undefined, prefixFault?: string): void {
    if (nodeId === null || nodeId === undefined || nodeId === '') {
      // The fault asks for node_id as a server would, though this node received the request.
      if (this.options.faults.has('scheduler.node-id-required')) throw new ClientError(400, 'missing node_id');
      return;
    }
    if (prefixFault !== undefined && this.options.faults.has(prefixFault) && this.options.nodeId.startsWith(nodeId)) return;
    if (this.options.faults.has('scheduler.metadata-node-id-ignored') && !SHORT_ID.test(nodeId)) return;
    if (SHORT_ID.test(nodeId) && !this.options.faults.has('scheduler.short-ids-accepted')) throw new ClientError(400, `node_id must be the full node ID, not the short form "${nodeId}"`);
    if (nodeId === this.options.nodeId || (this.options.faults.has('scheduler.short-ids-accepted') && this.options.nodeId.startsWith(nodeId))) return;
    throw new ClientError(404, `Unknown node ${nodeId}`);
  }

  /** `prefixFault`: a fault that resolves a short ID by prefix on one endpoint only. */
  private allocId(raw: string | undefined, prefixFault?: string): string {
    const id = raw ?? '';
    if (SHORT_ID.test(id)) {
      const full = [...this.fs.allocations.keys()].find((k) => k.startsWith(id));
      const f = this.options.faults;
      if ((f.has('scheduler.short-ids-accepted') || (prefixFault !== undefined && f.has(prefixFault))) && full) return full;
      throw new ClientError(400, `alloc ID must be the full ID, not the short form "${id}"`);
    }
    if (!FULL_ID.test(id)) throw new ClientError(400, 'must provide a valid alloc id');
    if (!this.fs.exists(id)) throw new ClientError(404, `Unknown allocation "${id}"`);
    return id;
  }

  // --- event stream -------------------------------------------------------------------------

  private parseSubscription(url: URL): { index: number; sub: Subscription } {
    const rawIndex = url.searchParams.get('index');
    if (rawIndex !== null && !/^\d+$/.test(rawIndex) && !this.options.faults.has('scheduler.events-bad-index-accepted')) throw new ClientError(400, `Unable to parse index: ${JSON.stringify(rawIndex)} is not a non-negative integer`);
    const topics = new Map<string, string[]>();
    const given = url.searchParams.getAll('topic');
    for (const t of given.length ? given : ['*:*']) {
      const parts = t.split(':');
      // Nomad's parseTopic (command/agent/event_endpoint.go) refuses only more than one colon: an
      // empty topic or key ('Job:') is taken as given. The spec dialect refuses those too.
      const empty = parts[0] === '' || (parts.length === 2 && parts[1] === '');
      if (parts.length > 2 || (empty && !this.nomad)) throw new ClientError(400, `Invalid topic query: error parsing topics: Invalid key value pair for topic, topic: ${t}`);
      const [topic, key = '*'] = parts as [string, string?];
      topics.set(topic, [...(topics.get(topic) ?? []), this.options.faults.has('scheduler.events-bare-topic-no-keys') && parts.length === 1 ? '' : key]);
    }
    const namespace = url.searchParams.get('namespace') || 'default';
    if (given.length === 0 && this.options.faults.has('scheduler.events-default-topic-node')) {
      topics.clear();
      topics.set('Node', ['*']);
    }
    return { index: rawIndex === null || !/^\d+$/.test(rawIndex) ? 0 : Number(rawIndex), sub: { topics, namespace } };
  }

  private async eventStream({ req, res, url }: RouteContext): Promise<void> {
    const f = this.options.faults;
    const { index, sub } = this.parseSubscription(url);
    const token = this.tokenOf(req);
    if (!f.has('scheduler.events-acl-unchecked')) {
      const aclOptions = { nodeDrainNeedsManagement: this.nomad, aclTopicsOpen: f.has('scheduler.events-acl-topics-open') };
      // The fault checks namespace '*' as if it were 'default'.
      // The second checks every namespace as 'default' (the token's read-job there opens all of them).
      const namespace = (sub.namespace === '*' && f.has('scheduler.events-namespace-star-open')) || f.has('scheduler.events-acl-namespace-as-default') ? 'default' : sub.namespace;
      const topics = [...sub.topics.keys()];
      for (const topic of f.has('scheduler.events-acl-first-topic-only') ? topics.slice(0, 1) : topics) {
        if (!SchedulerAcl.canSubscribe(token, topic, namespace, aclOptions)) throw new ClientError(403, `Permission denied: the token may not read topic ${topic} in namespace ${sub.namespace}`);
      }
    }
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache' });
    res.flushHeaders();
    if (!f.has('scheduler.events-no-initial-heartbeat')) res.write('{}\n');
    const oldest = this.broker.oldestIndex;
    const skipBacklog =
      f.has('scheduler.events-backlog-skipped') ||
      (f.has('scheduler.events-evicted-index-empty') && oldest !== undefined && index > 0 && index < oldest) ||
      (f.has('scheduler.events-evicted-starts-live') && this.broker.wasEvicted(index));
    // The backlog and then the live frames, each serialised once for all subscribers (StreamFanout).
    const unsubscribe = this.fanout.subscribe(sub, res, f.has('scheduler.events-index-ignored') ? 0 : index, skipBacklog);
    const heartbeat = setInterval(() => void (res.writableEnded || res.write('{}\n')), this.options.heartbeatMs ?? 10_000);
    await new Promise<void>((resolve) => {
      const done = () => resolve();
      req.once('close', done);
      res.once('close', done);
    });
    clearInterval(heartbeat);
    unsubscribe();
  }

  // --- metadata, stats --------------------------------------------------------------------

  private async readMetadata({ req, res, url }: RouteContext): Promise<void> {
    this.checkNode(url.searchParams.get('node_id'));
    this.requireNode(req, 'read');
    // The fault holds a read with a blocking-query index back for its whole wait, as a blocking
    // query would (5 s without one, at most 60 s).
    if (this.options.faults.has('scheduler.metadata-blocking-query') && url.searchParams.get('index')) {
      const wait = Number(/^(\d+)s$/.exec(url.searchParams.get('wait') ?? '')?.[1] ?? 5);
      await new Promise((r) => setTimeout(r, Math.min(wait, 60) * 1000));
    }
    sendJsonBody(res, 200, this.metadata.view());
  }

  private async updateMetadata({ req, res, url }: RouteContext): Promise<void> {
    let body: Record<string, unknown>;
    try {
      body = parseJsonObject(await readBody(req, MAX_BODY_BYTES));
    } catch (err) {
      if (err instanceof BodyError) {
        if (err.status === 413) closeAfterResponse(req, res);
        return sendPlainError(res, err.status, err.message);
      }
      throw err;
    }
    const nodeId = typeof body.NodeID === 'string' ? body.NodeID : url.searchParams.get('node_id');
    this.checkNode(nodeId);
    this.requireNode(req, 'write');
    try {
      this.metadata.update(body.Meta);
    } catch (err) {
      if (err instanceof MetadataError) return sendPlainError(res, 400, err.message);
      throw err;
    }
    this.publishNode('NodeEvent');
    sendJsonBody(res, 200, this.metadata.view());
  }

  private async stats({ req, res, url }: RouteContext): Promise<void> {
    this.checkNode(url.searchParams.get('node_id'), 'scheduler.stats-short-node-id');
    this.requireNode(req, 'read');
    const f = this.options.faults;
    const stats = await hostStats(this.fs.root, {
      cpuTotalSplit: this.upstream || f.has('scheduler.stats-cpu-total-missing'),
      deviceStatsNull: this.upstream || f.has('scheduler.stats-device-stats-null'),
    });
    if (this.options.faults.has('scheduler.stats-memory-missing')) delete stats.Memory;
    sendJsonBody(res, 200, stats);
  }

  private allocStats({ req, res, params }: RouteContext): void {
    const id = this.allocId(params.alloc);
    const alloc = this.fs.allocations.get(id)!;
    this.requireNamespace(req, alloc.namespace, ['read-job']);
    // Nomad lists usage only for tasks with a usage sample and sums only running ones: a stopped
    // allocation may report none (its tasks ended before they were sampled). The reference shows that.
    const body = allocationStats(alloc.tasks.map((t) => t.name), !(this.nomad && alloc.stopped));
    if (this.options.faults.has('scheduler.alloc-stats-tasks-missing')) delete body.Tasks;
    sendJsonBody(res, 200, body);
  }

  // --- garbage collection -----------------------------------------------------------------

  /** Only a stopped allocation is collected (spec 002: "one stopped allocation"). */
  private async gcAlloc({ req, res, params }: RouteContext): Promise<void> {
    const f = this.options.faults;
    const id = this.allocId(params.alloc, 'scheduler.gc-alloc-short-id');
    this.requireNamespace(req, this.fs.allocations.get(id)!.namespace, ['submit-job']);
    if (!this.fs.allocations.get(id)!.stopped && !f.has('scheduler.gc-alloc-collects-running')) {
      // Nomad: AllocGarbageCollector.Collect finds only terminal allocations; the plain error is a 500.
      if (this.nomad) throw new ClientError(500, 'No such allocation on client, or allocation not eligible for GC');
      throw new ClientError(400, `allocation ${id} is running: only a stopped allocation is collected`);
    }
    if (!f.has('scheduler.gc-keeps-files')) await this.fs.collect(id);
    sendJsonBody(res, 200, {});
  }

  /**
   * Collects every stopped allocation. Nomad's CollectAll starts each destruction in a goroutine and
   * answers at once: the hashicorp dialect, too, answers before the files are gone.
   */
  private async gcAll({ req, res, url }: RouteContext): Promise<void> {
    const f = this.options.faults;
    this.checkNode(url.searchParams.get('node_id'));
    this.requireNode(req, 'write');
    const collected = f.has('scheduler.gc-keeps-files') || f.has('scheduler.gc-all-noop') ? [] : [...this.fs.allocations.values()].filter((a) => a.stopped || f.has('scheduler.gc-all-collects-running'));
    if (this.nomad) {
      const later = setTimeout(() => void Promise.all(collected.map((a) => this.fs.collect(a.id))).catch(() => undefined), GC_ALL_DELAY_MS);
      later.unref();
    } else await Promise.all(collected.map((a) => this.fs.collect(a.id)));
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': 0 });
    res.end();
  }

  // --- files ------------------------------------------------------------------------------

  /**
   * Spec 002's Produces column lists text/plain for ls and stat; Nomad answers their JSON as
   * application/json (command/agent/http.go wrap), a deviation behaviour upstream reproduces.
   */
  private fileInfoType(): Record<string, string> {
    return { 'content-type': this.upstream ? 'application/json' : 'text/plain' };
  }

  private int(url: URL, name: string, required: boolean, fallback = 0): number {
    const raw = url.searchParams.get(name);
    if (raw === null || raw === '') {
      if (required) throw new ClientError(400, `must provide ${name}`);
      return fallback;
    }
    if (!/^\d+$/.test(raw)) throw new ClientError(400, `error parsing ${name}: ${JSON.stringify(raw)} is not a non-negative integer`);
    return Number(raw);
  }

  /**
   * readat's offset and limit; an undefined limit means the rest of the file. Spec 002: "up to limit
   * bytes from offset", so limit 0 reads nothing. Nomad's streamFile (client/fs_endpoint.go) reads
   * to the end for a limit <= 0 (behaviour upstream, or the fault), and its FileReadAtRequest takes
   * a missing limit as 0 (hashicorp dialect: the spec marks limit required but states no refusal).
   */
  private readatRange(url: URL): { offset: number; limit: number | undefined } {
    const offset = this.int(url, 'offset', true);
    const limit = this.int(url, 'limit', !this.nomad, 0);
    const unbounded = limit === 0 && (this.upstream || this.options.faults.has('scheduler.readat-limit-zero-unbounded') || (this.nomad && !url.searchParams.get('limit')));
    return { offset, limit: unbounded ? undefined : limit };
  }

  private bool(url: URL, name: string, fallback: boolean): boolean {
    const raw = url.searchParams.get(name);
    if (raw === null || raw === '') return fallback;
    if (/^(true|1)$/i.test(raw)) return true;
    if (/^(false|0)$/i.test(raw)) return false;
    throw new ClientError(400, `failed to parse ${name} field to boolean: ${JSON.stringify(raw)}`);
  }

  private origin(url: URL, fallback: 'start' | 'end' = 'start'): 'start' | 'end' {
    const raw = url.searchParams.get('origin') ?? fallback;
    if (raw !== 'start' && raw !== 'end' && this.options.faults.has('scheduler.fs-bad-origin-accepted')) return 'start';
    if (raw !== 'start' && raw !== 'end') throw new ClientError(400, 'origin must be start or end');
    return raw;
  }

  /**
   * Whether the containment check applies to this request's path. Faults drop it for the streaming
   * reads only, or check the path before percent-decoding it (so '%2e%2e' passes as a name).
   */
  private confined(url: URL, op: string): boolean {
    const f = this.options.faults;
    if (f.has('scheduler.fs-stream-path-escape') && (op === 'stream' || op === 'readat')) return false;
    if (f.has('scheduler.readat-path-escape') && op === 'readat') return false;
    if (f.has('scheduler.fs-escape-check-before-decoding')) {
      const raw = url.search.slice(1).split('&').find((p) => p.startsWith('path='))?.slice(5) ?? '';
      return raw.includes('..');
    }
    return true;
  }

  private async fsOp(ctx: RouteContext): Promise<void> {
    const { req, res, url, params } = ctx;
    const f = this.options.faults;
    const id = this.allocId(params.alloc, params.op === 'readat' ? 'scheduler.readat-short-id' : undefined);
    this.requireNamespace(req, this.fs.allocations.get(id)!.namespace, params.op === 'logs' ? ['read-logs', 'read-fs'] : ['read-fs']);
    const given = url.searchParams.get('path');
    if (f.has('scheduler.fs-path-required') && !given) throw new ClientError(400, 'must provide a file name');
    // Spec 002 gives stat the default path '/'; Nomad's FileStatRequest refuses a missing path.
    if (params.op === 'stat' && !given && (this.upstream || f.has('scheduler.fs-stat-path-required'))) throw new ClientError(400, 'must provide a file name');
    let path = given || '/';
    let confined = this.confined(url, params.op ?? '');
    // Faults: a second percent-decoding after the containment check; an absolute path taken from the machine's root.
    if (f.has('scheduler.fs-path-decoded-twice') && path.includes('%')) {
      if (!this.fs.isInside(id, path)) throw new PathEscapeError(`Path "${path}" escapes the alloc directory`);
      path = safeDecode(path);
      confined = false;
    }
    if (f.has('scheduler.fs-absolute-path-from-root') && path.startsWith('/') && path !== '/' && !path.includes('..')) {
      path = `${'../'.repeat(32)}${path.slice(1)}`;
      confined = false;
    }
    const framing = this.nomad ? 'nomad' : 'lines';
    switch (params.op) {
      case 'ls': {
        const list = await this.fs.list(id, path);
        return sendJsonBody(res, 200, f.has('scheduler.ls-sizes-zero') ? list.map((e) => ({ ...e, Size: 0 })) : list, this.fileInfoType());
      }
      case 'stat': {
        const full = this.fs.inside(id, path, confined);
        await this.fs.real(id, path, confined);
        return sendJsonBody(res, 200, await this.fs.info(full, path === '/' ? '/' : path.replace(/\/+$/, '').split('/').pop()!), this.fileInfoType());
      }
      case 'cat': {
        const s = await this.fs.stat(id, path, confined);
        if (s.isDir) throw new ClientError(400, `file "${path}" is a directory`);
        const bytes = await this.fs.read(id, path, confined);
        const out = f.has('scheduler.cat-truncated') && bytes.length > 1 ? bytes.subarray(0, bytes.length - 1) : bytes;
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': out.length });
        return void res.end(out);
      }
      case 'readat': {
        const { offset, limit } = this.readatRange(url);
        const s = await this.fs.stat(id, path, confined);
        if (s.isDir) throw new ClientError(400, `file "${path}" is a directory`);
        const bytes = await this.fs.read(id, path, confined);
        const start = Math.min(f.has('scheduler.readat-off-by-one') && offset > 0 ? offset - 1 : offset, bytes.length);
        const out = bytes.subarray(start, limit === undefined ? bytes.length : Math.min(start + limit, bytes.length));
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': out.length });
        return void res.end(out);
      }
      case 'stream': {
        // Spec 002 marks offset required without stating a refusal; Nomad's Stream defaults it to 0.
        const offset = this.int(url, 'offset', !this.nomad, 0);
        const origin = this.origin(url, f.has('scheduler.stream-default-origin-end') ? 'end' : 'start');
        // Spec 002: follow defaults to true for files (false for logs, below).
        const follow = this.bool(url, 'follow', !f.has('scheduler.stream-follow-default-false')) || f.has('scheduler.stream-follow-false-tails');
        const s = await this.fs.stat(id, path, confined);
        if (s.isDir) throw new ClientError(400, `file "${path}" is a directory`);
        // Spec 002: stream produces text/plain (Nomad's answer has no type of its own; Go sniffs its JSON frames as text/plain).
        return streamFile(req, res, { file: s.full, name: path, offset, origin, follow, plain: false, framing, framedType: f.has('scheduler.stream-content-type-json') ? 'application/json' : 'text/plain', faults: f });
      }
      case 'logs': {
        const task = url.searchParams.get('task');
        if (!task) throw new ClientError(400, 'must provide task name');
        const type = url.searchParams.get('type');
        if (type !== 'stdout' && type !== 'stderr') throw new ClientError(400, 'must provide log type (stdout/stderr)');
        const spec = this.fs.allocations.get(id)!.tasks.find((t) => t.name === task);
        // The fault takes any task name, and builds the log file's path from it.
        const unchecked = f.has('scheduler.logs-task-path-escape');
        if (!spec && !unchecked) throw new ClientError(400, `unknown task name "${task}"`);
        const follow = this.bool(url, 'follow', f.has('scheduler.logs-follow-default-true')) && !f.has('scheduler.logs-follow-ignored');
        const plain = this.bool(url, 'plain', false);
        const offset = this.int(url, 'offset', false, 0);
        const origin = this.origin(url, f.has('scheduler.logs-default-origin-end') ? 'end' : 'start');
        if (spec?.logsDisabled) {
          if (f.has('scheduler.logs-disabled-empty')) {
            res.writeHead(200, { 'content-type': plain ? 'text/plain' : 'application/json' });
            return void res.end();
          }
          throw new ClientError(404, `logging is disabled for task "${task}"`);
        }
        const file = this.fs.logPath(id, task, type);
        await stat(file);
        // Nomad's logsImpl (client/fs_endpoint.go) negates the offset for origin=end, and findClosest
        // takes an offset of 0 as the start of the log file it picked, the newest: offset 0 from the
        // end is that file from its first byte, not from its end (behaviour upstream; expectations/nomad.json).
        const from = this.upstream && origin === 'end' && offset === 0 ? 'start' : origin;
        return streamFile(req, res, { file, name: `alloc/logs/${task}.${type}.0`, offset, origin: from, follow, plain: plain && !f.has('scheduler.logs-plain-framed'), framing, framedType: this.upstream ? 'application/json' : 'text/plain', faults: f });
      }
      default:
        throw new ClientError(404, 'Invalid method');
    }
  }
}
