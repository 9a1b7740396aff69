import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.ts';

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
});
