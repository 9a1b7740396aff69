import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createSecureContext, TLSSocket } from 'node:tls';
import { sendJson } from './http-answers.ts';
import { SIMULATED_HOSTS, type CloudSimulator, type SimulatedHost } from './simulator.ts';
import type { PemPair } from './tls-certificates.ts';

/** A CONNECT the proxy saw: the host and port asked for, and whether the proxy took it. */
export interface ProxyArrival {
  target: string;
  taken: boolean;
}

/**
 * The cloud simulator as a product's Azure plugin reaches it: an HTTP proxy (what the plugin's
 * HTTPS_PROXY names) that takes `CONNECT login.microsoftonline.com:443` and
 * `CONNECT management.azure.com:443`, ends the TLS itself with a certificate for those hosts (from
 * the run's certificate authority, which the plugin trusts through SSL_CERT_FILE) and hands each
 * request to the simulator with the host it was meant for. It is no open proxy: a CONNECT to any
 * other host is refused. Plain requests to it are the simulator's plain listener (the harness's
 * control routes).
 *
 * It records what arrives, so that a run can tell "the server never reached the simulator" from
 * "the plugin did not trust its certificate" from "it got an answer".
 */
export class CloudProxy {
  private readonly arrived: ProxyArrival[] = [];
  private readonly handshakeFailures: string[] = [];
  private readonly waiters = new Set<() => void>();
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly inner: Map<SimulatedHost, Server>,
    readonly url: string,
  ) {}

  /** Listens on `host` (default loopback) and `port` (default a free one). */
  static async start(simulator: CloudSimulator, certificate: PemPair, options: { host?: string; port?: number } = {}): Promise<CloudProxy> {
    const context = createSecureContext({ cert: certificate.certPem, key: certificate.keyPem });
    const answer = (reachedAs?: SimulatedHost) => (req: IncomingMessage, res: ServerResponse) => {
      simulator.handle(req, res, req.method ?? 'GET', reachedAs).catch((err: unknown) => sendJson(res, 500, { error: { code: 'InternalError', message: `simulator: ${(err as Error).message}` } }));
    };
    const inner = new Map(SIMULATED_HOSTS.map((h) => [h, createServer({ keepAliveTimeout: 5_000 }, answer(h))] as const));
    const server = createServer({ keepAliveTimeout: 5_000 }, answer());
    const host = options.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const { port } = server.address() as AddressInfo;
    const proxy = new CloudProxy(server, inner, `http://${host.includes(':') ? `[${host}]` : host}:${port}`);
    server.on('connection', (s: Socket) => proxy.track(s));
    server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => proxy.connect(req, socket, head, context));
    return proxy;
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
  }

  private connect(req: IncomingMessage, socket: Socket, head: Buffer, context: ReturnType<typeof createSecureContext>): void {
    const target = req.url ?? '';
    const [host, port] = [target.replace(/:\d+$/, '').toLowerCase(), /:(\d+)$/.exec(target)?.[1]];
    const simulated = SIMULATED_HOSTS.find((h) => h === host);
    const taken = simulated !== undefined && port === '443';
    this.arrived.push({ target, taken });
    for (const wake of this.waiters) wake();
    socket.on('error', () => socket.destroy());
    if (!taken) {
      socket.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nthe stackproof cloud simulator answers only for ${SIMULATED_HOSTS.join(' and ')} on port 443\n`);
      return;
    }
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) socket.unshift(head);
    const tls = new TLSSocket(socket, { isServer: true, secureContext: context });
    tls.on('error', (err) => {
      // OpenSSL's text names the alert the client sent ("... sslv3 alert bad certificate:..."): that part says it.
      const alert = /alert ([a-z ]+?)(?::|$)/.exec(err.message)?.[1];
      this.handshakeFailures.push(`${simulated}: ${alert ? `the client ended the TLS handshake with the alert "${alert}"` : err.message}`);
      tls.destroy();
    });
    this.inner.get(simulated!)!.emit('connection', tls);
  }

  /** Every CONNECT so far, in order. */
  arrivals(): readonly ProxyArrival[] {
    return this.arrived;
  }

  /** TLS connections that broke off (a client that does not trust the certificate says so here). */
  tlsFailures(): readonly string[] {
    return this.handshakeFailures;
  }

  /** Resolves true once any CONNECT has arrived, false when `timeoutMs` passes first. */
  async anyArrival(timeoutMs: number): Promise<boolean> {
    if (this.arrived.length > 0) return true;
    return new Promise((resolve) => {
      const done = (value: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(value);
      };
      const wake = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.waiters.add(wake);
    });
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    for (const s of this.inner.values()) s.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
