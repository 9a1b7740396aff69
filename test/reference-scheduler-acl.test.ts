import { describe, expect, it } from 'vitest';
import { SchedulerAcl, type SchedulerToken } from '../src/reference/scheduler/acl.ts';

const token = (capabilities: Record<string, string[]>): SchedulerToken => ({ management: false, nodeRead: false, nodeWrite: false, readJob: [], capabilities });

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
