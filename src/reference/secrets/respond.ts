import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/** The secrets service answers every status >= 400 with {"errors":[...]}, and sets Content-Type on every body. */
export function sendErrors(res: ServerResponse, status: number, errors: string[]): void {
  sendJson(res, status, { errors });
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

export function sendNoContent(res: ServerResponse): void {
  if (res.headersSent) return;
  res.writeHead(204);
  res.end();
}

/** The envelope the service wraps read results in. */
export function dataEnvelope(data: unknown, extra: { lease_duration?: number; warnings?: string[] | null } = {}): Record<string, unknown> {
  return {
    request_id: randomUUID(),
    lease_id: '',
    renewable: false,
    lease_duration: extra.lease_duration ?? 0,
    data,
    wrap_info: null,
    warnings: extra.warnings ?? null,
    auth: null,
  };
}

/** What an engine answers; the service turns it into HTTP. */
export type EngineResult =
  | { kind: 'data'; data: unknown; status?: number; leaseDuration?: number }
  | { kind: 'raw'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'no-content' }
  | { kind: 'error'; status: number; errors: string[] };

export const notFound = (): EngineResult => ({ kind: 'error', status: 404, errors: [] });
export const badRequest = (...errors: string[]): EngineResult => ({ kind: 'error', status: 400, errors });
