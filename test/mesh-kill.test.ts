import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli } from './support/run-cli.ts';
import { findConsul, startConsulAgent, type ConsulAgent } from './support/consul-agent.ts';
import { activeRoot, caConfiguration, snapshot, type Snapshot } from './support/consul-snapshot.ts';

/**
 * Issue 34, part 4: a run stopped during the mesh suites leaves a real Consul as it found it. Against
 * `consul agent -dev` (ACLs on, a management token of its own, loopback), runs of `stackproof
 * conform --systems mesh` are stopped once the run has changed the CA configuration (seen on the
 * agent: LeafCertTTL no longer what it was, or another active root) — by one SIGINT, by SIGTERM (the
 * CA must be back within 3 s, before the suites stop), by two SIGINTs (the CA must be back when the
 * process has exited, before any cleanup), by SIGKILL then `stackproof cleanup --prefix`, and by
 * SIGKILL after a CA rotation then cleanup — and what the
 * agent holds is compared with what it held before: the CA configuration (provider, LeafCertTTL and
 * every other key but the PrivateKey and RootCert a rotation replaces), ACL tokens and policies,
 * intentions, config entries, and the KV store. Whether the rules pass does not matter here.
 */

const consul = findConsul();
if (!consul.path) console.log(`mesh-kill: SKIPPED, no real Consul to run against: ${consul.why}`);

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  prefix: () => string | undefined;
}

function startRun(agent: ConsulAgent): Run {
  const env: NodeJS.ProcessEnv = { ...process.env, STACKPROOF_MESH_URL: agent.url, STACKPROOF_MESH_TOKEN: agent.token, STACKPROOF_MESH_DIALECT: 'hashicorp' };
  for (const k of Object.keys(env)) if (k.startsWith('VITEST') || k === 'TEST' || k === 'NODE_ENV' || (k.startsWith('STACKPROOF_') && !k.startsWith('STACKPROOF_MESH_'))) delete env[k];
  const reports = mkdtempSync(join(tmpdir(), 'stackproof-kill-'));
  const child = spawn(process.execPath, [BIN, 'conform', '--systems', 'mesh', '--no-load-smoke', '--reports-dir', reports], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, output: () => output, exited, prefix: () => /run prefix: (sp-[0-9a-z]{10})/.exec(output)?.[1] };
}

/** Waits until `changed` holds on the agent (polled), at most `ms`; whether it did. */
async function waitFor(changed: () => Promise<boolean>, ms: number, run: Run): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && run.child.exitCode === null) {
    if (await changed().catch(() => false)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/** A run's exit, at most `ms`; SIGKILL after that (and the test fails on the null code). */
async function exitWithin(run: Run, ms: number): Promise<number | null> {
  const timer = setTimeout(() => run.child.kill('SIGKILL'), ms);
  const code = await run.exited;
  clearTimeout(timer);
  return code;
}

describe.skipIf(!consul.path)(`runs stopped mid-mesh-suite leave the real Consul as they found it (${consul.why})`, () => {
  let agent: ConsulAgent | undefined;
  let before: Snapshot;
  let ttlBefore: string;
  const started = performance.now();
  const timings: string[] = [];
  const running: Run[] = [];

  beforeAll(async () => {
    agent = await startConsulAgent(consul.path!);
    before = await snapshot(agent);
    ttlBefore = String((before.ca.Config as Record<string, unknown>).LeafCertTTL);
  }, 40_000);

  afterAll(async () => {
    for (const r of running) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
    await agent?.stop();
    console.log(`mesh-kill: ${timings.join('; ')}; whole test ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }, 20_000);

  /** Starts a run and waits until it has changed the CA: LeafCertTTL set short, or (`rotation`) a new active root. */
  async function runUntilCaChange(what: 'leafCertTtl' | 'rotation'): Promise<{ run: Run; changed: boolean; t0: number }> {
    const t0 = performance.now();
    const run = startRun(agent!);
    running.push(run);
    const root = await activeRoot(agent!);
    const changed = await waitFor(async () => (what === 'rotation' ? (await activeRoot(agent!)) !== root : String((await caConfiguration(agent!)).Config.LeafCertTTL) !== ttlBefore), what === 'rotation' ? 45_000 : 35_000, run);
    return { run, changed, t0 };
  }

  async function cleanupPrefix(prefix: string) {
    const env = { STACKPROOF_MESH_URL: agent!.url, STACKPROOF_MESH_TOKEN: agent!.token, STACKPROOF_MESH_DIALECT: 'hashicorp' };
    return runCli(['cleanup', '--prefix', prefix], { env, timeoutMs: 60_000 });
  }

  it('one SIGINT: the run removes what it made and puts the CA configuration back', async () => {
    const { run, changed, t0 } = await runUntilCaChange('leafCertTtl');
    expect(changed, `the run changed LeafCertTTL in time:\n${run.output()}`).toBe(true);
    const killedAt = performance.now() - t0;
    run.child.kill('SIGINT');
    const code = await exitWithin(run, 90_000);
    timings.push(`SIGINT at ${(killedAt / 1000).toFixed(1)} s, exit after ${((performance.now() - t0 - killedAt) / 1000).toFixed(1)} s`);
    expect(code, run.output()).toBe(130);
    expect(run.output()).toMatch(/CA rotations: /);
    expect(await snapshot(agent!), run.output()).toEqual(before);
  }, 130_000);

  it('SIGTERM: the same as one SIGINT, and the CA configuration is back within 3 s, before the suites have stopped (a CI runner may send SIGKILL soon after)', async () => {
    const { run, changed, t0 } = await runUntilCaChange('leafCertTtl');
    expect(changed, `the run changed LeafCertTTL in time:\n${run.output()}`).toBe(true);
    const killedAt = performance.now() - t0;
    run.child.kill('SIGTERM');
    const back = await waitFor(async () => String((await caConfiguration(agent!)).Config.LeafCertTTL) === ttlBefore, 3_000, run);
    expect(back, `LeafCertTTL back to ${ttlBefore} within 3 s of SIGTERM:\n${run.output()}`).toBe(true);
    const code = await exitWithin(run, 90_000);
    timings.push(`SIGTERM at ${(killedAt / 1000).toFixed(1)} s, exit after ${((performance.now() - t0 - killedAt) / 1000).toFixed(1)} s`);
    expect(code, run.output()).toBe(130);
    expect(await snapshot(agent!), run.output()).toEqual(before);
  }, 130_000);

  it('two SIGINTs: the CA configuration is back when the process has exited; cleanup --prefix removes the rest', async () => {
    const { run, changed, t0 } = await runUntilCaChange('leafCertTtl');
    expect(changed, `the run changed LeafCertTTL in time:\n${run.output()}`).toBe(true);
    const killedAt = performance.now() - t0;
    run.child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 300));
    run.child.kill('SIGINT');
    const code = await exitWithin(run, 20_000);
    timings.push(`two SIGINTs at ${(killedAt / 1000).toFixed(1)} s, exit after ${((performance.now() - t0 - killedAt) / 1000).toFixed(1)} s`);
    expect(code, run.output()).toBe(130);
    expect(run.output()).toMatch(/SIGINT again: putting back what the run changed but did not make/);
    // Before any cleanup: the CA configuration is as it was, and its record is gone.
    const now = await snapshot(agent!);
    expect(now.ca, run.output()).toEqual(before.ca);
    expect(now.kv.filter((k) => k.includes(run.prefix()!)), 'the record is removed once the CA is back').toEqual([]);
    const cleaned = await cleanupPrefix(run.prefix()!);
    expect(cleaned.code, cleaned.stdout + cleaned.stderr).toBe(0);
    expect(await snapshot(agent!), run.output() + cleaned.stdout).toEqual(before);
  }, 130_000);

  it('SIGKILL: cleanup lists the CA configuration to put back, and cleanup --prefix puts it back and removes the rest', async () => {
    const { run, changed, t0 } = await runUntilCaChange('leafCertTtl');
    expect(changed, `the run changed LeafCertTTL in time:\n${run.output()}`).toBe(true);
    const killedAt = performance.now() - t0;
    run.child.kill('SIGKILL');
    await exitWithin(run, 10_000);
    timings.push(`SIGKILL at ${(killedAt / 1000).toFixed(1)} s`);
    const prefix = run.prefix()!;
    expect(String((await caConfiguration(agent!)).Config.LeafCertTTL), 'the killed run left its short LeafCertTTL').not.toBe(ttlBefore);
    const env = { STACKPROOF_MESH_URL: agent!.url, STACKPROOF_MESH_TOKEN: agent!.token, STACKPROOF_MESH_DIALECT: 'hashicorp' };
    const listed = await runCli(['cleanup'], { env, timeoutMs: 60_000 });
    expect(listed.code, listed.stdout + listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`to put back: CA configuration of the agent back to LeafCertTTL ${ttlBefore}`);
    expect(listed.stdout).toContain(`(run ${prefix})`);
    expect(String((await caConfiguration(agent!)).Config.LeafCertTTL), 'a listing changes nothing').not.toBe(ttlBefore);
    const cleaned = await cleanupPrefix(prefix);
    expect(cleaned.code, cleaned.stdout + cleaned.stderr).toBe(0);
    expect(cleaned.stdout).toContain(`put back: CA configuration of the agent back to LeafCertTTL ${ttlBefore}`);
    expect(await snapshot(agent!), cleaned.stdout).toEqual(before);
  }, 130_000);

  it('SIGKILL after a CA rotation: cleanup --prefix puts the configuration back without another rotation', async () => {
    const { run, changed, t0 } = await runUntilCaChange('rotation');
    expect(changed, `the run rotated the CA in time:\n${run.output()}`).toBe(true);
    const killedAt = performance.now() - t0;
    run.child.kill('SIGKILL');
    await exitWithin(run, 10_000);
    timings.push(`SIGKILL after a rotation at ${(killedAt / 1000).toFixed(1)} s`);
    const root = await activeRoot(agent!);
    const cleaned = await cleanupPrefix(run.prefix()!);
    expect(cleaned.code, cleaned.stdout + cleaned.stderr).toBe(0);
    expect(cleaned.stdout).toMatch(/CA rotations: [1-9]\d* made/);
    expect(await snapshot(agent!), cleaned.stdout).toEqual(before);
    expect(await activeRoot(agent!), 'putting the configuration back rotated nothing').toBe(root);
  }, 130_000);
});
