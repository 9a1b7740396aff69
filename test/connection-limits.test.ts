import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_IN_FLIGHT, maxInFlightFor, perClientConnectionLimit } from '../src/load/connection-limits.ts';

describe('load engines stay under a product\'s per-client connection limit', () => {
  it('keeps below Consul\'s 200 and Nomad\'s 100 in the hashicorp dialect, with room for the run\'s other connections', () => {
    expect(maxInFlightFor('mesh', 'hashicorp')).toBeLessThan(200);
    expect(maxInFlightFor('scheduler', 'hashicorp')).toBeLessThan(100);
    expect(perClientConnectionLimit('mesh', 'hashicorp')?.why).toMatch(/http_max_conns_per_client/);
  });
  it('sets no limit where the product has none (Vault, the spec dialect)', () => {
    expect(maxInFlightFor('secrets', 'hashicorp')).toBe(DEFAULT_MAX_IN_FLIGHT);
    expect(maxInFlightFor('mesh', 'spec')).toBe(DEFAULT_MAX_IN_FLIGHT);
    expect(perClientConnectionLimit('scheduler', 'spec')).toBeUndefined();
  });
});
