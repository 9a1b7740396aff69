import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../src/reference/reference.ts';
import { runResultsSchema } from '../src/report/results-model.ts';
import { BIN, ROOT, runCli } from './support/run-cli.ts';

/**
 * Issue 35, part 3: a failure's replay line runs unchanged in bash and reproduces the failure. The
 * target comes from the environment, as in CI; the line carries the variables as references, never a
 * token. (`npx stackproof` is this repository's bin here: the package is not installed from a registry.)
 */
/** bash -c, without blocking this process: the reference under test answers from its event loop. */
function bash(script: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

describe('a replay line pastes into bash', () => {
  let ref: RunningReference;
  const reports = mkdtempSync(join(tmpdir(), 'stackproof-replay-'));
  let env: Record<string, string>;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp', control: false, faults: ['secrets.list-empty-200'] });
    env = { STACKPROOF_SECRETS_URL: ref.secrets.url, STACKPROOF_SECRETS_TOKEN: ref.secrets.token, STACKPROOF_SECRETS_DIALECT: 'hashicorp', STACKPROOF_MESH_URL: ref.mesh.url, STACKPROOF_MESH_TOKEN: ref.mesh.token, STACKPROOF_MESH_DIALECT: 'hashicorp' };
  }, 60_000);
  afterAll(async () => {
    await ref?.stop();
    rmSync(reports, { recursive: true, force: true });
  });

  it('runs as printed (only its system\'s variables, by reference), and reproduces the failure', async () => {
    const first = join(reports, 'first');
    const res = await runCli(['conform', '--systems', 'secrets,mesh', '--rules', 'secrets.core.list-empty-404,mesh.roots.no-acl', '--no-load-smoke', '--reports-dir', first], { env, timeoutMs: 120_000 });
    expect(res.code, res.stdout + res.stderr).toBe(1);
    const line = /replay: (.*)/.exec(res.stdout)?.[1];
    expect(line).toBeDefined();
    expect(line).toMatch(/^STACKPROOF_SECRETS_URL="\$\{STACKPROOF_SECRETS_URL:\?\}" STACKPROOF_SECRETS_TOKEN="\$\{STACKPROOF_SECRETS_TOKEN:\?\}" STACKPROOF_SECRETS_DIALECT="\$\{STACKPROOF_SECRETS_DIALECT:\?\}" npx stackproof conform /);
    expect(line, 'the mesh variables are not this rule\'s').not.toContain('STACKPROOF_MESH_');
    expect(line).not.toContain(ref.secrets.token);
    const results = runResultsSchema.parse(JSON.parse(readFileSync(join(first, 'results.json'), 'utf8')));
    expect(results.rules.find((r) => r.id === 'secrets.core.list-empty-404')?.replay).toBe(line);

    const again = join(reports, 'again');
    const pasted = `${line!.replace(' npx stackproof ', ` ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} `)} --no-load-smoke --reports-dir ${JSON.stringify(again)}`;
    const shellEnv = { ...process.env, ...env };
    for (const k of Object.keys(shellEnv)) if (k.startsWith('VITEST') || k === 'NODE_ENV') delete shellEnv[k];
    const run = await bash(pasted, shellEnv, 120_000);
    expect(run.status, run.stdout + run.stderr).toBe(1);
    const replayed = runResultsSchema.parse(JSON.parse(readFileSync(join(again, 'results.json'), 'utf8')));
    expect(replayed.rules.map((r) => [r.id, r.outcome])).toEqual([['secrets.core.list-empty-404', 'FAIL']]);

    // In a shell without the run's variables, bash stops at once and names the first one missing.
    const bare = { ...shellEnv };
    for (const k of Object.keys(bare)) if (k.startsWith('STACKPROOF_')) delete bare[k];
    const refused = await bash(pasted, bare, 30_000);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/STACKPROOF_SECRETS_URL/);
  }, 300_000);
});
