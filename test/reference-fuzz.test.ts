import fc from 'fast-check';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placeAllocation } from './support/fixture-allocation.ts';
import { startReference, type ReferenceWithControl } from '../src/reference/reference.ts';

/**
 * Generated bad requests against every route of the three reference systems: never a 5xx, every
 * error in the system's own format, nothing hanging, and the state a refused request touched left
 * as it was. Runs 10,000 requests.
 */
const RUNS = Number(process.env.STACKPROOF_FUZZ_RUNS ?? 10_000);

type System = 'secrets' | 'mesh' | 'scheduler';

const ROUTES: Record<System, string[]> = {
  secrets: [
    '/v1/secret/fuzz/{key}',
    '/v1/secret/fuzz/',
    '/v1/kv-v2/data/fuzz/{key}',
    '/v1/kv-v2/metadata/fuzz/',
    '/v1/identity/oidc/provider/{name}',
    '/v1/identity/oidc/provider/{name}/authorize',
    '/v1/identity/oidc/provider/{name}/token',
    '/v1/identity/oidc/provider/{name}/userinfo',
    '/v1/identity/oidc/provider/{name}/.well-known/openid-configuration',
    '/v1/identity/oidc/provider/{name}/.well-known/keys',
    '/v1/identity/oidc/scope/{name}',
    '/v1/identity/oidc/client/{name}',
    '/v1/identity/oidc/assignment/{name}',
    '/v1/auth/cloudauth/config',
    '/v1/auth/cloudauth/role/{name}',
    '/v1/auth/cloudauth/login',
    '/v1/{name}/{key}',
    '/{name}',
  ],
  mesh: ['/v1/agent/connect/ca/roots', '/v1/agent/connect/ca/leaf/{name}', '/v1/agent/connect/authorize', '/v1/agent/{name}', '/{name}'],
  scheduler: [
    '/v1/event/stream',
    '/v1/client/metadata',
    '/v1/client/stats',
    '/v1/client/allocation/{alloc}/stats',
    '/v1/client/allocation/{alloc}/gc',
    '/v1/client/gc',
    '/v1/client/fs/cat/{alloc}',
    '/v1/client/fs/readat/{alloc}',
    '/v1/client/fs/stream/{alloc}',
    '/v1/client/fs/logs/{alloc}',
    '/v1/client/fs/ls/{alloc}',
    '/v1/client/fs/stat/{alloc}',
    '/v1/client/{name}/{alloc}',
  ],
};

/** Path parameters: valid-looking, ending in a period, traversal, encodings, empty, long, odd bytes. */
const param = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/),
  fc.constantFrom('x.', '..', '.', '%2e%2e', '%2F', 'a%2Fb', '%00', '%zz', '%E0%A4%A', '', ' ', '日本', '🔑', 'a'.repeat(300), '../../etc/passwd', '0123abcd', 'null', '-1'),
  fc.string({ maxLength: 8 }).map(encodeURIComponent),
);

const queryPairs = fc.array(
  fc.constantFrom('index=abc', 'index=-1', 'index=99999999999999999999', 'wait=soon', 'wait=-1s', 'offset=-5', 'offset=x', 'limit=abc', 'limit=-1', 'list=maybe', 'list=true', 'help=1', 'namespace=*', 'topic=a:b:c', 'topic=Job', 'topic=', 'origin=middle', 'follow=maybe', 'follow=false', 'plain=2', 'task=', 'type=both', 'path=../../', 'path=%2e%2e/x', 'node_id=12345678', 'ns=', 'ns=other'),
  { maxLength: 4 },
);

const bodyArb = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom('{', '[]', '"x"', '1', 'null', '{"a":', '\u0000', '{"Meta":{"a/b":"x"}}', '{"Meta":null}', '{"Target":1}', '{"role":"x","jwt":"y.z.w"}', '{"data":"x"}', '{"token_ttl":"forever"}', '{"client_type":"weird"}', '{"issuer":"ftp://x"}'),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.constant(`{"big":"${'x'.repeat(200_000)}"}`),
);

describe('the reference under generated bad requests', () => {
  let ref: ReferenceWithControl;
  let agent: Agent;
  let alloc: string;
  beforeAll(async () => {
    ref = await startReference();
    agent = new Agent({ connections: 32, headersTimeout: 3_000, bodyTimeout: 3_000 });
    alloc = await placeAllocation(ref, [{ name: 'app', stdout: 'hello\n', files: { 'a.txt': 'a' } }]);
  });
  afterAll(async () => {
    await agent.close();
    await ref.stop();
  });

  it(`answers ${RUNS} generated bad requests without a 5xx, in each system's error format, and never hangs`, async () => {
    const url = { secrets: ref.secrets.url, mesh: ref.mesh.url, scheduler: ref.scheduler.url };
    const token = { secrets: { 'X-Service-Token': ref.secrets.token }, mesh: { authorization: `Bearer ${ref.mesh.token}` }, scheduler: { authorization: `Bearer ${ref.scheduler.token}` } };
    // A canary the fuzz may try to change; a refused request must leave it as it was.
    const canary = await request(`${ref.secrets.url}/v1/secret/fuzz/canary`, { method: 'POST', headers: token.secrets, body: '{"v":"1"}' });
    expect(canary.statusCode).toBe(204);
    await canary.body.dump();
    let canaryWrites = 0;
    const statusCounts = new Map<number, number>();
    const requests = fc.record({
      system: fc.constantFrom<System>('secrets', 'mesh', 'scheduler'),
      route: fc.nat(),
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'LIST', 'PATCH', 'OPTIONS', 'PROPFIND', 'TRACE'),
      key: fc.oneof(fc.constant('canary'), param),
      name: param,
      allocParam: fc.oneof(fc.constant('ALLOC'), param),
      query: queryPairs,
      auth: fc.constantFrom('good', 'none', 'bad'),
      contentType: fc.constantFrom(undefined, 'application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'),
      body: bodyArb,
    });
    await fc.assert(
      fc.asyncProperty(requests, async (r) => {
        const routes = ROUTES[r.system];
        const template = routes[r.route % routes.length]!;
        const path = template.replace('{key}', r.key).replace('{name}', r.name).replace('{alloc}', r.allocParam === 'ALLOC' ? alloc : r.allocParam);
        const headers: Record<string, string> = {};
        if (r.auth === 'good') Object.assign(headers, token[r.system]);
        if (r.auth === 'bad') Object.assign(headers, r.system === 'secrets' ? { 'X-Service-Token': 'hvs.not-a-token' } : { authorization: 'Bearer not-a-token' });
        if (r.contentType) headers['content-type'] = r.contentType;
        const withBody = r.body !== undefined && !['GET', 'TRACE', 'OPTIONS'].includes(r.method);
        const query = r.query.length ? `?${r.query.join('&')}` : '';
        // Streams and blocking queries may legitimately keep answering: headers must still come promptly,
        // except for a blocking query that asked to wait.
        const mayBlock = /index=\d/.test(query) && !/wait=/.test(query);
        let status: number;
        let text = '';
        try {
          const res = await request(`${url[r.system]}${path}${query}`, {
            method: r.method,
            headers,
            body: withBody ? r.body : undefined,
            dispatcher: agent,
            signal: AbortSignal.timeout(mayBlock ? 1_500 : 3_000),
          });
          status = res.statusCode;
          try {
            text = await res.body.text();
          } catch {
            // A stream cut off by the deadline: its status is what matters.
          }
        } catch (err) {
          if (mayBlock && (err as Error).name === 'TimeoutError') return;
          // A 413 may close the connection while the body is still going out.
          if (withBody && r.body!.length > 100_000 && /ECONNRESET|EPIPE|other side closed|SocketError/i.test(String((err as Error).cause ?? err))) return;
          throw new Error(`${r.method} ${r.system} ${path}${query}: no answer (${(err as Error).message})`);
        }
        statusCounts.set(status, (statusCounts.get(status) ?? 0) + 1);
        if (r.system === 'secrets' && path === '/v1/secret/fuzz/canary' && status < 300 && ['POST', 'PUT', 'DELETE'].includes(r.method)) canaryWrites += 1;
        expect(status, `${r.method} ${r.system} ${path}${query} answered ${status}: ${text.slice(0, 200)}`).toBeLessThan(500);
        if (status >= 400) {
          if (r.system === 'secrets' && !/\/(authorize|token|userinfo)(\?|$)/.test(path)) {
            const parsed = (() => {
              try {
                return JSON.parse(text) as { errors?: unknown };
              } catch {
                return undefined;
              }
            })();
            expect(Array.isArray(parsed?.errors), `${r.method} secrets ${path}${query} (${status}) has the {"errors":[...]} body: ${text.slice(0, 120)}`).toBe(true);
          } else {
            expect(text.length, `${r.method} ${r.system} ${path}${query} (${status}) says what was wrong`).toBeGreaterThan(0);
          }
        }
      }),
      { numRuns: RUNS, seed: Number(process.env.STACKPROOF_FUZZ_SEED ?? Date.now() % 2 ** 31) },
    );
    const canaryNow = await request(`${ref.secrets.url}/v1/secret/fuzz/canary`, { headers: token.secrets });
    const canaryBody = await canaryNow.body.text();
    if (canaryWrites === 0) {
      expect(canaryNow.statusCode, 'no request changed the canary, so it is intact').toBe(200);
      expect((JSON.parse(canaryBody) as { data: unknown }).data).toEqual({ v: "1" });
    }
    const total = [...statusCounts.values()].reduce((a, b) => a + b, 0);
    expect(total, 'most requests got an answer to judge').toBeGreaterThan(RUNS * 0.9);
    // The process is still serving.
    const alive = await request(`${ref.mesh.url}/v1/agent/connect/ca/roots`);
    expect(alive.statusCode).toBe(200);
    await alive.body.dump();
  }, 300_000);
});
