import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RuleResult } from '../src/report/results-model.ts';
import { RULES, ruleById } from '../src/rules/catalog.ts';
import { LiveVerdictLines, verdictLine } from '../src/run/live-verdict-lines.ts';
import type { TestVerdict } from '../src/run/vitest-collector.ts';
import { ROOT } from './support/run-cli.ts';

const verdict = (ruleId: string, state: TestVerdict['state'], over: Partial<TestVerdict> = {}): TestVerdict => ({ ruleId, testName: `${ruleId} x`, state, durationMs: 12, errors: [], ...over });

function lines(settle: (r: RuleResult) => RuleResult = (r) => r) {
  const out: string[] = [];
  const ids = ['mesh.authorize.serial-format', 'mesh.roots.blocking', 'secrets.core.success-status', 'scheduler.events.acl'];
  const live = new LiveVerdictLines((l) => out.push(l), new Map(ids.map((id) => [id, ruleById(id)!])), settle);
  return { out, live };
}

describe('live verdict lines', () => {
  it('print the outcome the run reports: a failure the expectations list is EXPECTED, not failed', () => {
    const { out, live } = lines((r) => (r.id === 'mesh.authorize.serial-format' ? { ...r, outcome: 'EXPECTED', expectation: { product: 'consul', behavior: 'b', source: 's', versions: 'v' } } : r));
    live.onVerdict(verdict('mesh.authorize.serial-format', 'failed', { errors: [{ message: 'expected colons' }] }));
    expect(out).toEqual(['  EXPECTED    mesh.authorize.serial-format (12 ms): listed deviation of consul']);
  });

  it('print each rule once, with a SKIP reason and a FAIL message cut to one line', () => {
    const { out, live } = lines();
    live.onVerdict(verdict('mesh.roots.blocking', 'skipped', { skipNote: `no namespaces here\nsecond line ${'x'.repeat(200)}` }));
    live.onVerdict(verdict('mesh.roots.blocking', 'skipped'));
    live.onVerdict(verdict('scheduler.events.acl', 'failed', { errors: [{ message: `y`.repeat(300) }] }));
    expect(out).toEqual(['  SKIP        mesh.roots.blocking (12 ms): no namespaces here', `  FAIL        scheduler.events.acl (12 ms): ${'y'.repeat(99)}…`]);
  });

  it('hold a rule judged on every exchange until the suites end, and print it then as the results say', () => {
    const { out, live } = lines();
    live.onVerdict(verdict('secrets.core.success-status', 'passed'));
    expect(out).toEqual([]);
    const final = { id: 'secrets.core.success-status', outcome: 'FAIL', message: '2 exchange(s) broke this rule while other rules ran', durationMs: 12 } as RuleResult;
    live.flush([final]);
    expect(out).toEqual([verdictLine(final)]);
    live.flush([final]);
    expect(out).toHaveLength(1);
  });

  it('the rules the secrets observer judges are exactly the ones flagged judgedOnEveryExchange', () => {
    const observer = readFileSync(join(ROOT, 'suites', 'kit', 'observers', 'secrets-conventions.ts'), 'utf8');
    const observed = [...new Set([...observer.matchAll(/rule: '([^']+)'/g)].map((m) => m[1]!))].sort();
    expect(observed.length).toBeGreaterThan(0);
    expect(RULES.filter((r) => r.judgedOnEveryExchange).map((r) => r.id).sort()).toEqual(observed);
  });
});
