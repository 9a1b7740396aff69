import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type ReferenceWithControl } from '../src/reference/reference.ts';

/**
 * /v1/connect/intentions/check and /match in the hashicorp dialect, as `consul intention check`,
 * `consul intention match` and python-consul2 call them (agent/intentions_endpoint.go
 * IntentionCheck, IntentionMatch): routes of their own, never read as an intention ID.
 */
describe('intention check and match (hashicorp dialect)', () => {
  let ref: ReferenceWithControl;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp' });
    for (const [source, action] of [['web', 'allow'], ['api', 'deny'], ['*', 'deny']] as const) {
      const res = await call('POST', '/v1/connect/intentions', { SourceName: source, DestinationName: 'db', Action: action });
      expect(res.status, await res.clone().text()).toBe(200);
    }
  });
  afterAll(async () => ref.stop());
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${ref.mesh.url}${path}`, { method, headers: { 'X-Consul-Token': ref.mesh.token }, body: body === undefined ? undefined : JSON.stringify(body) });

  it('check answers {"Allowed": bool} by the intention that matches, the ACL default (deny) where none does', async () => {
    const allowed = async (source: string, destination: string) => ((await (await call('GET', `/v1/connect/intentions/check?source=${source}&destination=${destination}`)).json()) as { Allowed: boolean }).Allowed;
    expect(await allowed('web', 'db')).toBe(true);
    expect(await allowed('api', 'db')).toBe(false);
    // The wildcard deny matches any other source.
    expect(await allowed('other', 'db')).toBe(false);
    // No intention for this destination at all: the ACL default, deny.
    expect(await allowed('web', 'cache')).toBe(false);
  });

  it('check refuses a missing parameter as Consul does, a plain error (500), not as a malformed intention ID', async () => {
    const res = await call('GET', '/v1/connect/intentions/check?destination=db');
    expect(res.status).toBe(500);
    expect(await res.text()).toBe("required query parameter 'source' not set");
  });

  it('match lists, per name as given, the intentions of that destination highest precedence first, null for a name with none', async () => {
    const res = await call('GET', '/v1/connect/intentions/match?by=destination&name=db&name=cache');
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, { SourceName: string; Precedence: number }[] | null>;
    expect(body.db!.map((i) => i.SourceName)).toEqual(['api', 'web', '*']);
    expect(body.db![0]!.Precedence).toBeGreaterThan(body.db![2]!.Precedence);
    expect(body.cache).toBeNull();
    // By source, the wildcard source matches the name too.
    const bySource = (await (await call('GET', '/v1/connect/intentions/match?by=source&name=web')).json()) as Record<string, { SourceName: string }[]>;
    expect(bySource.web!.map((i) => i.SourceName)).toEqual(['web', '*']);
  });

  it("match refuses missing or wrong parameters with Consul's messages", async () => {
    for (const [query, message] of [
      ['name=db', "required query parameter 'by' not set"],
      ['by=both&name=db', "'by' parameter must be one of 'source' or 'destination'"],
      ['by=destination', "required query parameter 'name' not set"],
    ]) {
      const res = await call('GET', `/v1/connect/intentions/match?${query}`);
      expect(res.status, query).toBe(500);
      expect(await res.text(), query).toBe(message);
    }
  });

  it('needs service:read on the destination for check, not intention:read', async () => {
    const anonymous = await fetch(`${ref.mesh.url}/v1/connect/intentions/check?source=web&destination=db`);
    expect(anonymous.status).toBe(403);
  });
});
