import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runResultsSchema } from '../src/report/results-model.ts';
import { runCli } from './support/run-cli.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'stackproof-ci-'));
const results = (d: string) => runResultsSchema.parse(JSON.parse(readFileSync(join(d, 'results.json'), 'utf8')));
const FAULTY = ['conform', '--reference-fault', 'mesh.authorize-empty-reason', '--systems', 'mesh', '--runs', '3', '--no-load-smoke'];

function waiverFile(waivers: unknown[]): string {
  const file = join(dir(), 'waivers.json');
  writeFileSync(file, JSON.stringify({ waivers }));
  return file;
}

describe('CI workflow', () => {
  it('turns a waived failure into WAIVED (skipped in JUnit, with the reason) and passes the run', async () => {
    const out = dir();
    const waivers = waiverFile([{ rule: 'mesh.authorize.reason', owner: 'team-mesh', reason: 'fix in #12', expires: '2999-12-31' }]);
    const res = await runCli([...FAULTY, '--waivers', waivers, '--reports-dir', out]);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const r = results(out).rules.find((x) => x.id === 'mesh.authorize.reason')!;
    expect(r.outcome).toBe('WAIVED');
    expect(r.message).toMatch(/waived by team-mesh until 2999-12-31: fix in #12 \(was FAIL/);
    expect(readFileSync(join(out, 'junit.xml'), 'utf8')).toMatch(/<skipped message="WAIVED: waived by team-mesh/);
  }, 60_000);

  it('reports an expired waiver and a waiver no longer needed, and --strict-waivers fails the run on them', async () => {
    const out = dir();
    const waivers = waiverFile([
      { rule: 'mesh.authorize.reason', owner: 'team-mesh', reason: 'old', expires: '2020-01-01' },
      { rule: 'mesh.leaf.fields', owner: 'team-mesh', reason: 'was flaky', expires: '2999-01-01' },
    ]);
    const res = await runCli([...FAULTY, '--waivers', waivers, '--reports-dir', out]);
    expect(res.code, 'the expired waiver is not applied: the FAIL stands').toBe(1);
    expect(res.stdout).toMatch(/waiver: the waiver of mesh.authorize.reason by team-mesh expired on 2020-01-01/);
    expect(res.stdout).toMatch(/waiver: mesh.leaf.fields passes: its waiver by team-mesh .* is no longer needed/);
    expect(results(out).waiverFindings?.map((f) => f.kind).sort()).toEqual(['expired', 'no-longer-needed']);
    const strict = await runCli((['conform', '--systems', 'mesh', '--runs', '3', '--no-load-smoke', '--waivers', waiverFile([{ rule: 'mesh.leaf.fields', owner: 'o', reason: 'r', expires: '2999-01-01' }]), '--strict-waivers', '--reports-dir', dir()]));
    expect(strict.code, 'every rule passes, but a waiver is no longer needed').toBe(1);
  }, 90_000);

  it('refuses a waiver file that does not validate, naming the field', async () => {
    const res = await runCli(['conform', '--waivers', waiverFile([{ rule: 'x', owner: 'o', reason: 'r', expires: 'soon' }])]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/waivers\.0\.expires: must be a date/);
  });

  it('fails on the chosen level: an UPSTREAM failure under the strict profile fails the run', async () => {
    const res = await runCli(['conform', '--systems', 'mesh', '--profile', 'strict', '--reference-fault', 'mesh.index-header-missing', '--runs', '3', '--no-load-smoke', '--reports-dir', dir()]);
    expect(res.code).toBe(1);
    const must = await runCli(['conform', '--systems', 'mesh', '--fail-on', 'MUST', '--runs', '3', '--no-load-smoke', '--reports-dir', dir()]);
    expect(must.code).toBe(0);
  }, 60_000);

  it('reruns only the rules that failed, and reports what changed since a baseline', async () => {
    const first = dir();
    expect((await runCli([...FAULTY, '--reports-dir', first])).code).toBe(1);
    const second = dir();
    const rerun = await runCli(['conform', '--rerun-failed', join(first, 'results.json'), '--runs', '3', '--no-load-smoke', '--baseline', join(first, 'results.json'), '--reports-dir', second]);
    expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
    const r = results(second);
    expect(r.rules.map((x) => x.id)).toEqual(['mesh.authorize.reason']);
    expect(r.baselineDiff).toEqual([{ rule: 'mesh.authorize.reason', before: 'FAIL', after: 'PASS' }]);
    expect(rerun.stdout).toContain('changed since the baseline: mesh.authorize.reason FAIL -> PASS');
    expect(readFileSync(join(second, 'index.html'), 'utf8')).toContain('data-testid="baseline-diff"');
  }, 90_000);

  it('writes the statement map as a coverage report: statements asserted per spec section, each with its rules or the reason it cannot be tested', async () => {
    const out = dir();
    const res = await runCli(['coverage', '--json', '--reports-dir', out]);
    expect(res.code, res.stderr).toBe(0);
    const cov = JSON.parse(res.stdout) as { totals: { statements: number; testable: number; covered: number }; sections: { section: string }[]; uncovered: { id: string; gap?: string }[]; problems: string[] };
    expect(cov.problems).toEqual([]);
    expect(cov.totals.statements).toBeGreaterThan(300);
    expect(cov.totals.covered).toBe(cov.totals.testable - cov.uncovered.length);
    expect(cov.uncovered.filter((u) => !u.gap).map((u) => u.id), 'what no rule asserts is a known gap with its reason').toEqual([]);
    expect(cov.sections.map((s) => s.section)).toContain('Endpoints > Core');
    const html = readFileSync(join(out, 'coverage.html'), 'utf8');
    expect(html).toContain('testable statements asserted');
    expect(html).toContain('secrets.core.path-param-trailing-period-404');
  });
});
