import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type ReferenceWithControl } from '../src/reference/reference.ts';

/**
 * What the upstream mesh provisioner does on a real Consul agent, end to end against the reference
 * in the hashicorp dialect and upstream behaviour (like `consul agent -dev` with ACLs on): limited
 * tokens made from policies and service identities are told apart by leaf and authorize exactly as
 * Consul does (service:write), intentions made by name and through config entries decide authorize
 * (an L7 one always denies), the control listener's intentions keep working beside them, a deleted
 * token is refused at once, and removing everything in the cleanup's order leaves the listings as
 * they were.
 */
type Ref = ReferenceWithControl;

async function call(ref: Ref, method: string, path: string, init: { body?: unknown; token?: string | null } = {}) {
  const headers: Record<string, string> = {};
  if (init.token !== null) headers['X-Consul-Token'] = init.token ?? ref.mesh.token;
  const res = await fetch(`${ref.mesh.url}${path}`, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) as any };
}

const uid = () => Math.random().toString(36).slice(2, 8);

async function listings(ref: Ref): Promise<Record<string, unknown>> {
  const names = async (path: string, key: string) => ((await call(ref, 'GET', path)).json() as Record<string, string>[]).map((x) => x[key]).sort();
  return {
    intentions: ((await call(ref, 'GET', '/v1/connect/intentions')).json() as any[]).map((i) => `${i.SourceName}->${i.DestinationName}`).sort(),
    serviceDefaults: await names('/v1/config/service-defaults', 'Name'),
    serviceIntentions: await names('/v1/config/service-intentions', 'Name'),
    policies: await names('/v1/acl/policies', 'ID'),
    tokens: await names('/v1/acl/tokens', 'AccessorID'),
  };
}

async function authorize(ref: Ref, source: string, target: string, token?: string) {
  const leaf = (await call(ref, 'GET', `/v1/agent/connect/ca/leaf/${source}`)).json();
  return call(ref, 'POST', '/v1/agent/connect/authorize', { token, body: { Target: target, ClientCertURI: leaf.ServiceURI, ClientCertSerial: leaf.SerialNumber } });
}

describe("the upstream mesh provisioner's flow through Consul's API (hashicorp dialect, upstream behaviour)", () => {
  let ref: Ref;
  let before: Record<string, unknown>;
  const made = { policies: [] as string[], tokens: [] as string[] };
  const run = `sp-${uid()}`;
  const a = `${run}-a`;
  const b = `${run}-b`;

  const makePolicy = async (name: string, rules: string) => {
    const res = await call(ref, 'PUT', '/v1/acl/policy', { body: { Name: `${run}-${name}`, Description: 'stackproof run fixture', Rules: rules } });
    expect(res.status, res.text).toBe(200);
    made.policies.push(res.json().ID);
    return res.json().ID as string;
  };
  const makeToken = async (body: Record<string, unknown>) => {
    const res = await call(ref, 'PUT', '/v1/acl/token', { body: { Description: `${run} token`, ...body } });
    expect(res.status, res.text).toBe(200);
    made.tokens.push(res.json().AccessorID);
    return res.json() as { AccessorID: string; SecretID: string };
  };

  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp', behavior: 'upstream' });
    before = await listings(ref);
  });
  afterAll(async () => ref.stop());

  it('the ACLs are on and the management token is what it says (token/self, anonymous refused)', async () => {
    const self = await call(ref, 'GET', '/v1/acl/token/self');
    expect(self.json().Policies).toEqual([{ ID: '00000000-0000-0000-0000-000000000001', Name: 'global-management' }]);
    expect((await call(ref, 'GET', `/v1/agent/connect/ca/leaf/${a}`, { token: null })).status).toBe(403);
  });

  it('a policy with service:write on a: its token gets the leaf of a and is refused that of b', async () => {
    const writer = await makeToken({ Policies: [{ ID: await makePolicy('write-a', `service "${a}" { policy = "write" }`) }] });
    const leaf = await call(ref, 'GET', `/v1/agent/connect/ca/leaf/${a}`, { token: writer.SecretID });
    expect(leaf.status).toBe(200);
    expect(leaf.json().Service).toBe(a);
    const other = await call(ref, 'GET', `/v1/agent/connect/ca/leaf/${b}`, { token: writer.SecretID });
    expect([other.status, other.text]).toEqual([403, `Permission denied: token with AccessorID '${writer.AccessorID}' lacks permission 'service:write' on "${b}"`]);
  });

  it('a policy with service:read on a: its token is refused the leaf (read is not write)', async () => {
    await makePolicy('read-a', `service "${a}" { policy = "read" }`);
    // Linked by name, as a provisioner may.
    const reader = await makeToken({ Policies: [{ Name: `${run}-read-a` }] });
    const leaf = await call(ref, 'GET', `/v1/agent/connect/ca/leaf/${a}`, { token: reader.SecretID });
    expect([leaf.status, leaf.text]).toEqual([403, `Permission denied: token with AccessorID '${reader.AccessorID}' lacks permission 'service:write' on "${a}"`]);
    const auth = await authorize(ref, b, a, reader.SecretID);
    expect(auth.status).toBe(403);
    expect(auth.text).not.toContain('Authorized');
  });

  it('a service identity grants the leaf of its service and authorize for it as the Target', async () => {
    const identity = await makeToken({ ServiceIdentities: [{ ServiceName: a }] });
    expect((await call(ref, 'GET', `/v1/agent/connect/ca/leaf/${a}`, { token: identity.SecretID })).status).toBe(200);
    expect((await call(ref, 'GET', `/v1/agent/connect/ca/leaf/${a}-sidecar-proxy`, { token: identity.SecretID })).status).toBe(200);
    expect((await authorize(ref, b, a, identity.SecretID)).status).toBe(200);
    expect((await authorize(ref, a, b, identity.SecretID)).status).toBe(403);
  });

  it('an exact intention allow, then deny, changes authorize; the Reason names it as Consul does', async () => {
    const dflt = (await authorize(ref, a, b)).json();
    expect(dflt).toEqual({ Authorized: false, Reason: 'Default behavior configured by ACLs' });
    const q = `source=${a}&destination=${b}`;
    expect((await call(ref, 'PUT', `/v1/connect/intentions/exact?${q}`, { body: { SourceType: 'consul', Action: 'allow', Description: 'stackproof run fixture' } })).text).toBe('true');
    expect((await authorize(ref, a, b)).json()).toEqual({ Authorized: true, Reason: `Matched L4 intention: default/${a} => default/${b} (Precedence: 9, Action: ALLOW)` });
    expect((await call(ref, 'PUT', `/v1/connect/intentions/exact?${q}`, { body: { SourceType: 'consul', Action: 'deny' } })).text).toBe('true');
    expect((await authorize(ref, a, b)).json()).toMatchObject({ Authorized: false, Reason: expect.stringContaining('Action: DENY') });
    // The other direction has no intention.
    expect((await authorize(ref, b, a)).json().Authorized).toBe(false);
  });

  it('service-defaults (http) and a service-intentions entry with Permissions: authorize denies, as Consul does for an L7 intention', async () => {
    const l7 = `${run}-l7`;
    expect((await call(ref, 'PUT', '/v1/config', { body: { Kind: 'service-defaults', Name: l7, Protocol: 'http' } })).text).toBe('true');
    expect((await call(ref, 'PUT', '/v1/config', { body: { Kind: 'service-intentions', Name: l7, Sources: [{ Name: a, Permissions: [{ Action: 'allow', HTTP: { PathExact: '/healthz' } }] }, { Name: b, Action: 'allow' }] } })).text).toBe('true');
    expect((await authorize(ref, a, l7)).json()).toEqual({ Authorized: false, Reason: `Matched L7 intention: default/${a} => default/${l7} (Precedence: 9, Permissions: 1)` });
    expect((await authorize(ref, b, l7)).json().Authorized).toBe(true);
    // Both views agree: the entry's sources are the listed intentions.
    const listed = ((await call(ref, 'GET', '/v1/connect/intentions')).json() as any[]).filter((i) => i.DestinationName === l7);
    expect(listed.map((i) => [i.SourceName, i.Action ?? null, i.Permissions?.length ?? 0]).sort()).toEqual([[a, null, 1], [b, 'allow', 0]].sort());
  });

  it("the control listener's intentions keep working beside them and show as legacy (ID) intentions", async () => {
    const dst = `${run}-ctl`;
    const res = await fetch(`${ref.control.url}/v1/control/mesh/intentions`, { method: 'POST', headers: { authorization: `Bearer ${ref.control.token}` }, body: JSON.stringify({ source: a, destination: dst, action: 'allow' }) });
    const { id } = (await res.json()) as { id: string };
    expect((await authorize(ref, a, dst)).json()).toEqual({ Authorized: true, Reason: `Matched L4 intention: default/${a} => default/${dst} (ID: ${id}, Precedence: 9, Action: ALLOW)` });
    expect((await call(ref, 'GET', `/v1/connect/intentions/exact?source=${a}&destination=${dst}`)).json()).toMatchObject({ ID: id, Action: 'allow' });
    await fetch(`${ref.control.url}/v1/control/mesh/intentions/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ref.control.token}` } });
    expect((await authorize(ref, a, dst)).json().Authorized).toBe(false);
    expect((await call(ref, 'GET', `/v1/config/service-intentions/${dst}`)).status).toBe(404);
  });

  it('deleting a token revokes it at once', async () => {
    const t = await makeToken({ ServiceIdentities: [{ ServiceName: b }] });
    expect((await call(ref, 'GET', `/v1/agent/connect/ca/leaf/${b}`, { token: t.SecretID })).status).toBe(200);
    expect((await call(ref, 'DELETE', `/v1/acl/token/${t.AccessorID}`)).text).toBe('true');
    const after = await call(ref, 'GET', `/v1/agent/connect/ca/leaf/${b}`, { token: t.SecretID });
    expect([after.status, after.text]).toEqual([403, 'ACL not found']);
  });

  it("removing everything in the cleanup's order puts the listings back as they were", async () => {
    expect(await listings(ref)).not.toEqual(before);
    // Intentions first (by name, then the L7 entry), then the protocol, then tokens, then policies.
    expect((await call(ref, 'DELETE', `/v1/connect/intentions/exact?source=${a}&destination=${b}`)).text).toBe('true');
    expect((await call(ref, 'DELETE', `/v1/config/service-intentions/${run}-l7`)).text).toBe('{}');
    expect((await call(ref, 'DELETE', `/v1/config/service-defaults/${run}-l7`)).text).toBe('{}');
    for (const accessor of made.tokens) expect((await call(ref, 'DELETE', `/v1/acl/token/${accessor}`)).text).toBe('true');
    for (const id of made.policies) expect((await call(ref, 'DELETE', `/v1/acl/policy/${id}`)).text).toBe('true');
    expect(await listings(ref)).toEqual(before);
  });
});
