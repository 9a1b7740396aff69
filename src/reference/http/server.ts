import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { acceptListMethod, parseErrorStatus } from './list-connection.ts';

export type RequestHandler = (req: IncomingMessage, res: ServerResponse, method: string) => void | Promise<void>;

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface HttpServerOptions {
  host?: string;
  port?: number;
  /**
   * Whether handlers receive the LIST method (default true; see acceptListMethod). A server whose
   * API has no LIST does without it, and a LIST request gets a plain 400 that says so.
   */
  listMethod?: boolean;
}

/**
 * A real HTTP/1.1 listener on loopback whose handlers also receive the LIST method (see
 * acceptListMethod) unless told otherwise. A handler that throws answers 500 instead of taking
 * the process down.
 */
export async function startHttpServer(
  name: string,
  handler: RequestHandler,
  onError: (req: IncomingMessage, res: ServerResponse, err: unknown) => void,
  options: HttpServerOptions = {},
): Promise<RunningServer> {
  const marker = `x-stackproof-method-${randomBytes(6).toString('hex')}`;
  const listMethod = options.listMethod ?? true;
  const http = createHttpServer({ requestTimeout: 0, headersTimeout: 30_000, keepAliveTimeout: 5_000 }, (req, res) => {
    let method = req.method ?? 'GET';
    if (listMethod && req.headers[marker] !== undefined) {
      if (req.headers[marker] === 'LIST') method = 'LIST';
      delete req.headers[marker];
    }
    let result: void | Promise<void>;
    try {
      result = handler(req, res, method);
    } catch (err) {
      onError(req, res, err);
      return;
    }
    if (result instanceof Promise) result.catch((err) => onError(req, res, err));
  });
  // Without the LIST socket, node:http's parser refuses a method it does not know before any
  // handler runs, and its default answer is a bare 400 with no body; a client must still be told
  // what was wrong, in the API's plain-text error form.
  if (listMethod) acceptListMethod(http, marker);
  else http.on('clientError', answerClientError);
  const sockets = new Set<Socket>();
  const tcp = createNetServer((socket) => {
    sockets.add(socket);
    // node:http turns Nagle off on the connections it accepts itself (and Go's net package on every
    // TCP connection, so the upstream products answer without it); these it is handed.
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
    http.emit('connection', socket);
  });
  tcp.on('error', (err) => console.error(`[reference ${name}] listener error: ${err.message}`));
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen(options.port ?? 0, host, () => {
      tcp.off('error', reject);
      resolve();
    });
  });
  const port = (tcp.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        http.close();
        tcp.close(() => resolve());
      }),
  };
}

function answerClientError(err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const [status, reason] = parseErrorStatus(err.code);
  // Only a token-shaped method is echoed back, never arbitrary bytes of the request.
  const method = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,32}(?= )/.exec(err.rawPacket?.toString('latin1') ?? '')?.[0];
  const body =
    err.code === 'HPE_INVALID_METHOD'
      ? `method ${method ?? '(unreadable)'} is not supported by this API\n`
      : `malformed HTTP request: ${reason.toLowerCase()}\n`;
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
