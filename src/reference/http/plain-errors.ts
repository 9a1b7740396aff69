import type { ServerResponse } from 'node:http';

/** The mesh agent and the scheduler answer errors as plain text, as their upstream products do (their specs leave errors "not shown"). */
export function sendPlainError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(message), ...headers });
  res.end(message);
}

export function sendJsonBody(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** A JSON body serialised beforehand (an answer kept until what it shows changes). */
export function sendJsonBytes(res: ServerResponse, status: number, body: Buffer, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length, ...headers });
  res.end(body);
}
