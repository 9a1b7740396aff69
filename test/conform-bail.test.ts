import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runResultsSchema } from '../src/report/results-model.ts';
import { runCli } from './support/run-cli.ts';

// conform --bail (the mutation tests' per-mutant run, docs/mutation-testing.md): the first FAIL
// ends the run; what it cut short or never started has no verdict, and the exit says FAIL.
describe('conform --bail', () => {
  it('stops at the first FAIL, lists the rules it did not run, and exits 1', async () => {
    const out = mkdtempSync(join(tmpdir(), 'stackproof-bail-'));
    const res = await runCli(['conform', '--systems', 'secrets', '--rules', 'secrets.cloudauth', '--reference-fault', 'secrets.cloudauth-policies-unchecked', '--bail', '--no-load-smoke', '--seed', '1', '--reports-dir', out]);
    expect(res.code, res.stdout + res.stderr).toBe(1);
    const results = runResultsSchema.parse(JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')));
    const bailed = results.summary.bailed!;
    expect(bailed.rule).toBe('secrets.cloudauth.policy-required');
    expect(results.rules.find((r) => r.id === bailed.rule)?.outcome).toBe('FAIL');
    // No rule is both reported and listed as not run, and none is INTERRUPTED: a bail is no Ctrl-C.
    for (const id of bailed.notRun) expect(results.rules.some((r) => r.id === id)).toBe(false);
    expect(results.rules.some((r) => r.outcome === 'INTERRUPTED')).toBe(false);
    expect(results.summary.interrupted).toBeUndefined();
    expect(res.stdout).toMatch(/FAILED \(--bail: stopped at the first FAIL, secrets\.cloudauth\.policy-required; \d+ rule\(s\) not run\)/);
  }, 120_000);

  it('changes nothing when every rule passes', async () => {
    const out = mkdtempSync(join(tmpdir(), 'stackproof-bail-'));
    const res = await runCli(['conform', '--systems', 'secrets', '--rules', 'secrets.cloudauth.role-', '--bail', '--no-load-smoke', '--reports-dir', out]);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const results = runResultsSchema.parse(JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')));
    expect(results.summary.bailed).toBeUndefined();
    expect(results.rules.every((r) => r.outcome === 'PASS')).toBe(true);
  }, 120_000);
});
