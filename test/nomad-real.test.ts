import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { satisfies } from '../src/expectations/version-range.ts';
import { runResultsSchema } from '../src/report/results-model.ts';
import { nomadReleases, startNomadAgent, type NomadAgent } from './support/nomad-agent.ts';
import { NOMAD_METADATA_BATCH_MS, nomadSnapshot, type NomadSnapshot } from './support/nomad-snapshot.ts';
import { runCli } from './support/run-cli.ts';

/**
 * Issue 53, part 1: the scheduler suites against a real Nomad (`nomad agent -dev -acl-enabled`,
 * server and client in one, bootstrapped management token, loopback), given only its URL, the token
 * and the dialect, under the strict profile with Nomad's listed deviations expected: every rule is
 * PASS, EXPECTED (a deviation listed for a range that holds the version found, cited in
 * hashicorp/nomad) or SKIP with its reason; the run names the product and version it met, exits 0, and
 * the agent holds afterwards what it held before (read after the client's metadata batching). Both
 * ends of the version ranges: Nomad 2.0.5 and 1.6.1 (the last MPL release), from ../shared/bin.
 */

/**
 * Nomad releases whose client keeps an unset dynamic metadata key as null (client/meta_endpoint.go;
 * PR 18664 deletes them from 1.5.10, 1.6.3 and 1.7.0).
 */
const KEEPS_UNSET_METADATA = '>=1.5.0 <1.5.10 || >=1.6.0 <1.6.3';

describe.each(nomadReleases('nomad-real'))('the scheduler suites against a real Nomad ($which)', ({ found }) => {
  let agent: NomadAgent | undefined;
  let before: NomadSnapshot;
  const reports = mkdtempSync(join(tmpdir(), 'stackproof-nomad-real-'));
  beforeAll(async () => {
    agent = await startNomadAgent(found.path!);
    before = await nomadSnapshot(agent);
  }, 90_000);
  afterAll(async () => {
    await agent?.stop();
    rmSync(reports, { recursive: true, force: true });
  }, 30_000);

  it('gives every scheduler rule PASS, EXPECTED for its version or SKIP with a reason, exits 0, names the version, and leaves the agent as it was', async () => {
    const env = { STACKPROOF_SCHEDULER_URL: agent!.url, STACKPROOF_SCHEDULER_TOKEN: agent!.token, STACKPROOF_SCHEDULER_DIALECT: 'hashicorp' };
    const res = await runCli(['conform', '--systems', 'scheduler', '--profile', 'strict', '--expect', 'nomad', '--no-load-smoke', '--reports-dir', reports], { env, timeoutMs: 500_000 });
    const results = runResultsSchema.parse(JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8')));
    console.log(`nomad-real: Nomad ${agent!.version}: ${results.summary.verdict} (${Math.round(res.durationMs / 1000)} s)`);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(/scheduler product: HashiCorp Nomad (\S+)/.exec(res.stdout)?.[1], 'the run header names the product and the version it met').toBe(agent!.version);
    expect(results.targets.find((t) => t.system === 'scheduler')?.product).toMatchObject({ name: 'HashiCorp Nomad', version: agent!.version });
    const wrong = results.rules.filter((r) => !['PASS', 'EXPECTED', 'SKIP'].includes(r.outcome)).map((r) => `${r.id}: ${r.outcome} ${r.message ?? ''}`);
    expect(wrong).toEqual([]);
    for (const r of results.rules.filter((r) => r.outcome === 'SKIP')) expect(r.message ?? '', `${r.id} says why it is SKIP`).toMatch(/\S{8,}/);
    for (const r of results.rules.filter((r) => r.outcome === 'EXPECTED')) {
      expect(r.expectation?.source ?? '', `${r.id}'s deviation cites its source`).toMatch(/^hashicorp\/nomad /);
      expect(r.expectation?.range && satisfies(agent!.version, r.expectation.range), `${r.id}'s range ${r.expectation?.range} holds ${agent!.version}`).toBe(true);
    }
    // The client hands metadata changes to the servers in batches: read the node after one has passed.
    await new Promise((r) => setTimeout(r, NOMAD_METADATA_BATCH_MS + 1_000));
    const after = await nomadSnapshot(agent!);
    const prefix = /run prefix: (sp-[0-9a-z]{10})/.exec(res.stdout)![1]!;
    const runKey = (k: string) => k.startsWith(`stackproof.${prefix.replace(/-/g, '_')}.`);
    if (satisfies(agent!.version, KEEPS_UNSET_METADATA)) {
      // These releases keep an unset dynamic key as null and no API call removes it: the run says which.
      const kept = Object.keys(after.clientMetadata.Dynamic).filter(runKey);
      expect(kept.every((k) => after.clientMetadata.Dynamic[k] === null), 'only nulls are kept').toBe(true);
      expect(res.stdout, 'the run says which keys stay').toContain(`keeps ${kept.length} dynamic metadata key(s) of run ${prefix} as null`);
      expect(kept.length, 'the run touches few keys').toBeLessThanOrEqual(3);
      after.clientMetadata.Dynamic = Object.fromEntries(Object.entries(after.clientMetadata.Dynamic).filter(([k]) => !runKey(k)));
    } else {
      expect(res.stdout).not.toContain('dynamic metadata key(s) of run');
    }
    expect(after, 'the agent holds what it held before the run').toEqual(before);
  }, 560_000);
});
