import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../src/reference/reference.ts';
import { rawExchange } from './support/raw-http.ts';

/** The mesh reference answers bad input with a clear 4xx: never a 5xx, a crash or a hang. */
describe('mesh reference under bad input', () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startReference();
  });
  afterAll(async () => ref.stop());

  it('refuses bad authorize bodies, service URIs, serials, and index or wait values with a 4xx', async () => {
    const auth = `Authorization: Bearer ${'TOKEN'}`;
    const post = (body: string) => `POST /v1/agent/connect/authorize HTTP/1.1\r\nHost: x\r\n${auth}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const requests = fc.oneof(
      fc.constantFrom('{', '[]', '"x"', 'null', '{"Target":1}', '{"Target":"web"}', '{"Target":"web","ClientCertURI":"spiffe://x/agent/client/dc/dc1/id/1","ClientCertSerial":"0a"}', '{"Target":"web","ClientCertURI":"spiffe://x/ns/default/dc/dc1/svc/api","ClientCertSerial":"zz"}', '{"Target":"","ClientCertURI":"","ClientCertSerial":""}').map(post),
      fc.json().map(post),
      fc.constantFrom('index=abc', 'index=-5', 'index=1&wait=soon', 'index=1&wait=-1s', 'wait=1x', 'index=99999999999999999999999&wait=1s').map((q) => `GET /v1/agent/connect/ca/roots?${q} HTTP/1.1\r\nHost: x\r\n\r\n`),
      fc.constantFrom('%zz', 'a%2Fb', '..', 'web?index=x', `${'a'.repeat(300)}`).map((s) => `GET /v1/agent/connect/ca/leaf/${s} HTTP/1.1\r\nHost: x\r\n${auth}\r\n\r\n`),
    );
    await fc.assert(
      fc.asyncProperty(requests, async (raw) => {
        const [res] = await rawExchange(ref.mesh.url, [raw.replace(/TOKEN/g, ref.mesh.token)]);
        expect(res!.status, `${raw.split('\r\n')[0]} → ${res!.status} ${res!.body.slice(0, 120)}`).toBeLessThan(500);
        if (res!.status >= 400) expect(res!.status).toBeGreaterThanOrEqual(400);
      }),
      { numRuns: 150 },
    );
  });

  it('caps a blocking query at its wait and never hangs past it', async () => {
    const started = performance.now();
    const [res] = await rawExchange(ref.mesh.url, [`GET /v1/agent/connect/ca/roots?index=999999&wait=1s HTTP/1.1\r\nHost: x\r\n\r\n`], 5_000);
    expect(res!.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(3_000);
  });
});

/**
 * The hashicorp dialect with the upstream behaviour acts like a Consul CE agent where the spec leaves
 * a choice: bad input is still a clear 4xx, in Consul's words (agent/http_ce.go parseEntMeta,
 * agent/http.go decodeBody and parseWait, agent/agent_endpoint.go AgentConnectAuthorize).
 */
describe('mesh reference as Consul CE (hashicorp dialect, upstream behaviour) under bad input', () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp', behavior: 'upstream' });
  });
  afterAll(async () => ref.stop());

  const leafPath = '/v1/agent/connect/ca/leaf/web';
  const get = (path: string, headers = '') => `GET ${path} HTTP/1.1\r\nHost: x\r\nX-Consul-Token: TOKEN\r\n${headers}\r\n`;
  const post = (body: string, extra = '') =>
    `POST /v1/agent/connect/authorize${extra} HTTP/1.1\r\nHost: x\r\nX-Consul-Token: TOKEN\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const send = async (raw: string) => (await rawExchange(ref.mesh.url, [raw.replace(/TOKEN/g, ref.mesh.token)]))[0]!;

  it('refuses namespaces with 400, as Consul CE does, and leaves Namespace out of the leaf', async () => {
    const header = await send(get(leafPath, 'X-Consul-Namespace: team\r\n'));
    expect(header.status).toBe(400);
    expect(header.body).toBe('Invalid header: "X-Consul-Namespace" - Namespaces are a Consul Enterprise feature');
    const query = await send(get(`${leafPath}?ns=team`));
    expect(query.status).toBe(400);
    expect(query.body).toBe('Invalid query parameter: "ns" - Namespaces are a Consul Enterprise feature');
    const leaf = await send(get(leafPath));
    expect(leaf.status).toBe(200);
    expect(Object.keys(JSON.parse(leaf.body) as object)).not.toContain('Namespace');
    expect(leaf.headers['x-cache'], 'X-Cache on a leaf answer').toMatch(/^(HIT|MISS)$/);
    expect(leaf.headers['x-consul-index']).toMatch(/^[1-9]\d*$/);
    const uri = (JSON.parse(leaf.body) as { ServiceURI: string }).ServiceURI;
    const body = await send(post(JSON.stringify({ Target: 'web', ClientCertURI: uri, Namespace: 'team' })));
    expect(body.status).toBe(400);
    expect(body.body).toBe('Request decode failed: json: unknown field "Namespace"');
  });

  it('decodes authorize strictly and never reads ClientCertSerial, like Consul', async () => {
    const leaf = JSON.parse((await send(get(leafPath))).body) as { ServiceURI: string };
    for (const [raw, status, text] of [
      [post(''), 400, 'Request decode failed: EOF'],
      [post('{"Target":"web","Extra":1}'), 400, 'Request decode failed: json: unknown field "Extra"'],
      [post('{"Target":42}'), 400, /^Request decode failed: json: cannot unmarshal number/],
      [post('{"ClientCertURI":"x"}'), 400, 'Target service must be specified'],
      [post('{"Target":"web","ClientCertURI":"not a uri"}'), 400, 'ClientCertURI not a valid Connect identifier'],
      [post('{"Target":"web","ClientCertURI":"spiffe://x.consul/agent/client/dc/dc1/id/1"}'), 400, 'ClientCertURI not a valid Service identifier'],
      [post(JSON.stringify({ target: 'web', clientcerturi: leaf.ServiceURI, ClientCertSerial: 'not-hex' })), 200, /"Reason":"Default behavior configured by ACLs"/],
    ] as const) {
      const res = await send(raw);
      expect(res.status, `${raw.split('\r\n\r\n')[1]} → ${res.status} ${res.body}`).toBe(status);
      if (typeof text === 'string') expect(res.body).toBe(text);
      else expect(res.body).toMatch(text);
      expect(res.headers['x-consul-default-acl-policy'], 'every answer carries the default ACL policy').toBe('deny');
    }
  });

  it('refuses ACL failures with 403 in Consul\'s words, and blocking parameters as Consul parses them', async () => {
    const noToken = (await rawExchange(ref.mesh.url, [`GET ${leafPath} HTTP/1.1\r\nHost: x\r\n\r\n`]))[0]!;
    expect(noToken.status).toBe(403);
    expect(noToken.body).toMatch(/^Permission denied: token with AccessorID '00000000-0000-0000-0000-000000000002' lacks permission 'service:write' on "web"$/);
    const unknown = (await rawExchange(ref.mesh.url, [`GET ${leafPath} HTTP/1.1\r\nHost: x\r\nX-Consul-Token: nope\r\n\r\n`]))[0]!;
    expect([unknown.status, unknown.body]).toEqual([403, 'ACL not found']);
    for (const [query, status] of [
      ['index=18446744073709551616', 400],
      ['index=1&wait=10', 400],
      ['index=1&wait=1x', 400],
      ['index=&wait=', 200],
      ['index=1&wait=0', 200],
      ['index=1&wait=100ms', 200],
    ] as const) {
      const res = await send(get(`/v1/agent/connect/ca/roots?${query}`));
      expect(res.status, `roots?${query} → ${res.status} ${res.body}`).toBe(status);
    }
  });
});
