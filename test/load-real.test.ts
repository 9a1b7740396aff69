import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runResultsSchema, type LoadScenarioResult } from '../src/report/results-model.ts';
import { realK6 } from './support/k6-binary.ts';
import { nomadReleases, startNomadAgent, type NomadAgent } from './support/nomad-agent.ts';
import { nomadSnapshot, type NomadSnapshot } from './support/nomad-snapshot.ts';
import { snapshot as openBaoSnapshot, type Snapshot as OpenBaoSnapshot } from './support/openbao-snapshot.ts';
import { findOpenBao, startOpenBao, type OpenBaoServer } from './support/openbao-server.ts';
import { BIN, ROOT, runCli } from './support/run-cli.ts';

/**
 * Issue 53, part 7: every load scenario against the real products, given only URL, token and
 * dialect, with the open engine and k6: OpenBao 2.6.2's OIDC code flow (its entity, client, provider
 * and assignment made through the admin API under the run prefix), Nomad 2.0.5's and 1.6.1's logs
 * and event fan-out. A few seconds of load each: every row without an error and with the requests
 * it was asked for, and the product holding afterwards what it held before (its own listings:
 * test/support/openbao-snapshot.ts and nomad-snapshot.ts), also after a Ctrl-C and
 * after a kill that `stackproof cleanup --prefix` mends.
 */
const k6 = realK6();
if (!k6) console.log('load-real: the k6 rows are NOT RUN (no k6: $K6, k6 on PATH, or ../shared/bin/k6); the open engine still runs');
const engines = k6 ? ['open', 'k6'] : ['open'];
const k6Env: Record<string, string> = k6 ? { K6: k6 } : {};

/** Every row ran, without an error, and with more than `least` requests. */
function expectRows(rows: LoadScenarioResult[], expected: string[], least: number, output: string): void {
  expect(rows.map((r) => `${r.scenario} ${r.engine === 'open-model' ? 'open' : r.engine === 'stream-subscribers' ? 'subscribers' : r.engine}`).sort(), output).toEqual([...expected].sort());
  for (const r of rows) {
    expect(r.error, `${r.scenario} (${r.engine}): ${output}`).toBeUndefined();
    expect(r.errors, `${r.scenario} (${r.engine}): ${JSON.stringify(r.errorKinds ?? r.streams ?? {})}`).toBe(0);
    expect(r.requests, `${r.scenario} (${r.engine}) ran`).toBeGreaterThan(least);
    // The CPU of the product's own process, found by its port.
    expect(r.cpu?.target, `${r.scenario} (${r.engine}): ${JSON.stringify(r.cpu)}`).toBeDefined();
  }
}

/** `stackproof load` in a child, stopped (SIGINT or SIGKILL) once its scenario runs: the exit code, its output and the run prefix it printed. */
async function loadStoppedBy(signal: NodeJS.Signals, env: Record<string, string>, args: string[]): Promise<{ code: number | null; output: string; prefix: string }> {
  const child = spawn(process.execPath, [BIN, 'load', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  // The scenario's line comes once its fixtures are made; a second later its requests are running.
  const deadline = Date.now() + 60_000;
  while (!/\(open\): .* for \d+ s, at most/.test(output) && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 1_000));
  child.kill(signal);
  const code = await Promise.race([closed, new Promise<null>((r) => setTimeout(() => (child.kill('SIGKILL'), r(null)), 60_000))]);
  return { code, output, prefix: /run prefix: (sp-[0-9a-z]{10})/.exec(output)?.[1] ?? '' };
}

const bao = findOpenBao();
if (!bao.path) console.log(`load-real: OpenBao SKIPPED, no binary to run against: ${bao.why}`);

describe.skipIf(!bao.path)(`load on a real OpenBao (${bao.why})`, () => {
  let server: OpenBaoServer | undefined;
  let before: OpenBaoSnapshot;
  const reports = mkdtempSync(join(tmpdir(), 'stackproof-load-real-bao-'));
  const env = () => ({ STACKPROOF_SECRETS_URL: server!.url, STACKPROOF_SECRETS_TOKEN: server!.token, STACKPROOF_SECRETS_DIALECT: 'hashicorp', ...k6Env });
  beforeAll(async () => {
    server = await startOpenBao(bao.path!);
    before = await openBaoSnapshot(server);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(reports, { recursive: true, force: true });
  }, 30_000);

  it(`runs the OIDC code flow with the open engine${k6 ? ' and k6' : ''}, its fixtures made through the admin API under the run prefix, and leaves OpenBao as it was`, async () => {
    const res = await runCli(['load', '--scenario', 'oidc-code-flow', '--engine', engines.join(','), '--rate', '20', '--duration', '2s', '--reports-dir', reports], { env: env(), timeoutMs: 120_000 });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toMatch(/secrets fixtures: entities through Vault's admin API \(a userpass auth method at auth\/sp-[0-9a-z]{10}-up\/\), under the run prefix/);
    const results = runResultsSchema.parse(JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8')));
    expect(results.targets[0]?.product).toMatchObject({ name: 'OpenBao', version: server!.version });
    expectRows(results.load, engines.map((e) => `oidc-code-flow ${e}`), 30, res.stdout);
    expect(res.stdout).toMatch(/cleanup \(secrets\): removed 5 thing\(s\) made under sp-/);
    expect(await openBaoSnapshot(server!), 'the load run left nothing on OpenBao').toEqual(before);
  }, 150_000);

  it('stopped by Ctrl-C, it removes what it made and exits 130; killed, `stackproof cleanup --prefix` finds and removes it', async () => {
    const args = ['--scenario', 'oidc-code-flow', '--rate', '20', '--duration', '60s', '--reports-dir', reports];
    const interrupted = await loadStoppedBy('SIGINT', env(), args);
    expect(interrupted.code, interrupted.output).toBe(130);
    expect(interrupted.output).toMatch(/SIGINT: stopping the load and removing what the run made/);
    expect(interrupted.output).toMatch(/INTERRUPTED \(SIGINT\)/);
    expect(await openBaoSnapshot(server!), 'a Ctrl-C left nothing on OpenBao').toEqual(before);

    const killed = await loadStoppedBy('SIGKILL', env(), args);
    expect(killed.prefix, killed.output).toMatch(/^sp-/);
    expect(await openBaoSnapshot(server!), 'a killed run leaves its fixtures').not.toEqual(before);
    const cleanup = await runCli(['cleanup', '--prefix', killed.prefix], { env: env(), timeoutMs: 60_000 });
    expect(cleanup.code, cleanup.stdout + cleanup.stderr).toBe(0);
    expect(await openBaoSnapshot(server!), '`stackproof cleanup --prefix` removed what the killed run made').toEqual(before);
  }, 200_000);
});


describe.each(nomadReleases('load-real'))('load on a real Nomad ($which)', ({ found }) => {
  let agent: NomadAgent | undefined;
  let before: NomadSnapshot;
  const reports = mkdtempSync(join(tmpdir(), 'stackproof-load-real-nomad-'));
  beforeAll(async () => {
    agent = await startNomadAgent(found.path!);
    before = await nomadSnapshot(agent);
  }, 90_000);
  afterAll(async () => {
    await agent?.stop();
    rmSync(reports, { recursive: true, force: true });
  }, 30_000);

  it(`runs the logs with the open engine${k6 ? ' and k6' : ''} and the event fan-out on its stream subscribers, and leaves Nomad as it was`, async () => {
    const env = { STACKPROOF_SCHEDULER_URL: agent!.url, STACKPROOF_SCHEDULER_TOKEN: agent!.token, STACKPROOF_SCHEDULER_DIALECT: 'hashicorp', ...k6Env };
    // A light fan-out: 5 subscribers at 20 registrations/s stay well inside Nomad's 100-event buffer.
    // Every scenario of a scheduler target (the fan-out has no k6 script: the open engine runs it on stackproof's subscribers).
    const res = await runCli(['load', '--engine', engines.join(','), '--rate', '50', '--duration', '2s', '--subscribers', '5', '--event-rate', '20', '--reports-dir', reports], { env, timeoutMs: 180_000 });
    console.log(`load-real: Nomad ${agent!.version}: ${res.stdout.split('\n').filter((l) => /done,|events published/.test(l)).map((l) => l.trim()).join(' | ')}`);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const results = runResultsSchema.parse(JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8')));
    expect(results.targets[0]?.product).toMatchObject({ name: 'HashiCorp Nomad', version: agent!.version });
    expectRows(results.load, [...engines.map((e) => `scheduler-logs ${e}`), 'scheduler-event-fanout subscribers'], 80, res.stdout);
    const fanout = results.load.find((r) => r.scenario === 'scheduler-event-fanout')!;
    expect(fanout.streams).toMatchObject({ subscribers: 5, missed: 0, duplicates: 0, endedEarly: 0, eventBufferSize: 100 });
    expect(await nomadSnapshot(agent!), 'the load run left nothing on Nomad').toEqual(before);
  }, 240_000);
});
