import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type ReferenceWithControl } from '../src/reference/reference.ts';

/**
 * The cloud-identity role in the hashicorp dialect takes the older field names Vault's Azure plugin
 * still takes (vault-plugin-auth-azure path_role.go; hashicorp/vault sdk/helper/tokenutil
 * UpgradeValue): what hvac's create_role sends (policies, ttl, max_ttl, period, num_uses only).
 */
describe('cloud-identity role, older field names (hashicorp dialect)', () => {
  let ref: ReferenceWithControl;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp' });
  });
  afterAll(async () => ref.stop());

  const role = (name: string) => `${ref.secrets.url}/v1/auth/azure/role/${name}`;
  const headers = () => ({ 'X-Vault-Token': ref.secrets.token, 'content-type': 'application/json' });
  const write = (name: string, body: Record<string, unknown>) => fetch(role(name), { method: 'POST', headers: headers(), body: JSON.stringify({ bound_subscription_ids: ['sub-1'], ...body }) });
  const read = async (name: string) => ((await (await fetch(role(name), { headers: headers() })).json()) as { data: Record<string, unknown> }).data;

  it('hvac create_role: policies, ttl, max_ttl, period and num_uses set the token_* fields and read back under both names', async () => {
    expect((await write('hvac', { policies: 'Dev, ops,dev,', ttl: '1h', max_ttl: 7200, period: 0, num_uses: 3 })).status).toBe(204);
    const r = await read('hvac');
    expect(r).toMatchObject({ token_policies: ['dev', 'ops'], policies: ['dev', 'ops'], token_ttl: 3600, ttl: 3600, token_max_ttl: 7200, max_ttl: 7200, token_num_uses: 3, num_uses: 3, token_period: 0 });
    // A zero older value is not read back (pathRoleRead shows it only while it holds something).
    expect(r).not.toHaveProperty('period');
  });

  it('token_* wins when both names are given, and given alone it clears the older one', async () => {
    await write('both', { ttl: 60, token_ttl: 120 });
    expect(await read('both')).toMatchObject({ token_ttl: 120, ttl: 120 });
    await write('both', { token_ttl: 300 });
    const r = await read('both');
    expect(r.token_ttl).toBe(300);
    expect(r).not.toHaveProperty('ttl');
  });

  it('"root" among the older policies leaves only root (policyutil.ParsePolicies)', async () => {
    await write('root', { policies: ['a', 'root', 'b'] });
    expect((await read('root')).token_policies).toEqual(['root']);
  });
});
