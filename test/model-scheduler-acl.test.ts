import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ALLOWS_BOTH,
  capabilitySets,
  globMatches,
  GRANTED,
  mayUseNamespaced,
  mayUseNode,
  mayUseWithQueryNamespace,
  mayReceiveAmong,
  mergePolicies,
  OTHER_CAPABILITIES,
  maySubscribe,
  REFUSED,
  usesUpstreamLanguage,
  type Capability,
  type NamespaceRule,
  type TokenModel,
} from '../suites/models/scheduler-acl.ts';

const token = (namespaces: NamespaceRule[], node?: TokenModel['node']): TokenModel => ({ namespaces, node });

describe('the scheduler ACL model (spec 002)', () => {
  it('grants a capability in the namespace it names, not in the neighbour namespace', () => {
    const t = token([{ pattern: 'a', capabilities: ['read-fs'] }]);
    expect(mayUseNamespaced(t, 'a', ['read-fs'])).toEqual(GRANTED);
    expect(mayUseNamespaced(t, 'b', ['read-fs'])).toEqual(REFUSED);
  });

  it('tells read-job, read-fs and read-logs apart; logs take read-logs or read-fs', () => {
    const job = token([{ pattern: 'a', capabilities: ['read-job'] }]);
    const logs = token([{ pattern: 'a', capabilities: ['read-logs'] }]);
    const fs = token([{ pattern: 'a', capabilities: ['read-fs'] }]);
    expect(mayUseNamespaced(job, 'a', ['read-fs'])).toEqual(REFUSED);
    expect(mayUseNamespaced(job, 'a', ['read-logs', 'read-fs'])).toEqual(REFUSED);
    expect(mayUseNamespaced(logs, 'a', ['read-logs', 'read-fs'])).toEqual(GRANTED);
    expect(mayUseNamespaced(logs, 'a', ['read-fs'])).toEqual(REFUSED);
    expect(mayUseNamespaced(fs, 'a', ['read-logs', 'read-fs'])).toEqual(GRANTED);
    expect(mayUseNamespaced(fs, 'a', ['read-job'])).toEqual(REFUSED);
  });

  it("the `read` shorthand reaches jobs, not files or logs; `write` reaches all three (nomad/acl/policy.go)", () => {
    const read = token([{ pattern: 'a', policy: 'read' }]);
    expect(mayUseNamespaced(read, 'a', ['read-job'])).toEqual(GRANTED);
    expect(mayUseNamespaced(read, 'a', ['read-fs'])).toEqual(REFUSED);
    expect(mayUseNamespaced(read, 'a', ['read-logs', 'read-fs'])).toEqual(REFUSED);
    const write = token([{ pattern: 'a', policy: 'write' }]);
    for (const c of ['read-job', 'read-fs', 'read-logs', 'submit-job'] as const) expect(mayUseNamespaced(write, 'a', [c])).toEqual(GRANTED);
  });

  it('matches globs anywhere in the name', () => {
    expect(globMatches('team-*', 'team-a')).toBe(true);
    expect(globMatches('team-*', 'team-')).toBe(true);
    expect(globMatches('team-*', 'teamx')).toBe(false);
    expect(globMatches('*-b', 'x-b')).toBe(true);
    expect(globMatches('*-b', 'x-bb')).toBe(false);
    expect(globMatches('a*b*c', 'aXbYc')).toBe(true);
    expect(globMatches('a*b*c', 'acb')).toBe(false);
    expect(globMatches('*', '')).toBe(true);
    expect(globMatches('ab*ba', 'aba')).toBe(false);
  });

  it('an exact block wins over every glob, even when it grants less (acl/acl.go matchingNamespaceCapabilitySet)', () => {
    const t = token([{ pattern: '*', policy: 'write' }, { pattern: 'team-a', capabilities: ['read-job'] }]);
    expect(mayUseNamespaced(t, 'team-a', ['read-fs'])).toEqual(REFUSED);
    expect(mayUseNamespaced(t, 'team-a', ['read-job'])).toEqual(GRANTED);
    expect(mayUseNamespaced(t, 'team-b', ['read-fs'])).toEqual(GRANTED);
  });

  it('among globs the closest wins: a prefix over the catch-all, and a deny under a prefix refuses there only', () => {
    const t = token([{ pattern: 'team-*', capabilities: ['read-fs'] }, { pattern: '*', capabilities: ['read-job'] }]);
    expect(mayUseNamespaced(t, 'team-a', ['read-fs'])).toEqual(GRANTED);
    expect(mayUseNamespaced(t, 'team-a', ['read-job'])).toEqual(REFUSED);
    expect(mayUseNamespaced(t, 'ops', ['read-job'])).toEqual(GRANTED);
    expect(mayUseNamespaced(t, 'ops', ['read-fs'])).toEqual(REFUSED);
    const deny = token([{ pattern: 'team-*', policy: 'deny' }, { pattern: '*', policy: 'write' }]);
    expect(mayUseNamespaced(deny, 'team-a', ['read-job'])).toEqual(REFUSED);
    expect(mayUseNamespaced(deny, 'ops', ['read-fs'])).toEqual(GRANTED);
  });

  it('a deny in one block of a pattern clears the other blocks of that pattern', () => {
    const t = token([{ pattern: 'a', capabilities: ['read-fs'] }, { pattern: 'a', capabilities: ['deny'] }]);
    expect(mayUseNamespaced(t, 'a', ['read-fs'])).toEqual(REFUSED);
  });

  it('equally close globs leave either answer open', () => {
    const t = token([{ pattern: 'a*', capabilities: ['read-fs'] }, { pattern: '*b', capabilities: ['read-job'] }]);
    expect(capabilitySets(t, 'ab')).toHaveLength(2);
    expect(mayUseNamespaced(t, 'ab', ['read-fs'])).toEqual(ALLOWS_BOTH);
  });

  it("Nomad's order among equally close globs: the greatest name wins, whatever the blocks' order", () => {
    const first = token([{ pattern: 'team-*', capabilities: ['read-fs'] }, { pattern: '*eam-a', capabilities: ['read-job'] }]);
    const second = token([...first.namespaces].reverse());
    for (const t of [first, second]) {
      expect(mayUseNamespaced(t, 'team-a', ['read-fs'], true)).toEqual(GRANTED);
      expect(mayUseNamespaced(t, 'team-a', ['read-job'], true)).toEqual(REFUSED);
      expect(mayUseNamespaced(t, 'team-a', ['read-fs'])).toEqual(ALLOWS_BOTH);
    }
    // Not a tie: the closer '*eam-a' wins over 't*' though its name is smaller.
    expect(mayUseNamespaced(token([{ pattern: 't*', capabilities: ['read-fs'] }, { pattern: '*eam-a', capabilities: ['read-job'] }]), 'team-a', ['read-fs'], true)).toEqual(REFUSED);
  });

  it('?namespace= never lends another namespace its grant; the allocation\'s own grant may be served or refused (Nomad serves it)', () => {
    const inB = token([{ pattern: 'b', capabilities: ['read-fs'] }]);
    expect(mayUseWithQueryNamespace(inB, 'a', 'b', ['read-fs'])).toEqual(REFUSED);
    const inA = token([{ pattern: 'a', capabilities: ['read-fs'] }]);
    expect(mayUseWithQueryNamespace(inA, 'a', 'b', ['read-fs'])).toEqual(ALLOWS_BOTH);
    expect(mayUseWithQueryNamespace(inA, 'a', 'b', ['read-fs'], true)).toEqual(GRANTED);
  });

  it('node endpoints: read and write, write on a read endpoint left open', () => {
    expect(mayUseNode(token([], 'read'), 'read')).toEqual(GRANTED);
    expect(mayUseNode(token([], 'read'), 'write')).toEqual(REFUSED);
    expect(mayUseNode(token([], 'write'), 'write')).toEqual(GRANTED);
    expect(mayUseNode(token([], 'write'), 'read')).toEqual(ALLOWS_BOTH);
    expect(mayUseNode(token([{ pattern: '*', policy: 'write' }]), 'read')).toEqual(REFUSED);
  });

  it('event topics: * and the ACL topics need management; Job needs read-job in the namespace asked; Node needs node:read', () => {
    const t = token([{ pattern: 'a', capabilities: ['read-job'] }], 'read');
    expect(maySubscribe(t, '*', 'a')).toEqual(REFUSED);
    expect(maySubscribe(t, 'ACLPolicy')).toEqual(REFUSED);
    expect(maySubscribe(t, 'Job', 'a')).toEqual(GRANTED);
    expect(maySubscribe(t, 'Job', 'b')).toEqual(REFUSED);
    expect(maySubscribe(t, 'Job')).toEqual(REFUSED);
    expect(maySubscribe(t, 'Node')).toEqual(GRANTED);
    expect(maySubscribe(token([{ pattern: 'a', capabilities: ['read-job'] }]), 'Node')).toEqual(REFUSED);
    expect(maySubscribe({ management: true, namespaces: [] }, '*', '*')).toEqual(GRANTED);
    // The list names no permission for NodeDrain.
    expect(maySubscribe(t, 'NodeDrain')).toEqual(ALLOWS_BOTH);
  });

  it('several topics at once: granted when each is; a refused one beside may refuse all or be left out', () => {
    const t = token([{ pattern: 'a', capabilities: ['read-job'] }], 'read');
    expect(mayReceiveAmong(t, 'Job', ['Job', 'Allocation', 'Deployment', 'Evaluation'], 'a')).toEqual(GRANTED);
    expect(mayReceiveAmong(t, 'Job', ['Job', 'Allocation', 'Deployment', 'Evaluation'], 'b')).toEqual(REFUSED);
    expect(mayReceiveAmong(t, 'Job', ['Job', 'ACLToken'], 'a')).toEqual(ALLOWS_BOTH);
    expect(mayReceiveAmong(t, 'ACLToken', ['Job', 'ACLToken'], 'a')).toEqual(REFUSED);
  });

  it("namespace=* needs a policy applying to all namespaces: '*' grants it; a prefix glob or one namespace does not", () => {
    expect(maySubscribe(token([{ pattern: '*', capabilities: ['read-job'] }]), 'Job', '*', ['default', 'a'])).toEqual(GRANTED);
    expect(maySubscribe(token([{ pattern: 'a', capabilities: ['read-job'] }]), 'Job', '*', ['default', 'a'])).toEqual(REFUSED);
    expect(maySubscribe(token([{ pattern: 'team-*', capabilities: ['read-job'] }]), 'Job', '*', ['default', 'team-a'])).toEqual(REFUSED);
  });

  it('flags tokens whose decisions need the policy language beyond exact names', () => {
    expect(usesUpstreamLanguage(token([{ pattern: 'a', capabilities: ['read-fs'] }]))).toBe(false);
    expect(usesUpstreamLanguage(token([{ pattern: 'a*', capabilities: ['read-fs'] }]))).toBe(true);
    expect(usesUpstreamLanguage(token([{ pattern: 'a', policy: 'read' }]))).toBe(true);
  });

  const caps: Capability[] = ['read-job', 'read-fs', 'read-logs', 'submit-job'];
  const rule = fc.record({
    pattern: fc.constantFrom('a', 'ab', 'b', 'a*', '*b', '*', 'a*b'),
    policy: fc.option(fc.constantFrom<'read' | 'write' | 'deny'>('read', 'write', 'deny'), { nil: undefined }),
    capabilities: fc.subarray<Capability | 'deny'>([...caps, 'deny']),
  });
  const rules = fc.array(rule, { maxLength: 4 });
  const ns = fc.constantFrom('a', 'ab', 'b', 'abb', 'default');
  const cap = fc.constantFrom(...caps);

  it('property: adding a deny block never grants', () => {
    fc.assert(
      fc.property(rules, fc.constantFrom('a', 'ab', 'b', 'a*', '*b', '*'), ns, cap, (rs, pattern, n, c) => {
        const before = mayUseNamespaced(token(rs), n, [c]);
        const after = mayUseNamespaced(token([...rs, { pattern, capabilities: ['deny'] }]), n, [c]);
        return !after.has(true) || before.has(true);
      }),
    );
  });

  it('property: without globs, adding a capability never refuses, and a namespace no block names is refused', () => {
    const exact = fc.array(fc.record({ pattern: fc.constantFrom('a', 'b'), capabilities: fc.subarray(caps) }), { maxLength: 3 });
    fc.assert(
      fc.property(exact, fc.constantFrom('a', 'b'), cap, cap, (rs, n, added, asked) => {
        const before = mayUseNamespaced(token(rs), n, [asked]);
        const after = mayUseNamespaced(token([...rs, { pattern: n, capabilities: [added] }]), n, [asked]);
        return (!before.has(true) || after.has(true)) && !mayUseNamespaced(token(rs), 'c', [asked]).has(true);
      }),
    );
  });

  it('property: a query parameter never grants what the allocation\'s namespace refuses', () => {
    fc.assert(
      fc.property(rules, ns, ns, cap, fc.boolean(), (rs, alloc, queried, c, strict) => {
        const own = mayUseNamespaced(token(rs), alloc, [c]);
        return own.has(true) || !mayUseWithQueryNamespace(token(rs), alloc, queried, [c], strict).has(true);
      }),
    );
  });

  it("property: '*' topics and the ACL topics are refused to every non-management token", () => {
    fc.assert(fc.property(rules, fc.constantFrom(undefined, 'read', 'write', 'deny') as fc.Arbitrary<TokenModel['node']>, ns, (rs, node, n) => ['*', 'ACLToken', 'ACLPolicy'].every((tp) => !maySubscribe(token(rs, node), tp, n).has(true))));
  });
  it("a token's several policies on one block merge: a deny wins in either order, capabilities add up (nomad/acl/acl.go NewACL)", () => {
    const deny = token([{ pattern: 'a', policy: 'deny' }], 'deny');
    const write = token([{ pattern: 'a', policy: 'write' }], 'write');
    for (const ps of [[deny, write], [write, deny]]) {
      const t = mergePolicies(ps);
      expect(mayUseNamespaced(t, 'a', ['read-job'])).toEqual(REFUSED);
      expect(mayUseNode(t, 'read')).toEqual(REFUSED);
      expect(mayUseNode(t, 'write')).toEqual(REFUSED);
    }
    const both = mergePolicies([token([{ pattern: 'a', capabilities: ['read-job'] }], 'read'), token([{ pattern: 'a', capabilities: ['read-fs'] }], 'write')]);
    expect(mayUseNamespaced(both, 'a', ['read-job'])).toEqual(GRANTED);
    expect(mayUseNamespaced(both, 'a', ['read-fs'])).toEqual(GRANTED);
    expect(mayUseNode(both, 'write')).toEqual(GRANTED);
    expect(mergePolicies([token([], 'read'), token([{ pattern: 'b', capabilities: ['read-job'] }])]).node).toBe('read');
  });

  it('a capability spec 002 does not name grants no endpoint of the table: alloc-lifecycle is not submit-job', () => {
    for (const c of OTHER_CAPABILITIES) {
      const t = token([{ pattern: 'a', capabilities: [c] }]);
      for (const need of ['read-job', 'read-fs', 'read-logs', 'submit-job'] as const) expect(mayUseNamespaced(t, 'a', [need])).toEqual(REFUSED);
    }
    expect(mayUseNamespaced(token([{ pattern: 'a', policy: 'read' }]), 'a', ['submit-job'])).toEqual(REFUSED);
    expect(mayUseNamespaced(token([{ pattern: 'a', policy: 'write' }]), 'a', ['submit-job'])).toEqual(GRANTED);
  });

  it("property: a token's policies in any order decide alike, and adding a policy with a deny never grants", () => {
    const policy = fc.record({ namespaces: rules, node: fc.constantFrom(undefined, 'read', 'write', 'deny') as fc.Arbitrary<TokenModel['node']> });
    fc.assert(
      fc.property(fc.array(policy, { minLength: 1, maxLength: 3 }), ns, cap, (ps, n, c) => {
        const forward = mergePolicies(ps);
        const backward = mergePolicies([...ps].reverse());
        const same = [...mayUseNamespaced(forward, n, [c])].sort().join() === [...mayUseNamespaced(backward, n, [c])].sort().join() && mayUseNode(forward, 'read') === mayUseNode(backward, 'read');
        const denied = mergePolicies([...ps, token([{ pattern: n, capabilities: ['deny'] }], 'deny')]);
        return same && !mayUseNamespaced(denied, n, [c]).has(true) && !mayUseNode(denied, 'read').has(true) && !mayUseNode(denied, 'write').has(true);
      }),
    );
  });
});
