import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startReference } from '../src/reference/reference.ts';
import { runResultsSchema, type RunResults } from '../src/report/results-model.ts';
import { RULES } from '../src/rules/catalog.ts';
import { BIN, ROOT, runCli } from './support/run-cli.ts';
import { expectEveryFaultCaught } from './support/every-fault-caught.ts';

const reportsDir = () => mkdtempSync(join(tmpdir(), 'stackproof-reports-'));
const readResults = (dir: string): RunResults => runResultsSchema.parse(JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')));

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

// Every rule PASS in each dialect, with the three reports: test/stress.test.ts (the unloaded runs it compares with).
describe('stackproof conform against the embedded reference', () => {
  it('reports a broken rule as FAIL with exit 1 and a replay command that reproduces it', async () => {
    const dir = reportsDir();
    const res = await runCli(['conform', '--reference-fault', 'secrets.list-empty-200', '--reports-dir', dir, '--runs', '5', '--no-load-smoke']);
    expect(res.code, res.stdout + res.stderr).toBe(1);
    const failed = readResults(dir).rules.find((r) => r.id === 'secrets.core.list-empty-404')!;
    expect(failed.outcome).toBe('FAIL');
    expect(failed.counterexample).toBeDefined();
    expect(failed.exchanges.length).toBeGreaterThan(0);
    expect(failed.replay).toMatch(/^npx stackproof conform .*--rules secrets\.core\.list-empty-404 .*--seed \d+/);
    expect(res.stdout).toContain(`replay: ${failed.replay}`);

    const replayDir = reportsDir();
    const args = failed.replay!.split(' ').slice(2);
    const replay = await runCli([...args, '--reports-dir', replayDir]);
    expect(replay.code, replay.stdout + replay.stderr).toBe(1);
    const replayed = readResults(replayDir).rules;
    expect(replayed.map((r) => [r.id, r.outcome])).toEqual([['secrets.core.list-empty-404', 'FAIL']]);
    expect(replayed[0]!.counterexample?.value).toBe(failed.counterexample?.value);
  });
});

describe('stackproof conform against configured targets', () => {
  it('exits 3 within 10 seconds, naming the target, when nothing listens', async () => {
    const port = await closedPort();
    const res = await runCli(['conform', '--mesh-url', `http://127.0.0.1:${port}`, '--mesh-token', 'some-token', '--reports-dir', reportsDir()]);
    expect(res.code).toBe(3);
    expect(res.stderr).toContain(`mesh target http://127.0.0.1:${port}: does not answer`);
    expect(res.durationMs).toBeLessThan(10_000);
  });

  it('exits 2 and names the field when the config does not validate', async () => {
    const res = await runCli(['conform', '--secrets-url', 'ftp://example', '--secrets-token', 'abcdefgh']);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/targets\.secrets\.url: must use http or https \(from command-line flag\)/);
    const env = await runCli(['conform'], { env: { STACKPROOF_MESH_URL: 'http://127.0.0.1:1' } });
    expect(env.code).toBe(2);
    // The missing token names its own variable; the URL variable, which is set, is not blamed.
    expect(env.stderr).toMatch(/targets\.mesh\.token: missing: set STACKPROOF_MESH_TOKEN in the environment \(tokens are meant to come from the environment/);
    expect(env.stderr).not.toContain('STACKPROOF_MESH_URL');
    const noUrl = await runCli(['conform'], { env: { STACKPROOF_SCHEDULER_TOKEN: 'abcdefgh' } });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/targets\.scheduler\.url: missing: set STACKPROOF_SCHEDULER_URL or --scheduler-url/);
    expect(noUrl.stderr).not.toContain('STACKPROOF_SCHEDULER_TOKEN');
  });

  it('runs from environment variables against any implementation, and no token reaches a report', async () => {
    const ref = await startReference({ dialect: 'hashicorp', faults: ['secrets.list-empty-200', 'mesh.roots-active-id-unknown'] });
    try {
      const dir = reportsDir();
      const res = await runCli(['conform', '--reports-dir', dir, '--runs', '3'], {
        env: {
          STACKPROOF_SECRETS_URL: ref.secrets.url,
          STACKPROOF_SECRETS_TOKEN: ref.secrets.token,
          STACKPROOF_SECRETS_DIALECT: 'hashicorp',
          STACKPROOF_MESH_URL: ref.mesh.url,
          STACKPROOF_MESH_TOKEN: ref.mesh.token,
          STACKPROOF_MESH_DIALECT: 'hashicorp',
          STACKPROOF_SCHEDULER_URL: ref.scheduler.url,
          STACKPROOF_SCHEDULER_TOKEN: ref.scheduler.token,
          STACKPROOF_SCHEDULER_DIALECT: 'hashicorp',
        },
      });
      expect(res.code, res.stdout + res.stderr).toBe(1);
      const results = readResults(dir);
      expect(results.targets.every((t) => !t.embedded)).toBe(true);
      expect(results.load).toEqual([]);
      const outcomes = Object.fromEntries(results.rules.map((r) => [r.id, r.outcome]));
      expect(outcomes).toMatchObject({ 'secrets.core.list-empty-404': 'FAIL', 'mesh.roots.documented-fields': 'FAIL', 'scheduler.metadata.null-unsets': 'PASS' });
      const failed = results.rules.find((r) => r.id === 'secrets.core.list-empty-404')!;
      expect(failed.exchanges[0]?.requestHeaders['X-Vault-Token']).toBe('<redacted>');
      for (const file of readdirSync(dir)) {
        const text = readFileSync(join(dir, file), 'utf8');
        for (const token of [ref.secrets.token, ref.mesh.token, ref.scheduler.token]) expect(text.includes(token), `${file} holds a token`).toBe(false);
      }
      expect(res.stdout.includes(ref.secrets.token)).toBe(false);
    } finally {
      await ref.stop();
    }
  });
});

describe('stackproof rules and faults', () => {
  it('lists the catalog with citations and faults', async () => {
    const res = await runCli(['rules', '--json']);
    expect(res.code).toBe(0);
    const rules = JSON.parse(res.stdout) as { id: string; sources: { file: string; section: string; quote: string }[]; faults: string[] }[];
    expect(rules.length).toBe(RULES.length);
    for (const r of rules) {
      expect(r.sources[0]!.quote.length).toBeGreaterThan(0);
      expect(r.faults.length).toBeGreaterThan(0);
    }
  });

  // The hashicorp dialect's matrix runs under CPU stress, in test/stress.test.ts.
  it('runs the fault matrix in the spec dialect and every fault is caught', async () => {
    await expectEveryFaultCaught(['--dialect', 'spec'], 200);
  }, 1_200_000);

  it('catches every secrets and mesh fault when the fixtures come through the reference\'s Vault and Consul admin APIs, as on the real products', async () => {
    await expectEveryFaultCaught(['--dialect', 'hashicorp', '--fixtures', 'upstream', '--systems', 'secrets,mesh'], 150);
    const refused = await runCli(['faults', '--fixtures', 'upstream', '--dialect', 'spec']);
    expect(refused.code, 'the spec dialect has no admin API').toBe(2);
  }, 1_200_000);

  it("catches every scheduler fault when the fixtures come through the reference's Nomad API on the scheduler listener, as on a real Nomad", async () => {
    await expectEveryFaultCaught(['--dialect', 'hashicorp', '--fixtures', 'upstream', '--systems', 'scheduler'], 45);
  }, 1_200_000);
});

describe('stackproof serve', () => {
  it('prints the three base URLs and tokens, answers, and stops on Ctrl-C', async () => {
    const child = spawn(process.execPath, [BIN, 'serve'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve printed: ${out}`)), 20_000);
      child.stdout.on('data', () => {
        if (/scheduler\s+http/.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const secrets = /secrets\s+(http:\/\/\S+)\s+token (\S+)/.exec(out)!;
    const mesh = /mesh\s+(http:\/\/\S+)\s+token (\S+)/.exec(out)!;
    expect(secrets).not.toBeNull();
    expect(mesh).not.toBeNull();
    const res = await fetch(`${secrets[1]}/v1/secret/nothing?list=true`, { headers: { 'X-Service-Token': secrets[2]! } });
    expect(res.status).toBe(404);
    const roots = await fetch(`${mesh[1]}/v1/agent/connect/ca/roots`);
    expect(roots.status).toBe(200);
    const exit = new Promise<number | null>((r) => child.on('close', r));
    child.kill('SIGINT');
    expect(await exit).toBe(0);
  });
});

describe('long answers on a pipe', () => {
  it('prints the whole catalog as JSON even when it is far larger than a pipe buffer', async () => {
    const res = await runCli(['rules', '--json', '--profile', 'strict']);
    expect(res.stdout.length, "several times the 64 KiB a pipe holds").toBeGreaterThan(100_000);
    expect(() => JSON.parse(res.stdout)).not.toThrow();
  });
});
