import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../src/reference/reference.ts';

/**
 * The mesh reference's Consul validation of intentions and config entries (hashicorp dialect), one
 * case per ported check: the invalid input over HTTP, Consul's status and text. A validation error
 * returned by an RPC (Intention.Apply, ConfigEntry.Apply, the FSM's service-graph check) reaches
 * agent/http.go handleErr as a plain error: 500 with its text. Legacy intention answers were
 * confirmed against a real Consul 1.8.7 (see docs/reference-fidelity.md); the rest follow the
 * source read at the commits named there.
 */
async function call(ref: RunningReference, method: string, path: string, body?: unknown) {
  const res = await fetch(`${ref.mesh.url}${path}`, {
    method,
    headers: { 'X-Consul-Token': ref.mesh.token },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

const one = (e: string) => `1 error occurred:\n\t* ${e}\n\n`;
const uid = () => Math.random().toString(36).slice(2, 8);

describe('Consul intention and config entry validation (hashicorp dialect)', () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp', behavior: 'upstream' });
  });
  afterAll(async () => ref.stop());

  const legacy = async (body: Record<string, unknown>) => call(ref, 'POST', '/v1/connect/intentions', { SourceName: 'web', DestinationName: `db-${uid()}`, Action: 'allow', ...body });
  const entry = async (body: Record<string, unknown>) => call(ref, 'PUT', '/v1/config', body);
  const l7 = (http: Record<string, unknown>) => ({ Kind: 'service-intentions', Name: `api-${uid()}`, Sources: [{ Name: 'web', Permissions: [{ Action: 'allow', HTTP: http }] }] });

  describe('legacy intentions: Intention.Validate (agent/structs/intention.go), computeApplyChangesLegacyCreate', () => {
    it('SourceName must be set', async () => {
      expect(await legacy({ SourceName: '' })).toEqual({ status: 500, text: one('SourceName must be set') });
    });
    it('SourceName: wildcard with partial values', async () => {
      expect(await legacy({ SourceName: 'we*b' })).toEqual({ status: 500, text: one("SourceName: wildcard character '*' cannot be used with partial values") });
    });
    it('DestinationName: wildcard with partial values', async () => {
      expect(await legacy({ DestinationName: 'd*' })).toEqual({ status: 500, text: one("DestinationName: wildcard character '*' cannot be used with partial values") });
    });
    it('Description exceeds maximum length 512', async () => {
      expect(await legacy({ Description: 'a'.repeat(513) })).toEqual({ status: 500, text: one('Description exceeds maximum length 512') });
    });
    it('Meta exceeds maximum element count 64', async () => {
      const meta = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']));
      expect(await legacy({ Meta: meta })).toEqual({ status: 500, text: one('Meta exceeds maximum element count 64') });
    });
    it('Meta key exceeds maximum length 128', async () => {
      const k = 'k'.repeat(129);
      expect(await legacy({ Meta: { [k]: 'v' } })).toEqual({ status: 500, text: one(`Meta key "${k}" exceeds maximum length 128`) });
    });
    it('Meta value exceeds maximum length 512', async () => {
      expect(await legacy({ Meta: { k: 'v'.repeat(513) } })).toEqual({ status: 500, text: one('Meta value for key "k" exceeds maximum length 512') });
    });
    it("Action must be set to 'allow' or 'deny'", async () => {
      expect(await legacy({ Action: 'maybe' })).toEqual({ status: 500, text: one("Action must be set to 'allow' or 'deny'") });
    });
    it("SourceType must be set to 'consul'", async () => {
      expect(await legacy({ SourceType: 'aws' })).toEqual({ status: 500, text: one("SourceType must be set to 'consul'") });
    });
    it('every problem at once, in Consul order', async () => {
      expect(await legacy({ SourceName: '', Action: '' })).toEqual({ status: 500, text: "2 errors occurred:\n\t* SourceName must be set\n\t* Action must be set to 'allow' or 'deny'\n\n" });
    });
    it('ID must be empty when creating a new intention', async () => {
      expect(await legacy({ ID: 'x' })).toEqual({ status: 500, text: 'ID must be empty when creating a new intention' });
    });
    it('Cannot modify / delete a non-existent intention', async () => {
      const id = '0b7c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3';
      expect(await call(ref, 'PUT', `/v1/connect/intentions/${id}`, { SourceName: 'a', DestinationName: 'b', Action: 'allow' })).toEqual({ status: 500, text: `Cannot modify non-existent intention: '${id}'` });
      expect(await call(ref, 'DELETE', `/v1/connect/intentions/${id}`)).toEqual({ status: 500, text: `Cannot delete non-existent intention: '${id}'` });
    });
  });

  it('legacy update: Cannot modify Destination once it exists (computeApplyChangesLegacyUpdate)', async () => {
    const dst = `db-${uid()}`;
    const created = await call(ref, 'POST', '/v1/connect/intentions', { SourceName: 'web', DestinationName: dst, Action: 'allow' });
    const id = (JSON.parse(created.text) as { ID: string }).ID;
    expect(await call(ref, 'PUT', `/v1/connect/intentions/${id}`, { SourceName: 'web', DestinationName: `${dst}-other`, Action: 'allow' })).toEqual({
      status: 500,
      text: 'Cannot modify Destination partition/namespace/name for an intention once it exists.',
    });
  });

  describe('upsert by name: Intention.Apply, computeApplyChangesUpsert (agent/consul/intention_endpoint.go)', () => {
    const exact = (body: Record<string, unknown>) => call(ref, 'PUT', `/v1/connect/intentions/exact?source=web&destination=db-${uid()}`, body);
    it('SourcePeer field is not supported on this endpoint', async () => {
      expect(await exact({ Action: 'allow', SourcePeer: 'p' })).toEqual({ status: 500, text: 'SourcePeer field is not supported on this endpoint. Use config entries instead' });
    });
    it('ID must not be specified', async () => {
      expect(await exact({ Action: 'allow', ID: 'x' })).toEqual({ status: 500, text: 'ID must not be specified' });
    });
    it('Meta must not be specified', async () => {
      expect(await exact({ Action: 'allow', Meta: { k: 'v' } })).toEqual({ status: 500, text: 'Meta must not be specified' });
    });
  });

  describe('service-intentions: ServiceIntentionsConfigEntry.validate (agent/structs/config_entry_intentions.go)', () => {
    it('Name is required', async () => {
      expect(await entry({ Kind: 'service-intentions', Name: '', Sources: [{ Name: 'a', Action: 'allow' }] })).toEqual({ status: 500, text: 'Name is required' });
    });
    it('Name: wildcard character with partial values', async () => {
      expect(await entry({ Kind: 'service-intentions', Name: 'a*', Sources: [{ Name: 'a', Action: 'allow' }] })).toEqual({ status: 500, text: "Name: wildcard character '*' cannot be used with partial values" });
    });
    it('Meta limits (validateConfigEntryMeta, a multierror)', async () => {
      expect(await entry({ Kind: 'service-intentions', Name: 'x', Meta: { k: 'v'.repeat(513) }, Sources: [{ Name: 'a', Action: 'allow' }] })).toEqual({ status: 500, text: one('Meta value for key "k" exceeds maximum length 512') });
    });
    it('At least one source is required', async () => {
      expect(await entry({ Kind: 'service-intentions', Name: 'x', Sources: [] })).toEqual({ status: 500, text: 'At least one source is required' });
    });
    it('Sources[i].Name is required', async () => {
      expect(await entry({ Kind: 'service-intentions', Name: 'x', Sources: [{ Action: 'allow' }] })).toEqual({ status: 500, text: 'Sources[0].Name is required' });
    });
    it('Sources[i].Description exceeds maximum length', async () => {
      expect(await entry({ Kind: 'service-intentions', Name: 'x', Sources: [{ Name: 'a', Action: 'allow', Description: 'd'.repeat(513) }] })).toEqual({ status: 500, text: 'Sources[0].Description exceeds maximum length 512' });
    });
    it('Sources[i].LegacyMeta must be omitted', async () => {
      expect(await entry({ Kind: 'service-intentions', Name: 'x', Sources: [{ Name: 'a', Action: 'allow', LegacyMeta: { k: 'v' } }] })).toEqual({ status: 500, text: 'Sources[0].LegacyMeta must be omitted' });
    });
    it("Sources[i].Action must be set to 'allow' or 'deny'", async () => {
      expect(await entry({ Kind: 'service-intentions', Name: 'x', Sources: [{ Name: 'a', Action: 'maybe' }] })).toEqual({ status: 500, text: "Sources[0].Action must be set to 'allow' or 'deny'" });
    });
    it('Sources[i].Action must be omitted if Permissions are specified', async () => {
      expect(await entry({ Kind: 'service-intentions', Name: 'x', Sources: [{ Name: 'a', Action: 'allow', Permissions: [{ Action: 'allow', HTTP: { PathExact: '/' } }] }] })).toEqual({ status: 500, text: 'Sources[0].Action must be omitted if Permissions are specified' });
    });
    it('Permissions cannot be specified on wildcarded destinations', async () => {
      expect(await entry({ Kind: 'service-intentions', Name: '*', Sources: [{ Name: 'a', Permissions: [{ Action: 'allow', HTTP: { PathExact: '/' } }] }] })).toEqual({ status: 500, text: 'Sources[0].Permissions cannot be specified on intentions with wildcarded destinations' });
    });
    it("Sources[i].Type must be set to 'consul'", async () => {
      expect(await entry({ Kind: 'service-intentions', Name: 'x', Sources: [{ Name: 'a', Action: 'allow', Type: 'aws' }] })).toEqual({ status: 500, text: "Sources[0].Type must be set to 'consul'" });
    });
    it('Sources[i] defines a source more than once', async () => {
      expect(await entry({ Kind: 'service-intentions', Name: 'x', Sources: [{ Name: 'a', Action: 'allow' }, { Name: 'a', Action: 'deny' }] })).toEqual({ status: 500, text: 'Sources[1] defines "a" more than once' });
    });
    it('Permissions[j].Action must be allow or deny', async () => {
      expect(await entry({ Kind: 'service-intentions', Name: 'x', Sources: [{ Name: 'a', Permissions: [{ Action: 'x', HTTP: { PathExact: '/' } }] }] })).toEqual({ status: 500, text: "Sources[0].Permissions[0].Action must be set to 'allow' or 'deny'" });
    });
    it('Permissions[j].HTTP is required', async () => {
      expect(await entry({ Kind: 'service-intentions', Name: 'x', Sources: [{ Name: 'a', Permissions: [{ Action: 'allow' }] }] })).toEqual({ status: 500, text: 'Sources[0].Permissions[0].HTTP is required' });
    });
    it("HTTP.PathExact / PathPrefix must start with '/'", async () => {
      expect(await entry(l7({ PathExact: 'x' }))).toEqual({ status: 500, text: `Sources[0].Permissions[0].HTTP.PathExact doesn't start with '/': "x"` });
      expect(await entry(l7({ PathPrefix: 'x' }))).toEqual({ status: 500, text: `Sources[0].Permissions[0].HTTP.PathPrefix doesn't start with '/': "x"` });
    });
    it('HTTP: at most one of PathExact, PathPrefix, PathRegex', async () => {
      expect(await entry(l7({ PathExact: '/a', PathRegex: '.*' }))).toEqual({ status: 500, text: 'Sources[0].Permissions[0].HTTP should only contain at most one of PathExact, PathPrefix, or PathRegex' });
    });
    it('HTTP.Header[k] missing required Name field', async () => {
      expect(await entry(l7({ Header: [{ Present: true }] }))).toEqual({ status: 500, text: 'Sources[0].Permissions[0].HTTP.Header[0] missing required Name field' });
    });
    it('HTTP.Header[k]: exactly one of Present, Exact, Prefix, Suffix, Regex', async () => {
      const text = 'Sources[0].Permissions[0].HTTP.Header[0] should only contain one of Present, Exact, Prefix, Suffix, or Regex';
      expect(await entry(l7({ Header: [{ Name: 'x-a' }] }))).toEqual({ status: 500, text });
      expect(await entry(l7({ Header: [{ Name: 'x-a', Exact: 'a', Prefix: 'b' }] }))).toEqual({ status: 500, text });
    });
    it('HTTP.Methods: valid and unique (after upper-casing by Normalize)', async () => {
      expect(await entry(l7({ Methods: ['FETCH'] }))).toEqual({ status: 500, text: 'Sources[0].Permissions[0].HTTP.Methods contains an invalid method "FETCH"' });
      expect(await entry(l7({ Methods: ['get', 'GET'] }))).toEqual({ status: 500, text: 'Sources[0].Permissions[0].HTTP.Methods contains "GET" more than once' });
    });
    it('HTTP should not be empty', async () => {
      expect(await entry(l7({}))).toEqual({ status: 500, text: 'Sources[0].Permissions[0].HTTP should not be empty' });
    });
    it('Permissions need an HTTP-like protocol (state/config_entry.go validateProposedConfigEntryInServiceGraph)', async () => {
      const body = l7({ PathPrefix: '/' });
      expect(await entry(body)).toEqual({ status: 500, text: `service "${body.Name}" has protocol "tcp", which is incompatible with L7 intentions permissions` });
      expect((await entry({ Kind: 'service-defaults', Name: body.Name, Protocol: 'http' })).text).toBe('true');
      expect((await entry(body)).text).toBe('true');
    });
  });

  describe('service-defaults: ServiceConfigEntry.Validate (agent/structs/config_entry.go)', () => {
    it('Name is required', async () => {
      expect(await entry({ Kind: 'service-defaults', Name: '' })).toEqual({ status: 500, text: 'Name is required' });
    });
    it('name must not be a wildcard', async () => {
      expect(await entry({ Kind: 'service-defaults', Name: '*' })).toEqual({ status: 500, text: 'service-defaults name must be the name of a service, and not a wildcard' });
    });
    it('Meta limits (validateConfigEntryMeta, a multierror)', async () => {
      expect(await entry({ Kind: 'service-defaults', Name: 'x', Meta: { ['k'.repeat(129)]: 'v' } })).toEqual({ status: 500, text: one(`Meta key "${'k'.repeat(129)}" exceeds maximum length 128`) });
    });
  });
});
