import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dialect } from '../../config/dialects.ts';
import type { ReferenceBehavior } from '../behavior.ts';
import type { FaultSet } from '../faults/types.ts';
import { BodyError, closeAfterResponse, parseJsonObject, readBody } from '../http/body.ts';
import { sendJsonBody, sendPlainError } from '../http/plain-errors.ts';
import { Router, type RouteContext, type RouteHandler } from '../http/router.ts';
import { SchedulerAcl, type SchedulerToken } from './acl.ts';
import { AllocationFs, PathEscapeError } from './alloc-fs.ts';
import { EventBroker, matches, type Frame, type Subscription } from './event-broker.ts';
import { streamFile } from './file-stream.ts';
import { MetadataError, NodeMetadata } from './node-metadata.ts';
import { nodeRecord } from './node.ts';
import { allocationStats, hostStats } from './stats.ts';

const MAX_BODY_BYTES = 1024 * 1024;
const FULL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SHORT_ID = /^[0-9a-f]{8}$/;

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
}

/** A request that cannot be served: the status and the plain-text message. */
class ClientError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The embedded scheduler: its event stream and one client node answering the /v1/client endpoints. */
export class SchedulerService {
  private readonly router = new Router<RouteHandler>();
  private readonly metadata: NodeMetadata;
  readonly acl = new SchedulerAcl();
  readonly broker: EventBroker;
  readonly fs: AllocationFs;
  private nodeState = { drain: false, eligibility: 'eligible', index: 1 };
  private rateTimer?: NodeJS.Timeout;

  constructor(private readonly options: SchedulerServiceOptions) {
    this.metadata = new NodeMetadata(options.staticMeta, options.faults);
    this.broker = new EventBroker(options.faults.has('scheduler.events-tiny-buffer') ? 2 : 1024, options.nextIndex);
    this.fs = new AllocationFs(options.allocRoot, options.faults.has('scheduler.fs-path-escape'));
    this.acl.add({ management: true, nodeRead: true, nodeWrite: true, readJob: ['*'] }, options.managementToken);
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

  /** The node's record as the node topics carry it. */
  node(): Record<string, unknown> {
    return nodeRecord(this.options.nodeId, this.metadata.view().Meta, this.nodeState);
  }

  publishNode(type: string, topic = 'Node'): Frame {
    this.nodeState.index = this.broker.latestIndex + 1;
    return this.broker.publish([{ Topic: topic, Type: type, Key: this.options.nodeId, Namespace: '', FilterKeys: null, Payload: { Node: this.node() } }]);
  }

  setDrain(drain: boolean): void {
    this.nodeState.drain = drain;
    this.nodeState.eligibility = drain ? 'ineligible' : 'eligible';
    this.publishNode('NodeDrain', 'NodeDrain');
  }

  setEligibility(eligible: boolean): void {
    this.nodeState.eligibility = eligible ? 'eligible' : 'ineligible';
    this.publishNode('NodeEligibility');
  }

  /**
   * Reference setup for load: publishes Job events at a steady rate for a bounded time. Each payload
   * carries its creation time (epoch microseconds), so subscribers can measure delivery latency.
   */
  startEventRate(perSecond: number, durationMs: number): { until: number } {
    this.stopEventRate();
    const until = Date.now() + durationMs;
    const interval = 1000 / perSecond;
    const started = performance.now();
    let sent = 0;
    const tick = () => {
      const due = Math.floor((performance.now() - started) / interval) + 1;
      while (sent < due && Date.now() < until) {
        sent += 1;
        const createdUs = Math.round((performance.timeOrigin + performance.now()) * 1000);
        this.broker.publish([{ Topic: 'Job', Type: 'JobRegistered', Key: `load-${sent}`, Namespace: 'default', FilterKeys: null, Payload: { Job: { ID: `load-${sent}`, CreatedAtMicros: createdUs } } }]);
      }
      if (Date.now() >= until) this.stopEventRate();
    };
    this.rateTimer = setInterval(tick, Math.max(1, Math.min(20, interval)));
    return { until };
  }

  stopEventRate(): void {
    if (this.rateTimer) clearInterval(this.rateTimer);
    this.rateTimer = undefined;
  }

  async handle(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://reference.invalid');
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
      if (err instanceof PathEscapeError) return sendPlainError(res, 400, err.message);
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return sendPlainError(res, 404, 'no such file or directory');
      throw err;
    }
  }

  private token(req: IncomingMessage): SchedulerToken | undefined {
    const carrier = this.options.dialect.scheduler.token;
    const raw = req.headers[carrier.header.toLowerCase()];
    const fromCarrier = typeof raw === 'string' ? (carrier.scheme ? /^Bearer\s+(.+)$/i.exec(raw)?.[1] : raw) : undefined;
    const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    return this.acl.get((fromCarrier ?? bearer)?.trim());
  }

  private tokenOf(req: IncomingMessage): SchedulerToken {
    return this.token(req)!;
  }

  /** node_id may be omitted (this node answers) or must be this node's full ID. */
  private checkNode(nodeId: string | null | undefined): void {
    if (nodeId === null || nodeId === undefined || nodeId === '') return;
    if (this.options.faults.has('scheduler.metadata-node-id-ignored') && !SHORT_ID.test(nodeId)) return;
    if (SHORT_ID.test(nodeId) && !this.options.faults.has('scheduler.short-ids-accepted')) throw new ClientError(400, `node_id must be the full node ID, not the short form "${nodeId}"`);
    if (nodeId === this.options.nodeId || (this.options.faults.has('scheduler.short-ids-accepted') && this.options.nodeId.startsWith(nodeId))) return;
    throw new ClientError(404, `Unknown node ${nodeId}`);
  }

  private allocId(raw: string | undefined): string {
    const id = raw ?? '';
    if (SHORT_ID.test(id)) {
      const full = [...this.fs.allocations.keys()].find((k) => k.startsWith(id));
      if (this.options.faults.has('scheduler.short-ids-accepted') && full) return full;
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
    const topics = new Map<string, Set<string>>();
    const given = url.searchParams.getAll('topic');
    for (const t of given.length ? given : ['*:*']) {
      const parts = t.split(':');
      if (parts.length > 2 || parts[0] === '' || (parts.length === 2 && parts[1] === '')) throw new ClientError(400, `Invalid topic query: error parsing topics: Invalid key value pair for topic, topic: ${t}`);
      const [topic, key = '*'] = parts as [string, string?];
      const keys = topics.get(topic) ?? new Set<string>();
      keys.add(this.options.faults.has('scheduler.events-bare-topic-no-keys') && parts.length === 1 ? '' : key);
      topics.set(topic, keys);
    }
    const namespace = url.searchParams.get('namespace') || 'default';
    if (given.length === 0 && this.options.faults.has('scheduler.events-default-topic-node')) {
      topics.clear();
      topics.set('Node', new Set(['*']));
    }
    return { index: rawIndex === null || !/^\d+$/.test(rawIndex) ? 0 : Number(rawIndex), sub: { topics, namespace } };
  }

  private async eventStream({ req, res, url }: RouteContext): Promise<void> {
    const f = this.options.faults;
    const { index, sub } = this.parseSubscription(url);
    const token = this.tokenOf(req);
    if (!f.has('scheduler.events-acl-unchecked')) {
      for (const topic of sub.topics.keys()) {
        if (!SchedulerAcl.canSubscribe(token, topic, sub.namespace)) throw new ClientError(403, `Permission denied: the token may not read topic ${topic} in namespace ${sub.namespace}`);
      }
    }
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const send = (frame: Frame) => {
      const events = frame.Events.filter((e) => matches(e, sub, f)).map((e) => (f.has('scheduler.events-missing-filterkeys') ? { ...e, FilterKeys: undefined } : e));
      if (events.length === 0) return;
      res.write(`${JSON.stringify({ Index: frame.Index, Events: events })}\n`);
    };
    if (!f.has('scheduler.events-no-initial-heartbeat')) res.write('{}\n');
    // Live frames that arrive while the backlog is written are queued, so nothing is lost or doubled.
    const queued: Frame[] = [];
    let replaying = true;
    let lastSent = 0;
    const unsubscribe = this.broker.onFrame((frame) => {
      if (replaying) queued.push(frame);
      else {
        lastSent = frame.Index;
        send(frame);
      }
    });
    const from = f.has('scheduler.events-index-exclusive') ? index + 1 : index;
    if (!f.has('scheduler.events-backlog-skipped')) {
      for (const frame of this.broker.backlog(from, f.has('scheduler.events-evicted-index-empty'))) {
        send(frame);
        lastSent = frame.Index;
      }
    }
    for (const frame of queued) if (frame.Index > lastSent) send(frame);
    replaying = false;
    const heartbeat = setInterval(() => res.write('{}\n'), this.options.heartbeatMs ?? 10_000);
    await new Promise<void>((resolve) => {
      const done = () => resolve();
      req.once('close', done);
      res.once('close', done);
    });
    clearInterval(heartbeat);
    unsubscribe();
  }

  // --- metadata, stats --------------------------------------------------------------------

  private readMetadata({ res, url }: RouteContext): void {
    this.checkNode(url.searchParams.get('node_id'));
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
    try {
      this.metadata.update(body.Meta);
    } catch (err) {
      if (err instanceof MetadataError) return sendPlainError(res, 400, err.message);
      throw err;
    }
    this.publishNode('NodeEvent');
    sendJsonBody(res, 200, this.metadata.view());
  }

  private async stats({ res, url }: RouteContext): Promise<void> {
    this.checkNode(url.searchParams.get('node_id'));
    const stats = await hostStats(this.fs.root);
    if (this.options.faults.has('scheduler.stats-memory-missing')) delete stats.Memory;
    sendJsonBody(res, 200, stats);
  }

  private allocStats({ res, params }: RouteContext): void {
    const id = this.allocId(params.alloc);
    const body = allocationStats(this.fs.allocations.get(id)!.tasks.map((t) => t.name));
    if (this.options.faults.has('scheduler.alloc-stats-tasks-missing')) delete body.Tasks;
    sendJsonBody(res, 200, body);
  }

  // --- garbage collection -----------------------------------------------------------------

  private async gcAlloc({ res, params }: RouteContext): Promise<void> {
    const id = this.allocId(params.alloc);
    if (!this.options.faults.has('scheduler.gc-keeps-files')) await this.fs.collect(id);
    sendJsonBody(res, 200, {});
  }

  private async gcAll({ res, url }: RouteContext): Promise<void> {
    this.checkNode(url.searchParams.get('node_id'));
    if (!this.options.faults.has('scheduler.gc-keeps-files')) {
      if (!this.options.faults.has('scheduler.gc-all-noop')) for (const alloc of this.fs.allocations.values()) if (alloc.stopped) await this.fs.collect(alloc.id);
    }
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': 0 });
    res.end();
  }

  // --- files ------------------------------------------------------------------------------

  private int(url: URL, name: string, required: boolean, fallback = 0): number {
    const raw = url.searchParams.get(name);
    if (raw === null || raw === '') {
      if (required) throw new ClientError(400, `must provide ${name}`);
      return fallback;
    }
    if (!/^\d+$/.test(raw)) throw new ClientError(400, `error parsing ${name}: ${JSON.stringify(raw)} is not a non-negative integer`);
    return Number(raw);
  }

  private bool(url: URL, name: string, fallback: boolean): boolean {
    const raw = url.searchParams.get(name);
    if (raw === null || raw === '') return fallback;
    if (/^(true|1)$/i.test(raw)) return true;
    if (/^(false|0)$/i.test(raw)) return false;
    throw new ClientError(400, `failed to parse ${name} field to boolean: ${JSON.stringify(raw)}`);
  }

  private origin(url: URL): 'start' | 'end' {
    const raw = url.searchParams.get('origin') ?? 'start';
    if (raw !== 'start' && raw !== 'end' && this.options.faults.has('scheduler.fs-bad-origin-accepted')) return 'start';
    if (raw !== 'start' && raw !== 'end') throw new ClientError(400, 'origin must be start or end');
    return raw;
  }

  private async fsOp(ctx: RouteContext): Promise<void> {
    const { req, res, url, params } = ctx;
    const f = this.options.faults;
    const id = this.allocId(params.alloc);
    if (f.has('scheduler.fs-path-required') && !url.searchParams.get('path')) throw new ClientError(400, 'must provide a file name');
    const path = url.searchParams.get('path') || '/';
    switch (params.op) {
      case 'ls': {
        const list = await this.fs.list(id, path);
        return sendJsonBody(res, 200, f.has('scheduler.ls-sizes-zero') ? list.map((e) => ({ ...e, Size: 0 })) : list);
      }
      case 'stat': {
        const full = this.fs.inside(id, path);
        await this.fs.real(id, path);
        return sendJsonBody(res, 200, await this.fs.info(full, path === '/' ? '/' : path.replace(/\/+$/, '').split('/').pop()!));
      }
      case 'cat': {
        const s = await this.fs.stat(id, path);
        if (s.isDir) throw new ClientError(400, `file "${path}" is a directory`);
        const bytes = await this.fs.read(id, path);
        const out = f.has('scheduler.cat-truncated') && bytes.length > 1 ? bytes.subarray(0, bytes.length - 1) : bytes;
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': out.length });
        return void res.end(out);
      }
      case 'readat': {
        const offset = this.int(url, 'offset', true);
        const limit = this.int(url, 'limit', true);
        const s = await this.fs.stat(id, path);
        if (s.isDir) throw new ClientError(400, `file "${path}" is a directory`);
        const bytes = await this.fs.read(id, path);
        const start = f.has('scheduler.readat-off-by-one') && offset > 0 ? offset - 1 : offset;
        const out = bytes.subarray(Math.min(start, bytes.length), Math.min(start + limit, bytes.length));
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': out.length });
        return void res.end(out);
      }
      case 'stream': {
        const offset = this.int(url, 'offset', !f.has('scheduler.stream-offset-optional'), 0);
        const origin = this.origin(url);
        const follow = this.bool(url, 'follow', true);
        const s = await this.fs.stat(id, path);
        if (s.isDir) throw new ClientError(400, `file "${path}" is a directory`);
        return streamFile(req, res, { file: s.full, name: path, offset, origin, follow, plain: false, faults: f });
      }
      case 'logs': {
        const task = url.searchParams.get('task');
        if (!task) throw new ClientError(400, 'must provide task name');
        const type = url.searchParams.get('type');
        if (type !== 'stdout' && type !== 'stderr') throw new ClientError(400, 'must provide log type (stdout/stderr)');
        const spec = this.fs.allocations.get(id)!.tasks.find((t) => t.name === task);
        if (!spec) throw new ClientError(400, `unknown task name "${task}"`);
        const follow = this.bool(url, 'follow', false) && !f.has('scheduler.logs-follow-ignored');
        const plain = this.bool(url, 'plain', false);
        const offset = this.int(url, 'offset', false, 0);
        const origin = this.origin(url);
        if (spec.logsDisabled) {
          if (f.has('scheduler.logs-disabled-empty')) {
            res.writeHead(200, { 'content-type': plain ? 'text/plain' : 'application/json' });
            return void res.end();
          }
          throw new ClientError(404, `logging is disabled for task "${task}"`);
        }
        const file = this.fs.logPath(id, task, type);
        await stat(file);
        return streamFile(req, res, { file, name: `alloc/logs/${task}.${type}.0`, offset, origin, follow, plain: plain && !f.has('scheduler.logs-plain-framed'), faults: f });
      }
      default:
        throw new ClientError(404, 'Invalid method');
    }
  }
}
