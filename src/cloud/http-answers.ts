import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The few HTTP helpers the cloud simulator needs. It is shared by the embedded reference and by a
 * run against a real product, so it keeps to node:http and does not borrow the reference's own.
 */

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendText(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(message) });
  res.end(message);
}

/** A body over `limit` bytes, or one that could not be read. */
export class BodyRefused extends Error {}

/** Reads a request body of at most `limit` bytes (a larger one is cut off, never buffered whole). */
export function readSmallBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        req.removeAllListeners('data');
        reject(new BodyRefused(`request body is over the ${limit}-byte limit`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', (err) => reject(new BodyRefused(`request body could not be read: ${err.message}`)));
  });
}
