import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../src/reference/reference.ts';

/**
 * The embedded reference's Consul admin API (hashicorp dialect only): intentions, config entries,
 * ACL policies and tokens, Enterprise namespaces — each endpoint's shape and status as read in
 * hashicorp/consul (named per case). The provisioner's end-to-end flow is in
 * reference-consul-admin-flow.test.ts.
 */
interface CallInit {
  body?: unknown;
  token?: string | null;
  headers?: Record<string, string>;
}

async function call(ref: RunningReference, method: string, path: string, init: CallInit = {}) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token !== null) headers['X-Consul-Token'] = init.token ?? ref.mesh.token;
  const body = init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
  const res = await fetch(`${ref.mesh.url}${path}`, { method, headers, body });
  const text = await res.text();
  return { status: res.status, text, headers: res.headers, json: () => JSON.parse(text) as any };
}

const uid = () => Math.random().toString(36).slice(2, 8);

async function policy(ref: RunningReference, rules: string): Promise<string> {
  const res = await call(ref, 'PUT', '/v1/acl/policy', { body: { Name: `p-${uid()}`, Rules: rules } });
  expect(res.status, res.text).toBe(200);
  return res.json().ID;
}

async function token(ref: RunningReference, body: Record<string, unknown>): Promise<{ accessor: string; secret: string }> {
  const res = await call(ref, 'PUT', '/v1/acl/token', { body });
  expect(res.status, res.text).toBe(200);
  return { accessor: res.json().AccessorID, secret: res.json().SecretID };
}

describe('Consul admin API in the hashicorp dialect, upstream behaviour (like consul agent -dev: CE, ACLs on)', () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp', behavior: 'upstream' });
  });
  afterAll(async () => ref.stop());

  it('PUT /v1/connect/intentions/exact upserts and answers true; GET answers the intention without an ID; DELETE answers true, twice (intentions_endpoint.go IntentionPutExact, IntentionGetExact, IntentionDeleteExact)', async () => {
    const [src, dst] = [`s-${uid()}`, `d-${uid()}`];
    const q = `source=${src}&destination=${dst}`;
    const put = await call(ref, 'PUT', `/v1/connect/intentions/exact?${q}`, { body: { SourceType: 'consul', Action: 'allow', Description: 'run fixture' } });
    expect([put.status, put.text]).toEqual([200, 'true']);
    const got = await call(ref, 'GET', `/v1/connect/intentions/exact?${q}`);
    expect(got.status).toBe(200);
    expect(got.json()).toEqual({ Description: 'run fixture', SourceNS: 'default', SourceName: src, DestinationNS: 'default', DestinationName: dst, SourceType: 'consul', Action: 'allow', Precedence: 9, CreateIndex: expect.any(Number), ModifyIndex: expect.any(Number) });
    expect(got.headers.get('x-consul-index')).toMatch(/^\d+$/);
    // An upsert replaces the source in place.
    await call(ref, 'PUT', `/v1/connect/intentions/exact?${q}`, { body: { Action: 'deny' } });
    expect((await call(ref, 'GET', `/v1/connect/intentions/exact?${q}`)).json()).toMatchObject({ Action: 'deny' });
    expect((await call(ref, 'GET', '/v1/connect/intentions')).json().filter((i: any) => i.DestinationName === dst)).toHaveLength(1);
    for (let n = 0; n < 2; n++) expect((await call(ref, 'DELETE', `/v1/connect/intentions/exact?${q}`)).text).toBe('true');
    const gone = await call(ref, 'GET', `/v1/connect/intentions/exact?${q}`);
    expect([gone.status, gone.text]).toEqual([404, 'Intention not found']);
    expect((await call(ref, 'GET', `/v1/config/service-intentions/${dst}`)).status).toBe(404);
  });

  it('refuses bad /exact requests in Consul\'s words: parameters, body, ID, Meta, CE namespaces (parseIntentionQueryExact, computeApplyChangesUpsert, http_ce.go)', async () => {
    const refused = async (path: string, body: unknown, status: number, text: string) => {
      const res = await call(ref, 'PUT', path, { body });
      expect([res.status, res.text], path).toEqual([status, text]);
    };
    await refused('/v1/connect/intentions/exact?destination=d', { Action: 'allow' }, 400, "required query parameter 'source' not set");
    await refused('/v1/connect/intentions/exact?source=&destination=d', { Action: 'allow' }, 400, "required query parameter 'source' not set");
    await refused('/v1/connect/intentions/exact?source=a/b/c/d&destination=d', { Action: 'allow' }, 400, `source "a/b/c/d" is invalid: input can contain at most two '/'`);
    await refused('/v1/connect/intentions/exact?source=team/a&destination=d', { Action: 'allow' }, 400, 'Invalid SourceNS(team): Namespaces is a Consul Enterprise feature');
    await refused('/v1/connect/intentions/exact?source=a&destination=d&ns=team', { Action: 'allow' }, 400, 'Invalid query parameter: "ns" - Namespaces are a Consul Enterprise feature');
    await refused('/v1/connect/intentions/exact?source=a&destination=d', { Action: 'allow', Bogus: 1 }, 400, 'Request decode failed: json: unknown field "Bogus"');
    await refused('/v1/connect/intentions/exact?source=a&destination=d', { Action: 7 }, 400, 'Request decode failed: json: cannot unmarshal number into Go struct field Intention.Action of type structs.IntentionAction');
    await refused('/v1/connect/intentions/exact?source=a&destination=d', '', 400, 'Request decode failed: EOF');
    await refused('/v1/connect/intentions/exact?source=a&destination=d', { ID: 'x', Action: 'allow' }, 500, 'ID must not be specified');
    await refused('/v1/connect/intentions/exact?source=a&destination=d', { Action: 'allow', Meta: { k: 'v' } }, 500, 'Meta must not be specified');
    await refused('/v1/connect/intentions/exact?source=a&destination=d', { Action: 'maybe' }, 500, "Sources[0].Action must be set to 'allow' or 'deny'");
    await refused('/v1/connect/intentions/exact?source=a&destination=d', { Action: 'allow', SourceType: 'external' }, 500, "Sources[0].Type must be set to 'consul'");
    await refused(`/v1/connect/intentions/exact?source=a&destination=d-${uid()}`, { Permissions: [{ Action: 'allow', HTTP: { PathExact: '/x' } }] }, 500, expect.stringMatching(/has protocol "tcp", which is incompatible with L7 intentions permissions$/) as unknown as string);
  });

  it('legacy ID intentions: POST answers {"ID"}, GET/PUT/DELETE by ID; they show an ID and times, and are sources of the same entry (IntentionCreate, IntentionSpecific*)', async () => {
    const [src, dst] = [`s-${uid()}`, `d-${uid()}`];
    const created = await call(ref, 'POST', '/v1/connect/intentions', { body: { SourceName: src, DestinationName: dst, SourceType: 'consul', Action: 'allow' } });
    expect(created.status).toBe(200);
    const id = created.json().ID as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const got = (await call(ref, 'GET', `/v1/connect/intentions/${id}`)).json();
    expect(got).toMatchObject({ ID: id, SourceName: src, DestinationName: dst, Action: 'allow', Precedence: 9 });
    expect(got.CreatedAt).toMatch(/Z$/);
    expect((await call(ref, 'GET', `/v1/config/service-intentions/${dst}`)).json().Sources[0]).toMatchObject({ Name: src, Action: 'allow', LegacyID: id });
    expect((await call(ref, 'PUT', `/v1/connect/intentions/${id}`, { body: { SourceName: src, DestinationName: dst, Action: 'deny' } })).json()).toEqual({ ID: id });
    expect((await call(ref, 'GET', `/v1/connect/intentions/exact?source=${src}&destination=${dst}`)).json()).toMatchObject({ ID: id, Action: 'deny' });
    const again = await call(ref, 'POST', '/v1/connect/intentions', { body: { SourceName: src, DestinationName: dst, Action: 'allow' } });
    expect([again.status, again.text]).toEqual([500, `Sources[1] defines "${src}" more than once`]);
    const invalid = await call(ref, 'POST', '/v1/connect/intentions', { body: { SourceName: 'a*', DestinationName: dst, Action: 'nope' } });
    expect([invalid.status, invalid.text]).toEqual([500, "2 errors occurred:\n\t* SourceName: wildcard character '*' cannot be used with partial values\n\t* Action must be set to 'allow' or 'deny'\n\n"]);
    expect((await call(ref, 'DELETE', `/v1/connect/intentions/${id}`)).text).toBe('true');
    expect((await call(ref, 'DELETE', `/v1/connect/intentions/${id}`)).text).toBe(`Cannot delete non-existent intention: '${id}'`);
    expect((await call(ref, 'GET', `/v1/connect/intentions/${id}`)).status).toBe(404);
    expect((await call(ref, 'GET', '/v1/connect/intentions/not-a-uuid')).status).toBe(400);
  });

  it('config entries: service-defaults shape, service-intentions validation and the L7 protocol check, list, DELETE answers {} (config_endpoint.go, config_entry_intentions.go, state/config_entry.go)', async () => {
    const svc = `web-${uid()}`;
    const l7 = { Kind: 'service-intentions', Name: svc, Sources: [{ Name: 'client', Permissions: [{ Action: 'allow', HTTP: { PathExact: '/healthz', Methods: ['get'] } }] }] };
    const tcp = await call(ref, 'PUT', '/v1/config', { body: l7 });
    expect([tcp.status, tcp.text]).toEqual([500, `service "${svc}" has protocol "tcp", which is incompatible with L7 intentions permissions`]);
    expect((await call(ref, 'PUT', '/v1/config', { body: { Kind: 'service-defaults', Name: svc, Protocol: 'HTTP' } })).text).toBe('true');
    const defaults = await call(ref, 'GET', `/v1/config/service-defaults/${svc}`);
    expect(defaults.json()).toEqual({ Kind: 'service-defaults', Name: svc, Protocol: 'http', TransparentProxy: {}, MeshGateway: {}, Expose: {}, Hash: expect.any(Number), CreateIndex: expect.any(Number), ModifyIndex: expect.any(Number) });
    expect((await call(ref, 'PUT', '/v1/config', { body: l7 })).text).toBe('true');
    const entry = (await call(ref, 'GET', `/v1/config/service-intentions/${svc}`)).json();
    expect(entry).toMatchObject({ Kind: 'service-intentions', Name: svc, Sources: [{ Name: 'client', Permissions: [{ Action: 'allow', HTTP: { PathExact: '/healthz', Methods: ['GET'] } }], Precedence: 9, Type: 'consul' }] });
    expect(entry.Sources[0].Action).toBeUndefined();
    // The same intention, seen in the intention list: Permissions and no Action.
    const listed = (await call(ref, 'GET', '/v1/connect/intentions')).json().find((i: any) => i.DestinationName === svc);
    expect(listed).toMatchObject({ SourceName: 'client', Permissions: [{ Action: 'allow' }], Precedence: 9 });
    expect(listed.Action).toBeUndefined();
    expect((await call(ref, 'GET', '/v1/config/service-defaults')).json().map((e: any) => e.Name)).toContain(svc);
    // Deleting the protocol first would leave an L7 intention on a tcp service: refused.
    const early = await call(ref, 'DELETE', `/v1/config/service-defaults/${svc}`);
    expect([early.status, early.text]).toEqual([500, `service "${svc}" has protocol "tcp", which is incompatible with L7 intentions permissions`]);
    expect((await call(ref, 'DELETE', `/v1/config/service-intentions/${svc}`)).text).toBe('{}');
    expect((await call(ref, 'DELETE', `/v1/config/service-defaults/${svc}`)).text).toBe('{}');
    expect((await call(ref, 'DELETE', `/v1/config/service-defaults/${svc}`)).text).toBe('{}');
    const missing = await call(ref, 'GET', `/v1/config/service-defaults/${svc}`);
    expect([missing.status, missing.text]).toEqual([404, `Config entry not found for "service-defaults" / "${svc}"`]);
  });

  it('refuses bad config entries in Consul\'s words (DecodeConfigEntry, validateUnusedKeys, ServiceIntentionsConfigEntry.Validate)', async () => {
    // Decoding is the HTTP layer's (400); validation is ConfigEntry.Apply's, an RPC error (500).
    const refused = async (body: unknown, text: string) => {
      const res = await call(ref, 'PUT', '/v1/config', { body });
      expect([res.status, res.text], JSON.stringify(body)).toEqual([text.startsWith('Request decoding failed: ') ? 400 : 500, text]);
    };
    await refused({ Name: 'x' }, 'Request decoding failed: Payload does not contain a kind/Kind key at the top level');
    await refused({ Kind: 'nope', Name: 'x' }, 'Request decoding failed: invalid config entry kind: nope');
    await refused({ Kind: 'service-defaults', Name: 'x', Connect: {} }, 'Request decoding failed: 1 error occurred:\n\t* invalid config key "Connect"\n\n');
    await refused({ Kind: 'service-defaults', Name: 'x', Namespace: 'team' }, 'Request decoding failed: 1 error occurred:\n\t* invalid config key "Namespace", namespaces are a consul enterprise feature\n\n');
    await refused({ Kind: 'service-defaults', Name: '*' }, 'service-defaults name must be the name of a service, and not a wildcard');
    await refused({ Kind: 'service-intentions', Name: 'x' }, 'At least one source is required');
    await refused({ Kind: 'service-intentions', Name: 'x', Sources: [{ Name: 'a' }] }, "Sources[0].Action must be set to 'allow' or 'deny'");
    await refused({ Kind: 'service-intentions', Name: 'x', Sources: [{ Name: 'a', Action: 'allow', Permissions: [{ Action: 'allow', HTTP: { PathExact: '/' } }] }] }, 'Sources[0].Action must be omitted if Permissions are specified');
    await refused({ Kind: 'service-intentions', Name: 'x', Sources: [{ Name: 'a', Permissions: [{ Action: 'allow' }] }] }, 'Sources[0].Permissions[0].HTTP is required');
    await refused({ Kind: 'service-intentions', Name: 'x', Sources: [{ Name: 'a', Permissions: [{ Action: 'allow', HTTP: { PathExact: 'x' } }] }] }, `Sources[0].Permissions[0].HTTP.PathExact doesn't start with '/': "x"`);
    await refused({ Kind: 'service-intentions', Name: 'x', Sources: [{ Name: 'a', Action: 'allow' }, { Name: 'a', Action: 'deny' }] }, 'Sources[1] defines "a" more than once');
    await refused({ Kind: 'service-intentions', Name: 'x', Sources: [{ Name: 'a*', Action: 'allow' }] }, "Sources[0].Name: wildcard character '*' cannot be used with partial values");
    const unknownKind = await call(ref, 'GET', '/v1/config/nope');
    expect([unknownKind.status, unknownKind.text]).toEqual([400, 'invalid config entry kind: nope']);
    expect((await call(ref, 'GET', '/v1/config/proxy-defaults')).text).toBe('[]');
    expect((await call(ref, 'DELETE', '/v1/config/service-defaults')).status).toBe(404);
    expect((await call(ref, 'PUT', '/v1/config/service-defaults')).status).toBe(405);
  });

  it('ACL policies: create, read by ID and name, update, list stubs, delete (twice: true) — and Consul\'s refusals (acl_endpoint.go, acl/policy.go)', async () => {
    const name = `svc-read-${uid()}`;
    const created = await call(ref, 'PUT', '/v1/acl/policy', { body: { Name: name, Description: 'reads', Rules: 'service_prefix "" { policy = "read" }' } });
    expect(created.status).toBe(200);
    const p = created.json();
    expect(p).toEqual({ ID: expect.stringMatching(/^[0-9a-f-]{36}$/), Name: name, Description: 'reads', Rules: 'service_prefix "" { policy = "read" }', Hash: expect.any(String), CreateIndex: expect.any(Number), ModifyIndex: expect.any(Number) });
    expect((await call(ref, 'GET', `/v1/acl/policy/${p.ID}`)).json()).toEqual(p);
    expect((await call(ref, 'GET', `/v1/acl/policy/name/${name}`)).json().ID).toBe(p.ID);
    const stubs = (await call(ref, 'GET', '/v1/acl/policies')).json();
    expect(stubs.find((s: any) => s.ID === p.ID)).toEqual({ ID: p.ID, Name: name, Description: 'reads', Datacenters: null, Hash: p.Hash, CreateIndex: p.CreateIndex, ModifyIndex: p.ModifyIndex });
    expect(stubs.map((s: any) => s.Name)).toEqual(expect.arrayContaining(['global-management', 'builtin/global-read-only']));
    const updated = (await call(ref, 'PUT', `/v1/acl/policy/${p.ID}`, { body: { Name: name, Rules: '{"service": {"a": {"policy": "write"}}}' } })).json();
    expect(updated).toMatchObject({ ID: p.ID, Rules: '{"service": {"a": {"policy": "write"}}}', CreateIndex: p.CreateIndex });
    const refused = async (body: unknown, text: string, path = '/v1/acl/policy') => {
      const res = await call(ref, 'PUT', path, { body });
      expect([res.status, res.text], JSON.stringify(body)).toEqual([400, text]);
    };
    await refused({ Name: name }, `Invalid Policy: A Policy with Name "${name}" already exists`);
    await refused({ Rules: '' }, 'Invalid Policy: no Name is set');
    await refused({ Name: 'has space' }, "Invalid Policy: invalid Name. Only alphanumeric characters, '-' and '_' are allowed");
    await refused({ Name: `x-${uid()}`, Rules: 'service "a" { policy = "admin" }' }, 'Invalid service policy: &acl.ServiceRule{Name:"a", Policy:"admin", Intentions:"", EnterpriseRule:acl.EnterpriseRule{}}');
    await refused({ Name: `x-${uid()}`, Rules: 'service_prefix "" { policy = "read" intentions = "all" }' }, 'Invalid service_prefix intentions policy: &acl.ServiceRule{Name:"", Policy:"read", Intentions:"all", EnterpriseRule:acl.EnterpriseRule{}}');
    await refused({ Name: `x-${uid()}`, Rules: 'operator = "root"' }, 'Invalid operator policy: "root"');
    await refused({ Name: `x-${uid()}`, Rules: 'service "a" { policy = "read"' }, 'Failed to parse ACL rules: At 1:30: object expected closing RBRACE got: EOF');
    await refused({ Name: `x-${uid()}`, Rules: 'service "a" { policy = "read"\n policy = "write" }' }, 'Failed to parse ACL rules: At 2:2: The argument "policy" at 1:15 was already set. Each argument can only be defined once');
    await refused({ Name: `x-${uid()}`, Rules: 'service "a" = "write"' }, 'Failed to parse ACL rules: At 1:13: nested object expected: LBRACE got: ASSIGN');
    await refused({ Name: `x-${uid()}`, ID: p.ID }, 'Cannot specify the ID when creating a new policy');
    await refused({ Name: `x-${uid()}`, Namespace: 'team' }, 'Policy decoding failed: json: unknown field "Namespace" - Namespaces are a Consul Enterprise feature');
    await refused({ Name: `x-${uid()}`, Rules: 5 }, 'Policy decoding failed: json: cannot unmarshal number into Go struct field ACLPolicy.Rules of type string');
    await refused({ Name: 'global-management', Rules: 'acl = "read"' }, 'Changing the Rules for the builtin global-management policy is not permitted', '/v1/acl/policy/00000000-0000-0000-0000-000000000001');
    expect((await call(ref, 'DELETE', '/v1/acl/policy/00000000-0000-0000-0000-000000000001')).status).toBe(400);
    for (let n = 0; n < 2; n++) expect((await call(ref, 'DELETE', `/v1/acl/policy/${p.ID}`)).text).toBe('true');
    const gone = await call(ref, 'GET', `/v1/acl/policy/${p.ID}`);
    expect([gone.status, gone.text]).toEqual([404, 'Requested policy does not exist: ACL not found']);
  });

  it('ACL tokens: create with policies by ID or name and service identities, read, self, update, list, clone, delete — and refusals (ACL.TokenSet, TokenDelete)', async () => {
    const pid = await policy(ref, 'service "a" { policy = "write" }');
    const pname = (await call(ref, 'GET', `/v1/acl/policy/${pid}`)).json().Name;
    const created = await call(ref, 'PUT', '/v1/acl/token', { body: { Description: 'fixture', Policies: [{ Name: pname }, { ID: pid }], ServiceIdentities: [{ ServiceName: 'web' }], Local: false } });
    expect(created.status).toBe(200);
    const t = created.json();
    expect(t).toEqual({
      AccessorID: expect.stringMatching(/^[0-9a-f-]{36}$/),
      SecretID: expect.stringMatching(/^[0-9a-f-]{36}$/),
      Description: 'fixture',
      Policies: [{ ID: pid, Name: pname }],
      ServiceIdentities: [{ ServiceName: 'web' }],
      Local: false,
      CreateTime: expect.any(String),
      Hash: expect.any(String),
      CreateIndex: expect.any(Number),
      ModifyIndex: expect.any(Number),
    });
    expect((await call(ref, 'GET', `/v1/acl/token/${t.AccessorID}`)).json()).toEqual(t);
    expect((await call(ref, 'GET', '/v1/acl/token/self', { token: t.SecretID })).json().AccessorID).toBe(t.AccessorID);
    expect((await call(ref, 'GET', '/v1/acl/token/self', { token: 'nope' })).text).toBe('Supplied token does not exist');
    const listed = (await call(ref, 'GET', '/v1/acl/tokens')).json();
    expect(listed.map((x: any) => x.AccessorID)).toEqual(expect.arrayContaining([t.AccessorID, '00000000-0000-0000-0000-000000000002']));
    expect((await call(ref, 'GET', `/v1/acl/tokens?policy=${pid}`)).json().map((x: any) => x.AccessorID)).toEqual([t.AccessorID]);
    const updated = (await call(ref, 'PUT', `/v1/acl/token/${t.AccessorID}`, { body: { Description: 'changed', ServiceIdentities: [{ ServiceName: 'api' }] } })).json();
    expect(updated).toMatchObject({ AccessorID: t.AccessorID, SecretID: t.SecretID, Description: 'changed', ServiceIdentities: [{ ServiceName: 'api' }] });
    expect(updated.Policies).toBeUndefined();
    const clone = (await call(ref, 'PUT', `/v1/acl/token/${t.AccessorID}/clone`, { body: { Description: 'copy' } })).json();
    expect(clone).toMatchObject({ Description: 'copy', ServiceIdentities: [{ ServiceName: 'api' }] });
    expect(clone.AccessorID).not.toBe(t.AccessorID);
    const refused = async (body: unknown, text: string, path = '/v1/acl/token') => {
      const res = await call(ref, 'PUT', path, { body });
      expect([res.status, res.text], JSON.stringify(body)).toEqual([400, text]);
    };
    await refused({ Policies: [{ Name: 'no-such' }] }, 'No such ACL policy with name "no-such"');
    await refused({ Policies: [{ ID: '11111111-2222-3333-4444-555555555555' }] }, 'No such ACL policy with ID "11111111-2222-3333-4444-555555555555"');
    await refused({ Roles: [{ Name: 'r' }] }, 'No such ACL role with name "r"');
    await refused({ ServiceIdentities: [{ ServiceName: 'Web' }] }, `Service identity "Web" has an invalid name. Only alphanumeric characters, '-' and '_' are allowed`);
    await refused({ ServiceIdentities: [{}] }, 'Service identity is missing the service name field on this token');
    await refused({ Rules: 'x' }, 'Token decoding failed: json: unknown field "Rules"');
    await refused({ SecretID: 'short' }, 'Invalid Token: SecretID is not a valid UUID');
    await refused({ ExpirationTTL: '10s' }, 'ExpirationTime cannot be less than 1m0s in the future (was 10s)');
    await refused({ AccessorID: clone.AccessorID }, 'Token Accessor ID in URL and payload do not match', `/v1/acl/token/${t.AccessorID}`);
    await refused({ Local: true }, `cannot toggle local mode of ${t.AccessorID}`, `/v1/acl/token/${t.AccessorID}`);
    const ttl = (await call(ref, 'PUT', '/v1/acl/token', { body: { ExpirationTTL: '1h' } })).json();
    expect(Date.parse(ttl.ExpirationTime) - Date.parse(ttl.CreateTime)).toBe(3_600_000);
    const deleteOwn = await call(ref, 'DELETE', `/v1/acl/token/${t.AccessorID}`, { token: null, headers: { 'X-Consul-Token': ref.mesh.token } });
    expect(deleteOwn.text).toBe('true');
    expect((await call(ref, 'DELETE', `/v1/acl/token/${t.AccessorID}`)).text).toBe('true');
    expect((await call(ref, 'DELETE', '/v1/acl/token/not-a-uuid')).text).toBe('Accessor ID is missing or an invalid UUID');
    expect((await call(ref, 'DELETE', '/v1/acl/token/00000000-0000-0000-0000-000000000002')).text).toBe('Delete operation not permitted on the anonymous token');
    const self = (await call(ref, 'GET', '/v1/acl/token/self')).json();
    expect(self.Policies).toEqual([{ ID: '00000000-0000-0000-0000-000000000001', Name: 'global-management' }]);
    expect((await call(ref, 'DELETE', `/v1/acl/token/${self.AccessorID}`)).text).toBe("Deletion of the request's authorization token is not permitted");
    const gone = await call(ref, 'GET', `/v1/acl/token/${t.AccessorID}`);
    expect([gone.status, gone.text]).toEqual([404, 'Requested token does not exist: ACL not found']);
    for (const id of [clone.AccessorID, ttl.AccessorID]) await call(ref, 'DELETE', `/v1/acl/token/${id}`);
    await call(ref, 'DELETE', `/v1/acl/policy/${pid}`);
  });

  it('a limited token gets Consul\'s 403s: acl:write, intention:write, service:write, and "ACL not found" for an unknown one; SecretIDs are hidden without acl:write', async () => {
    const reader = await token(ref, { Policies: [{ ID: await policy(ref, 'acl = "read"\nservice_prefix "" { policy = "read" }') }] });
    const noPolicy = await call(ref, 'PUT', '/v1/acl/policy', { token: reader.secret, body: { Name: `x-${uid()}` } });
    expect([noPolicy.status, noPolicy.text]).toEqual([403, `Permission denied: token with AccessorID '${reader.accessor}' lacks permission 'acl:write'`]);
    const tokens = (await call(ref, 'GET', '/v1/acl/tokens', { token: reader.secret })).json();
    expect(tokens.every((t: any) => t.SecretID === '<hidden>')).toBe(true);
    const ixn = await call(ref, 'PUT', '/v1/connect/intentions/exact?source=a&destination=b', { token: reader.secret, body: { Action: 'allow' } });
    expect([ixn.status, ixn.text]).toEqual([403, 'Permission denied']);
    const defaults = await call(ref, 'PUT', '/v1/config', { token: reader.secret, body: { Kind: 'service-defaults', Name: 'b', Protocol: 'http' } });
    expect([defaults.status, defaults.text]).toEqual([403, `Permission denied: token with AccessorID '${reader.accessor}' lacks permission 'service:write' on "b"`]);
    const intentions = await call(ref, 'PUT', '/v1/config', { token: reader.secret, body: { Kind: 'service-intentions', Name: 'b', Sources: [{ Name: 'a', Action: 'allow' }] } });
    expect([intentions.status, intentions.text]).toEqual([403, `Permission denied: token with AccessorID '${reader.accessor}' lacks permission 'intention:write' on "b"`]);
    const writer = await token(ref, { Policies: [{ ID: await policy(ref, 'service "b" { policy = "write" intentions = "write" }') }] });
    expect((await call(ref, 'PUT', '/v1/connect/intentions/exact?source=a&destination=b', { token: writer.secret, body: { Action: 'allow' } })).text).toBe('true');
    expect((await call(ref, 'DELETE', '/v1/connect/intentions/exact?source=a&destination=b', { token: writer.secret })).text).toBe('true');
    for (const [method, path] of [['GET', '/v1/acl/policies'], ['GET', '/v1/connect/intentions'], ['PUT', '/v1/config']] as const) {
      const res = await call(ref, method, path, { token: '11111111-1111-1111-1111-111111111111', body: method === 'PUT' ? { Kind: 'service-defaults', Name: 'x' } : undefined });
      expect([res.status, res.text], `${method} ${path}`).toEqual([403, 'ACL not found']);
    }
    const anon = await call(ref, 'GET', '/v1/acl/policies', { token: null });
    expect([anon.status, anon.text]).toEqual([403, "Permission denied: token with AccessorID '00000000-0000-0000-0000-000000000002' lacks permission 'acl:read'"]);
  });

  it('Consul CE has no namespace endpoints: /v1/namespace and /v1/namespaces answer Consul\'s 404 (http_register.go registers none)', async () => {
    for (const [method, path] of [['GET', '/v1/namespaces'], ['PUT', '/v1/namespace'], ['GET', '/v1/namespace/default']] as const) {
      const res = await call(ref, method, path, { body: method === 'PUT' ? { Name: 'team' } : undefined });
      expect([res.status, res.text], path).toEqual([404, 'Invalid URL path: not a recognized HTTP API endpoint\n']);
    }
  });
});

describe('Consul admin API with namespaces on (like Consul Enterprise: hashicorp dialect, spec behaviour)', () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp' });
  });
  afterAll(async () => ref.stop());

  it('namespaces: PUT /v1/namespace, GET, list with default, PUT update, DELETE removes it with what it holds (api-docs/namespaces.mdx)', async () => {
    const ns = `team-${uid()}`;
    const created = await call(ref, 'PUT', '/v1/namespace', { body: { Name: ns, Description: 'fixture', Meta: { owner: 'run' } } });
    expect(created.status).toBe(200);
    expect(created.json()).toEqual({ Name: ns, Description: 'fixture', Meta: { owner: 'run' }, Partition: 'default', CreateIndex: expect.any(Number), ModifyIndex: expect.any(Number) });
    expect((await call(ref, 'GET', `/v1/namespace/${ns}`)).json()).toEqual(created.json());
    const names = (await call(ref, 'GET', '/v1/namespaces')).json().map((n: any) => n.Name);
    expect(names).toEqual(expect.arrayContaining(['default', ns]));
    expect((await call(ref, 'PUT', `/v1/namespace/${ns}`, { body: { Description: 'changed' } })).json()).toMatchObject({ Name: ns, Description: 'changed' });
    expect((await call(ref, 'PUT', '/v1/namespace', { body: { Name: 'not_a_label' } })).status).toBe(400);
    // What the namespace holds goes with it.
    expect((await call(ref, 'PUT', `/v1/connect/intentions/exact?source=a&destination=b&ns=${ns}`, { body: { Action: 'allow' } })).text).toBe('true');
    const nsToken = await call(ref, 'PUT', `/v1/acl/token?ns=${ns}`, { body: { Description: 'in ns', ServiceIdentities: [{ ServiceName: 'a' }] } });
    expect(nsToken.json()).toMatchObject({ Namespace: ns, Partition: 'default' });
    expect((await call(ref, 'GET', `/v1/connect/intentions/exact?source=${ns}/a&destination=${ns}/b`)).json()).toMatchObject({ SourceNS: ns, DestinationNS: ns, SourcePartition: 'default' });
    const del = await call(ref, 'DELETE', `/v1/namespace/${ns}`);
    expect([del.status, del.text]).toEqual([200, '']);
    expect((await call(ref, 'GET', `/v1/namespace/${ns}`)).status).toBe(404);
    expect((await call(ref, 'GET', '/v1/connect/intentions?ns=*')).json().filter((i: any) => i.DestinationNS === ns)).toEqual([]);
    expect((await call(ref, 'GET', `/v1/acl/token/${nsToken.json().AccessorID}`)).status).toBe(404);
    expect((await call(ref, 'DELETE', '/v1/namespace/default')).status).toBe(400);
  });

  it('a token made in a namespace has its service identity there only; the control listener\'s namespaces are the same namespaces', async () => {
    const ns = `ctl-${uid()}`;
    const made = await fetch(`${ref.control!.url}/v1/control/mesh/namespaces`, { method: 'POST', headers: { authorization: `Bearer ${ref.control!.token}` }, body: JSON.stringify({ name: ns }) });
    expect(made.status).toBe(200);
    expect((await call(ref, 'GET', `/v1/namespace/${ns}`)).status).toBe(200);
    const t = (await call(ref, 'PUT', `/v1/acl/token?ns=${ns}`, { body: { ServiceIdentities: [{ ServiceName: 'svc' }] } })).json();
    expect((await call(ref, 'GET', `/v1/agent/connect/ca/leaf/svc?ns=${ns}`, { token: t.SecretID })).status).toBe(200);
    expect((await call(ref, 'GET', '/v1/agent/connect/ca/leaf/svc?ns=default', { token: t.SecretID })).status).toBe(403);
  });
});

describe('the spec dialect defines no admin API', () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'spec' });
  });
  afterAll(async () => ref.stop());

  it('intentions, config entries, ACL and namespace paths answer 404', async () => {
    for (const [method, path] of [
      ['PUT', '/v1/connect/intentions/exact?source=a&destination=b'],
      ['GET', '/v1/connect/intentions'],
      ['PUT', '/v1/config'],
      ['GET', '/v1/config/service-defaults'],
      ['PUT', '/v1/acl/policy'],
      ['GET', '/v1/acl/tokens'],
      ['GET', '/v1/acl/token/self'],
      ['PUT', '/v1/namespace'],
      ['GET', '/v1/namespaces'],
    ] as const) {
      const res = await fetch(`${ref.mesh.url}${path}`, { method, headers: { authorization: `Bearer ${ref.mesh.token}` }, body: method === 'PUT' ? '{}' : undefined });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
  });
});

describe('faults reach intentions made through the admin API too', () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp', behavior: 'upstream', faults: ['mesh.authorize-permissions-honoured'] });
  });
  afterAll(async () => ref.stop());

  it('mesh.authorize-permissions-honoured: an L7 intention from a config entry (no Action of its own) authorizes by its permission\'s action', async () => {
    const [src, dst] = [`s-${uid()}`, `d-${uid()}`];
    await call(ref, 'PUT', '/v1/config', { body: { Kind: 'service-defaults', Name: dst, Protocol: 'http' } });
    expect((await call(ref, 'PUT', '/v1/config', { body: { Kind: 'service-intentions', Name: dst, Sources: [{ Name: src, Permissions: [{ Action: 'allow', HTTP: { PathPrefix: '/' } }] }] } })).text).toBe('true');
    const leaf = (await call(ref, 'GET', `/v1/agent/connect/ca/leaf/${src}`)).json();
    const res = await call(ref, 'POST', '/v1/agent/connect/authorize', { body: { Target: dst, ClientCertURI: leaf.ServiceURI, ClientCertSerial: leaf.SerialNumber } });
    expect(res.json().Authorized).toBe(true);
  });
});
