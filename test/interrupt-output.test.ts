import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runResultsSchema } from '../src/report/results-model.ts';
import { BIN, ROOT, runCli } from './support/run-cli.ts';
import { serveInChild, type ServedReference } from './support/serve-child.ts';

/**
 * Issue 35, part 2: what the terminal says when a run is stopped. `conform` of all three systems
 * against `serve --dialect hashicorp --no-control` (the products' APIs, nothing of the harness's)
 * is stopped once rules have passed: with one SIGINT the run ends with the rules then running
 * INTERRUPTED (in the terminal, results.json and the report), no rule line printed twice, exit 130,
 * and nothing left for `cleanup --prefix` to find; with two it leaves at once, says so, and
 * `cleanup --prefix` removes the rest.
 */

let served: ServedReference;
const env = () => {
  const e: Record<string, string> = {};
  for (const [system, t] of Object.entries(served.targets)) {
    if (!t) continue;
    const key = system.toUpperCase();
    e[`STACKPROOF_${key}_URL`] = t.url;
    e[`STACKPROOF_${key}_TOKEN`] = t.token;
    e[`STACKPROOF_${key}_DIALECT`] = 'hashicorp';
  }
  return e;
};

beforeAll(async () => {
  served = await serveInChild(['--dialect', 'hashicorp', '--no-control']);
}, 40_000);
afterAll(() => {
  served?.child.kill('SIGKILL');
});

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  reports: string;
}

function startConform(): Run {
  const reports = mkdtempSync(join(tmpdir(), 'stackproof-interrupt-'));
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env() };
  for (const k of Object.keys(childEnv)) if (k.startsWith('VITEST') || k === 'TEST' || k === 'NODE_ENV') delete childEnv[k];
  const child = spawn(process.execPath, [BIN, 'conform', '--no-load-smoke', '--reports-dir', reports], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, output: () => output, exited, reports };
}

/** Waits until `n` rules have passed on the live lines (the suites are well under way), at most 120 s. */
async function untilPassed(run: Run, n: number): Promise<void> {
  for (const end = Date.now() + 120_000; (run.output().match(/^ {2}PASS +\S+ \(/gm) ?? []).length < n; await new Promise((r) => setTimeout(r, 50))) {
    if (Date.now() > end || run.child.exitCode !== null) throw new Error(`fewer than ${n} rules passed:\n${run.output()}`);
  }
}

/** The rule ids of the live verdict lines, in the order printed. */
const ruleLines = (output: string) => [...output.matchAll(/^ {2}(PASS|FAIL|ERROR|SKIP|WAIVED|EXPECTED|INTERRUPTED) +(\S+) \(\d+ ms\)/gm)].map((m) => ({ outcome: m[1]!, id: m[2]! }));

const prefixOf = (output: string) => /run prefix: (sp-[0-9a-z]{10})/.exec(output)![1]!;

async function exitWithin(run: Run, ms: number): Promise<number | null> {
  const timer = setTimeout(() => run.child.kill('SIGKILL'), ms);
  const code = await run.exited;
  clearTimeout(timer);
  return code;
}

describe('a conform run stopped by Ctrl-C', () => {
  it('one SIGINT: in-flight rules INTERRUPTED, each rule printed once, exit 130, nothing left behind', async () => {
    const run = startConform();
    await untilPassed(run, 25);
    run.child.kill('SIGINT');
    const code = await exitWithin(run, 120_000);
    const out = run.output();
    expect(code, out).toBe(130);

    const lines = ruleLines(out);
    const ids = lines.map((l) => l.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i), 'no rule printed twice').toEqual([]);
    expect(lines.filter((l) => l.outcome === 'FAIL' || l.outcome === 'ERROR'), out).toEqual([]);
    expect(out).not.toMatch(/pending|skipped .* \(0 ms\)/);

    const results = runResultsSchema.parse(JSON.parse(readFileSync(join(run.reports, 'results.json'), 'utf8')));
    expect(results.summary.exitCode).toBe(130);
    expect(results.summary.interrupted?.signal).toBe('SIGINT');
    const interrupted = results.rules.filter((r) => r.outcome === 'INTERRUPTED').map((r) => r.id);
    expect(interrupted.length, 'rules were running when the run was stopped').toBeGreaterThan(0);
    // The terminal and the results agree, rule by rule; the ones that never started are in neither list.
    expect(new Map(lines.map((l) => [l.id, l.outcome]))).toEqual(new Map(results.rules.map((r) => [r.id, r.outcome])));
    for (const id of results.summary.interrupted!.notRun) expect(ids).not.toContain(id);
    expect(results.summary.verdict).toMatch(/^INTERRUPTED \(SIGINT\): \d+ pass, 0 fail, 0 error, \d+ skip, \d+ interrupted, \d+ not run of \d+ rules$/);
    expect(out).toContain(results.summary.verdict);
    const html = readFileSync(join(run.reports, 'index.html'), 'utf8');
    expect(html).toContain('data-testid="interrupted"');
    expect(readFileSync(join(run.reports, 'junit.xml'), 'utf8')).toContain('<skipped message="INTERRUPTED: ');
    expect(out).toMatch(/^cleanup \(secrets\): removed \d+ thing\(s\) made under sp-/m);

    const cleaned = await runCli(['cleanup', '--prefix', prefixOf(out)], { env: env(), timeoutMs: 60_000 });
    expect(cleaned.code, cleaned.stdout + cleaned.stderr).toBe(0);
    for (const system of ['secrets', 'mesh', 'scheduler']) expect(cleaned.stdout, cleaned.stdout).toMatch(new RegExp(`^${system} \\S+: 0 thing\\(s\\) removed$`, 'm'));
  }, 300_000);

  it('two SIGINTs: leaves at once, names the prefix, and cleanup --prefix removes what it left', async () => {
    const run = startConform();
    await untilPassed(run, 25);
    run.child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 300));
    run.child.kill('SIGINT');
    const code = await exitWithin(run, 30_000);
    const out = run.output();
    expect(code, out).toBe(130);
    const ids = ruleLines(out).map((l) => l.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i), 'no rule printed twice').toEqual([]);
    const prefix = prefixOf(out);
    expect(out).toContain(`left what the run made: \`stackproof cleanup --prefix ${prefix}\` removes it`);

    const cleaned = await runCli(['cleanup', '--prefix', prefix], { env: env(), timeoutMs: 60_000 });
    expect(cleaned.code, cleaned.stdout + cleaned.stderr).toBe(0);
    const again = await runCli(['cleanup', '--prefix', prefix], { env: env(), timeoutMs: 60_000 });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    for (const system of ['secrets', 'mesh', 'scheduler']) expect(again.stdout, again.stdout).toMatch(new RegExp(`^${system} \\S+: 0 thing\\(s\\) removed$`, 'm'));
  }, 300_000);
});
