import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../src/reference/reference.ts';
import { rawExchange } from './support/raw-http.ts';

/** The secrets reference answers bad input with a 4xx and {"errors":[...]}: never a 5xx, a crash or a hang. */
describe('secrets reference under bad input', () => {
  let ref: RunningReference;
  let token: string;
  beforeAll(async () => {
    ref = await startReference();
    token = ref.secrets.token;
  });
  afterAll(async () => ref.stop());

  const expectClientError = (res: { status: number; body: string }, what: string) => {
    expect(res.status, `${what}: ${res.status} ${res.body.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
    expect(res.status, `${what}: never a 5xx`).toBeLessThan(500);
    expect(Array.isArray((JSON.parse(res.body) as { errors?: unknown }).errors), `${what}: error body`).toBe(true);
  };

  it('refuses malformed bodies, wrong types, odd methods, traversal and bad encodings with a 4xx', async () => {
    const requestLine = fc.oneof(
      // Malformed or wrongly typed JSON bodies on a write.
      fc.oneof(fc.constantFrom('{', '[]', '"x"', '1', 'null', '{"a":', '\u0000', '{"a":"b"}x'), fc.json().filter((j) => !j.startsWith('{'))).map((body) => ({
        what: `POST with body ${JSON.stringify(body)}`,
        raw: `POST /v1/secret/bad HTTP/1.1\r\nHost: x\r\nX-Service-Token: ${token}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      })),
      // Methods the service does not have.
      fc.constantFrom('PATCH', 'OPTIONS', 'PROPFIND', 'MKCOL', 'COPY', 'TRACE', 'PURGE').map((m) => ({ what: `${m}`, raw: `${m} /v1/secret/x HTTP/1.1\r\nHost: x\r\nX-Service-Token: ${token}\r\n\r\n` })),
      // Traversal and encodings that would change the path's shape.
      fc.constantFrom('/v1/secret/../sys/x', '/v1/secret/%2e%2e/x', '/v1/secret/a%2Fb', '/v1/secret/%00', '/v1/secret/%E0%A4%A', '/v1/secret/./x', '/v1/%zz').map((p) => ({
        what: `GET ${p}`,
        raw: `GET ${p} HTTP/1.1\r\nHost: x\r\nX-Service-Token: ${token}\r\n\r\n`,
      })),
      // Bad query values.
      fc.constantFrom('list=maybe', 'list=%ff', 'list=').map((q) => ({ what: `GET ?${q}`, raw: `GET /v1/secret/?${q} HTTP/1.1\r\nHost: x\r\nX-Service-Token: ${token}\r\n\r\n` })),
      // Bad tokens and namespace headers.
      fc.constantFrom('', 'x', 'Bearer', '../../etc').map((t) => ({ what: `token ${JSON.stringify(t)}`, raw: `GET /v1/secret/x HTTP/1.1\r\nHost: x\r\nX-Service-Token: ${t}\r\n\r\n` })),
      fc.constantFrom('../', 'no-such-ns/', '%2e%2e/').map((ns) => ({ what: `namespace ${ns}`, raw: `GET /v1/secret/x HTTP/1.1\r\nHost: x\r\nX-Service-Token: ${token}\r\nX-Service-Namespace: ${ns}\r\n\r\n` })),
    );
    await fc.assert(
      fc.asyncProperty(requestLine, async ({ what, raw }) => {
        const [res] = await rawExchange(ref.secrets.url, [raw]);
        expectClientError(res!, what);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a request declared over 32 MB at once, without waiting for the body', async () => {
    const started = performance.now();
    const [res] = await rawExchange(ref.secrets.url, [
      `POST /v1/secret/huge HTTP/1.1\r\nHost: x\r\nX-Service-Token: ${token}\r\nContent-Type: application/json\r\nContent-Length: ${40 * 1024 * 1024}\r\n\r\n{"a":"`,
    ]);
    expectClientError(res!, 'a 40 MB declared body');
    expect(res!.status).toBe(413);
    expect(performance.now() - started, 'answered before any more of the body was sent').toBeLessThan(2_000);
  });

  it('cuts off a chunked body that grows past 32 MB', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    const res = await new Promise<string>((resolve) => {
      const socket = connect(Number(new URL(ref.secrets.url).port), '127.0.0.1');
      let out = '';
      socket.on('data', (d) => {
        out += d.toString('latin1');
        if (out.includes('\r\n\r\n')) {
          socket.destroy();
          resolve(out);
        }
      });
      socket.on('error', () => resolve(out));
      socket.on('close', () => resolve(out));
      socket.write(`POST /v1/secret/huge HTTP/1.1\r\nHost: x\r\nX-Service-Token: ${token}\r\nTransfer-Encoding: chunked\r\n\r\n`);
      let sent = 0;
      const pump = () => {
        while (sent < 40 && !socket.destroyed) {
          sent += 1;
          if (!socket.write(`${chunk.length.toString(16)}\r\n${chunk.toString('latin1')}\r\n`)) return void socket.once('drain', pump);
        }
      };
      pump();
    });
    expect(res).toMatch(/^HTTP\/1\.1 413/);
  });

  it('still answers normally after all of that', async () => {
    const [res] = await rawExchange(ref.secrets.url, [`GET /v1/secret/nothing?list=true HTTP/1.1\r\nHost: x\r\nX-Service-Token: ${token}\r\n\r\n`]);
    expect(res!.status).toBe(404);
    expect(JSON.parse(res!.body)).toEqual({ errors: [] });
  });
});
