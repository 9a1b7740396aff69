import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blockAround, blockEnds, inAnyBlock, inBlock, isBlockText, leaseRange, loginOutcomes, nextBlock, parseBlock, sameNetwork, tokenUsableFrom, type LoginRole, type Machine } from '../suites/models/cloud-identity-access.ts';

const machine: Machine = { kind: 'vmss', name: 'ss1', subscription_id: 'sub-1', resource_group: 'rg-1', location: 'westeurope', principal_id: 'sp-1', groups: ['g1', 'g2'] };
const attempt = (m: Machine = machine, source = '10.0.0.5') => ({ machine: m, source, audience: 'https://res/', resource: 'https://res/' });

describe('cloud-identity model: CIDR blocks at bit boundaries', () => {
  it('a /27 holds 32 addresses from its network address to its broadcast address', () => {
    const b = parseBlock('10.1.2.32/27')!;
    expect(inBlock('10.1.2.32', b)).toBe(true);
    expect(inBlock('10.1.2.63', b)).toBe(true);
    expect(inBlock('10.1.2.64', b)).toBe(false);
    expect(inBlock('10.1.2.31', b)).toBe(false);
  });
  it('a /23 crosses a byte boundary', () => {
    expect(inAnyBlock('10.1.3.255', ['10.1.2.0/23'])).toBe(true);
    expect(inAnyBlock('10.1.4.0', ['10.1.2.0/23'])).toBe(false);
    expect(inAnyBlock('10.1.1.255', ['10.1.2.0/23'])).toBe(false);
  });
  it('/31 and /32 and a bare address', () => {
    expect(inAnyBlock('127.0.0.1', ['127.0.0.0/31'])).toBe(true);
    expect(inAnyBlock('127.0.0.2', ['127.0.0.0/31'])).toBe(false);
    expect(inAnyBlock('127.0.0.2', ['127.0.0.2/31'])).toBe(true);
    expect(inAnyBlock('127.0.0.1', ['127.0.0.1'])).toBe(true);
    expect(inAnyBlock('127.0.0.2', ['127.0.0.1/32'])).toBe(false);
  });
  it('IPv6 /127, and families never mix', () => {
    expect(inAnyBlock('::1', ['::/127'])).toBe(true);
    expect(inAnyBlock('::2', ['::/127'])).toBe(false);
    expect(inAnyBlock('127.0.0.1', ['::/0'])).toBe(false);
    expect(inAnyBlock('::1', ['0.0.0.0/0'])).toBe(false);
  });
  it('a block written with host bits set is the network it falls in', () => {
    expect(inAnyBlock('10.0.0.1', ['10.0.0.7/30'])).toBe(false);
    expect(inAnyBlock('10.0.0.5', ['10.0.0.7/30'])).toBe(true);
  });
  it('blockAround and nextBlock sit on each side of the bound', () => {
    expect(blockAround('127.0.0.2', 31)).toBe('127.0.0.2/31');
    expect(nextBlock('127.0.0.1', 31)).toBe('127.0.0.2/31');
    expect(nextBlock('255.255.255.255', 24)).toBeUndefined();
  });
  it('a block is an address with a prefix of digits up to the family\'s bits, or a bare address: anything else is invalid data', () => {
    for (const ok of ['10.0.0.0/8', '0.0.0.0/0', '10.0.0.1/32', '10.0.0.1', 'fd00::/8', '::1/128', '::1', '2001:db8::/64']) expect(isBlockText(ok), ok).toBe(true);
    for (const bad of ['10.0.0.0/x8', '10.0.0.0/8x', '10.0.0.0/ 8', '10.0.0.0/33', '10.0.0.0/-1', '10.0.0.256', '2001:db8::/129', 'fd00::g/8', '10.0.0.0/8/8', 'not-a-cidr', '']) expect(isBlockText(bad), bad).toBe(false);
  });
  it('two entries name the same network when family, prefix and network bits agree', () => {
    expect(sameNetwork('10.0.0.1/32', '10.0.0.1')).toBe(true);
    expect(sameNetwork('::1/128', '::1')).toBe(true);
    expect(sameNetwork('fd00::/8', 'fd00:0:0:0:0:0:0:0/8')).toBe(true);
    expect(sameNetwork('10.0.0.0/8', '10.0.0.0/9')).toBe(false);
    expect(sameNetwork('10.0.0.1', '10.0.0.2')).toBe(false);
    expect(sameNetwork('0.0.0.0/0', '::/0')).toBe(false);
  });
  it('property: the address is in the block around it and never in the next one; one bit less still holds it', () => {
    const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join('.'));
    fc.assert(
      fc.property(v4, fc.integer({ min: 1, max: 32 }), (a, p) => {
        expect(inAnyBlock(a, [blockAround(a, p)])).toBe(true);
        expect(inAnyBlock(a, [blockAround(a, p - 1)])).toBe(true);
        const next = nextBlock(a, p);
        if (next) expect(inAnyBlock(a, [next])).toBe(false);
        const { first, last } = blockEnds(parseBlock(blockAround(a, p))!);
        expect(last - first + 1n).toBe(1n << BigInt(32 - p));
      }),
    );
  });
});

describe('cloud-identity model: login against the role', () => {
  const bound = (field: string, values: string[]): LoginRole => ({ bounds: { bound_service_principal_ids: ['sp-1'], [field]: values } });
  it('a bound with several values admits any of them; one field off refuses', () => {
    expect(loginOutcomes(bound('bound_resource_groups', ['rg-0', 'rg-1']), attempt())).toEqual(new Set(['admitted']));
    expect(loginOutcomes(bound('bound_resource_groups', ['rg-0', 'rg-10']), attempt())).toEqual(new Set(['refused']));
    expect(loginOutcomes(bound('bound_subscription_ids', ['sub-']), attempt())).toEqual(new Set(['refused']));
    expect(loginOutcomes(bound('bound_group_ids', ['g2']), attempt())).toEqual(new Set(['admitted']));
    expect(loginOutcomes(bound('bound_scale_sets', ['ss1']), attempt({ ...machine, kind: 'vm' }))).toEqual(new Set(['refused']));
  });
  it('letter case alone may go either way', () => {
    expect(loginOutcomes(bound('bound_locations', ['WestEurope']), attempt())).toEqual(new Set(['admitted', 'refused']));
  });
  it("the login's subscription, resource group and name are the machine's own: a near miss refuses whatever the bounds, case alone may go either way", () => {
    const role = bound('bound_resource_groups', [machine.resource_group.slice(0, -1)]);
    const located = bound('bound_locations', [machine.location]);
    for (const claim of [machine.resource_group.slice(0, -1), machine.resource_group.slice(1), `${machine.resource_group}x`, `x${machine.resource_group}`]) {
      expect(loginOutcomes(located, { ...attempt(), claimed: { resource_group: claim } }), claim).toEqual(new Set(['refused']));
      expect(loginOutcomes(bound('bound_locations', []), { ...attempt(), claimed: { resource_group: claim } }), `${claim}, no bound judged from the machine`).toEqual(new Set(['admitted', 'refused']));
    }
    expect(loginOutcomes(role, { ...attempt(), claimed: { resource_group: machine.resource_group.slice(0, -1) } }), 'the bound names the claimed prefix').toEqual(new Set(['refused']));
    expect(loginOutcomes(located, { ...attempt(), claimed: { name: `${machine.name}x` } })).toEqual(new Set(['refused']));
    expect(loginOutcomes(located, { ...attempt(), claimed: { subscription_id: machine.subscription_id.toUpperCase() } })).toEqual(new Set(['admitted', 'refused']));
    expect(loginOutcomes(located, { ...attempt(), claimed: { resource_group: machine.resource_group } }), 'its own').toEqual(new Set(['admitted']));
  });
  it('the audience must be the configured resource', () => {
    expect(loginOutcomes(bound('bound_locations', []), { ...attempt(), audience: 'https://res/x' })).toEqual(new Set(['refused']));
  });
  it('token_bound_cidrs decide login and use', () => {
    const role: LoginRole = { bounds: { bound_service_principal_ids: ['sp-1'] }, token_bound_cidrs: ['10.0.0.4/31'] };
    expect(loginOutcomes(role, attempt(machine, '10.0.0.5'))).toEqual(new Set(['admitted']));
    expect(loginOutcomes(role, attempt(machine, '10.0.0.6'))).toEqual(new Set(['refused']));
    expect(tokenUsableFrom(role, '10.0.0.3')).toBe(false);
    expect(tokenUsableFrom({ bounds: {} }, '10.0.0.3')).toBe(true);
  });
  it('property: adding a bound value never refuses a login it admitted; narrowing a bound never admits one it refused', () => {
    const values = fc.constantFrom('sp-1', 'sp-2', 'rg-1', 'rg-2', 'g1', 'g3');
    const field = fc.constantFrom('bound_service_principal_ids', 'bound_resource_groups', 'bound_group_ids');
    fc.assert(
      fc.property(field, fc.array(values, { minLength: 1, maxLength: 3 }), values, (f, list, extra) => {
        const before = loginOutcomes(bound(f, list), attempt());
        const after = loginOutcomes(bound(f, [...list, extra]), attempt());
        if (before.has('admitted') && !before.has('refused')) expect(after.has('refused')).toBe(false);
      }),
    );
  });
});

describe('cloud-identity model: lifetime', () => {
  it('token_ttl is the lifetime, capped by each set cap', () => {
    expect(leaseRange({ token_ttl: 300, token_max_ttl: 600, token_explicit_max_ttl: 0, token_period: 0 })).toEqual({ min: 300, max: 300 });
    expect(leaseRange({ token_ttl: 3600, token_max_ttl: 0, token_explicit_max_ttl: 900, token_period: 0 })).toEqual({ min: 900, max: 900 });
  });
  it('a period never lifts the lifetime above token_explicit_max_ttl or token_max_ttl', () => {
    expect(leaseRange({ token_ttl: 0, token_max_ttl: 0, token_explicit_max_ttl: 600, token_period: 3600 })).toEqual({ min: 1, max: 600 });
    expect(leaseRange({ token_ttl: 0, token_max_ttl: 700, token_explicit_max_ttl: 0, token_period: 3600 })).toEqual({ min: 1, max: 700 });
    expect(leaseRange({ token_ttl: 0, token_max_ttl: 0, token_explicit_max_ttl: 0, token_period: 3600 }).max).toBe(Number.POSITIVE_INFINITY);
  });
  it('property: lowering a cap never raises the longest allowed lifetime', () => {
    const t = fc.constantFrom(0, 60, 300, 3600);
    fc.assert(
      fc.property(t, t, t, t, fc.constantFrom(60, 120), (ttl, max, explicit, period, lower) => {
        const a = leaseRange({ token_ttl: ttl, token_max_ttl: max, token_explicit_max_ttl: explicit, token_period: period });
        const b = leaseRange({ token_ttl: ttl, token_max_ttl: max, token_explicit_max_ttl: lower, token_period: period });
        expect(b.max).toBeLessThanOrEqual(Math.max(a.max, lower));
        expect(b.max).toBeLessThanOrEqual(lower);
      }),
    );
  });
});
