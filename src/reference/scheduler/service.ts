import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dialect } from '../../config/dialects.ts';
import type { FaultSet } from '../faults/types.ts';
import { BodyError, closeAfterResponse, parseJsonObject, readBody } from '../http/body.ts';
import { sendJsonBody, sendPlainError } from '../http/plain-errors.ts';
import { Router, type RouteContext, type RouteHandler } from '../http/router.ts';
import { MetadataError, NodeMetadata } from './node-metadata.ts';

const MAX_BODY_BYTES = 1024 * 1024;

export interface SchedulerServiceOptions {
  dialect: Dialect;
  faults: FaultSet;
  nodeId: string;
  managementToken: string;
  staticMeta: Record<string, string>;
}

/** The embedded scheduler: one client node answering the /v1/client endpoints. */
export class SchedulerService {
  private readonly router = new Router<RouteHandler>();
  private readonly metadata: NodeMetadata;

  constructor(private readonly options: SchedulerServiceOptions) {
    this.metadata = new NodeMetadata(options.staticMeta, options.faults);
    this.router.add('GET', '/v1/client/metadata', (ctx) => this.readMetadata(ctx));
    this.router.add('POST', '/v1/client/metadata', (ctx) => this.updateMetadata(ctx));
  }

  async handle(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://reference.invalid');
    const match = this.router.match(method, url.pathname);
    if (match.kind === 'not-found') {
      sendPlainError(res, 404, 'Invalid method');
      return;
    }
    if (match.kind === 'method-not-allowed') {
      sendPlainError(res, 405, 'Invalid method');
      return;
    }
    if (!this.authorised(req)) {
      req.resume();
      sendPlainError(res, 403, 'Permission denied');
      return;
    }
    await match.handler({ req, res, url, params: match.params });
  }

  private authorised(req: IncomingMessage): boolean {
    const carrier = this.options.dialect.scheduler.token;
    const raw = req.headers[carrier.header.toLowerCase()];
    const fromCarrier = typeof raw === 'string' ? (carrier.scheme ? raw.replace(/^Bearer\s+/i, '') : raw) : undefined;
    const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const token = fromCarrier ?? bearer;
    return token === this.options.managementToken;
  }

  /** node_id may be omitted (this node answers) or must be this node's full ID. */
  private checkNode(nodeId: string | null | undefined, res: ServerResponse): boolean {
    if (nodeId === null || nodeId === undefined || nodeId === '') return true;
    if (nodeId === this.options.nodeId) return true;
    sendPlainError(res, 404, `Unknown node ${nodeId}`);
    return false;
  }

  private readMetadata({ res, url }: RouteContext): void {
    if (!this.checkNode(url.searchParams.get('node_id'), res)) return;
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
    if (!this.checkNode(nodeId, res)) return;
    try {
      this.metadata.update(body.Meta);
    } catch (err) {
      if (err instanceof MetadataError) return sendPlainError(res, 400, err.message);
      throw err;
    }
    sendJsonBody(res, 200, this.metadata.view());
  }
}
