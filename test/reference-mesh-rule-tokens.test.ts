import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type ReferenceWithControl } from '../src/reference/reference.ts';

/**
 * The control listener's rules tokens (issue 47): a token linked to one policy of ACL rules, whose
 * rules can be replaced and which can be deleted, decided as Consul decides them (exact over
 * prefix, deny included) by the agent's leaf endpoint from the next request on.
 */
describe('mesh control listener: tokens from ACL rules', () => {
  let ref: ReferenceWithControl;
  beforeAll(async () => {
    ref = await startReference();
  });
  afterAll(async () => ref.stop());

  const control = (method: string, path: string, body?: unknown) =>
    fetch(`${ref.control.url}${path}`, { method, headers: { authorization: `Bearer ${ref.control.token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const leaf = (service: string, token: string) => fetch(`${ref.mesh.url}/v1/agent/connect/ca/leaf/${service}`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);

  it('makes a token from rules, applies a change of its policy and its deletion at once', async () => {
    const made = await control('POST', '/v1/control/mesh/tokens', { rules: 'service_prefix "web" { policy = "write" }\nservice "web-db" { policy = "deny" }' });
    expect(made.status).toBe(200);
    const { token, accessor, policy_id } = (await made.json()) as { token: string; accessor: string; policy_id: string };
    expect([await leaf('web-a', token), await leaf('web-db', token), await leaf('api', token)]).toEqual([200, 403, 403]);
    expect((await control('PUT', `/v1/control/mesh/policies/${policy_id}`, { rules: 'service "web-db" { policy = "write" }' })).status).toBe(200);
    expect([await leaf('web-db', token), await leaf('web-b', token)]).toEqual([200, 403]);
    expect((await control('DELETE', `/v1/control/mesh/tokens/${accessor}`)).status).toBe(200);
    expect(await leaf('web-c', token)).toBe(403);
  });

  it('refuses rules that do not parse, an unknown policy and a malformed accessor with a 4xx', async () => {
    expect((await control('POST', '/v1/control/mesh/tokens', { rules: 'service "x" { policy = "sideways" }' })).status).toBe(400);
    expect((await control('PUT', '/v1/control/mesh/policies/00000000-1111-2222-3333-444444444444', { rules: '' })).status).toBe(404);
    expect((await control('PUT', '/v1/control/mesh/policies/x', {})).status).toBe(400);
    expect((await control('DELETE', '/v1/control/mesh/tokens/not-a-uuid')).status).toBe(400);
  });
});
