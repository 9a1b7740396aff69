import { describe, expect, it } from 'vitest';
import { matchesRuleFilter, RULES, selectRules } from '../src/rules/catalog.ts';

describe('rule filters (--rules, --rerun-failed)', () => {
  it('a whole rule id selects that rule only, even where it is a prefix of another id', () => {
    const prefixes = RULES.filter((a) => RULES.some((b) => b.id !== a.id && b.id.startsWith(a.id)));
    expect(prefixes.length, 'the catalog has ids that prefix others (scheduler.fs.stream, …)').toBeGreaterThan(0);
    for (const r of prefixes) expect(selectRules([r.system], [r.id], 'strict').map((x) => x.id)).toEqual([r.id]);
  });
  it('any other filter is a prefix or a glob', () => {
    expect(selectRules(['scheduler'], ['scheduler.fs.str'], 'strict').map((r) => r.id).sort()).toEqual(RULES.filter((r) => r.id.startsWith('scheduler.fs.str')).map((r) => r.id).sort());
    expect(matchesRuleFilter('mesh.leaf.cached', ['mesh.*.cached'])).toBe(true);
    expect(matchesRuleFilter('mesh.leaf.cached', ['secrets'])).toBe(false);
  });
});
