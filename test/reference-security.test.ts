import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parseJsonValues } from '../src/client/json-value-stream.ts';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placeAllocation } from './support/fixture-allocation.ts';
import { startReference, type ReferenceWithControl } from '../src/reference/reference.ts';

/** Security properties of the reference, each checked over generated inputs. */
describe('the reference keeps its secrets', () => {
  let ref: ReferenceWithControl;
  const call = async (url: string, init: Parameters<typeof request>[1] = {}) => {
    const res = await request(url, { ...init, signal: AbortSignal.timeout(5_000) });
    return { status: res.statusCode, text: await res.body.text(), headers: res.headers };
  };
  const control = (path: string, body: unknown) => call(`${ref.control.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${ref.control.token}` }, body: JSON.stringify(body) });
  beforeAll(async () => {
    ref = await startReference();
  });
  afterAll(async () => ref.stop());

  it('reads no data without a token, on any system', async () => {
    const root = { 'X-Service-Token': ref.secrets.token };
    expect((await call(`${ref.secrets.url}/v1/secret/sec/known`, { method: 'POST', headers: root, body: '{"v":"top-secret-value"}' })).status).toBe(204);
    const paths = fc.oneof(
      fc.constantFrom('secret/sec/known', 'secret/sec/', 'kv-v2/data/x', 'identity/oidc/client/x', 'identity/oidc/scope/', 'auth/cloudauth/config', 'auth/cloudauth/role/x').map((p) => ({ url: `${ref.secrets.url}/v1/${p}`, system: 'secrets' })),
      fc.constantFrom('/v1/agent/connect/ca/leaf/web', '/v1/agent/connect/authorize').map((p) => ({ url: `${ref.mesh.url}${p}`, system: 'mesh' })),
      fc.constantFrom('/v1/client/metadata', '/v1/client/stats', '/v1/event/stream?topic=Job', '/v1/client/gc').map((p) => ({ url: `${ref.scheduler.url}${p}`, system: 'scheduler' })),
    );
    await fc.assert(
      fc.asyncProperty(paths, fc.constantFrom('GET', 'POST', 'LIST'), fc.constantFrom(undefined, '', 'bogus', 'Bearer x'), async ({ url, system }, method, token) => {
        const headers: Record<string, string> = {};
        if (token !== undefined) headers[system === 'secrets' ? 'X-Service-Token' : 'authorization'] = token;
        const res = await call(url, { method: method === 'LIST' && system !== 'secrets' ? 'GET' : method, headers, body: method === 'POST' ? '{}' : undefined });
        expect(res.status, `${method} ${url} without a valid token is refused`).toBeGreaterThanOrEqual(400);
        expect(res.text).not.toContain('top-secret-value');
      }),
      { numRuns: 150 },
    );
  });

  it('keeps a token of one namespace out of the others', async () => {
    const root = { 'X-Service-Token': ref.secrets.token };
    for (const ns of ['', 'team-a/', 'team-b/']) {
      const res = await call(`${ref.secrets.url}/v1/${ns}secret/iso/value`, { method: 'POST', headers: root, body: JSON.stringify({ ns: ns || 'root' }) });
      expect(res.status).toBe(204);
    }
    const entity = await control('/v1/control/secrets/entities', { namespace: 'team-a/', name: 'iso-entity' });
    const token = (JSON.parse(entity.text) as { token: string }).token;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('', 'team-b/', 'team-a/', 'team-a/app/'), fc.boolean(), async (ns, viaHeader) => {
        const url = viaHeader ? `${ref.secrets.url}/v1/secret/iso/value` : `${ref.secrets.url}/v1/${ns}secret/iso/value`;
        const headers: Record<string, string> = { 'X-Service-Token': token };
        if (viaHeader && ns) headers['X-Service-Namespace'] = ns;
        const res = await call(url, { headers });
        const inside = ns.startsWith('team-a/');
        if (inside) expect(res.status, `a team-a token reaches ${ns || 'root'}`).not.toBe(403);
        else {
          expect(res.status, `a team-a token does not reach ${ns || 'the root namespace'}`).toBe(403);
          expect(res.text).not.toContain('"ns"');
        }
      }),
      { numRuns: 40 },
    );
  });

  it('stops a token with num_uses after exactly that many uses', async () => {
    const { simulatorUrl, simulatorToken, tenantId } = ref.secrets.cloud;
    const root = { 'X-Service-Token': ref.secrets.token };
    expect((await call(`${ref.secrets.url}/v1/auth/cloudauth/config`, { method: 'POST', headers: root, body: JSON.stringify({ tenant_id: tenantId, resource: 'https://r.example/' }) })).status).toBe(204);
    const sim = (path: string, body: unknown) => call(`${simulatorUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${simulatorToken}` }, body: JSON.stringify(body) });
    const m = JSON.parse((await sim('/simulator/machines', { name: 'uses-vm' })).text) as { name: string; subscription_id: string; resource_group: string };
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 6 }), async (uses) => {
        const role = `uses${uses}${Math.random().toString(36).slice(2, 6)}`;
        expect((await call(`${ref.secrets.url}/v1/auth/cloudauth/role/${role}`, { method: 'POST', headers: root, body: JSON.stringify({ token_num_uses: uses }) })).status).toBe(204);
        const jwt = (JSON.parse((await sim('/simulator/tokens', { machine: m.name, audience: 'https://r.example/' })).text) as { jwt: string }).jwt;
        const login = await call(`${ref.secrets.url}/v1/auth/cloudauth/login`, { method: 'POST', body: JSON.stringify({ role, jwt, subscription_id: m.subscription_id, resource_group_name: m.resource_group, vm_name: m.name }) });
        const token = (JSON.parse(login.text) as { auth: { client_token: string } }).auth.client_token;
        const statuses: number[] = [];
        for (let i = 0; i < uses + 2; i++) statuses.push((await call(`${ref.secrets.url}/v1/secret/iso/value`, { headers: { 'X-Service-Token': token } })).status);
        expect(statuses, `num_uses ${uses}`).toEqual([...Array(uses).fill(200), 403, 403]);
      }),
      { numRuns: 12 },
    );
  });

  it('never follows a redirect URI: authorize answers JSON and contacts no other host', async () => {
    let contacted = 0;
    const foreign = createServer((_req, res) => {
      contacted += 1;
      res.end('hi');
    });
    await new Promise<void>((r) => foreign.listen(0, '127.0.0.1', () => r()));
    const port = (foreign.address() as { port: number }).port;
    try {
      const root = { 'X-Service-Token': ref.secrets.token };
      const entity = JSON.parse((await control('/v1/control/secrets/entities', { name: 'redirect-entity' })).text) as { id: string; token: string };
      expect((await call(`${ref.secrets.url}/v1/identity/oidc/assignment/redir`, { method: 'POST', headers: root, body: JSON.stringify({ entity_ids: [entity.id] }) })).status).toBe(204);
      await fc.assert(
        fc.asyncProperty(fc.stringMatching(/^\/[a-z]{1,10}(\/[a-z]{1,6})?$/), fc.constantFrom('', '?x=1', '#f'), async (path, suffix) => {
          const uri = `http://127.0.0.1:${port}${path}${suffix}`;
          const name = `redir${Math.random().toString(36).slice(2, 8)}`;
          expect((await call(`${ref.secrets.url}/v1/identity/oidc/client/${name}`, { method: 'POST', headers: root, body: JSON.stringify({ redirect_uris: [uri], assignments: ['redir'] }) })).status).toBe(204);
          const clientId = (JSON.parse((await call(`${ref.secrets.url}/v1/identity/oidc/client/${name}`, { headers: root })).text) as { data: { client_id: string } }).data.client_id;
          expect((await call(`${ref.secrets.url}/v1/identity/oidc/provider/${name}`, { method: 'POST', headers: root, body: JSON.stringify({ allowed_client_ids: ['*'] }) })).status).toBe(204);
          const q = new URLSearchParams({ client_id: clientId, redirect_uri: uri, response_type: 'code', scope: 'openid', state: 's' });
          const res = await call(`${ref.secrets.url}/v1/identity/oidc/provider/${name}/authorize?${q}`, { headers: { 'X-Service-Token': entity.token } });
          expect(res.status, 'authorize answers, it does not redirect').toBe(200);
          expect(res.headers.location).toBeUndefined();
        }),
        { numRuns: 20 },
      );
      expect(contacted, 'the redirect URI host was never contacted').toBe(0);
    } finally {
      await new Promise<void>((r) => foreign.close(() => r()));
    }
  });

  it('never reads outside an allocation directory, whatever the path', async () => {
    const alloc = { id: await placeAllocation(ref, [{ name: 'app', files: { 'in.txt': 'inside' } }]) };
    // A sentinel next to the allocation directories, and one in the system's temporary folder.
    const probe = JSON.parse((await call(`${ref.scheduler.url}/v1/client/fs/ls/${alloc.id}?path=/`, { headers: { authorization: `Bearer ${ref.scheduler.token}` } })).text) as unknown[];
    expect(probe.length).toBeGreaterThan(0);
    const outside = mkdtempSync(join(tmpdir(), 'stackproof-sentinel-'));
    writeFileSync(join(outside, 'sentinel.txt'), 'SENTINEL-OUTSIDE');
    const segment = fc.constantFrom('..', '%2e%2e', '.%2e', '%2E%2E', '...', '.', '', 'app', '/', '//', '%2f', 'tmp', 'etc');
    const paths = fc.oneof(
      fc.array(segment, { minLength: 1, maxLength: 8 }).map((s) => `${s.join('/')}/sentinel.txt`),
      fc.constantFrom(`${outside}/sentinel.txt`, `../../../../..${outside}/sentinel.txt`, '/etc/passwd', '../../../../../../etc/passwd', '%2e%2e/%2e%2e/%2e%2e/etc/passwd'),
    );
    await fc.assert(
      fc.asyncProperty(paths, fc.constantFrom('cat', 'readat', 'ls', 'stat', 'stream'), async (path, op) => {
        const q = `path=${path.includes('%') ? path : encodeURIComponent(path)}${op === 'readat' ? '&offset=0&limit=100' : ''}${op === 'stream' ? '&offset=0&follow=false' : ''}`;
        const res = await call(`${ref.scheduler.url}/v1/client/fs/${op}/${alloc.id}?${q}`, { headers: { authorization: `Bearer ${ref.scheduler.token}` } });
        expect(res.status, `${op} ${path}`).toBeLessThan(500);
        // Stream frames carry base64: decode them before looking.
        // However the frames are delimited (one per line, or back to back as Nomad writes them).
        const decoded = parseJsonValues(Buffer.from(res.text))
          .values.map((v) => (v as { Data?: unknown }).Data)
          .filter((d): d is string => typeof d === 'string')
          .map((d) => Buffer.from(d, 'base64').toString('utf8'))
          .join('');
        expect(res.text + decoded, `${op} ${path} reads nothing from outside`).not.toMatch(/SENTINEL-OUTSIDE|root:x:0:0/);
      }),
      { numRuns: 300 },
    );
  });
});
