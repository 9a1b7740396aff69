import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../src/cli/exit-codes.ts';
import { ConfigError, loadConfig } from '../src/config/load-config.ts';
import { startReference, type RunningReference } from '../src/reference/reference.ts';
import { renderHtml } from '../src/report/html.ts';
import { renderJunit } from '../src/report/junit.ts';
import { runResultsSchema, SCHEMA_VERSION, type Outcome, type RuleResult, type RunResults } from '../src/report/results-model.ts';
import { groupSkipReasons, noVerdictLines, noVerdictShare, percent } from '../src/report/skip-summary.ts';
import { applySkipShare } from '../src/run/exit-policy.ts';
import { referenceTargets } from '../src/run/reference-targets.ts';
import { runCli } from './support/run-cli.ts';

function rule(id: string, outcome: Outcome, message?: string, level: RuleResult['level'] = 'MUST'): RuleResult {
  return {
    id,
    system: 'secrets',
    title: id,
    level,
    sources: [{ file: 'f.txt', section: 'S', quote: 'q' }],
    outcome,
    durationMs: 1,
    ...(message ? { message } : {}),
    exchanges: [],
    droppedExchanges: 0,
    observations: [],
    notes: [],
    faults: [],
  };
}

function run(rules: RuleResult[], profile: 'default' | 'strict' = 'default', exitCode: number = EXIT.OK): { results: RunResults; exitCode: number } {
  const skip = rules.filter((r) => r.outcome === 'SKIP').length;
  const pass = rules.filter((r) => r.outcome === 'PASS').length;
  const results = runResultsSchema.parse({
    schemaVersion: SCHEMA_VERSION,
    tool: { name: 'stackproof', version: '0.0.0' },
    run: { id: 'r1', startedAt: new Date(0).toISOString(), finishedAt: new Date(1000).toISOString(), durationMs: 1000, profile, seed: 1, runs: 5, command: 'stackproof conform', faults: [] },
    targets: [],
    summary: { total: rules.length, byOutcome: { PASS: pass, SKIP: skip }, exitCode, verdict: `${exitCode === 0 ? 'PASSED' : 'FAILED'}: ${pass} pass, 0 fail, 0 error, ${skip} skip of ${rules.length} rules` },
    rules,
    load: [],
  });
  return { results, exitCode };
}

const NO_ENTITIES = 'the secrets target declares no identity fixtures (capabilities.identityFixtures)';
const NO_PROXY = 'the secrets target declares no request-header proxy URL';
const NO_SIMULATOR = 'the secrets target declares no cloud-identity trust (capabilities.cloudIdentity)';

/** 10 rules: 4 PASS, 6 SKIP in three groups of 4, 1 and 1 (one with a second line the grouping ignores). */
const MIXED = [
  ...['a', 'b', 'c', 'd'].map((x) => rule(`secrets.oidc.${x}`, 'SKIP', NO_ENTITIES)),
  rule('secrets.proxy.one', 'SKIP', `${NO_PROXY}\n(at http://127.0.0.1:1)`),
  rule('secrets.cloud.login', 'SKIP', NO_SIMULATOR),
  ...['p', 'q', 'r', 's'].map((x) => rule(`secrets.core.${x}`, 'PASS')),
];

describe('the rules that got no verdict, grouped by reason', () => {
  it('groups SKIP rules by the first line of their reason, most common first, with their ids', () => {
    expect(groupSkipReasons(MIXED, 'default')).toEqual([
      { reason: NO_ENTITIES, count: 4, rules: ['secrets.oidc.a', 'secrets.oidc.b', 'secrets.oidc.c', 'secrets.oidc.d'] },
      { reason: NO_SIMULATOR, count: 1, rules: ['secrets.cloud.login'] },
      { reason: NO_PROXY, count: 1, rules: ['secrets.proxy.one'] },
    ]);
    expect(noVerdictShare(MIXED, 'default')).toEqual({ skipped: 6, counted: 10, share: 0.6, notCounted: 0 });
  });

  it('does not count UPSTREAM rules the default profile does not run, and counts them under strict', () => {
    const rules = [...MIXED, rule('secrets.upstream.x', 'SKIP', 'UPSTREAM rules run only under the strict profile', 'UPSTREAM')];
    expect(noVerdictShare(rules, 'default')).toEqual({ skipped: 6, counted: 10, share: 0.6, notCounted: 1 });
    expect(groupSkipReasons(rules, 'default').flatMap((g) => g.rules)).not.toContain('secrets.upstream.x');
    expect(noVerdictShare(rules, 'strict')).toMatchObject({ skipped: 7, counted: 11, notCounted: 0 });
    const lines = noVerdictLines(noVerdictShare(rules, 'default'), groupSkipReasons(rules, 'default'), 'default');
    expect(lines[0]).toBe('no verdict for 6 of 10 rules (60%; 1 UPSTREAM rule(s) skipped by the default profile are not counted: only --profile strict runs them):');
  });

  it('prints one line per reason, naming the rules only for groups of at most three', () => {
    const lines = noVerdictLines(noVerdictShare(MIXED, 'default'), groupSkipReasons(MIXED, 'default'), 'default');
    expect(lines).toEqual([
      'no verdict for 6 of 10 rules (60%; UPSTREAM rules are not counted: only --profile strict runs them):',
      `  4  ${NO_ENTITIES}`,
      `  1  ${NO_SIMULATOR}  (secrets.cloud.login)`,
      `  1  ${NO_PROXY}  (secrets.proxy.one)`,
    ]);
    const none = [rule('secrets.core.p', 'PASS')];
    expect(noVerdictLines(noVerdictShare(none, 'strict'), [], 'strict')).toEqual(['every rule got a verdict (1 counted; UPSTREAM rules run under the strict profile and are counted)']);
  });

  it('shows a decimal only where a whole percentage would hide which side of the limit a share is on', () => {
    expect(percent(65 / 102)).toBe('64%');
    expect(percent(0.504, 0.5)).toBe('50.4%');
    expect(percent(0.496, 0.5)).toBe('50%');
    expect(percent(0.6, 0.5)).toBe('60%');
  });
});

describe('--max-skip-share', () => {
  it('fails a run whose share of SKIP is above the limit, with the ordinary failure exit code, and says why first', () => {
    const out = applySkipShare(run(MIXED), 0.5);
    expect(out.exitCode).toBe(EXIT.RULES_FAILED);
    expect(out.results.summary.exitCode).toBe(EXIT.RULES_FAILED);
    expect(out.results.summary.verdict).toBe('FAILED: 6 of 10 rules (60%) got no verdict, above --max-skip-share 0.5; 4 pass, 0 fail, 0 error, 6 skip of 10 rules');
    expect(out.results.summary.noVerdict).toEqual({ skipped: 6, counted: 10, share: 0.6, notCounted: 0, maxSkipShare: 0.5, exceeded: true });
    expect(out.results.summary.skipReasons?.map((g) => g.count)).toEqual([4, 1, 1]);
    // results.json keeps the grouping: it parses back.
    expect(runResultsSchema.parse(JSON.parse(JSON.stringify(out.results))).summary.skipReasons).toEqual(out.results.summary.skipReasons);
  });

  it('leaves the run alone at or below the limit, and without one', () => {
    for (const max of [0.6, 1, undefined]) {
      const out = applySkipShare(run(MIXED), max);
      expect(out.exitCode, String(max)).toBe(EXIT.OK);
      expect(out.results.summary.verdict).toMatch(/^PASSED: 4 pass/);
      expect(out.results.summary.noVerdict?.exceeded).toBe(false);
      expect(out.results.summary.skipReasons?.length).toBe(3);
    }
  });

  it('keeps a run that already failed on a rule failed, and names both', () => {
    const out = applySkipShare(run(MIXED, 'default', EXIT.RULES_FAILED), 0);
    expect(out.exitCode).toBe(EXIT.RULES_FAILED);
    expect(out.results.summary.verdict).toMatch(/^FAILED: 6 of 10 rules \(60%\) got no verdict, above --max-skip-share 0; 4 pass/);
  });

  it('does not let UPSTREAM rules the default profile skips push a run over the limit', () => {
    const rules = [rule('secrets.core.p', 'PASS'), ...['x', 'y', 'z'].map((x) => rule(`secrets.upstream.${x}`, 'SKIP', 'UPSTREAM rules run only under the strict profile', 'UPSTREAM'))];
    expect(applySkipShare(run(rules), 0).exitCode).toBe(EXIT.OK);
    expect(applySkipShare(run(rules, 'strict'), 0.5).exitCode).toBe(EXIT.RULES_FAILED);
  });

  it('is read from the config file, the environment and the flag, as a share between 0 and 1', () => {
    expect(loadConfig({ flags: { maxSkipShare: 0.25 } }).maxSkipShare).toBe(0.25);
    expect(loadConfig({ env: { STACKPROOF_MAX_SKIP_SHARE: '0.3' } }).maxSkipShare).toBe(0.3);
    expect(loadConfig({}).maxSkipShare).toBeUndefined();
    expect(() => loadConfig({ flags: { maxSkipShare: 1.5 } })).toThrow(ConfigError);
    expect(() => loadConfig({ env: { STACKPROOF_MAX_SKIP_SHARE: 'half' } })).toThrow(/maxSkipShare.*STACKPROOF_MAX_SKIP_SHARE/s);
  });

  it('says first that the run failed on its share of SKIP, shows the grouping before the rules table, and leaves JUnit as it was', () => {
    const plain = run(MIXED);
    const out = applySkipShare(plain, 0.5);
    const html = renderHtml(out.results);
    // What failed comes first and says the run failed on its share of SKIP; the grouping follows the summary, before the rules.
    const attention = html.slice(html.indexOf('<section id="attention"'), html.indexOf('<section id="summary"'));
    expect(attention).toContain('data-testid="skip-share-exceeded"');
    expect(attention).toContain('6 of 10 rules (60%) got no verdict, above --max-skip-share 0.5');
    expect(html.indexOf('id="no-verdict"')).toBeGreaterThan(html.indexOf('id="summary"'));
    expect(html.indexOf('id="no-verdict"')).toBeLessThan(html.indexOf('id="rules"'));
    const section = html.slice(html.indexOf('<section id="no-verdict"'), html.indexOf('</section>', html.indexOf('<section id="no-verdict"')));
    expect(section).toContain('6 of 10 rules (60%) were SKIP');
    expect(section).toContain('above --max-skip-share 0.5');
    expect(section.match(/data-testid="skip-reason"/g)?.length).toBe(3);
    expect(section).toContain('href="#rule-secrets.proxy.one"');
    expect(section).toContain('<summary>4 rules</summary>');
    expect(renderJunit(out.results)).toBe(renderJunit(plain.results));
  });
});

describe('stackproof conform --max-skip-share', () => {
  let ref: RunningReference;
  let targets: unknown;
  beforeAll(async () => {
    // Without its control listener, the scheduler declares no fixtures: most of its rules are SKIP.
    ref = await startReference({ control: false });
    targets = referenceTargets(ref, ['scheduler']);
  });
  afterAll(async () => ref?.stop());

  it('fails the run above the limit with exit 1, prints the reasons before the verdict, and passes under a limit from the environment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stackproof-skipshare-'));
    const args = ['conform', '--systems', 'scheduler', '--runs', '3', '--no-load-smoke', '--reports-dir', dir];
    const res = await runCli([...args, '--max-skip-share', '0'], { configFile: { targets } });
    expect(res.code, res.stdout + res.stderr).toBe(1);
    const results = runResultsSchema.parse(JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')));
    const skipped = results.rules.filter((r) => r.outcome === 'SKIP').length;
    expect(skipped).toBeGreaterThan(0);
    expect(results.rules.some((r) => r.outcome === 'FAIL' || r.outcome === 'ERROR')).toBe(false);
    expect(results.summary.skipReasons?.reduce((n, g) => n + g.count, 0)).toBe(skipped);
    const lines = res.stdout.split('\n');
    const header = lines.findIndex((l) => l.startsWith(`no verdict for ${skipped} of ${results.rules.length} rules`));
    const verdict = lines.findIndex((l) => l.startsWith(`FAILED: ${skipped} of ${results.rules.length} rules (`) && l.includes('got no verdict, above --max-skip-share 0;'));
    expect(header, res.stdout).toBeGreaterThanOrEqual(0);
    expect(verdict).toBe(header + 1 + results.summary.skipReasons!.length);

    const ok = await runCli(args, { configFile: { targets }, env: { STACKPROOF_MAX_SKIP_SHARE: '1' } });
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/\nPASSED: /);
  });
});
