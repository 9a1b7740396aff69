import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { ListMethodSocket } from './list-method-adapter.ts';

export type RequestHandler = (req: IncomingMessage, res: ServerResponse, method: string) => void | Promise<void>;

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * A real HTTP/1.1 listener on loopback whose handlers also receive the LIST method (see
 * ListMethodSocket). A handler that throws answers 500 instead of taking the process down.
 */
export async function startHttpServer(
  name: string,
  handler: RequestHandler,
  onError: (req: IncomingMessage, res: ServerResponse, err: unknown) => void,
  options: { host?: string; port?: number } = {},
): Promise<RunningServer> {
  const marker = `x-stackproof-method-${randomBytes(6).toString('hex')}`;
  const http = createHttpServer({ requestTimeout: 0, headersTimeout: 30_000, keepAliveTimeout: 5_000 }, (req, res) => {
    const method = req.headers[marker] === 'LIST' ? 'LIST' : (req.method ?? 'GET');
    delete req.headers[marker];
    let result: void | Promise<void>;
    try {
      result = handler(req, res, method);
    } catch (err) {
      onError(req, res, err);
      return;
    }
    if (result instanceof Promise) result.catch((err) => onError(req, res, err));
  });
  const sockets = new Set<Socket>();
  const tcp = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    http.emit('connection', new ListMethodSocket(socket, marker));
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
