import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  authorizeOutcome,
  keyAccess,
  mergeWords,
  wordGrants,
  leafIdentity,
  leafOutcomes,
  mayReadService,
  mayWriteService,
  mergePolicies,
  parseServiceUri,
  policyApplies,
  precedence,
  listOrder,
  serviceAccess,
  serviceIdentityRules,
  type IntentionModel,
  type PolicyModel,
  type RuleWord,
  type ServiceRule,
  type TokenModel,
} from '../suites/models/mesh-access.ts';

const exact = (name: string, access: ServiceRule['access']): ServiceRule => ({ name, prefix: false, access });
const prefix = (name: string, access: ServiceRule['access']): ServiceRule => ({ name, prefix: true, access });
const token = (rules: ServiceRule[], namespace = 'default'): TokenModel => ({ namespace, rules });
const ref = (name: string, namespace = 'default') => ({ name, namespace });
const intention = (source: string, destination: string, action: 'allow' | 'deny', sourceNs = 'default', destinationNs = 'default'): IntentionModel => ({ source: ref(source, sourceNs), destination: ref(destination, destinationNs), action });

describe('mesh access model: ACL', () => {
  it('service:write on the endpoint table: write grants, read does not, nothing does not', () => {
    expect(mayWriteService(token([exact('web', 'write')]), 'default', 'web')).toBe(true);
    expect(mayWriteService(token([exact('web', 'read')]), 'default', 'web')).toBe(false);
    expect(mayWriteService(token([]), 'default', 'web')).toBe(false);
    expect(mayWriteService(undefined, 'default', 'web')).toBe(false);
  });

  it('an exact rule covers its name only; a prefix rule every name starting with it', () => {
    expect(mayWriteService(token([exact('web', 'write')]), 'default', 'web-x')).toBe(false);
    expect(mayWriteService(token([prefix('web', 'write')]), 'default', 'web-x')).toBe(true);
    expect(mayWriteService(token([prefix('web', 'write')]), 'default', 'we')).toBe(false);
  });

  it('an exact deny under a prefix allow denies its name only, and the reverse', () => {
    const rules = [prefix('web', 'write'), exact('web-db', 'deny')];
    expect(mayWriteService(token(rules), 'default', 'web-db')).toBe(false);
    expect(mayWriteService(token(rules), 'default', 'web-dc')).toBe(true);
    const reverse = [prefix('web', 'deny'), exact('web-db', 'write')];
    expect(mayWriteService(token(reverse), 'default', 'web-db')).toBe(true);
    expect(mayWriteService(token(reverse), 'default', 'web-dc')).toBe(false);
  });

  it('service:read: read and write grant it, deny and nothing do not; the rule that applies decides, as for write', () => {
    expect(mayReadService(token([exact('web', 'read')]), 'default', 'web')).toBe(true);
    expect(mayReadService(token([exact('web', 'write')]), 'default', 'web')).toBe(true);
    expect(mayReadService(token([exact('web', 'deny')]), 'default', 'web')).toBe(false);
    expect(mayReadService(token([]), 'default', 'web')).toBe(false);
    // A deny under a prefix write on the same name; a read prefix and the name just outside it.
    expect(mayReadService(token([prefix('web', 'write'), exact('web-db', 'deny')]), 'default', 'web-db')).toBe(false);
    expect(mayReadService(token([prefix('web', 'read')]), 'default', 'we')).toBe(false);
    expect(mayReadService(token([prefix('web', 'read')], 'ns-a'), 'ns-b', 'web')).toBe(false);
    expect(mayReadService({ ...token([prefix('', 'read')]), deleted: true }, 'default', 'web')).toBe(false);
  });

  it('property: write implies read, and read without write means the rule that applies is read', () => {
    const rule = fc.record({ name: fc.constantFrom('', 'a', 'ab', 'b'), prefix: fc.boolean(), access: fc.constantFrom<ServiceRule['access']>('read', 'write', 'deny') });
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 5 }), fc.constantFrom('', 'a', 'ab', 'abc', 'b', 'c'), (rules, name) => {
        const t = token(rules);
        if (mayWriteService(t, 'default', name)) expect(mayReadService(t, 'default', name)).toBe(true);
        expect(mayReadService(t, 'default', name) && !mayWriteService(t, 'default', name)).toBe(serviceAccess(rules, name) === 'read');
      }),
    );
  });

  it('service and service_prefix with the same name: the exact one decides that name, the prefix the longer ones', () => {
    const rules = [exact('api', 'read'), prefix('api', 'write')];
    expect(serviceAccess(rules, 'api')).toBe('read');
    expect(serviceAccess(rules, 'api2')).toBe('write');
  });

  it('the longest prefix wins, whichever way', () => {
    expect(serviceAccess([prefix('a', 'write'), prefix('ab', 'deny')], 'abc')).toBe('deny');
    expect(serviceAccess([prefix('a', 'deny'), prefix('ab', 'write')], 'abc')).toBe('write');
    expect(serviceAccess([prefix('a', 'deny'), prefix('ab', 'write')], 'ac')).toBe('deny');
  });

  it("a token's rules hold in its own namespace only; a deleted token grants nothing", () => {
    expect(mayWriteService(token([prefix('', 'write')], 'ns-a'), 'ns-a', 'web')).toBe(true);
    expect(mayWriteService(token([prefix('', 'write')], 'ns-a'), 'ns-b', 'web')).toBe(false);
    expect(mayWriteService({ ...token([prefix('', 'write')]), deleted: true }, 'default', 'web')).toBe(false);
  });

  it('a leaf the token holds may come again from the cache after a revocation; a new one never', () => {
    expect(leafOutcomes(false, true)).toEqual(['refused', 'held']);
    expect(leafOutcomes(false, false)).toEqual(['refused']);
    expect(leafOutcomes(true, false)).toEqual(['issued']);
  });

  const access = fc.constantFrom<ServiceRule['access']>('read', 'write', 'deny');
  const name = fc.stringMatching(/^[ab]{0,3}$/);
  const rule = fc.record({ name, prefix: fc.boolean(), access });

  it('property: adding a deny rule never grants', () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 5 }), rule, name, (rules, extra, service) => {
        const before = mayWriteService(token(rules), 'default', service);
        const after = mayWriteService(token([...rules, { ...extra, access: 'deny' }]), 'default', service);
        expect(after && !before).toBe(false);
      }),
    );
  });

  it('property: an exact rule decides its own name whatever the prefixes say', () => {
    fc.assert(
      fc.property(fc.array(rule.filter((r) => r.prefix), { maxLength: 5 }), name, access, (prefixes, service, a) => {
        expect(serviceAccess([...prefixes, exact(service, a)], service)).toBe(a);
      }),
    );
  });

  it('property: a rule for one name changes no decision for a name it does not cover', () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 5 }), rule, name, (rules, extra, service) => {
        fc.pre(extra.prefix ? !service.startsWith(extra.name) : service !== extra.name);
        expect(serviceAccess([...rules, extra], service)).toBe(serviceAccess(rules, service));
      }),
    );
  });
});

describe('mesh access model: a token of several policies', () => {
  const policy = (rules: ServiceRule[], datacenters?: string[]): PolicyModel => ({ rules, ...(datacenters ? { datacenters } : {}) });
  const writes = (policies: PolicyModel[], service: string, dc = 'dc1') => mayWriteService(token(mergePolicies(policies, dc)), 'default', service);
  const reads = (policies: PolicyModel[], service: string, dc = 'dc1') => mayReadService(token(mergePolicies(policies, dc)), 'default', service);

  it('deny in one policy and write in another on the same name: deny, in both orders (Consul 1.8.7 asked)', () => {
    for (const kind of [exact, prefix]) {
      const [deny, write] = [policy([kind('web', 'deny')]), policy([kind('web', 'write')])];
      expect(writes([deny, write], 'web')).toBe(false);
      expect(writes([write, deny], 'web')).toBe(false);
      expect(reads([write, deny], 'web')).toBe(false);
    }
  });

  it('read in one policy and write in another: write, in both orders; read alone stays read', () => {
    for (const kind of [exact, prefix]) {
      const [read, write] = [policy([kind('web', 'read')]), policy([kind('web', 'write')])];
      expect(writes([read, write], 'web')).toBe(true);
      expect(writes([write, read], 'web')).toBe(true);
      expect(writes([read, read], 'web')).toBe(false);
      expect(reads([read], 'web')).toBe(true);
    }
  });

  it('an exact rule in one policy beats a prefix in another; the longest prefix across policies decides', () => {
    expect(writes([policy([prefix('web', 'write')]), policy([exact('web-db', 'deny')])], 'web-db')).toBe(false);
    expect(writes([policy([exact('web-db', 'write')]), policy([prefix('web', 'deny')])], 'web-db')).toBe(true);
    expect(writes([policy([prefix('web-', 'write')]), policy([prefix('web', 'deny')])], 'web-db')).toBe(true);
    expect(writes([policy([prefix('web-', 'write')]), policy([prefix('web', 'deny')])], 'webx')).toBe(false);
  });

  it('a policy scoped to datacenters applies only in those; none or an empty list means every one', () => {
    expect(policyApplies(policy([]), 'dc1')).toBe(true);
    expect(policyApplies(policy([], []), 'dc1')).toBe(true);
    expect(policyApplies(policy([], ['dc1']), 'dc1')).toBe(true);
    expect(policyApplies(policy([], ['dc2']), 'dc1')).toBe(false);
    expect(policyApplies(policy([], ['dc2', 'dc1']), 'dc1')).toBe(true);
    expect(writes([policy([exact('web', 'write')], ['dc2'])], 'web')).toBe(false);
    expect(writes([policy([exact('web', 'write')], ['dc2'])], 'web', 'dc2')).toBe(true);
    // A deny scoped elsewhere takes nothing away here.
    expect(writes([policy([exact('web', 'write')]), policy([exact('web', 'deny')], ['dc2'])], 'web')).toBe(true);
  });

  const access = fc.constantFrom<ServiceRule['access']>('read', 'write', 'deny');
  const rule = fc.record({ name: fc.stringMatching(/^[ab]{0,2}$/), prefix: fc.boolean(), access });
  const policies = fc.array(fc.record({ rules: fc.array(rule, { maxLength: 3 }), datacenters: fc.option(fc.subarray(['dc1', 'dc2']), { nil: undefined }) }), { maxLength: 3 });

  it('property: the order of a token\'s policies decides nothing', () => {
    fc.assert(
      fc.property(policies, fc.stringMatching(/^[ab]{0,3}$/), (ps, service) => {
        expect(serviceAccess(mergePolicies([...ps].reverse(), 'dc1'), service)).toBe(serviceAccess(mergePolicies(ps, 'dc1'), service));
      }),
    );
  });

  it('property: merging is the same as one policy holding every rule that applies; a deny of a name and kind in any applying policy is the merged word, whatever else is linked', () => {
    fc.assert(
      fc.property(policies, policies, fc.stringMatching(/^[ab]{0,3}$/), (ps, more, service) => {
        const applying = ps.filter((p) => policyApplies(p, 'dc1')).flatMap((p) => p.rules);
        expect(serviceAccess(mergePolicies(ps, 'dc1'), service)).toBe(serviceAccess(applying, service));
        const merged = mergePolicies([...ps, ...more], 'dc1');
        for (const deny of applying.filter((r) => r.access === 'deny')) expect(merged.find((r) => r.name === deny.name && r.prefix === deny.prefix)?.access).toBe('deny');
        expect(new Set(merged.map((r) => `${r.prefix}:${r.name}`)).size, 'one rule per kind and name').toBe(merged.length);
      }),
    );
  });
});

describe('mesh access model: key, acl and operator rules', () => {
  const words: RuleWord[] = ['read', 'list', 'write', 'deny'];
  it('list grants reading a key but not writing it; read likewise; write both; deny and no rule neither', () => {
    expect(words.map((w) => [wordGrants(w, 'read'), wordGrants(w, 'write')])).toEqual([[true, false], [true, false], [true, true], [false, false]]);
    expect([wordGrants('none', 'read'), wordGrants('none', 'write')]).toEqual([false, false]);
  });
  it('where policies name one thing, deny beats write beats list beats read', () => {
    expect(mergeWords(['read', 'write'])).toBe('write');
    expect(mergeWords(['write', 'deny'])).toBe('deny');
    expect(mergeWords(['read', 'list'])).toBe('list');
    expect(mergeWords(['list', 'write'])).toBe('write');
    expect(mergeWords(['none', 'read'])).toBe('read');
    expect(mergeWords(['none', 'none'])).toBe('none');
  });
  it('a key rule: the exact key, else the longest prefix; a key outside every rule has none', () => {
    const rules = [{ name: 'a/', prefix: true, access: 'list' as const }, { name: 'a/b', prefix: false, access: 'deny' as const }, { name: 'a/bc', prefix: true, access: 'write' as const }];
    expect(keyAccess(rules, 'a/x')).toBe('list');
    expect(keyAccess(rules, 'a/b')).toBe('deny');
    expect(keyAccess(rules, 'a/bcd')).toBe('write');
    expect(keyAccess(rules, 'b/x')).toBe('none');
  });
  it('merging never grants more than the strongest-ranked word allows: adding a deny never grants', () => {
    const word = fc.constantFrom<RuleWord | 'none'>('none', ...words);
    fc.assert(
      fc.property(fc.array(word, { maxLength: 4 }), fc.constantFrom<'read' | 'write'>('read', 'write'), (ws, need) => {
        expect(wordGrants(mergeWords([...ws, 'deny']), need)).toBe(false);
        if (wordGrants(mergeWords(ws), need)) expect(ws.some((w) => w !== 'none' && wordGrants(w, need))).toBe(true);
      }),
    );
  });
});

describe('mesh access model: service identities', () => {
  it('write on the service and its sidecar proxy, read on every other service', () => {
    const t = token(serviceIdentityRules('web'));
    expect(['web', 'web-sidecar-proxy', 'web-x', 'db'].map((s) => [mayWriteService(t, 'default', s), mayReadService(t, 'default', s)])).toEqual([[true, true], [true, true], [false, true], [false, true]]);
  });
});

describe('mesh access model: intentions', () => {
  it('the intention between the two services decides by its action', () => {
    expect(authorizeOutcome([intention('web', 'db', 'allow')], ref('web'), ref('db'), false).authorized).toEqual([true]);
    expect(authorizeOutcome([intention('web', 'db', 'deny')], ref('web'), ref('db'), true).authorized).toEqual([false]);
  });

  it('an intention does not cover another source, destination or source namespace: the default decides', () => {
    const world = [intention('web', 'db', 'allow', 'ns-a')];
    expect(authorizeOutcome(world, ref('web', 'ns-a'), ref('db'), false).authorized).toEqual([true]);
    expect(authorizeOutcome(world, ref('web', 'ns-b'), ref('db'), false).authorized).toEqual([false]);
    expect(authorizeOutcome(world, ref('api', 'ns-a'), ref('db'), false).authorized).toEqual([false]);
    expect(authorizeOutcome(world, ref('web', 'ns-a'), ref('db', 'ns-a'), false).authorized).toEqual([false]);
    expect(authorizeOutcome(world, ref('web', 'ns-b'), ref('db'), true).authorized).toEqual([true]);
  });

  it('exact beats a wildcard source, which beats a wildcard destination', () => {
    expect(precedence(intention('a', 'b', 'allow'))).toBe(9);
    expect(precedence(intention('*', 'b', 'allow'))).toBe(8);
    expect(precedence(intention('a', '*', 'allow'))).toBe(6);
    // The table with namespaces: a namespace wildcard (with a wildcard name) ranks below a name wildcard.
    expect(precedence(intention('*', 'b', 'allow', '*'))).toBe(7);
    expect(precedence(intention('*', '*', 'allow'))).toBe(5);
    expect(precedence(intention('*', '*', 'allow', '*'))).toBe(4);
    expect(precedence(intention('a', '*', 'allow', 'default', '*'))).toBe(3);
    expect(precedence(intention('*', '*', 'allow', 'default', '*'))).toBe(2);
    expect(precedence(intention('*', '*', 'allow', '*', '*'))).toBe(1);
    const spread = [intention('*', 'db', 'deny', '*'), intention('*', 'db', 'allow', 'ns-a')];
    expect(authorizeOutcome(spread, ref('web', 'ns-a'), ref('db'), true).authorized, "ns-a's * outranks */*").toEqual([true]);
    expect(authorizeOutcome(spread, ref('web', 'ns-b'), ref('db'), true).authorized, '*/* covers a source of any namespace').toEqual([false]);
    const world = [intention('*', 'db', 'deny'), intention('web', 'db', 'allow'), intention('api', '*', 'allow')];
    expect(authorizeOutcome(world, ref('web'), ref('db'), true).authorized).toEqual([true]);
    expect(authorizeOutcome(world, ref('other'), ref('db'), true).authorized).toEqual([false]);
    expect(authorizeOutcome(world, ref('api'), ref('db'), true).authorized).toEqual([false]);
    expect(authorizeOutcome(world, ref('api'), ref('cache'), false).authorized).toEqual([true]);
  });

  it('lists by precedence, then source namespace, source, destination namespace, destination (Consul 1.8.7 asked)', () => {
    const world = [intention('a', '*', 'allow'), intention('*', 'y', 'allow'), intention('b', 'z', 'allow'), intention('*', 'x', 'allow'), intention('a', 'z', 'deny'), intention('a', 'y', 'allow'), intention('a', 'y', 'allow', 'n0')];
    const shown = [...world].sort(listOrder).map((i) => `${i.source.namespace}/${i.source.name}>${i.destination.name}`);
    expect(shown).toEqual(['default/a>y', 'default/a>z', 'default/b>z', 'n0/a>y', 'default/*>x', 'default/*>y', 'default/a>*']);
    expect(listOrder(world[0]!, world[0]!)).toBe(0);
    expect(listOrder(intention('a', 'y', 'allow'), intention('a', 'y', 'deny'))).toBe(0);
  });

  const svc = fc.record({ name: fc.constantFrom('a', 'b', '*'), namespace: fc.constantFrom('n1', 'n2') });
  const ixn = fc.record({ source: svc, destination: svc, action: fc.constantFrom<'allow' | 'deny'>('allow', 'deny') });
  const conn = fc.record({ name: fc.constantFrom('a', 'b', 'c'), namespace: fc.constantFrom('n1', 'n2') });

  it('property: an exact intention for the very pair decides it, whatever else the world holds', () => {
    fc.assert(
      fc.property(fc.array(ixn, { maxLength: 6 }), conn, conn, fc.constantFrom<'allow' | 'deny'>('allow', 'deny'), fc.boolean(), (world, s, d, action, def) => {
        const others = world.filter((i) => !(i.source.name === s.name && i.source.namespace === s.namespace && i.destination.name === d.name && i.destination.namespace === d.namespace));
        expect(authorizeOutcome([...others, { source: s, destination: d, action }], s, d, def).authorized).toEqual([action === 'allow']);
      }),
    );
  });

  it('property: an intention whose source namespace differs from the client changes nothing for it', () => {
    fc.assert(
      fc.property(fc.array(ixn, { maxLength: 6 }), ixn, conn, conn, fc.boolean(), (world, extra, s, d, def) => {
        fc.pre(extra.source.namespace !== s.namespace);
        expect(authorizeOutcome([...world, extra], s, d, def)).toEqual(authorizeOutcome(world, s, d, def));
      }),
    );
  });
});

describe('mesh access model: leaf identity', () => {
  it('names the service and namespace asked, and the namespace only where there are namespaces', () => {
    expect(leafIdentity('ns-a', 'web', true)).toEqual({ Service: 'web', Namespace: 'ns-a', uri: { namespace: 'ns-a', service: 'web' } });
    expect(leafIdentity('ns-a', 'web', false)).toEqual({ Service: 'web', uri: { namespace: 'default', service: 'web' } });
  });

  it('parses the SPIFFE service form and nothing else', () => {
    expect(parseServiceUri('spiffe://11.consul/ns/default/dc/dc1/svc/web')).toEqual({ trustDomain: '11.consul', namespace: 'default', datacenter: 'dc1', service: 'web' });
    expect(parseServiceUri('spiffe://11.consul/agent/client/dc/dc1/id/x')).toBeUndefined();
    expect(parseServiceUri('spiffe://11.consul/ns/default/dc/dc1/svc/web/x')).toBeUndefined();
  });
});
