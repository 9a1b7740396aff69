import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { acceptListMethod, listRequestFrom } from '../src/reference/http/list-connection.ts';
import { ListMethodRewriter } from '../src/reference/http/list-method-adapter.ts';
import { startHttpServer, type RunningServer } from '../src/reference/http/server.ts';
import { startReference, type RunningReference } from '../src/reference/reference.ts';
import { rawExchange } from './support/raw-http.ts';

describe('the reference accepts the LIST verb (Node rejects unknown methods before any handler)', () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startReference();
  });
  afterAll(async () => ref.stop());

  it('answers a raw LIST request, keep-alive after bodies of both framings', async () => {
    const t = ref.secrets.token;
    const body = JSON.stringify({ note: 'LIST /v1/secret/ HTTP/1.1' });
    const responses = await rawExchange(ref.secrets.url, [
      `POST /v1/secret/raw/a HTTP/1.1\r\nHost: x\r\nX-Service-Token: ${t}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      `PUT /v1/secret/raw/sub/b HTTP/1.1\r\nHost: x\r\nX-Service-Token: ${t}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n4\r\n"b"}\r\n0\r\n\r\n`,
      `LIST /v1/secret/raw HTTP/1.1\r\nHost: x\r\nX-Service-Token: ${t}\r\n\r\n`,
      `LIST /v1/secret/raw/nothing-here HTTP/1.1\r\nHost: x\r\nX-Service-Token: ${t}\r\n\r\n`,
    ]);
    expect(responses.map((r) => r.statusLine)).toEqual(['HTTP/1.1 204 No Content', 'HTTP/1.1 204 No Content', 'HTTP/1.1 200 OK', 'HTTP/1.1 404 Not Found']);
    expect(JSON.parse(responses[2]!.body).data.keys).toEqual(['a', 'sub/']);
    expect(JSON.parse(responses[3]!.body)).toEqual({ errors: [] });
  });

});

/**
 * Writes `pieces` to one connection with a pause between them (so each arrives as a read of its
 * own), and collects what comes back until the server closes or `wantResponses` status lines came.
 */
async function rawPieces(url: string, pieces: string[], wantResponses: number, halfClose = false): Promise<{ text: string; closed: boolean }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.setNoDelay(true);
  socket.on('error', () => undefined);
  let text = '';
  let closed = false;
  const done = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 3_000);
    const check = () => {
      if (closed || (text.match(/HTTP\/1\.1 \d{3}/g)?.length ?? 0) >= wantResponses) {
        clearTimeout(timer);
        resolve();
      }
    };
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      check();
    });
    socket.on('close', () => {
      closed = true;
      check();
    });
  });
  for (const piece of pieces) {
    socket.write(piece);
    await new Promise((r) => setTimeout(r, 30));
  }
  if (halfClose) socket.end();
  await done;
  // Give a close that follows the last answer a moment to arrive.
  await new Promise((r) => setTimeout(r, 50));
  socket.destroy();
  return { text, closed };
}

/** Each answer's body, in order (the test server echoes `<method> <url> <remote address>`). */
function bodies(text: string): string[] {
  const out: string[] = [];
  let rest = text;
  for (let end = rest.indexOf('\r\n\r\n'); end >= 0; end = rest.indexOf('\r\n\r\n')) {
    const length = Number(/content-length: (\d+)/i.exec(rest.slice(0, end))?.[1] ?? 0);
    out.push(rest.slice(end + 4, end + 4 + length));
    rest = rest.slice(end + 4 + length);
  }
  return out;
}

describe('LIST on a listener that reads natively until a connection sends it', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startHttpServer(
      'list-test',
      async (req, res, method) => {
        // /slow answers late, so an answer that overtook it would show.
        if (req.url === '/slow') await new Promise((r) => setTimeout(r, 150));
        const body = `${method} ${req.url} ${req.socket.remoteAddress}`;
        res.writeHead(200, { 'content-length': body.length }).end(body);
      },
      (_req, res, err) => res.writeHead(500).end(String(err)),
    );
  });
  afterAll(async () => server.close());

  const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;
  const list = (path: string) => `LIST ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;

  it('serves LIST as the first request, and every request after it on that connection', async () => {
    const { text } = await rawPieces(server.url, [list('/a'), get('/b'), list('/c')], 3);
    expect(bodies(text)).toEqual(['LIST /a 127.0.0.1', 'GET /b 127.0.0.1', 'LIST /c 127.0.0.1']);
  });

  for (const cut of [1, 2, 3, 4, 5]) {
    it(`serves a LIST whose first ${cut} bytes arrive in a read of their own, after a GET`, async () => {
      const request = list('/split');
      const { text } = await rawPieces(server.url, [get('/before') + request.slice(0, cut), request.slice(cut)], 2);
      expect(bodies(text)).toEqual(['GET /before 127.0.0.1', 'LIST /split 127.0.0.1']);
    });
  }

  it('answers pipelined requests in order when the LIST behind a slow GET is quick', async () => {
    const { text } = await rawPieces(server.url, [get('/slow') + list('/quick') + get('/after')], 3);
    expect(bodies(text)).toEqual(['GET /slow 127.0.0.1', 'LIST /quick 127.0.0.1', 'GET /after 127.0.0.1']);
  });

  it('a client that half-closes after a LIST gets its answer and a clean close, nothing more', async () => {
    const { text, closed } = await rawPieces(server.url, [list('/last')], 2, true);
    expect(bodies(text)).toEqual(['LIST /last 127.0.0.1']);
    expect(text).not.toContain('400');
    expect(closed).toBe(true);
  });

  it('a client cannot pose as LIST by sending the marker header on a native connection', async () => {
    const { text } = await rawPieces(server.url, [`GET /m HTTP/1.1\r\nHost: x\r\nX-Stackproof-Method: LIST\r\n\r\n`], 1);
    expect(bodies(text)).toEqual(['GET /m 127.0.0.1']);
  });

  for (const [what, pieces] of [
    ['an unknown method', ['FOO / HTTP/1.1\r\nHost: x\r\n\r\n']],
    ['a method that starts like LIST', ['LISTS / HTTP/1.1\r\nHost: x\r\n\r\n']],
    ['a method that starts like LIST, after a LIST', [list('/ok'), 'LISTS / HTTP/1.1\r\nHost: x\r\n\r\n']],
  ] as const) {
    it(`answers ${what} as node:http does (400, Connection: close) and closes`, async () => {
      const { text, closed } = await rawPieces(server.url, [...pieces], 5);
      expect(text, JSON.stringify(text)).toSatisfy((t: string) => t.endsWith('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n'));
      expect(closed).toBe(true);
    });
  }
});

describe('a connection moved to LIST reading', () => {
  it('outlives the headers timeout of the parser that stopped at its LIST', async () => {
    // The parser node:http gave the connection saw a request begin and never end: its server times
    // that request out after headersTimeout, which must not close the connection that lives on.
    const http = createServer({ requestTimeout: 0, headersTimeout: 500, connectionsCheckingInterval: 100 }, (req, res) => {
      const body = `${req.method} ${req.url} ${req.socket.remoteAddress}`;
      res.writeHead(200, { 'content-length': body.length }).end(body);
    });
    acceptListMethod(http, 'x-m');
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
      const pause = 'GET /pause HTTP/1.1\r\nHost: x\r\n\r\n';
      // rawPieces waits 30 ms after each piece: 40 empty-ish pauses span 1.2 s, past two checks.
      const { text, closed } = await rawPieces(url, ['LIST /a HTTP/1.1\r\nHost: x\r\n\r\n', ...Array(40).fill(''), pause], 2);
      expect(bodies(text)).toEqual(['GET /a 127.0.0.1', 'GET /pause 127.0.0.1']);
      expect(closed).toBe(false);
    } finally {
      http.closeAllConnections();
      http.close();
    }
  });
});

describe('listRequestFrom', () => {
  const err = (raw: string, at: number, code = 'HPE_INVALID_METHOD') => Object.assign(new Error('x'), { code, rawPacket: Buffer.from(raw, 'latin1'), bytesParsed: at });
  it('finds the LIST request llhttp stopped at, putting back the L or LI of an earlier read', () => {
    expect(listRequestFrom(err('GET / HTTP/1.1\r\n\r\nLIST /a', 20))?.toString()).toBe('LIST /a');
    expect(listRequestFrom(err('IST /a', 1))?.toString()).toBe('LIST /a');
    expect(listRequestFrom(err('ST /a', 0))?.toString()).toBe('LIST /a');
  });
  it('leaves every other error alone', () => {
    expect(listRequestFrom(err('FOO /a', 1))).toBeUndefined();
    expect(listRequestFrom(err('LOST /a', 2))).toBeUndefined();
    expect(listRequestFrom(err('XST /a', 1))).toBeUndefined();
    expect(listRequestFrom(err('LIST /a', 2, 'HPE_INVALID_URL'))).toBeUndefined();
  });
});

describe('ListMethodRewriter', () => {
  const trap = 'LIST / HTTP/1.1\r\n\r\nxxxxxxx';
  const requests = [
    `POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: ${trap.length}\r\n\r\n${trap}`,
    'LIST /b HTTP/1.1\r\nHost: x\r\n\r\n',
    'PUT /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n0\r\nTrailer: y\r\n\r\n',
    'LIST /d HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}',
  ];
  const expected = [
    requests[0],
    'GET /b HTTP/1.1\r\nHost: x\r\nx-m: LIST\r\n\r\n',
    requests[2],
    'GET /d HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nx-m: LIST\r\n\r\n{}',
  ].join('');

  it('drops a client-sent copy of the marker header, so a GET cannot pose as LIST', () => {
    const out = new ListMethodRewriter('x-m').push(Buffer.from('GET /e HTTP/1.1\r\nHost: x\r\nX-M: LIST\r\n\r\n'));
    expect(out.toString('latin1')).toBe('GET /e HTTP/1.1\r\nHost: x\r\n\r\n');
  });

  it('rewrites only request lines, whatever the chunking of the stream', () => {
    const input = Buffer.from(requests.join(''), 'latin1');
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: input.length }), { maxLength: 12 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const rewriter = new ListMethodRewriter('x-m');
        const out: Buffer[] = [];
        let last = 0;
        for (const p of [...points, input.length]) {
          out.push(rewriter.push(input.subarray(last, p)));
          last = p;
        }
        expect(Buffer.concat(out).toString('latin1')).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });
});
