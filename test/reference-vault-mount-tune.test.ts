import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type ReferenceWithControl } from '../src/reference/reference.ts';

/**
 * sys/mounts/<path>/tune and sys/auth/<path>/tune in the hashicorp dialect, as hvac's
 * sys.read_mount_configuration and sys.tune_mount_configuration send them (hashicorp/vault
 * vault/logical_system.go handleTuneReadCommon, handleTuneWriteCommon).
 */
describe('mount tuning (hashicorp dialect)', () => {
  let ref: ReferenceWithControl;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp' });
  });
  afterAll(async () => ref.stop());
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${ref.secrets.url}/v1/${path}`, { method, headers: { 'X-Vault-Token': ref.secrets.token, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    const text = await res.text();
    return { status: res.status, json: () => (text ? (JSON.parse(text) as Record<string, any>) : {}) };
  };

  it('reads the effective lease TTLs (the system 768h where the mount sets none), description and options, in data and at the top level', async () => {
    const mount = ref.secrets.kvV2Mount.replace(/\/$/, '');
    const res = await call('GET', `sys/mounts/${mount}/tune`);
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body.data).toMatchObject({ default_lease_ttl: 2_764_800, max_lease_ttl: 2_764_800, force_no_cache: false, options: { version: '2' } });
    expect(body.default_lease_ttl).toBe(2_764_800);
  });

  it('tunes the TTLs and description (204), "system" resets a TTL, and sys/mounts then lists the mount\'s own values', async () => {
    const mount = ref.secrets.kvV1Mount.replace(/\/$/, '');
    expect((await call('POST', `sys/mounts/${mount}/tune`, { default_lease_ttl: '1h', max_lease_ttl: 7200, description: 'tuned' })).status).toBe(204);
    expect((await call('GET', `sys/mounts/${mount}/tune`)).json().data).toMatchObject({ default_lease_ttl: 3600, max_lease_ttl: 7200, description: 'tuned' });
    expect((await call('GET', 'sys/mounts')).json().data[`${mount}/`].config).toMatchObject({ default_lease_ttl: 3600, max_lease_ttl: 7200 });
    expect((await call('POST', `sys/mounts/${mount}/tune`, { default_lease_ttl: 'system' })).status).toBe(204);
    expect((await call('GET', `sys/mounts/${mount}/tune`)).json().data.default_lease_ttl).toBe(2_764_800);
    const conflict = await call('POST', `sys/mounts/${mount}/tune`, { default_lease_ttl: '3h' });
    expect(conflict.json()).toEqual({ errors: ['backend max lease TTL of 7200 would be less than backend default lease TTL of 10800'] });
  });

  it("answers a path with no mount in Vault's words, and refuses what Vault refuses", async () => {
    expect((await call('GET', 'sys/mounts/nope/tune')).json()).toEqual({ errors: ['cannot fetch sysview for path "nope/"'] });
    expect((await call('POST', 'sys/mounts/nope/tune', { description: 'x' })).json()).toEqual({ errors: ['tune of path "nope/" failed: no mount entry found'] });
    expect((await call('POST', 'sys/mounts/identity/tune', { description: 'x' })).json()).toEqual({ errors: ['cannot tune "identity/"'] });
    const kv2 = ref.secrets.kvV2Mount.replace(/\/$/, '');
    expect((await call('POST', `sys/mounts/${kv2}/tune`, { options: { version: '1' } })).json()).toEqual({ errors: ['cannot downgrade mount from version 2'] });
    expect((await call('POST', `sys/mounts/${kv2}/tune`, { options: { version: '3' } })).json()).toEqual({ errors: ['invalid version provided: 3'] });
  });

  it('tunes an auth method under sys/auth/<path>/tune', async () => {
    const res = await call('GET', 'sys/auth/token/tune');
    expect(res.status).toBe(200);
    expect(res.json().data).toMatchObject({ token_type: 'default-service', default_lease_ttl: 2_764_800 });
  });
});
