import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { satisfies } from '../src/expectations/version-range.ts';
import { runResultsSchema } from '../src/report/results-model.ts';
import { findNomad, startNomadAgent, type NomadAgent } from './support/nomad-agent.ts';
import { runCli } from './support/run-cli.ts';

/**
 * Issue 53, parts 2 and 4, for the scheduler's client endpoints (metadata, stats, files, logs, GC,
 * IDs; the event stream has its own): against real Nomad 2.0.5 and 1.6.1, given only URL, management
 * token and dialect, under the strict profile with Nomad's listed deviations expected, every rule is
 * PASS or EXPECTED, each EXPECTED by a deviation whose range holds the version met (the two ends of
 * the ranges this repository can check), and the node is as found once Nomad's 10 s metadata
 * batching has passed: its jobs, namespaces, ACL tokens and policies, eligibility, drain and Meta.
 * Its dynamic metadata too on 2.0.5; 1.6.1 keeps every key a run unset as null, which no API call
 * removes, and the run says so.
 */
const RULES = 'scheduler.metadata.*,scheduler.stats.*,scheduler.alloc-stats.*,scheduler.fs.*,scheduler.gc.*,scheduler.acl.*,scheduler.endpoints.*,scheduler.ids.*,scheduler.upstream.stream-origin-default-start,scheduler.upstream.fs-params-400';

/** What a run must leave as it found it. */
async function snapshot(agent: NomadAgent) {
  const get = async (path: string) => (await fetch(`${agent.url}${path}`, { headers: { 'x-nomad-token': agent.token } })).json() as Promise<unknown>;
  const names = (list: unknown, field: string) => ((list as Record<string, string>[] | null) ?? []).map((x) => x[field]).sort();
  const node = (await get(`/v1/node/${agent.nodeId}`)) as { SchedulingEligibility: string; Drain: boolean; Meta: Record<string, string> };
  const metadata = (await get('/v1/client/metadata')) as { Dynamic: Record<string, string | null> };
  return {
    jobs: names(await get('/v1/jobs?namespace=*'), 'ID'),
    namespaces: names(await get('/v1/namespaces'), 'Name'),
    tokens: names(await get('/v1/acl/tokens'), 'Name'),
    policies: names(await get('/v1/acl/policies'), 'Name'),
    node: { eligibility: node.SchedulingEligibility, drain: node.Drain, meta: node.Meta },
    dynamic: metadata.Dynamic ?? {},
  };
}

for (const which of ['current', '1.6.1'] as const) {
  const found = findNomad(which);
  if (!found.path) console.log(`nomad-client-endpoints-real: SKIPPED for Nomad ${which}: ${found.why}`);
  describe.skipIf(!found.path)(`the scheduler's client-endpoint rules against real Nomad ${which === 'current' ? '2.0.5' : '1.6.1'}`, () => {
    let agent: NomadAgent;
    const reports = mkdtempSync(join(tmpdir(), 'stackproof-nomad-client-'));
    beforeAll(async () => {
      agent = await startNomadAgent(found.path!);
    }, 120_000);
    afterAll(async () => {
      await agent?.stop();
      rmSync(reports, { recursive: true, force: true });
    }, 60_000);

    it('gives every rule PASS or EXPECTED (ranges holding the version met), and leaves the node as it found it', async () => {
      const before = await snapshot(agent);
      const env = { STACKPROOF_SCHEDULER_URL: agent.url, STACKPROOF_SCHEDULER_TOKEN: agent.token, STACKPROOF_SCHEDULER_DIALECT: 'hashicorp' };
      const res = await runCli(['conform', '--systems', 'scheduler', '--rules', RULES, '--profile', 'strict', '--expect', 'nomad', '--no-load-smoke', '--reports-dir', reports], { env, timeoutMs: 400_000 });
      const results = runResultsSchema.parse(JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8')));
      console.log(`nomad-client-endpoints-real: Nomad ${agent.version}: ${results.summary.verdict}`);
      expect(res.code, res.stdout + res.stderr).toBe(0);
      const wrong = results.rules.filter((r) => !['PASS', 'EXPECTED'].includes(r.outcome)).map((r) => `${r.id}: ${r.outcome} ${r.message ?? ''}`);
      expect(wrong).toEqual([]);
      for (const r of results.rules.filter((r) => r.outcome === 'EXPECTED')) {
        expect(r.expectation?.source ?? '', `${r.id}'s deviation cites its source`).toMatch(/hashicorp\/nomad/);
        expect(satisfies(agent.version, r.expectation?.range ?? ''), `${r.id}: ${agent.version} is in its range ${r.expectation?.range}`).toBe(true);
      }
      // Nomad sends dynamic metadata to the servers in batches, at most every 10 s.
      await new Promise((r) => setTimeout(r, 12_000));
      const after = await snapshot(agent);
      const prefix = /run prefix: (sp-[0-9a-z]{10})/.exec(res.stdout)![1]!;
      const runKey = (k: string) => k.startsWith(`stackproof.${prefix.replace(/-/g, '_')}.`);
      if (agent.version === '1.6.1') {
        const kept = Object.keys(after.dynamic).filter(runKey);
        expect(kept.every((k) => after.dynamic[k] === null), 'only nulls are kept').toBe(true);
        expect(res.stdout, 'the run says which keys stay').toContain(`keeps ${kept.length} dynamic metadata key(s) of run ${prefix} as null`);
        expect(kept.length, 'the run touches few keys').toBeLessThanOrEqual(3);
        expect({ ...after, dynamic: Object.fromEntries(Object.entries(after.dynamic).filter(([k]) => !runKey(k))) }).toEqual(before);
      } else {
        expect(res.stdout).not.toContain('dynamic metadata key(s) of run');
        expect(after).toEqual(before);
      }
    }, 420_000);
  });
}
