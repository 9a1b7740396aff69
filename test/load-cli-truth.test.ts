import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runResultsSchema } from '../src/report/results-model.ts';
import { realK6 } from './support/k6-binary.ts';
import { runCli } from './support/run-cli.ts';

const k6 = realK6();

/** Issue 35, part 4: a load typo is a usage error, and a breach is named in the terminal. */
describe('stackproof load tells the truth in the terminal', () => {
  const reports = mkdtempSync(join(tmpdir(), 'stackproof-load-truth-'));
  afterAll(() => rmSync(reports, { recursive: true, force: true }));

  it('an unknown scenario name exits 2 naming the known ones, and runs nothing', async () => {
    for (const list of ['nope', 'mesh-rootz,mesh-roots']) {
      const res = await runCli(['load', '--scenario', list, '--reports-dir', reports], { timeoutMs: 30_000 });
      expect(res.code, res.stdout + res.stderr).toBe(2);
      expect(res.stderr).toMatch(/--scenario: (nope|mesh-rootz) is not a load scenario; the scenarios are oidc-code-flow, .*scheduler-event-fanout/);
      expect(res.stdout).not.toMatch(/\(open\)/);
    }
  });

  it('an unknown engine exits 2 naming the known ones', async () => {
    const res = await runCli(['load', '--engine', 'opne', '--reports-dir', reports], { timeoutMs: 30_000 });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/--engine: opne is not one of open, autocannon, k6/);
  });

  it('a breached threshold is printed with its name, limit and the value measured, and exits 4', async () => {
    const res = await runCli(['load', '--scenario', 'mesh-roots', '--duration', '1s', '--rate', '50', '--p99', '0.001', '--reports-dir', reports], { timeoutMs: 90_000 });
    expect(res.code, res.stdout + res.stderr).toBe(4);
    expect(res.stdout).toMatch(/THRESHOLD BREACHED: p99 latency \(ms\) [\d.]+ > 0\.001/);
  });

  it('a running scenario prints where it is every interval: done, errors, dropped, rate held, p99 so far', async () => {
    const res = await runCli(['load', '--scenario', 'mesh-roots', '--engine', 'open,autocannon', '--rate', '100', '--duration', '3s', '--progress-interval', '1s', '--reports-dir', reports], { timeoutMs: 90_000 });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    // Two engines, each at least at 1 s and 2 s (the third may fall after the scenario's end).
    const progress = res.stdout.match(/^ {4}… \d+ s of 3 s: \d+ done, 0 errors, 0 dropped; last 1 s: \d+\/s held, p99 [\d.]+ ms$/gm) ?? [];
    expect(progress.length, res.stdout).toBeGreaterThanOrEqual(4);
  });

  it(`--max-requests is an exact cap on HTTP requests for every engine, and a scenario it stops early says so (${k6 ? 'k6 too' : 'no k6 binary here: k6 not checked'})`, async () => {
    const engines = ['open', 'autocannon', ...(k6 ? ['k6'] : [])];
    const res = await runCli(['load', '--scenario', 'mesh-roots,oidc-code-flow', '--engine', engines.join(','), '--rate', '200', '--duration', '10s', '--max-requests', '150', '--reports-dir', reports], { timeoutMs: 180_000, env: k6 ? { K6: k6 } : {} });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const results = runResultsSchema.parse(JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8')));
    expect(results.load).toHaveLength(2 * engines.length);
    for (const row of results.load) {
      // The open model's code flow counts iterations of 3 HTTP requests; every other row counts requests.
      const http = row.scenario === 'oidc-code-flow' && row.engine === 'open-model' ? row.requests * 3 : row.requests;
      expect(http, `${row.scenario} (${row.engine})`).toBe(150);
      expect(row.stoppedEarly, `${row.scenario} (${row.engine})`).toMatch(/^stopped at the --max-requests cap of 150 HTTP requests, after [\d.]+ s of the 10\.0 s asked$/);
    }
    expect(res.stdout.match(/^ {4}stopped at the --max-requests cap of 150 HTTP requests/gm)).toHaveLength(2 * engines.length);
  });
});
