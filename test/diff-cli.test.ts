import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DiffRun } from '../src/diff/diff-model.ts';
import { freePort } from './support/consul-agent.ts';
import { runCli } from './support/run-cli.ts';

/**
 * `stackproof diff` without a real product: its usage errors, a target that does not answer, and the
 * embedded reference against another embedded reference, which must answer every request alike (the
 * normalising takes out all that is per target, and nothing else differs between two instances).
 */
const reports = mkdtempSync(join(tmpdir(), 'stackproof-diff-cli-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

describe('stackproof diff: usage', () => {
  it('exits 2 for a missing system, a bad target and a URL without its token', async () => {
    const noSystem = await runCli(['diff', '--a', 'reference', '--b', 'reference'], { timeoutMs: 30_000 });
    expect(noSystem.code, noSystem.stderr).toBe(2);
    expect(noSystem.stderr).toMatch(/--system/);
    const badUrl = await runCli(['diff', '--a', 'reference', '--b', 'ftp://x', '--system', 'mesh'], { timeoutMs: 30_000 });
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toMatch(/--b ftp:\/\/x: an http\(s\) URL/);
    const noToken = await runCli(['diff', '--a', 'reference', '--b', 'http://127.0.0.1:1', '--system', 'mesh'], { timeoutMs: 30_000 });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/STACKPROOF_DIFF_B_TOKEN/);
    const badRuns = await runCli(['diff', '--a', 'reference', '--b', 'reference', '--system', 'mesh', '--runs', '0'], { timeoutMs: 30_000 });
    expect(badRuns.code).toBe(2);
  }, 120_000);

  it('exits 3, comparing nothing, when a target does not answer', async () => {
    const port = await freePort();
    const res = await runCli(['diff', '--a', 'reference', '--b', `http://127.0.0.1:${port}`, '--system', 'scheduler', '--reports-dir', reports], { env: { STACKPROOF_DIFF_B_TOKEN: 'whatever-token' }, timeoutMs: 60_000 });
    expect(res.code, res.stdout + res.stderr).toBe(3);
    expect(res.stderr).toMatch(/--b: scheduler target http:\/\/127\.0\.0\.1:\d+: does not answer/);
  }, 90_000);
});

describe('stackproof diff: the reference against itself', () => {
  for (const system of ['mesh', 'secrets', 'scheduler'] as const) {
    it(`answers every ${system} request alike, with a report a user can read and no secret in it`, async () => {
      const dir = join(reports, system);
      const res = await runCli(['diff', '--a', 'reference', '--b', 'reference', '--system', system, '--seed', '7', '--reports-dir', dir], { timeoutMs: 120_000 });
      expect(res.code, res.stdout + res.stderr).toBe(0);
      expect(res.stdout).toMatch(/seed 7 \(replay: --seed 7 --runs 2\)/);
      const run = JSON.parse(readFileSync(join(dir, `diff-${system}.json`), 'utf8')) as DiffRun;
      expect(run.counts.requests).toBeGreaterThan(30);
      const differing = run.endpoints.flatMap((e) => e.requests.filter((r) => r.differences.length).map((r) => `${e.method} ${e.path} ${r.what}: ${r.differences.map((d) => d.line).join('; ')}`));
      expect(differing).toEqual([]);
      const unanswered = run.endpoints.flatMap((e) => e.requests.filter((r) => r.a.status === undefined).map((r) => `${e.method} ${e.path} ${r.what}: ${r.a.noAnswer}`));
      expect(unanswered, 'every request was answered').toEqual([]);
      // Each class of request met its endpoint: the refusals were refusals, the well-formed requests answered.
      const statuses = (klass: string) => new Set(run.endpoints.flatMap((e) => e.requests.filter((r) => r.class === klass).map((r) => r.a.status ?? 0)));
      expect([...statuses('no-token')].every((s) => s >= 400 || system === 'mesh'), `no-token statuses ${[...statuses('no-token')]}`).toBe(true);
      expect([...statuses('ok')].every((s) => s < 300), `ok statuses ${[...statuses('ok')]}`).toBe(true);
      expect(run.cleanup.a.problems.concat(run.cleanup.b.problems)).toEqual([]);
      expect(run.unseen, 'two references: no row of the table applies').toEqual([]);
      const markdown = readFileSync(join(dir, `diff-${system}.md`), 'utf8');
      expect(markdown).toMatch(new RegExp(`^# stackproof diff: ${system}`));
      // The client secrets and tokens the fixtures made never reach a report.
      expect(JSON.stringify(run) + markdown).not.toMatch(/"client_secret":"(?!<redacted>)[^"]+"/);
      expect(JSON.stringify(run)).not.toMatch(/"token":"[^"]/);
    }, 150_000);
  }
});
