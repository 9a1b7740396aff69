import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dialect } from '../../config/dialects.ts';
import type { FaultSet } from '../faults/types.ts';
import { BodyError, parseJsonObject, readBody } from '../http/body.ts';
import type { Operation, SecretsEngine } from './engine.ts';
import { KvV1Engine } from './kv-v1.ts';
import { dataEnvelope, sendErrors, sendJson, sendNoContent, type EngineResult } from './respond.ts';
import { TokenStore, type TokenEntry } from './token-store.ts';

/** 32 MB, the documented default maximum request size. */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

export interface SecretsServiceOptions {
  dialect: Dialect;
  faults: FaultSet;
}

/** The embedded secrets service: routes /v1/<mount>/<path> to the engine mounted there. */
export class SecretsService {
  readonly tokens = new TokenStore();
  readonly rootToken: TokenEntry;
  private readonly mounts = new Map<string, SecretsEngine>();

  constructor(private readonly options: SecretsServiceOptions) {
    this.rootToken = this.tokens.create({ policies: ['root'], namespace: '' });
    // A fresh install has a key-value engine at secret/.
    this.mounts.set('secret/', new KvV1Engine(options.faults));
  }

  async handle(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://reference.invalid');
    if (!url.pathname.startsWith('/v1/')) {
      sendErrors(res, 404, ['Missing /v1/ prefix in path. Use vault path-help command to retrieve API help for paths']);
      return;
    }
    let path: string;
    try {
      path = decodeURIComponent(url.pathname.slice('/v1/'.length));
    } catch {
      sendErrors(res, 400, ['invalid percent-encoding in request path']);
      return;
    }
    const operation = this.operationFor(method, url.searchParams);
    if (!operation) {
      sendErrors(res, 405, ['unsupported operation']);
      return;
    }
    const token = this.tokens.use(this.tokenFrom(req));
    if (!token) {
      sendErrors(res, 403, ['permission denied']);
      return;
    }
    const mount = this.findMount(path);
    if (!mount) {
      sendErrors(res, 404, [`no handler for route "${path}". route entry not found.`]);
      return;
    }
    let data: Record<string, unknown> = {};
    if (operation === 'create-or-update') {
      try {
        data = parseJsonObject(await readBody(req, MAX_REQUEST_BYTES));
      } catch (err) {
        if (err instanceof BodyError) {
          sendErrors(res, err.status, [err.message]);
          return;
        }
        throw err;
      }
    } else {
      req.resume();
    }
    let rel = path.slice(mount.prefix.length);
    if (operation === 'list' && rel !== '' && !rel.endsWith('/')) rel += '/';
    const result = await mount.engine.handle({ operation, path: rel, data, query: url.searchParams });
    this.send(res, result);
  }

  private operationFor(method: string, query: URLSearchParams): Operation | undefined {
    switch (method) {
      case 'GET':
        return query.get('list') === 'true' ? 'list' : 'read';
      case 'LIST':
        return this.options.faults.has('secrets.list-verb-405') ? undefined : 'list';
      case 'POST':
      case 'PUT':
        return 'create-or-update';
      case 'DELETE':
        return 'delete';
      default:
        return undefined;
    }
  }

  private tokenFrom(req: IncomingMessage): string | undefined {
    const header = req.headers[this.options.dialect.secrets.tokenHeader.toLowerCase()];
    if (typeof header === 'string' && header) return header;
    const auth = req.headers.authorization;
    const bearer = auth && /^Bearer\s+(.+)$/i.exec(auth);
    return bearer ? bearer[1]!.trim() : undefined;
  }

  private findMount(path: string): { prefix: string; engine: SecretsEngine } | undefined {
    let best: { prefix: string; engine: SecretsEngine } | undefined;
    for (const [prefix, engine] of this.mounts) {
      if ((path === prefix.slice(0, -1) || path.startsWith(prefix)) && (!best || prefix.length > best.prefix.length)) {
        best = { prefix, engine };
      }
    }
    return best;
  }

  private send(res: ServerResponse, result: EngineResult): void {
    switch (result.kind) {
      case 'data':
        sendJson(res, result.status ?? 200, dataEnvelope(result.data, { lease_duration: result.leaseDuration }));
        return;
      case 'raw':
        if (result.headers) for (const [k, v] of Object.entries(result.headers)) res.setHeader(k, v);
        sendJson(res, result.status, result.body);
        return;
      case 'no-content':
        sendNoContent(res);
        return;
      case 'error':
        sendErrors(res, result.status, result.errors);
    }
  }
}
