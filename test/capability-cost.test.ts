import { describe, expect, it } from 'vitest';
import { capabilityCostLines, capabilityCosts, capabilityNoticeLines } from '../src/run/capability-cost.ts';

describe('what a missing capability costs', () => {
  const missing = { mesh: { caRotation: 'the profile forbids CA rotation (rotateCa: false)', namespaces: 'no namespaces' }, scheduler: { gcAll: 'gc forbidden' } };
  const rules = [
    { id: 'mesh.leaf.new-after-rotation', system: 'mesh' as const, outcome: 'SKIP' as const, message: 'the profile forbids CA rotation (rotateCa: false)' },
    { id: 'mesh.roots.rotation', system: 'mesh' as const, outcome: 'SKIP' as const, message: 'the profile forbids CA rotation (rotateCa: false); more' },
    { id: 'mesh.roots.blocking', system: 'mesh' as const, outcome: 'PASS' as const },
    // Same words on another system's rule: not this capability's cost.
    { id: 'scheduler.gc.all', system: 'scheduler' as const, outcome: 'SKIP' as const, message: 'the profile forbids CA rotation (rotateCa: false)' },
  ];

  it('names every rule of the system that was SKIP for that reason, and no capability that cost nothing', () => {
    expect(capabilityCosts(missing, rules)).toEqual([{ system: 'mesh', capability: 'caRotation', why: missing.mesh.caRotation, rules: ['mesh.leaf.new-after-rotation', 'mesh.roots.rotation'] }]);
    expect(capabilityCostLines(capabilityCosts(missing, rules))).toEqual([
      'what was not available cost 2 rule(s) (SKIP):',
      '  mesh caRotation (the profile forbids CA rotation (rotateCa: false)): 2 rule(s): mesh.leaf.new-after-rotation, mesh.roots.rotation',
    ]);
  });

  it('says before the suites what is not available, once, and nothing when all is', () => {
    expect(capabilityNoticeLines(missing, ['  not available: namespaces: no namespaces'])).toEqual([
      'mesh: not available: caRotation: the profile forbids CA rotation (rotateCa: false)',
      'scheduler: not available: gcAll: gc forbidden',
      '  the rules that need what is not available are SKIP, and are named before the verdict',
    ]);
    expect(capabilityNoticeLines({ mesh: {} }, [])).toEqual([]);
  });
});
