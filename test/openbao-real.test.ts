import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { satisfies } from '../src/expectations/version-range.ts';
import { runResultsSchema } from '../src/report/results-model.ts';
import { findAzurePlugin, findOpenBao, startOpenBao, type OpenBaoServer } from './support/openbao-server.ts';
import { snapshot, type Snapshot } from './support/openbao-snapshot.ts';
import { runCli } from './support/run-cli.ts';

/**
 * Issue 53, part 1: the secrets suites against a real OpenBao (`bao server -dev`, in memory, a root
 * token of its own, loopback, the Azure auth plugin in its catalog as `azure`), given only its URL,
 * the token and the dialect, under the strict profile with OpenBao's listed deviations expected
 * (expectations/openbao.json): every rule is PASS, EXPECTED (a deviation listed with OpenBao's own
 * source, for a range holding the version found) or SKIP with its reason, the run exits 0, and the
 * server holds afterwards what it held before. The run names OpenBao and its version, so that only
 * OpenBao's own ranges are checked against it.
 */
const bao = findOpenBao();
const plugin = findAzurePlugin();
if (!bao.path) console.log(`openbao-real: SKIPPED, no real OpenBao to run against: ${bao.why}`);
if (bao.path && !plugin.path) console.log(`openbao-real: OpenBao runs without its Azure plugin (${plugin.why}): the cloud-identity config and role rules will be SKIP`);

describe.skipIf(!bao.path)(`the secrets suites against a real OpenBao (${bao.why})`, () => {
  let server: OpenBaoServer | undefined;
  let before: Snapshot;
  const reports = mkdtempSync(join(tmpdir(), 'stackproof-openbao-real-'));
  beforeAll(async () => {
    server = await startOpenBao(bao.path!, { azurePlugin: plugin.path });
    before = await snapshot(server);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(reports, { recursive: true, force: true });
  }, 30_000);

  it('gives every secrets rule PASS, EXPECTED or SKIP with a reason, exits 0, and leaves the server as it was', async () => {
    const env = { STACKPROOF_SECRETS_URL: server!.url, STACKPROOF_SECRETS_TOKEN: server!.token, STACKPROOF_SECRETS_DIALECT: 'hashicorp' };
    const res = await runCli(['conform', '--systems', 'secrets', '--profile', 'strict', '--expect', 'openbao', '--no-load-smoke', '--reports-dir', reports], { env, timeoutMs: 400_000 });
    const results = runResultsSchema.parse(JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8')));
    console.log(`openbao-real: OpenBao ${server!.version}: ${results.summary.verdict} ${JSON.stringify(results.summary.byOutcome)}`);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(/secrets product: OpenBao (\S+)/.exec(res.stdout)?.[1], 'the run header names OpenBao and the version it met').toBe(server!.version);
    expect(results.targets.find((t) => t.system === 'secrets')?.product).toMatchObject({ name: 'OpenBao', version: server!.version });
    const wrong = results.rules.filter((r) => !['PASS', 'EXPECTED', 'SKIP'].includes(r.outcome)).map((r) => `${r.id}: ${r.outcome} ${r.message ?? ''}`);
    expect(wrong).toEqual([]);
    for (const r of results.rules.filter((r) => r.outcome === 'SKIP')) expect(r.message ?? '', `${r.id} says why it is SKIP`).toMatch(/\S{8,}/);
    for (const r of results.rules.filter((r) => r.outcome === 'EXPECTED')) {
      expect(r.expectation?.source ?? '', `${r.id}'s deviation cites OpenBao's source`).toMatch(/^openbao\//);
      const range = r.expectation?.range;
      expect(range, `${r.id}'s deviation has a range`).toBeDefined();
      expect(satisfies(server!.version, range!), `${r.id}'s range ${range} holds for OpenBao ${server!.version}`).toBe(true);
    }
    expect(res.stdout, 'nothing the run made was left behind').not.toMatch(/could not be removed/);
    expect(await snapshot(server!), 'the server holds what it held before the run').toEqual(before);
  }, 420_000);
});
