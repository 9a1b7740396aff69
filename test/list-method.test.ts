import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListMethodRewriter } from '../src/reference/http/list-method-adapter.ts';
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
