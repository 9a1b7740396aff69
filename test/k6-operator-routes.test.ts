import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { k6SummarySchema, k6SummaryToResult } from '../src/load/k6-summary.ts';
import { startReference, type RunningReference } from '../src/reference/reference.ts';
import { runResultsSchema, type LoadScenarioResult } from '../src/report/results-model.ts';
import { realK6 } from './support/k6-binary.ts';
import { expandEnv, operatorRunnerTags, operatorSegmentFlags, testRun } from './support/k8s-manifests.ts';
import { ROOT, runCli } from './support/run-cli.ts';

/**
 * Issue 39, without a cluster: what k6-operator runs, replayed. Four real k6 processes get the flags
 * the operator gives four runners (execution segment and sequence, instance_id and testrun_name tags)
 * and the runner environment of the manifests in load/k8s (expanded as Kubernetes does, the pod name
 * made up), against the embedded reference in the hashicorp dialect (the manifests' token header),
 * sending to a real Prometheus and writing one file each. The run is then built from Prometheus
 * (`load --from-prometheus`) and from the files (`merge`), and both are held against one k6 process
 * doing the whole run.
 */
const k6 = realK6();
const prometheus = findPrometheus();
const missing = [k6 ? '' : 'k6 ($K6, k6 on PATH, or ../shared/bin/k6)', prometheus ? '' : "prometheus ($PROMETHEUS, or on PATH: .ci/run installs Debian's)"].filter(Boolean);
if (missing.length) console.log(`test/k6-operator-routes.test.ts: NOT RUN - no ${missing.join(', no ')}`);

function findPrometheus(): string | undefined {
  const candidates = [process.env.PROMETHEUS, ...(process.env.PATH ?? '').split(delimiter).map((d) => join(d, 'prometheus'))];
  for (const c of candidates) {
    if (!c) continue;
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // not this one
    }
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Waits for a child to exit, killing it after `ms`; resolves its exit code. */
function exited(child: ChildProcess, ms: number): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

const RUNNERS = 4;
const RATE = 40;
const SECONDS = 4;

interface Scenario {
  name: 'mesh-leaf-blocking' | 'mesh-roots';
  script: string;
  vars: (ref: RunningReference) => Promise<Record<string, string>>;
}

/** A leaf fetched once, then asked for with its index and a 200 ms wait: every answer takes the wait, on any machine. */
const blockingLeaf: Scenario = {
  name: 'mesh-leaf-blocking',
  script: 'mesh-leaf-blocking.js',
  vars: async (ref) => {
    const service = 'sp-k6-operator-routes';
    const res = await fetch(`${ref.mesh.url}/v1/agent/connect/ca/leaf/${service}`, { headers: { 'X-Consul-Token': ref.mesh.token } });
    expect(res.status).toBe(200);
    const index = ((await res.json()) as { ModifyIndex: number }).ModifyIndex;
    return { SP_SERVICE: service, SP_INDEX: String(index) };
  },
};
const roots: Scenario = { name: 'mesh-roots', script: 'mesh-roots.js', vars: async () => ({}) };

describe.skipIf(missing.length > 0)("k6-operator's two routes, replayed with four real k6 runners and a real Prometheus", () => {
  const dir = mkdtempSync(join(tmpdir(), 'stackproof-k6-operator-'));
  let prom: ChildProcess | undefined;
  let promUrl = '';
  let ref: RunningReference;
  const prometheusRun = testRun('testrun-prometheus.yaml');
  const filesRun = testRun('testrun-files.yaml');

  beforeAll(async () => {
    const { buildK6Bundles } = (await import(join(ROOT, 'load', 'build-k6.mjs'))) as { buildK6Bundles: () => Promise<string[]> };
    await buildK6Bundles();
    ref = await startReference({ dialect: 'hashicorp' });
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    writeFileSync(join(dir, 'prometheus.yml'), 'global: { scrape_interval: 1m }\n');
    prom = spawn(
      prometheus!,
      [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'tsdb')}`, `--web.listen-address=127.0.0.1:${port}`, '--web.enable-remote-write-receiver', '--enable-feature=native-histograms', '--log.level=warn'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let log = '';
    prom.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    const deadline = Date.now() + 60_000;
    for (;;) {
      const ready = await fetch(`${promUrl}/-/ready`).then((r) => r.ok, () => false);
      if (ready) break;
      if (prom.exitCode !== null || Date.now() > deadline) throw new Error(`prometheus did not become ready within 60 s: ${log.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }, 120_000);

  afterAll(async () => {
    if (prom?.pid) {
      prom.kill('SIGTERM');
      await exited(prom, 10_000);
    }
    await ref?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** One k6 process; resolves its exit code and output. */
  async function k6Run(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
    // Only what a runner pod would have: no SP_ or K6_ variable of this process.
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SP_') && !k.startsWith('K6_')));
    const child = spawn(k6!, args, { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    return { code: await exited(child, 120_000), output };
  }

  /** Runs the scenario as four operator runners and as one process; returns the three readings. */
  async function runBoth(sc: Scenario, testrun: string): Promise<{ prometheus: LoadScenarioResult; files: LoadScenarioResult; single: LoadScenarioResult; runnerFiles: string[] }> {
    const runDir = mkdtempSync(join(dir, `${sc.name}-`));
    const vars = await sc.vars(ref);
    const schedule = { SP_MESH_URL: ref.mesh.url, SP_RATE: String(RATE), SP_DURATION: `${SECONDS}s`, SP_MAX_VUS: '200', ...vars };
    const script = join(ROOT, 'load', 'dist', sc.script);
    const runners = Array.from({ length: RUNNERS }, async (_, n) => {
      const index = n + 1;
      const pod = `${testrun}-${index}-${Math.random().toString(36).slice(2, 7)}`;
      // The streaming manifest's environment, and the file route's SP_RESULTS (the same runners do both
      // here), on this scenario and in a directory of this test where the manifest says mesh-authorize and /results.
      const streaming = expandEnv(prometheusRun.spec.runner.env, { name: pod }, { 'stackproof-mesh-token/token': ref.mesh.token });
      const files = expandEnv(filesRun.spec.runner.env, { name: pod }, { 'stackproof-mesh-token/token': ref.mesh.token });
      const env = { ...streaming, ...schedule, K6_PROMETHEUS_RW_SERVER_URL: `${promUrl}/api/v1/write`, SP_RESULTS: files.SP_RESULTS!.replace(/^\/results\//, `${runDir}/`).replace('.mesh-authorize.', `.${sc.name}.`) };
      // pkg/resources/jobs/runner.go: k6 run --quiet <segments> <arguments> <script> --address=… <tags>; each REST API on a port of its own here.
      const args = ['run', '--quiet', ...operatorSegmentFlags(index, RUNNERS), ...prometheusRun.spec.arguments!.split(/\s+/), script, `--address=127.0.0.1:${await freePort()}`, ...operatorRunnerTags(index, testrun)];
      return k6Run(args, env);
    });
    for (const r of await Promise.all(runners)) expect(r.code, r.output).toBe(0);
    const single = await k6Run(['run', '--quiet', '--no-usage-report', script, '--address=127.0.0.1:0'], {
      ...expandEnv(prometheusRun.spec.runner.env.filter((v) => v.name.startsWith('SP_')), { name: 'single' }, { 'stackproof-mesh-token/token': ref.mesh.token }),
      ...schedule,
      SP_RESULTS: join(runDir, 'single.json'),
    });
    expect(single.code, single.output).toBe(0);

    const thresholds = ['--p99', '5000', '--max-error-rate', '0', '--max-dropped-rate', '0.05'];
    const fromProm = await runCli(['load', '--from-prometheus', promUrl, '--testrun', testrun, '--since', '30m', '--reports-dir', join(runDir, 'prom-reports'), ...thresholds]);
    expect(fromProm.code, fromProm.stdout + fromProm.stderr).toBe(0);
    expect(fromProm.stdout).toContain(`${sc.name} (k6, ${RUNNERS} runner(s), from Prometheus)`);
    const runnerFiles = readdirSync(runDir).filter((f) => f.startsWith(`results.k6.${sc.name}.`)).sort();
    const merged = await runCli(['merge', ...runnerFiles.map((f) => join(runDir, f)), '--reports-dir', join(runDir, 'merge-reports'), ...thresholds]);
    expect(merged.code, merged.stdout + merged.stderr).toBe(0);
    const read = (d: string) => runResultsSchema.parse(JSON.parse(readFileSync(join(runDir, d, 'results.json'), 'utf8'))).load;
    const [p] = read('prom-reports');
    const [f] = read('merge-reports');
    const s = k6SummaryToResult(k6SummarySchema.parse(JSON.parse(readFileSync(join(runDir, 'single.json'), 'utf8'))));
    console.log(
      [`${sc.name}, ${RUNNERS} runners at ${RATE}/s in all for ${SECONDS} s:`, ...[['one process', s], ['four files merged', f!], ['Prometheus', p!]].map(([label, r]) => {
        const row = r as LoadScenarioResult;
        return `  ${label}: ${row.requests} requests, ${row.errors} errors, ${row.dropped} dropped, ${row.throughput}/s, p50 ${row.latencyMs.p50} ms, p90 ${row.latencyMs.p90} ms, p99 ${row.latencyMs.p99} ms, max ${row.latencyMs.max} ms`;
      })].join('\n'),
    );
    return { prometheus: p!, files: f!, single: s, runnerFiles };
  }

  for (const sc of [blockingLeaf, roots]) {
    it(`${sc.name}: Prometheus and the four files give the run's counts and percentiles, with the thresholds on the whole run, as one process doing it all`, async () => {
      const { prometheus: p, files: f, single: s, runnerFiles } = await runBoth(sc, `sp-routes-${sc.name}`);
      // One file a runner, none overwritten.
      expect(runnerFiles).toHaveLength(RUNNERS);
      const scheduled = RATE * SECONDS;
      // SP_RATE is the whole run's: four runners together send what one process sends, not four times it.
      for (const [label, r] of [['one process', s], ['files', f], ['Prometheus', p]] as const) {
        expect(r.errors, label).toBe(0);
        expect(r.requests + r.dropped, `${label}: requests + dropped = the schedule`).toBe(scheduled);
        expect(r.iterations, label).toBe(r.requests);
      }
      if (s.dropped === 0 && f.dropped === 0) expect(f.requests).toBe(s.requests);
      // The same run read two ways: the same counts, exactly.
      expect(p.requests).toBe(f.requests);
      expect(p.dropped).toBe(f.dropped);
      expect(p.targetRate).toBe(RATE);
      // Percentiles of the same run: k6's native histograms (schema 3, 9% buckets read at their
      // geometric middle: within 4.5%) against the scripts' 2% buckets (within 1%).
      for (const q of ['p50', 'p90', 'p99'] as const) expect(Math.abs(p.latencyMs[q] - f.latencyMs[q]) / f.latencyMs[q], `${q}: Prometheus ${p.latencyMs[q]} ms, files ${f.latencyMs[q]} ms`).toBeLessThanOrEqual(0.06);
      // The thresholds were applied to the whole run, by both.
      for (const r of [p, f]) expect(r.thresholds.map((t) => t.name)).toEqual(['p99 latency (ms)', 'error rate', 'dropped rate']);
      if (sc.name === 'mesh-leaf-blocking') {
        // Where the target's 200 ms wait is the latency, the one process and the four runners read it alike.
        for (const r of [s, f, p]) expect(Math.abs(r.latencyMs.p50 - 200) / 200, `p50 ${r.latencyMs.p50} ms vs the 200 ms wait`).toBeLessThan(0.1);
      }
    }, 240_000);
  }

  it('a Prometheus with no series of the run, or none at all, is one line and exit 3; a name that is no TestRun name, exit 2 before any query', async () => {
    const none = await runCli(['load', '--from-prometheus', promUrl, '--testrun', 'sp-never-ran', '--since', '30m', '--reports-dir', join(dir, 'none')]);
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/^stackproof: Prometheus at .* holds no series of test run sp-never-ran in the last 30m/);
    const down = await runCli(['load', '--from-prometheus', `http://127.0.0.1:${await freePort()}`, '--testrun', 'x', '--reports-dir', join(dir, 'down')]);
    expect(down.code).toBe(3);
    expect(down.stderr.trim().split('\n')).toHaveLength(1);
    expect(down.stderr).toMatch(/^stackproof: Prometheus at http:\/\/127\.0\.0\.1:\d+ did not answer/);
    const bad = await runCli(['load', '--from-prometheus', promUrl, '--testrun', 'x"} or vector(1) #']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not a TestRun name');
  }, 60_000);
});
