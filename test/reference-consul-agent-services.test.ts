import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference } from '../src/reference/reference.ts';
import { findConsul, startConsulAgent } from './support/consul-agent.ts';

/**
 * The agent's services, TTL checks and the catalog and health reads of them, hashicorp dialect, as
 * Consul's built-in proxy (`consul connect proxy -register`, `-upstream`) calls them. Every request
 * here is what the proxy (command/connect/proxy/register.go RegisterMonitor; connect/resolver.go
 * ConsulResolver) or `curl` sends, and every expected answer is what real Consul 1.8.7
 * (`consul agent -dev`, ACLs on, default deny) answered to the same request on 2026-11-28. Where a
 * Consul binary is found the same sequence runs against the real agent too, so the expectations
 * stay the product's.
 */
const consul = findConsul();
if (!consul.path) console.log(`reference-consul-agent-services: the real-Consul half is SKIPPED: ${consul.why}`);

interface Target {
  url: string;
  token: string;
  stop(): Promise<void>;
}

const TARGETS: { name: string; reference: boolean; start?: () => Promise<Target> }[] = [
  {
    name: 'the reference (hashicorp dialect)',
    reference: true,
    start: async () => {
      const ref = await startReference({ dialect: 'hashicorp' });
      return { url: ref.mesh.url, token: ref.mesh.token, stop: () => ref.stop() };
    },
  },
  {
    name: `a real Consul (${consul.why})`,
    reference: false,
    start: consul.path ? async () => startConsulAgent(consul.path!) : undefined,
  },
];
const PROXY_REGISTRATION = {
  Kind: 'connect-proxy',
  ID: 'db-proxy',
  Name: 'db-proxy',
  Port: 21000,
  Address: '127.0.0.1',
  Check: { CheckID: 'db-proxy-ttl', Name: 'proxy heartbeat', TTL: '30s', Status: 'passing', Notes: 'Built-in proxy will heartbeat this check.' },
  Checks: null,
  Proxy: { DestinationServiceName: 'db', MeshGateway: {}, Expose: {} },
};

interface Entry {
  Node: { Node: string; Address: string; Datacenter: string };
  Service: { Kind?: string; ID: string; Service: string; Address: string; Port: number; Proxy: { DestinationServiceName?: string }; Connect: { Native?: boolean }; TaggedAddresses?: Record<string, unknown> };
  Checks: { CheckID: string; Status: string; Output: string; Type: string }[];
}

describe.each(TARGETS.filter((t) => t.start))('agent services, TTL checks, catalog and health: $name', ({ reference, start }) => {
  let target: Target;
  beforeAll(async () => {
    if (!start) return;
    target = await start();
  }, 60_000);
  afterAll(async () => target?.stop(), 20_000);
  const call = (method: string, path: string, body?: unknown, token = target.token) =>
    fetch(`${target.url}${path}`, { method, headers: token ? { 'X-Consul-Token': token } : {}, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  const tokenWith = async (name: string, rules: string) => {
    expect((await call('PUT', '/v1/acl/policy', { Name: name, Rules: rules })).status).toBe(200);
    const res = await call('PUT', '/v1/acl/token', { Policies: [{ Name: name }] });
    return ((await res.json()) as { SecretID: string }).SecretID;
  };
  const expectRefusal = async (res: Response, status: number, text: string) => {
    const body = await res.text();
    expect(res.status, body).toBe(status);
    expect(body).toBe(text);
  };

  it('registers the proxy as the built-in proxy sends it; the catalog, health and agent views show it as Consul does', async () => {
    const res = await call('PUT', '/v1/agent/service/register', PROXY_REGISTRATION);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.text()).toBe('');

    const catalog = await call('GET', '/v1/catalog/service/db-proxy?stale=');
    expect(catalog.status).toBe(200);
    expect(Number(catalog.headers.get('x-consul-index'))).toBeGreaterThan(0);
    const [c] = (await catalog.json()) as Record<string, unknown>[];
    // What RegisterMonitor compares to decide whether to register again.
    expect(c).toMatchObject({ ServiceKind: 'connect-proxy', ServiceID: 'db-proxy', ServiceName: 'db-proxy', ServiceAddress: '127.0.0.1', ServicePort: 21000, ServiceProxy: { DestinationServiceName: 'db', MeshGateway: {}, Expose: {} } });
    expect(c!.ServiceTaggedAddresses).toEqual({ lan_ipv4: { Address: '127.0.0.1', Port: 21000 }, wan_ipv4: { Address: '127.0.0.1', Port: 21000 } });
    expect(c!.ServiceWeights).toEqual({ Passing: 1, Warning: 1 });

    // What ConsulResolver asks for an upstream "db".
    const health = await call('GET', '/v1/health/connect/db?passing=1&stale=');
    expect(health.status).toBe(200);
    const entries = (await health.json()) as Entry[];
    expect(entries).toHaveLength(1);
    const e = entries[0]!;
    expect(e.Service).toMatchObject({ Kind: 'connect-proxy', ID: 'db-proxy', Service: 'db-proxy', Address: '127.0.0.1', Port: 21000, Proxy: { DestinationServiceName: 'db' } });
    expect(e.Node).toMatchObject({ Address: '127.0.0.1', Datacenter: 'dc1' });
    expect(e.Checks.map((k) => [k.CheckID, k.Status, k.Type])).toEqual([
      ['serfHealth', 'passing', ''],
      ['db-proxy-ttl', 'passing', 'ttl'],
    ]);
    // The proxy's own name is no connect destination, and a service nobody registered answers [].
    expect(await (await call('GET', '/v1/health/connect/db-proxy')).json()).toEqual([]);
    expect(await (await call('GET', '/v1/health/connect/nosuch?passing=1')).json()).toEqual([]);
    expect(await (await call('GET', '/v1/catalog/service/nosuch')).json()).toEqual([]);

    const services = (await (await call('GET', '/v1/agent/services')).json()) as Record<string, Record<string, unknown>>;
    expect(services['db-proxy']).toMatchObject({ Kind: 'connect-proxy', ID: 'db-proxy', Service: 'db-proxy', Tags: [], Meta: {}, Port: 21000, Address: '127.0.0.1', Proxy: { DestinationServiceName: 'db', MeshGateway: {}, Expose: {} } });
    const checks = (await (await call('GET', '/v1/agent/checks')).json()) as Record<string, Record<string, unknown>>;
    expect(checks['db-proxy-ttl']).toMatchObject({ CheckID: 'db-proxy-ttl', Name: 'proxy heartbeat', Status: 'passing', Notes: 'Built-in proxy will heartbeat this check.', ServiceID: 'db-proxy', ServiceName: 'db-proxy', Type: 'ttl' });
  });

  it('a Connect-native service is its own connect instance; a typical one is not', async () => {
    expect((await call('PUT', '/v1/agent/service/register', { Name: 'native', Port: 5, Connect: { Native: true } })).status).toBe(200);
    expect((await call('PUT', '/v1/agent/service/register', { Name: 'plain', Port: 6 })).status).toBe(200);
    const native = (await (await call('GET', '/v1/health/connect/native?passing=1')).json()) as Entry[];
    expect(native.map((n) => [n.Service.ID, n.Service.Address, n.Service.Connect])).toEqual([['native', '', { Native: true }]]);
    // No Address: the resolver dials the node's address.
    expect(native[0]!.Service.TaggedAddresses).toBeUndefined();
    expect(await (await call('GET', '/v1/health/connect/plain')).json()).toEqual([]);
    expect(((await (await call('GET', '/v1/health/service/plain')).json()) as Entry[]).map((n) => n.Service.ID)).toEqual(['plain']);
  });

  it('a heartbeat passes the TTL check; a critical check or one past its TTL leaves the instance out of ?passing', async () => {
    expect((await call('PUT', '/v1/agent/check/pass/db-proxy-ttl?note=')).status).toBe(200);
    const update = await call('PUT', '/v1/agent/check/update/db-proxy-ttl', { Status: 'critical', Output: 'down' });
    expect(update.status).toBe(200);
    expect(await (await call('GET', '/v1/health/connect/db?passing=1')).json()).toEqual([]);
    const all = (await (await call('GET', '/v1/health/connect/db')).json()) as Entry[];
    expect(all[0]!.Checks[1]).toMatchObject({ Status: 'critical', Output: 'down' });
    expect((await call('PUT', '/v1/agent/check/pass/db-proxy-ttl')).status).toBe(200);
    expect(await (await call('GET', '/v1/health/connect/db?passing=1')).json()).toHaveLength(1);

    // A TTL of 300 ms not renewed: critical with "TTL expired" (agent/checks/check.go CheckTTL).
    expect((await call('PUT', '/v1/agent/service/register', { Name: 'short', Port: 7, Check: { TTL: '300ms', Status: 'passing' } })).status).toBe(200);
    expect(((await (await call('GET', '/v1/health/service/short?passing')).json()) as Entry[]).length).toBe(1);
    // The expiry reaches the catalog when the agent syncs it: polled under a generous bound, not slept for.
    let short: Entry[] = [];
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      short = (await (await call('GET', '/v1/health/service/short')).json()) as Entry[];
      if (short[0]?.Checks[1]?.Status === 'critical') break;
    }
    expect(short[0]!.Checks[1]).toMatchObject({ CheckID: 'service:short', Status: 'critical', Output: 'TTL expired' });
    expect(await (await call('GET', '/v1/health/service/short?passing=true')).json()).toEqual([]);
    await expectRefusal(await call('GET', '/v1/health/service/short?passing=maybe'), 400, 'Invalid value for ?passing');
  });

  it('a blocking health query returns when the catalog changes, not before', async () => {
    const first = await call('GET', '/v1/health/connect/db');
    const index = first.headers.get('x-consul-index')!;
    let settled = false;
    const blocked = call('GET', `/v1/health/connect/db?index=${index}&wait=20s`).then((r) => {
      settled = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(settled).toBe(false);
    expect((await call('PUT', '/v1/agent/check/update/db-proxy-ttl', { Status: 'warning', Output: 'slow' })).status).toBe(200);
    const res = await blocked;
    expect(Number(res.headers.get('x-consul-index'))).toBeGreaterThan(Number(index));
    expect(((await res.json()) as Entry[])[0]!.Checks[1]!.Status).toBe('warning');
    await expectRefusal(await call('GET', '/v1/health/connect/db?index=abc'), 400, 'Invalid index');
  });

  it("refuses bad registrations with Consul 1.8.7's status and words", async () => {
    const cases: [unknown, string][] = [
      [{}, 'Missing service name'],
      [{ Name: 'x', Address: '0.0.0.0' }, 'Invalid service address'],
      [{ Name: 'x', Address: '::' }, 'Invalid service address'],
      [{ Name: 'x', Address: '[::]' }, 'Invalid service address'],
      [{ Kind: 'connect-proxy', Name: 'x-proxy' }, '2 errors occurred:\n\t* Proxy.DestinationServiceName must be non-empty for Connect proxy services\n\t* Port must be set for a Connect proxy\n\n'],
      [{ Kind: 'connect-proxy', Name: 'x-proxy', Port: 1 }, '1 error occurred:\n\t* Proxy.DestinationServiceName must be non-empty for Connect proxy services\n\n'],
      [{ Name: 'x', Check: { TTL: '30s', Status: 'bogus' } }, "Status for checks must 'passing', 'warning', 'critical'"],
      [{ Name: 'x', Check: { TTL: 'bad' } }, 'Request decode failed: time: invalid duration "bad"'],
      [{ Name: 'x', Check: { Name: 'c' } }, 'Invalid check: TTL must be > 0 for TTL checks'],
      [{ Name: 'x', Port: '80' }, 'Request decode failed: json: cannot unmarshal string into Go struct field .Port of type int'],
      [{ Name: 'x', Proxy: { DestinationServiceName: 5 } }, 'Request decode failed: json: cannot unmarshal number into Go struct field .Proxy of type string'],
      [{ Name: 'x', Bogus: 1 }, 'Request decode failed: json: unknown field "Bogus"'],
      ['', 'Request decode failed: EOF'],
    ];
    for (const [body, message] of cases) await expectRefusal(await call('PUT', '/v1/agent/service/register', body), 400, message);
    const notObject = await call('PUT', '/v1/agent/service/register', '[]');
    expect(notObject.status).toBe(400);
    expect(await notObject.text()).toMatch(/^Request decode failed: json: cannot unmarshal array into Go value of type struct \{ EnableTagOverrideSnake bool/);
    // Only those three spellings are "any" (ipaddr.IsAny): the long IPv6 form is taken.
    expect((await call('PUT', '/v1/agent/service/register', { Name: 'x3', Address: '0:0:0:0:0:0:0:0' })).status).toBe(200);
    // Lower-case field names decode as Go's encoding/json matches them.
    expect((await call('PUT', '/v1/agent/service/register', { name: 'x2', port: 7, address: '127.0.0.2' })).status).toBe(200);
    // A check the reference would have to run is refused plainly (Consul runs it); a TTL check is kept.
    if (!reference) return;
    const http = await call('PUT', '/v1/agent/service/register', { Name: 'x5', Check: { HTTP: 'http://127.0.0.1:1', Interval: '10s' } });
    expect(http.status).toBe(400);
    expect(await http.text()).toMatch(/^Invalid check: the reference runs TTL checks only/);
  });

  it('unknown services and checks: the plain 500s Consul answers; a wrong status 400; GET on register 405 with Allow', async () => {
    await expectRefusal(await call('PUT', '/v1/agent/service/deregister/nosuch'), 500, 'Unknown service {"nosuch" {}}');
    await expectRefusal(await call('PUT', '/v1/agent/check/pass/nosuch'), 500, 'Unknown check "nosuch"');
    await expectRefusal(await call('PUT', '/v1/agent/check/update/nosuch', { Status: 'passing' }), 500, 'Unknown check "nosuch"');
    await expectRefusal(await call('PUT', '/v1/agent/check/update/nosuch', { Status: 'bad' }), 400, "Invalid check status: 'bad'");
    const get = await call('GET', '/v1/agent/service/register');
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('OPTIONS,PUT');
  });

  it('ACLs: service:write on the proxy and its destination to register; read on the service, its proxy and the node to see it', async () => {
    const proxyOnly = await tokenWith('proxy-only', 'service "db-proxy" { policy = "write" }');
    const both = await tokenWith('proxy-and-db', 'service "db-proxy" { policy = "write" }\nservice "db" { policy = "write" }');
    const readNoNode = await tokenWith('read-no-node', 'service_prefix "" { policy = "read" }');
    const readAll = await tokenWith('read-all', 'service_prefix "" { policy = "read" }\nnode_prefix "" { policy = "read" }');
    const dbOnly = await tokenWith('db-only', 'service "db" { policy = "read" }\nnode_prefix "" { policy = "read" }');
    const second = { Kind: 'connect-proxy', ID: 'db-proxy2', Name: 'db-proxy', Port: 21001, Address: '127.0.0.1', Proxy: { DestinationServiceName: 'db' } };

    const denied = await call('PUT', '/v1/agent/service/register', second, proxyOnly);
    expect(denied.status).toBe(403);
    // 1.8.7: "Missing service:write on db"; the reference words it as Consul >= 1.11 does (the token's accessor, the permission, the name).
    expect(await denied.text()).toMatch(/^Permission denied: .*service:write.*\bdb\b/);
    expect((await call('PUT', '/v1/agent/service/register', second, both)).status).toBe(200);

    // The heartbeat needs service:write on the check's service.
    expect((await call('PUT', '/v1/agent/check/pass/db-proxy-ttl', undefined, proxyOnly)).status).toBe(200);
    const readOnly = await call('PUT', '/v1/agent/check/pass/db-proxy-ttl', undefined, readAll);
    expect(readOnly.status).toBe(403);
    expect(await readOnly.text()).toMatch(/^Permission denied: .*service:write.*\bdb-proxy\b/);
    await expectRefusal(await call('PUT', '/v1/agent/check/pass/db-proxy-ttl', undefined, 'no-such-token'), 403, 'ACL not found');

    const ids = async (token: string) => ((await (await call('GET', '/v1/health/connect/db', undefined, token)).json()) as Entry[]).map((e) => e.Service.ID).sort();
    expect(await ids(readAll)).toEqual(['db-proxy', 'db-proxy2']);
    // No node:read: every entry is filtered out; read on "db" alone does not show its proxies.
    expect(await ids(readNoNode)).toEqual([]);
    expect(await ids(dbOnly)).toEqual([]);
    expect((await (await call('GET', '/v1/catalog/service/db-proxy', undefined, readNoNode)).json()) as unknown[]).toEqual([]);
    // The anonymous token has no rights under default deny.
    expect(await (await call('GET', '/v1/health/connect/db', undefined, '')).json()).toEqual([]);

    // Deregistering: an unknown ID is a 500 whoever asks; a known one needs service:write.
    await expectRefusal(await call('PUT', '/v1/agent/service/deregister/nosuch', undefined, readAll), 500, 'Unknown service {"nosuch" {}}');
    expect((await call('PUT', '/v1/agent/service/deregister/db-proxy2', undefined, readAll)).status).toBe(403);
    expect((await call('PUT', '/v1/agent/service/deregister/db-proxy2', undefined, both)).status).toBe(200);
    expect(await ids(readAll)).toEqual(['db-proxy']);
    await expectRefusal(await call('PUT', '/v1/agent/service/deregister/db-proxy2', undefined, both), 500, 'Unknown service {"db-proxy2" {}}');
  });
});
