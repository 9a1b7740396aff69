import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEDULER_LOGS_BODY, isSchedulerLogsBody } from '../load/k6/lib/scheduler-logs-body.ts';
import { runClosedModel } from '../src/load/autocannon-engine.ts';
import { runK6 } from '../src/load/k6-engine.ts';
import { k6SummarySchema, type K6Summary } from '../src/load/k6-summary.ts';
import { runResultsSchema } from '../src/report/results-model.ts';
import { realK6 } from './support/k6-binary.ts';
import { ROOT, runCli } from './support/run-cli.ts';

/**
 * Issue 38, item 5: the k6 engine's details. k6 v2.2's machine-readable summary keeps the checks
 * under results.checks; the logs body is checked the same way by every engine; the fan-out is
 * refused under k6; --max-requests counts HTTP requests for every engine.
 */
const k6 = realK6();
if (!k6) console.log('test/k6-engine-details.test.ts: the real-k6 checks are NOT RUN - no k6 binary ($K6, k6 on PATH, or ../shared/bin/k6)');

/** The same length as the right body, one byte changed in its middle: a size check alone passes it. */
const ONE_BYTE_OFF = `${SCHEDULER_LOGS_BODY.slice(0, 100_000)}y${SCHEDULER_LOGS_BODY.slice(100_001)}`;

const LOGS_ANSWERS: Record<string, { status: number; body: string }> = {
  right: { status: 200, body: SCHEDULER_LOGS_BODY },
  'one-byte-off': { status: 200, body: ONE_BYTE_OFF },
  truncated: { status: 200, body: SCHEDULER_LOGS_BODY.slice(0, 150_000) },
  'server-error': { status: 500, body: 'no' },
};

/** A loopback target: the CA roots answer 200, the logs of allocation <kind> answer LOGS_ANSWERS[kind]. */
const target: RequestListener = (req, res) => {
  const logs = /^\/v1\/client\/fs\/logs\/([\w-]+)/.exec(req.url ?? '');
  if (logs) {
    const answer = LOGS_ANSWERS[logs[1]!]!;
    res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body);
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"Roots":[]}');
};

describe('the one logs-body check', () => {
  it('accepts only the stdout the fixture writes, byte for byte', () => {
    expect(SCHEDULER_LOGS_BODY.length).toBeGreaterThan(180_000);
    expect(isSchedulerLogsBody(SCHEDULER_LOGS_BODY)).toBe(true);
    expect(isSchedulerLogsBody(ONE_BYTE_OFF)).toBe(false);
    expect(ONE_BYTE_OFF.length).toBe(SCHEDULER_LOGS_BODY.length);
    expect(isSchedulerLogsBody(LOGS_ANSWERS.truncated!.body)).toBe(false);
    expect(isSchedulerLogsBody(undefined)).toBe(false);
  });
});

describe('engines against a loopback stand-in target', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer(target);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server.close());

  it('autocannon counts a logs answer whose body is not the stdout as an error, once, even when its status failed too', async () => {
    const errorsFor = async (kind: string) => {
      const row = await runClosedModel(
        { name: 'scheduler-logs', url, iterate: async () => true, fixed: [{ method: 'GET', path: `/v1/client/fs/logs/${kind}?plain=true`, headers: {} }], acceptBody: isSchedulerLogsBody, k6Env: {}, close: async () => undefined },
        { connections: 2, durationMs: 10_000, maxRequests: 40 },
      );
      expect(row.requests, kind).toBe(40);
      return row.errors;
    };
    expect(await errorsFor('right')).toBe(0);
    expect(await errorsFor('one-byte-off')).toBe(40);
    expect(await errorsFor('truncated')).toBe(40);
    expect(await errorsFor('server-error')).toBe(40);
  }, 60_000);

  describe.skipIf(!k6)(`under a real k6 (${k6 ?? 'none found'})`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'stackproof-k6-details-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    beforeAll(async () => {
      const { buildK6Bundles } = (await import(join(ROOT, 'load', 'build-k6.mjs'))) as { buildK6Bundles: () => Promise<string[]> };
      await buildK6Bundles();
    });

    /** Runs a bundled script for 20 iterations against the stand-in; resolves what its summary says. */
    async function run(script: string, vars: Record<string, string>, env: Record<string, string> = {}): Promise<{ code: number; summary: K6Summary; output: string }> {
      const file = join(mkdtempSync(join(dir, 'run-')), 'summary.json');
      const output: string[] = [];
      const saved = { ...process.env };
      // runK6 passes process.env through to k6: K6_NEW_MACHINE_READABLE_SUMMARY is k6's own variable, not an SP_ one.
      Object.assign(process.env, env);
      try {
        const code = await runK6(k6!, join(ROOT, 'load', 'dist', script), { ...vars, RATE: '20', DURATION: '1s', MAX_ITERATIONS: '20', RESULTS: file }, (l) => output.push(l));
        return { code, summary: k6SummarySchema.parse(JSON.parse(readFileSync(file, 'utf8'))), output: output.join('\n') };
      } finally {
        for (const k of Object.keys(env)) if (saved[k] === undefined) delete process.env[k];
        Object.assign(process.env, saved);
      }
    }

    it('reads the passed checks in both summary shapes k6 v2.2 hands handleSummary (machine-readable: results.checks)', async () => {
      for (const [shape, env] of [
        ['legacy', {}],
        ['machine-readable', { K6_NEW_MACHINE_READABLE_SUMMARY: 'true' }],
      ] as const) {
        const { code, summary, output } = await run('mesh-roots.js', { MESH_URL: url, MESH_TOKEN: 'x' }, env);
        expect(code, output).toBe(0);
        expect(summary.summaryShape).toBe(shape);
        expect(summary.requests, shape).toBe(20);
        // One check a request: its status.
        expect(summary.checks.passed, `${shape}: checks.passed`).toBe(20);
      }
    }, 60_000);

    it('the logs script checks the whole body, as the open model and autocannon do: a body of the right size but one byte off fails', async () => {
      for (const [kind, errors] of [
        ['right', 0],
        ['one-byte-off', 20],
        ['truncated', 20],
      ] as const) {
        const { summary, output } = await run('scheduler-logs.js', { SCHEDULER_URL: url, SCHEDULER_TOKEN: 'x', ALLOC_ID: kind }, { K6_NEW_MACHINE_READABLE_SUMMARY: 'true' });
        expect(summary.requests, kind).toBe(20);
        expect(summary.failed, `${kind}: ${output}`).toBe(errors);
        // Two checks a request, its status and its body: every one passes only with the right body.
        expect(summary.checks.passed, kind).toBe(errors ? 20 : 40);
      }
    }, 90_000);
  });
});

describe('stackproof load, the k6 engine from the command line', () => {
  const reports = mkdtempSync(join(tmpdir(), 'stackproof-k6-details-cli-'));
  afterAll(() => rmSync(reports, { recursive: true, force: true }));
  const env = k6 ? { K6: k6 } : {};

  it('refuses the fan-out under --engine k6 with one line and exit 2, before any traffic', async () => {
    for (const [engines, scenarios] of [
      ['k6', 'scheduler-event-fanout'],
      ['open,k6', 'mesh-roots,scheduler-event-fanout'],
    ]) {
      const res = await runCli(['load', '--engine', engines!, '--scenario', scenarios!, '--reports-dir', reports], { env, timeoutMs: 30_000 });
      expect(res.code, res.stdout + res.stderr).toBe(2);
      expect(res.stderr).toBe("stackproof: --engine k6: scheduler-event-fanout has no k6 script (a streaming fan-out, which k6's http cannot time event by event); run it with --engine open, which runs stackproof's own stream subscribers\n");
      // Nothing started: no reference, no scenario line.
      expect(res.stdout).toBe('');
    }
  });

  it.skipIf(!k6)('--max-requests counts HTTP requests for every engine, at a cap that is no whole number of code flows, and every engine reads the logs body right', async () => {
    const res = await runCli(['load', '--scenario', 'oidc-code-flow,scheduler-logs', '--engine', 'open,autocannon,k6', '--rate', '100', '--duration', '4s', '--max-requests', '100', '--connections', '4', '--reports-dir', reports], { env, timeoutMs: 170_000 });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const results = runResultsSchema.parse(JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8')));
    const http = (scenario: string, engine: string) => {
      const row = results.load.find((r) => r.scenario === scenario && r.engine === engine);
      expect(row, `${scenario} (${engine})`).toBeDefined();
      expect(row!.errors, `${scenario} (${engine}) errors`).toBe(0);
      expect(row!.stoppedEarly, `${scenario} (${engine})`).toMatch(/^stopped at the --max-requests cap of 100 HTTP requests, after [\d.]+ s of the 4\.0 s asked$/);
      // The open model's code flow row counts iterations (its histogram times whole flows) of 3 HTTP requests.
      return scenario === 'oidc-code-flow' && engine === 'open-model' ? row!.requests * 3 : row!.requests;
    };
    // 33 whole flows of 3 HTTP requests fit under 100; autocannon replays the authorize request alone.
    expect(http('oidc-code-flow', 'open-model')).toBe(99);
    expect(http('oidc-code-flow', 'k6')).toBe(99);
    expect(http('oidc-code-flow', 'autocannon')).toBe(100);
    for (const engine of ['open-model', 'autocannon', 'k6']) expect(http('scheduler-logs', engine), engine).toBe(100);
  }, 180_000);

  it.skipIf(!k6)('asked for every scenario, --engine k6 leaves the fan-out out and says so', async () => {
    const res = await runCli(['load', '--engine', 'k6', '--rate', '10', '--duration', '1s', '--max-requests', '10', '--reports-dir', reports], { env, timeoutMs: 170_000 });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toContain("scheduler-event-fanout: not run, it has no k6 script (`--engine open --scenario scheduler-event-fanout` runs it on stackproof's own stream subscribers)");
    const results = runResultsSchema.parse(JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8')));
    expect(results.load.map((r) => r.engine)).toEqual(results.load.map(() => 'k6'));
    expect(results.load.map((r) => r.scenario)).not.toContain('scheduler-event-fanout');
  }, 180_000);
});
