import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FixedRequestClient, serialiseRequest, type AnswerCallback } from '../src/load/fixed-request-client.ts';

const servers: Server[] = [];
const clients: FixedRequestClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))));
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

function client(...args: ConstructorParameters<typeof FixedRequestClient>): FixedRequestClient {
  const c = new FixedRequestClient(...args);
  clients.push(c);
  return c;
}

/** One send, as a promise of what the callback got. */
function send(c: FixedRequestClient): Promise<{ err?: Error; status: number; body?: string }> {
  return new Promise((resolve, reject) => {
    const cb: AnswerCallback = (err, status, body) => resolve({ err, status, body: body?.toString() });
    if (!c.send(cb)) reject(new Error('refused'));
  });
}

/** A raw TCP server that answers each request head with whatever `answer` writes. */
function rawServer(answer: (socket: Socket, request: string) => void): Server {
  return createTcpServer((socket) => {
    let pending = '';
    socket.on('data', (d) => {
      pending += d.toString('latin1');
      let at: number;
      while ((at = pending.indexOf('\r\n\r\n')) >= 0) {
        const head = pending.slice(0, at);
        pending = pending.slice(at + 4);
        answer(socket, head);
      }
    });
    socket.on('error', () => undefined);
  });
}

describe('fixed-request client', () => {
  it('sends each request of the sequence in turn, with its headers and body, and reads status and content-length bodies', async () => {
    const seen: { method: string; url: string; header: string | undefined; body: string; host: string | undefined }[] = [];
    const url = await listen(
      createHttpServer((req: IncomingMessage, res) => {
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', () => {
          seen.push({ method: req.method!, url: req.url!, header: req.headers['x-token'] as string | undefined, body, host: req.headers.host });
          res.writeHead(req.method === 'POST' ? 201 : 404, { 'content-type': 'text/plain' });
          res.end(`answer to ${req.method} ${req.url}`);
        });
      }),
    );
    const c = client(url, [
      { method: 'GET', path: '/a?x=1', headers: { 'x-token': 't1' } },
      { method: 'POST', path: '/b', headers: { 'content-type': 'application/json' }, body: '{"k":"v"}' },
    ], { maxConnections: 4, keepBodies: true });
    const answers = [];
    for (let k = 0; k < 4; k++) answers.push(await send(c));
    expect(answers.map((a) => [a.err, a.status, a.body])).toEqual([
      [undefined, 404, 'answer to GET /a?x=1'],
      [undefined, 201, 'answer to POST /b'],
      [undefined, 404, 'answer to GET /a?x=1'],
      [undefined, 201, 'answer to POST /b'],
    ]);
    expect(seen[0]).toEqual({ method: 'GET', url: '/a?x=1', header: 't1', body: '', host: new URL(url).host });
    expect(seen[1]).toMatchObject({ method: 'POST', url: '/b', body: '{"k":"v"}' });
  });

  it('reads chunked bodies, including chunks and trailers split across reads', async () => {
    const url = await listen(
      createHttpServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        // Written in separate pieces with pauses, so they reach the client in separate reads.
        res.write('first ');
        setTimeout(() => {
          res.write('second ');
          setTimeout(() => res.end('third'), 5);
        }, 5);
      }),
    );
    const c = client(url, [{ method: 'GET', path: '/', headers: {} }], { maxConnections: 1, keepBodies: true });
    expect(await send(c)).toEqual({ err: undefined, status: 200, body: 'first second third' });
    // A chunked answer byte by byte: every state of the parser resumes across reads.
    const bytes = 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nx-trailer: 1\r\n\r\n';
    const slow = await listen(
      rawServer((socket) => {
        let k = 0;
        const next = () => {
          if (k < bytes.length) socket.write(bytes[k++]!, () => setImmediate(next));
        };
        next();
      }),
    );
    const s = client(slow, [{ method: 'GET', path: '/', headers: {} }], { maxConnections: 1, keepBodies: true });
    expect(await send(s)).toEqual({ err: undefined, status: 200, body: 'hello world' });
    expect(await send(s)).toEqual({ err: undefined, status: 200, body: 'hello world' });
    expect(s.connections).toBe(1);
  });

  it('reuses a keep-alive connection, and opens more only while every open one is busy', async () => {
    let connections = 0;
    const server = createHttpServer((_req, res) => setTimeout(() => res.end('ok'), 20));
    server.on('connection', () => (connections += 1));
    const url = await listen(server);
    const c = client(url, [{ method: 'GET', path: '/', headers: {} }], { maxConnections: 3 });
    for (let k = 0; k < 5; k++) expect((await send(c)).status).toBe(200);
    expect(connections).toBe(1);
    // Three at once need three connections; a fourth is refused, not queued.
    const three = [send(c), send(c), send(c)];
    expect(c.send(() => undefined)).toBe(false);
    expect((await Promise.all(three)).map((a) => a.status)).toEqual([200, 200, 200]);
    expect(connections).toBe(3);
    expect(c.connections).toBe(3);
  });

  it('preconnect opens connections before any send, at most maxConnections, and sends use them without opening more', async () => {
    let connections = 0;
    const server = createHttpServer((_req, res) => setTimeout(() => res.end('ok'), 20));
    server.on('connection', () => (connections += 1));
    const url = await listen(server);
    const c = client(url, [{ method: 'GET', path: '/', headers: {} }], { maxConnections: 3 });
    await c.preconnect(5);
    expect(c.connections).toBe(3);
    // Connected on the client's side; the server's accept callbacks may run a turn later.
    await vi.waitFor(() => expect(connections).toBe(3));
    expect((await Promise.all([send(c), send(c), send(c)])).map((a) => a.status)).toEqual([200, 200, 200]);
    expect(connections).toBe(3);
  });

  it('preconnect to a port nobody listens on returns, and sends then fail with an error, not a hang', async () => {
    const closed = createTcpServer();
    const url = await listen(closed);
    await new Promise<void>((r) => closed.close(() => r()));
    servers.splice(servers.indexOf(closed), 1);
    const c = client(url, [{ method: 'GET', path: '/', headers: {} }], { maxConnections: 2 });
    await c.preconnect(2, 2_000);
    expect(c.connections).toBe(0);
    expect((await send(c)).err).toBeDefined();
  });

  it('with the queue option, a send finding every connection busy waits for the next one free, or fails at its deadline', async () => {
    let connections = 0;
    const server = createHttpServer((req, res) => setTimeout(() => res.end(req.url), req.url === '/stuck' ? 10_000 : 20));
    server.on('connection', () => (connections += 1));
    const url = await listen(server);
    const c = client(url, [{ method: 'GET', path: '/', headers: {} }], { maxConnections: 2, queue: true, keepBodies: true });
    const five = [send(c), send(c), send(c), send(c), send(c)];
    expect(c.waiting).toBe(3);
    expect((await Promise.all(five)).map((a) => [a.err, a.status])).toEqual(Array.from({ length: 5 }, () => [undefined, 200]));
    expect(connections).toBe(2);
    expect(c.waiting).toBe(0);
    // One connection held by an answer that never comes: the send queued behind it times out too.
    const stuck = client(url, [{ method: 'GET', path: '/stuck', headers: {} }], { maxConnections: 1, queue: true, timeoutMs: 200 });
    const [first, second] = await Promise.all([send(stuck), send(stuck)]);
    expect(first.err?.message).toMatch(/no complete answer within 200 ms/);
    // Either it waited in the queue past its deadline, or it got the connection the first one freed and then timed out on it.
    expect(second.err?.message).toMatch(/within 200 ms/);
  });

  it('takes a body that ends with the connection, and a 204 with none', async () => {
    const url = await listen(
      rawServer((socket, head) => {
        if (head.startsWith('GET /empty')) socket.write('HTTP/1.1 204 No Content\r\n\r\n');
        else socket.end('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nuntil the end');
      }),
    );
    const c = client(url, [{ method: 'GET', path: '/empty', headers: {} }, { method: 'GET', path: '/close', headers: {} }], { maxConnections: 2, keepBodies: true });
    expect(await send(c)).toEqual({ err: undefined, status: 204, body: '' });
    expect(await send(c)).toEqual({ err: undefined, status: 200, body: 'until the end' });
    expect(await send(c)).toEqual({ err: undefined, status: 204, body: '' });
  });

  it('a server that closes mid-answer, answers garbage or does not answer gives an error, never a hang', async () => {
    const closes = await listen(rawServer((socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nshort')));
    const garbage = await listen(rawServer((socket) => socket.write('this is not HTTP at all\r\n\r\n')));
    const badLength = await listen(rawServer((socket) => socket.write('HTTP/1.1 200 OK\r\ncontent-length: lots\r\n\r\n')));
    const badChunk = await listen(rawServer((socket) => socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n')));
    const endless = await listen(rawServer((socket) => socket.write(`HTTP/1.1 200 OK\r\nx: ${'a'.repeat(70_000)}`)));
    const silent = await listen(rawServer(() => undefined));
    const refused = await listen(rawServer(() => undefined));
    await new Promise<void>((r) => servers.pop()!.close(() => r()));
    const started = performance.now();
    const answers = await Promise.all(
      [closes, garbage, badLength, badChunk, endless, silent, refused].map((url) => send(client(url, [{ method: 'GET', path: '/', headers: {} }], { maxConnections: 1, timeoutMs: 300 }))),
    );
    expect(performance.now() - started).toBeLessThan(5_000);
    const messages = answers.map((a) => {
      expect(a.status).toBe(0);
      expect(a.err).toBeInstanceOf(Error);
      return a.err!.message;
    });
    expect(messages[0]).toMatch(/closed before the answer was complete/);
    expect(messages[1]).toMatch(/not an HTTP\/1\.x status line/);
    expect(messages[2]).toMatch(/bad content-length/);
    expect(messages[3]).toMatch(/bad chunk size/);
    expect(messages[4]).toMatch(/no end of line within/);
    expect(messages[5]).toMatch(/no complete answer within 300 ms/);
    expect(messages[6]).toMatch(/ECONNREFUSED/);
  });

  it('refuses a request a CR or LF would split, and plain http only', () => {
    expect(() => serialiseRequest({ method: 'GET', path: '/', headers: { 'x-a': 'b\r\nx-injected: 1' } }, 'h')).toThrow(/CR or LF/);
    expect(() => new FixedRequestClient('https://127.0.0.1:1', [{ method: 'GET', path: '/', headers: {} }], { maxConnections: 1 })).toThrow(/plain HTTP/);
    expect(serialiseRequest({ method: 'POST', path: '/p', headers: { 'content-length': '999', a: 'b' }, body: 'xy' }, 'h:1').toString()).toBe('POST /p HTTP/1.1\r\nhost: h:1\r\na: b\r\ncontent-length: 2\r\n\r\nxy');
  });
});
