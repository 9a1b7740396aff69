import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dialect } from '../../config/dialects.ts';
import type { ReferenceBehavior } from '../behavior.ts';
import type { FaultSet } from '../faults/types.ts';
import { BodyError, closeAfterResponse, parseJsonObject, readBody } from '../http/body.ts';
import { sendJsonBody, sendPlainError } from '../http/plain-errors.ts';
import { Router, type RouteContext, type RouteHandler } from '../http/router.ts';
import { namespaceMatches, SchedulerAcl, type NamespaceCapability, type SchedulerToken } from './acl.ts';
import { AclStore } from './acl-policies.ts';
import { AllocationFs, PathEscapeError } from './alloc-fs.ts';
import { ClientError } from './client-error.ts';
import { Cluster } from './cluster.ts';
import { NomadApi } from './nomad-api.ts';
import { admitJob } from './nomad-job/admit.ts';
import { EventBroker, type Frame, type MatchRules, type Subscription } from './event-broker.ts';
import { StreamFanout } from './stream-fanout.ts';
import { FsEndpoints } from './fs-endpoints.ts';
import { memdbUuidError } from './memdb-uuid.ts';
import { NOMAD_VERSION } from './nomad-version.ts';
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
  /** The Nomad release to answer as in the hashicorp dialect (default nomad-version.ts NOMAD_VERSION). */
  nomadVersion?: string;
}

/** The agent's region and the node's datacenter, as `nomad agent -dev` names them. */
export const REGION = 'global';


/**
 * How many frames the event broker keeps. Nomad's default event_buffer_size is 100, and behaviour
 * upstream keeps that. Otherwise the buffer is larger: every action now produces several frames
 * (register, plan, evaluation, client updates), and with 100 a run's own earlier frames would leave
 * the buffer before the rules that replay them from an index read them.
 */
export const EVENT_BUFFER_FRAMES = { upstream: 100, otherwise: 256 } as const;

/** The Node fields the fault scheduler.events-node-payload-missing-fields leaves out of Node events. */
const NODE_FIELDS_DROPPED = ['Datacenter', 'SchedulingEligibility', 'Status', 'Drain'];


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
  private readonly files: FsEndpoints;
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
      flaws: {
        filterKeysIgnored: f.has('scheduler.events-filter-key-ignored'),
        namespaceIgnored: f.has('scheduler.events-namespace-ignored'),
      },
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
    this.files = new FsEndpoints({
      fs: this.fs,
      faults: f,
      nomad: this.nomad,
      upstream: this.upstream,
      version: options.nomadVersion ?? NOMAD_VERSION,
      allocId: (raw, prefixFault) => this.allocId(raw, prefixFault),
      requireNamespace: (req, namespace, caps) => this.requireNamespace(req, namespace, caps),
    });
    this.acls = new AclStore(this.broker, options.managementToken, this.nomad, options.faults);
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
    this.nomadApi = new NomadApi({ cluster: this.cluster, acls: this.acls, broker: this.broker, node: this, nomad: this.nomad, region: REGION, version: options.nomadVersion });
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
    const admitted = admitJob(body, { namespaceParam: null, region: REGION, version: this.options.nomadVersion });
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
      return this.sendError(res, url.pathname, 403, 'Permission denied');
    }
    try {
      await match.handler({ req, res, url, params: match.params });
    } catch (err) {
      if (err instanceof ClientError) return this.sendError(res, url.pathname, err.status, err.message);
      // Nomad's allocdir error names no path: "Path escapes the alloc directory".
      if (err instanceof PathEscapeError) return this.sendError(res, url.pathname, this.escapeStatus(url.pathname), this.nomad ? 'Path escapes the alloc directory' : err.message);
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return this.sendError(res, url.pathname, 404, 'no such file or directory');
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

  /**
   * A refusal as plain text. Behaviour upstream answers every cat and readat refusal with 200 and its
   * text, as Nomad does: command/agent/http.go wrapUntrustedContent closes helper/noxssrw's writer
   * when the handler returns, and its Write of the empty buffer commits a 200 (Content-Type
   * text/plain; charset=utf-8, sniffed from nothing) before wrap writes the error with the status it
   * meant, which Go drops ("superfluous WriteHeader"). Since 0.10.5; listed in expectations/nomad.json.
   */
  private sendError(res: ServerResponse, pathname: string, status: number, message: string): void {
    const f = this.options.faults;
    const as200 = this.upstream || f.has('scheduler.cat-readat-errors-200') || f.has('scheduler.readat-escape-as-nomad');
    sendPlainError(res, as200 && /^\/v1\/client\/fs\/(cat|readat)\//.test(pathname) ? 200 : status, message);
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

  /** The fault scheduler.events-acl-first-grants-kept: each secret's grants as first resolved. */
  private readonly keptGrants = new Map<string, SchedulerToken>();
  private firstGrants(req: IncomingMessage): SchedulerToken {
    const secret = this.secretOf(req) ?? '';
    if (!this.keptGrants.has(secret)) this.keptGrants.set(secret, this.tokenOf(req));
    return this.keptGrants.get(secret)!;
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
    const decides = (c: NamespaceCapability) => (f.has('scheduler.acl-any-matching-block') ? anyMatchingBlockGrants(t, namespace, c) : SchedulerAcl.can(t, namespace, c));
    const holds = (c: NamespaceCapability) => decides(c) || (f.has('scheduler.client-acl-namespace-ignored') && heldAnywhere(t, c));
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
    const shortAccepted = this.options.faults.has('scheduler.short-ids-accepted') && this.options.nodeId.startsWith(nodeId);
    if (nodeId === this.options.nodeId || shortAccepted) return;
    if (this.nomad) {
      // Nomad: another node's ID goes to the servers (command/agent/helpers.go rpcHandlerForNode), whose
      // state store refuses one go-memdb cannot index, a plain error: 500 "node lookup failed: index error: …".
      const refused = memdbUuidError(nodeId);
      if (refused) throw new ClientError(500, `node lookup failed: index error: ${refused}`);
    } else if (SHORT_ID.test(nodeId)) throw new ClientError(400, `node_id must be the full node ID, not the short form "${nodeId}"`);
    throw new ClientError(404, `Unknown node ${nodeId}`);
  }

  /** `prefixFault`: a fault that resolves a short ID by prefix on one endpoint only. */
  private allocId(raw: string | undefined, prefixFault?: string): string {
    const id = raw ?? '';
    if (SHORT_ID.test(id)) {
      const full = [...this.fs.allocations.keys()].find((k) => k.startsWith(id));
      const f = this.options.faults;
      if ((f.has('scheduler.short-ids-accepted') || (prefixFault !== undefined && f.has(prefixFault))) && full) return full;
      if (!this.nomad) throw new ClientError(400, `alloc ID must be the full ID, not the short form "${id}"`);
    }
    // Nomad: an ID the local client does not hold goes to the server, whose state store looks it up
    // through go-memdb's UUIDFieldIndex: a plain error, 500 (command/agent/helpers.go rpcHandlerForAlloc;
    // nomad/state/state_store.go AllocByID "alloc lookup failed: %v"; go-memdb UUIDFieldIndex parseString).
    if (this.nomad && id !== '' && !FULL_ID.test(id)) {
      const refused = memdbUuidError(id);
      throw refused ? new ClientError(500, `alloc lookup failed: index error: ${refused}`) : new ClientError(404, `Unknown allocation "${id}"`);
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
    // The fault keeps what a token could do at its first subscription: a later policy change is not seen.
    const token = f.has('scheduler.events-acl-first-grants-kept') ? this.firstGrants(req) : this.tokenOf(req);
    if (!f.has('scheduler.events-acl-unchecked')) {
      // The fault checks namespace '*' as if it were 'default'.
      // The second checks every namespace as 'default' (the token's read-job there opens all of them).
      const namespace = (sub.namespace === '*' && f.has('scheduler.events-namespace-star-open')) || f.has('scheduler.events-acl-namespace-as-default') ? 'default' : sub.namespace;
      const topics = [...sub.topics.keys()];
      for (const topic of f.has('scheduler.events-acl-first-topic-only') ? topics.slice(0, 1) : topics) {
        if (f.has('scheduler.events-acl-topics-open') && (topic === 'ACLToken' || topic === 'ACLPolicy')) continue;
        if (!SchedulerAcl.canSubscribe(token, topic, namespace)) throw new ClientError(403, `Permission denied: the token may not read topic ${topic} in namespace ${sub.namespace}`);
      }
    }
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache' });
    res.flushHeaders();
    if (!f.has('scheduler.events-no-initial-heartbeat')) res.write('{}\n');
    const skipBacklog =
      f.has('scheduler.events-backlog-skipped') ||
      (f.has('scheduler.events-evicted-index-empty') && index > 0 && index < (this.broker.oldestIndex ?? 0)) ||
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
    // The fault applies the update before it checks the node and the token: a refused write lands.
    const early = this.options.faults.has('scheduler.metadata-written-before-acl');
    if (!early) {
      this.checkNode(nodeId);
      this.requireNode(req, 'write');
    }
    try {
      this.metadata.update(body.Meta);
      if (early) {
        this.checkNode(nodeId);
        this.requireNode(req, 'write');
      }
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
    this.requireNamespace(req, this.fs.allocations.get(id)!.namespace, f.has('scheduler.gc-alloc-lifecycle-suffices') ? ['submit-job', 'alloc-lifecycle'] : ['submit-job']);
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

  private fsOp(ctx: RouteContext): Promise<void> {
    return this.files.serve(ctx);
  }
}

/**
 * The fault scheduler.acl-any-matching-block: every namespace block whose name or glob matches
 * grants, rather than the one Nomad picks (the exact block, else the closest glob).
 */
function anyMatchingBlockGrants(t: SchedulerToken, namespace: string, capability: NamespaceCapability): boolean {
  if (t.management) return true;
  return Object.entries(t.capabilities).some(([pattern, caps]) => namespaceMatches(pattern, namespace) && caps.includes(capability) && !caps.includes('deny'));
}

/** The fault scheduler.client-acl-namespace-ignored: a capability held in any namespace grants it in all. */
function heldAnywhere(t: SchedulerToken, capability: NamespaceCapability): boolean {
  return t.management || Object.values(t.capabilities).some((caps) => caps.includes(capability) && !caps.includes('deny'));
}
