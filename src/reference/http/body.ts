import type { IncomingMessage } from 'node:http';

/** The request body could not be used; `status` is the client error to answer with. */
export class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** How long the rest of a refused body may keep arriving before the connection is dropped. */
const DRAIN_GRACE_MS = 10_000;

/**
 * After a 413 the rest of the body is not worth keeping: answer with Connection: close, then
 * discard what is still coming (a client that is mid-upload gets to read the answer instead of a
 * reset) and drop the connection after a grace period.
 */
export function closeAfterResponse(req: IncomingMessage, res: import('node:http').ServerResponse): void {
  if (!res.headersSent) res.setHeader('connection', 'close');
  res.once('finish', () => {
    req.resume();
    setTimeout(() => req.socket.destroy(), DRAIN_GRACE_MS).unref();
  });
}

/**
 * Reads a request body up to `limit` bytes. A declared Content-Length over the limit is refused
 * before reading anything, and a body that grows past it is cut off, so an oversized request is
 * never buffered whole.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    return Promise.reject(new BodyError(413, `request body of ${declared} bytes is over the ${limit}-byte limit`));
  }
  // Listeners rather than for-await: leaving a for-await loop destroys the request, and with it the
  // socket the 413 answer still has to go out on.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        reject(new BodyError(413, `request body is over the ${limit}-byte limit`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(new BodyError(400, `request body could not be read: ${err.message}`));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/**
 * Reads a small JSON object body for a control route; on a bad body, answers the client error
 * (plain text) itself and returns undefined.
 */
export async function readJsonObjectOr4xx(req: IncomingMessage, res: import('node:http').ServerResponse, limit: number): Promise<Record<string, unknown> | undefined> {
  try {
    return parseJsonObject(await readBody(req, limit));
  } catch (err) {
    if (!(err instanceof BodyError)) throw err;
    const message = err.message;
    res.writeHead(err.status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(message) });
    res.end(message);
    return undefined;
  }
}

/** Parses a JSON object body; an empty body is an empty object (the spec does not require Content-Type). */
export function parseJsonObject(body: Buffer): Record<string, unknown> {
  if (body.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new BodyError(400, `failed to parse JSON input: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BodyError(400, 'request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}
