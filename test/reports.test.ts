import { describe, expect, it } from 'vitest';
import { renderHtml } from '../src/report/html.ts';
import { renderJunit } from '../src/report/junit.ts';
import { runResultsSchema, SCHEMA_VERSION, type Outcome, type RuleResult, type RunResults } from '../src/report/results-model.ts';
import { ruleOutcome } from '../src/run/outcomes.ts';
import { RULES } from '../src/rules/catalog.ts';

function rule(id: string, outcome: Outcome, extra: Partial<RuleResult> = {}): RuleResult {
  return {
    id,
    system: 'secrets',
    title: `title of ${id} <b>&</b>`,
    level: 'MUST',
    sources: [{ file: 'f.txt', section: 'S', quote: 'a "quoted" <sentence>' }],
    outcome,
    durationMs: 12,
    exchanges: [],
    droppedExchanges: 0,
    observations: [],
    notes: [],
    faults: ['f1'],
    ...extra,
  };
}

function results(rules: RuleResult[]): RunResults {
  return runResultsSchema.parse({
    schemaVersion: SCHEMA_VERSION,
    tool: { name: 'stackproof', version: '0.0.0' },
    run: { id: 'r1', startedAt: new Date(0).toISOString(), finishedAt: new Date(1000).toISOString(), durationMs: 1000, profile: 'default', seed: 1, runs: 5, command: 'stackproof conform', faults: [] },
    targets: [{ system: 'secrets', url: 'http://127.0.0.1:1', dialect: 'spec', embedded: true }],
    summary: { total: rules.length, byOutcome: { PASS: 0, FAIL: 0, SKIP: 0, ERROR: 0, WAIVED: 0 }, exitCode: 1, verdict: 'FAILED' },
    rules,
    load: [],
  });
}

describe('JUnit report', () => {
  it('has one testcase per rule with outcomes mapped to failure, error and skipped', () => {
    const xml = renderJunit(
      results([
        rule('secrets.a.pass', 'PASS'),
        rule('secrets.a.fail', 'FAIL', { message: 'expected 404 <got 200>', replay: 'npx stackproof conform --rules secrets.a.fail' }),
        rule('secrets.a.error', 'ERROR', { message: 'timeout' }),
        rule('secrets.a.skip', 'SKIP', { message: 'no capability' }),
        rule('secrets.a.waived', 'WAIVED', { message: 'waived by ops until 2027-01-01' }),
      ]),
    );
    expect(xml.match(/<testcase /g)?.length).toBe(5);
    expect(xml).toMatch(/<testsuites name="stackproof" tests="5" failures="1" errors="1" skipped="2"/);
    expect(xml).toMatch(/name="secrets\.a\.fail [^"]*"[^>]*>[\s\S]*?<failure message="expected 404 &lt;got 200&gt;" type="FAIL">/);
    expect(xml).toMatch(/name="secrets\.a\.error [^"]*"[^>]*>[\s\S]*?<error message="timeout" type="ERROR">/);
    expect(xml).toMatch(/<skipped message="SKIP: no capability"\/>/);
    expect(xml).toMatch(/<skipped message="WAIVED: waived by ops until 2027-01-01"\/>/);
    expect(xml).toContain('replay: npx stackproof conform --rules secrets.a.fail');
    expect(xml).not.toMatch(/<b>/);
  });
});

describe('HTML report', () => {
  it('escapes everything that came from a target and links each failure from its rule row', () => {
    const html = renderHtml(
      results([
        rule('secrets.a.fail', 'FAIL', {
          message: '<script>alert(1)</script>',
          exchanges: [{ method: 'GET', url: 'http://127.0.0.1:1/v1/x', requestHeaders: {}, status: 200, responseHeaders: {}, responseBody: '<img src=x onerror=alert(1)>', durationMs: 1 }],
          replay: 'npx stackproof conform --rules secrets.a.fail',
        }),
      ]),
    );
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('href="#detail-secrets.a.fail"');
    expect(html).toContain('id="detail-secrets.a.fail"');
    expect(html).toContain('npx stackproof conform --rules secrets.a.fail');
  });
});

describe('rule outcomes', () => {
  const r = RULES[0]!;
  const ctx = { moduleErrors: [], system: r.system };
  const verdict = (state: 'passed' | 'failed' | 'skipped', errors: { name?: string; message: string }[] = []) => ({
    ruleId: r.id,
    testName: r.id,
    state,
    durationMs: 1,
    errors,
  });

  it('maps a target error or a timeout to ERROR and an assertion to FAIL', () => {
    expect(ruleOutcome(r, [verdict('failed', [{ name: 'TargetError', message: 'GET x: connection refused' }])], [], ctx).outcome).toBe('ERROR');
    expect(ruleOutcome(r, [verdict('failed', [{ name: 'Error', message: 'Test timed out in 60000ms.' }])], [], ctx).outcome).toBe('ERROR');
    expect(ruleOutcome(r, [verdict('failed', [{ name: 'AssertionError', message: 'expected 200 to be 404' }])], [], ctx).outcome).toBe('FAIL');
  });

  it('is SKIP when every test skipped, ERROR when no test reported, FAIL when an observation failed', () => {
    expect(ruleOutcome(r, [verdict('skipped')], [], ctx).outcome).toBe('SKIP');
    expect(ruleOutcome(r, [], [], ctx).outcome).toBe('ERROR');
    expect(ruleOutcome(r, [verdict('passed')], [{ rule: r.id, ok: false, detail: 'GET x answered 500 without an error body' }], ctx).outcome).toBe('FAIL');
    expect(ruleOutcome(r, [verdict('passed')], [], ctx).outcome).toBe('PASS');
  });
});
