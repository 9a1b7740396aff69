import { describe, expect, it } from 'vitest';
import { SchedulerAcl, type SchedulerToken } from '../src/reference/scheduler/acl.ts';

const token = (capabilities: Record<string, string[]>): SchedulerToken => ({ management: false, nodeRead: false, nodeWrite: false, capabilities });

// nomad/acl/acl.go matchingNamespaceCapabilitySet and findClosestMatchingGlob.
describe("the reference's namespace block precedence (Nomad's)", () => {
  it('an exact block wins over a glob that grants more', () => {
    const t = token({ '*': ['read-fs', 'read-job'], 'team-a': ['read-job'] });
    expect(SchedulerAcl.can(t, 'team-a', 'read-fs')).toBe(false);
    expect(SchedulerAcl.can(t, 'team-b', 'read-fs')).toBe(true);
  });

  it('the closest glob wins; a deny there refuses only where it is closest', () => {
    const t = token({ 'team-*': ['deny'], '*': ['read-fs'] });
    expect(SchedulerAcl.can(t, 'team-a', 'read-fs')).toBe(false);
    expect(SchedulerAcl.can(t, 'ops', 'read-fs')).toBe(true);
    expect(SchedulerAcl.can(token({ 'team-*': ['read-job'], '*': ['read-fs'] }), 'team-a', 'read-fs')).toBe(false);
  });

  it('a namespace no block matches is refused', () => {
    expect(SchedulerAcl.can(token({ 'team-*': ['read-fs'] }), 'ops', 'read-fs')).toBe(false);
  });
});

describe("the reference's glob order and topics", () => {
  it('of two matching globs, the one with more literal characters wins, whatever the order of the blocks', () => {
    // 'team-*' leaves 1 character to its star, '*' all 6: the closer is the second block here.
    expect(SchedulerAcl.can(token({ '*': ['read-fs'], 'team-*': ['read-job'] }), 'team-a', 'read-fs')).toBe(false);
    // Same literal count, '*eam-*' (4 literal characters, 2 stars) is farther than 'team-*' (5 literal).
    expect(SchedulerAcl.can(token({ '*eam-*': ['read-fs'], 'team-*': ['read-job'] }), 'team-a', 'read-fs')).toBe(false);
    // The closest glob is the smaller name: '*am-a' (4 literal) over 't*' (1 literal).
    expect(SchedulerAcl.can(token({ 't*': ['read-fs'], '*am-a': ['read-job'] }), 'team-a', 'read-fs')).toBe(false);
  });

  it('equally close globs: the greatest name wins (Nomad findClosestMatchingGlob)', () => {
    expect(SchedulerAcl.can(token({ 'team-*': ['read-fs'], '*eam-a': ['read-job'] }), 'team-a', 'read-fs')).toBe(true);
    expect(SchedulerAcl.can(token({ '*eam-a': ['read-job'], 'team-*': ['read-fs'] }), 'team-a', 'read-fs')).toBe(true);
  });

  it("namespace '*' is decided by the block named '*'", () => {
    expect(SchedulerAcl.can(token({ '*': ['read-job'] }), '*', 'read-job')).toBe(true);
    expect(SchedulerAcl.can(token({ '*': ['read-job', 'deny'] }), '*', 'read-job')).toBe(false);
    expect(SchedulerAcl.can(token({ default: ['read-job'] }), '*', 'read-job')).toBe(false);
  });

  it('NodeDrain, ACL topics and * need a management token; Node needs node:read', () => {
    const t: SchedulerToken = { management: false, nodeRead: true, nodeWrite: false, capabilities: { default: ['read-job'] } };
    for (const topic of ['NodeDrain', 'ACLToken', 'ACLPolicy', '*', 'Service']) expect(SchedulerAcl.canSubscribe(t, topic, 'default'), topic).toBe(false);
    for (const topic of ['Node', 'Job', 'Allocation', 'Deployment', 'Evaluation']) expect(SchedulerAcl.canSubscribe(t, topic, 'default'), topic).toBe(true);
    expect(SchedulerAcl.canSubscribe({ ...t, capabilities: {} }, 'Allocation', 'default')).toBe(false);
  });
});
