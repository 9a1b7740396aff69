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
  const socket = req.socket;
  // After a Connection: close answer node:http calls destroySoon, which destroys the socket as soon
  // as the answer is out: a client still uploading then gets a reset (EPIPE) instead of the answer.
  // Half-close instead and let the rest arrive, for the grace period at most.
  socket.destroySoon = () => {
    socket.end();
    setTimeout(() => socket.destroy(), DRAIN_GRACE_MS).unref();
  };
  res.once('finish', () => req.resume());
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
  return new Promise((resolve, reject) => new BodyCollector(req, limit, resolve, reject).listen());
}

/**
 * One body being read. A class rather than closures: every request with a body makes one, and the
 * loader the reference runs under (tsx, keepNames) renames each closure made on every call.
 */
class BodyCollector {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private readonly onData: (chunk: Buffer) => void;
  private readonly onEnd: () => void;
  private readonly onError: (err: Error) => void;

  constructor(
    private readonly req: IncomingMessage,
    private readonly limit: number,
    private readonly resolve: (body: Buffer) => void,
    private readonly reject: (err: BodyError) => void,
  ) {
    this.onData = this.data.bind(this);
    this.onEnd = this.end.bind(this);
    this.onError = this.error.bind(this);
  }

  listen(): void {
    this.req.on('data', this.onData);
    this.req.on('end', this.onEnd);
    this.req.on('error', this.onError);
  }

  private cleanup(): void {
    this.req.off('data', this.onData);
    this.req.off('end', this.onEnd);
    this.req.off('error', this.onError);
  }

  private data(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.limit) {
      this.cleanup();
      this.req.pause();
      this.reject(new BodyError(413, `request body is over the ${this.limit}-byte limit`));
      return;
    }
    this.chunks.push(chunk);
  }

  private end(): void {
    this.cleanup();
    this.resolve(Buffer.concat(this.chunks));
  }

  private error(err: Error): void {
    this.cleanup();
    this.reject(new BodyError(400, `request body could not be read: ${err.message}`));
  }
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
