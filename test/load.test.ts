import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as hdr from 'hdr-histogram-js';
import { encodeHistogram, newLatencyHistogram, percentilesMs } from '../src/load/latency-histogram.ts';
import { rowPercentilesMs } from '../src/load/percentile-row.ts';
import { mergeRunnerResults } from '../src/load/merge.ts';
import { BUCKET_LAYOUT, histogramFromBuckets } from '../src/load/k6-buckets.ts';
import { findK6, k6Schedule, lineSplitter } from '../src/load/k6-engine.ts';
import { bucketMiddleMs, bucketOf } from '../load/k6/lib/bucket-layout.ts';
import { runResultsSchema } from '../src/report/results-model.ts';
import { ROOT, runCli } from './support/run-cli.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'stackproof-load-'));

describe('k6 scripts', () => {
  it('bundle into scripts k6 can run: k6 modules external, no Node built-ins, no syntax its engine lacks', async () => {
    const { buildK6Bundles } = (await import(join(ROOT, 'load', 'build-k6.mjs'))) as { buildK6Bundles: () => Promise<string[]> };
    const outputs = await buildK6Bundles();
    // One script per scenario of the catalog (src/load/scenarios/catalog.ts), nothing shared between them but lib/.
    expect(outputs.map((o) => o.split('/').pop()).sort()).toEqual(['mesh-authorize.js', 'mesh-leaf-blocking.js', 'mesh-leaf.js', 'mesh-roots.js', 'oidc-code-flow.js', 'scheduler-logs.js']);
    for (const out of outputs) {
      const code = readFileSync(join(ROOT, out), 'utf8');
      const imports = [...code.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]!);
      expect(imports.length, `${out} imports k6 modules`).toBeGreaterThan(0);
      for (const i of imports) expect(i, `${out} imports only k6 modules`).toMatch(/^k6(\/|$)/);
      expect(code, `${out} has no require() or node: imports`).not.toMatch(/require\(|from "node:/);
      expect(code, `${out} has no async generators or for await`).not.toMatch(/async function\*|for await/);
      expect(code, `${out} has no optional chaining left (lowered for the engine)`).not.toMatch(/\?\.[a-zA-Z_[(]/);
      expect(code, `${out} exports options and handleSummary`).toMatch(/export \{[^}]*options[^}]*\}/);
      expect(code).toMatch(/handleSummary/);
      expect(code, `${out} uses the open-model executor`).toContain('constant-arrival-rate');
      expect(code, `${out} sets the trend stats stackproof shows`).toContain('p(99.9)');
      expect(code, `${out} has no event-stream request (the fan-out has its own runner)`).not.toContain('/v1/event/stream');
    }
  });

  it('rebuilds the bundles without writing unchanged ones, whatever the working directory, and removes bundles of scripts that are gone', async () => {
    const { buildK6Bundles } = (await import(join(ROOT, 'load', 'build-k6.mjs'))) as { buildK6Bundles: () => Promise<string[]> };
    const outputs = await buildK6Bundles();
    const mtimes = () => outputs.map((o) => statSync(join(ROOT, o)).mtimeMs);
    const before = mtimes();
    const gone = join(ROOT, 'load', 'dist', 'zz-scenario-removed.js');
    writeFileSync(gone, 'export default function () {}\n');
    // An installed package runs this from the user's project: its shipped bundles must already be
    // byte for byte what the build makes there, or it would write into a (possibly read-only) install.
    execFileSync(process.execPath, [join(ROOT, 'load', 'build-k6.mjs')], { cwd: tmpdir(), stdio: 'ignore' });
    expect(mtimes(), 'no bundle rewritten').toEqual(before);
    expect(existsSync(gone), 'the bundle of a script that does not exist is removed').toBe(false);
  });

  it('finds k6 at $K6 before PATH, and on PATH otherwise', () => {
    const fake = join(ROOT, 'test', 'fixtures', 'fake-k6', 'k6');
    expect(findK6({ K6: fake, PATH: '' })).toBe(fake);
    expect(findK6({ PATH: dirname(fake) })).toBe(fake);
    expect(findK6({ K6: '/nonexistent/k6', PATH: '' })).toBeUndefined();
  });

  it('splits output chunks into lines, whatever the chunk boundaries', () => {
    const lines: string[] = [];
    const split = lineSplitter((l) => lines.push(l));
    split.write('a\nb');
    split.write('c\r\nd\n\ne');
    split.end();
    expect(lines).toEqual(['a', 'bc', 'd', '', 'e']);
  });

  it('bounds k6 iterations by --max-requests and shortens the run to what they need (never below 1 s)', () => {
    expect(k6Schedule(200, 5000, 100_000, 1)).toEqual({ iterations: 1000, durationMs: 5000, capped: false });
    expect(k6Schedule(200, 5000, 300, 3)).toEqual({ iterations: 100, durationMs: 1000, capped: true });
    expect(k6Schedule(100, 10_000, 500, 1)).toEqual({ iterations: 500, durationMs: 5000, capped: true });
    expect(k6Schedule(50, 3000, 100, 3)).toEqual({ iterations: 33, durationMs: 1000, capped: true });
  });

  it('counts latencies into 2% buckets read back within 1% of the value', () => {
    for (const ms of [0.05, 0.3, 1, 2, 7.5, 200, 60_000]) {
      const back = bucketMiddleMs(bucketOf(ms));
      expect(Math.abs(back - ms) / ms, `${ms} ms`).toBeLessThanOrEqual(0.0101);
    }
    expect(bucketOf(0)).toBe(0);
    expect(bucketOf(1e9)).toBe(BUCKET_LAYOUT.count - 1);
  });

  it('says plainly that k6 is missing when there is no k6 binary', async () => {
    const res = await runCli(['load', '--engine', 'k6'], { env: { PATH: dirname(process.execPath), K6: '' } });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('k6 is not installed: there is no `k6` binary on PATH');
  });
});

describe('stackproof load', () => {
  it('runs every scenario with both engines here, bounded, and the fan-out without misses or duplicates', async () => {
    const out = dir();
    const res = await runCli(['load', '--engine', 'open,autocannon', '--duration', '1s', '--rate', '50', '--connections', '4', '--subscribers', '5', '--event-rate', '50', '--reports-dir', out], { timeoutMs: 110_000 });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const results = runResultsSchema.parse(JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')));
    const runs = results.load.map((l) => `${l.scenario}/${l.engine}`);
    for (const s of ['oidc-code-flow', 'mesh-authorize', 'mesh-leaf', 'mesh-leaf-blocking', 'mesh-roots', 'scheduler-logs']) {
      expect(runs).toContain(`${s}/open-model`);
      expect(runs).toContain(`${s}/autocannon`);
    }
    const fanout = results.load.find((l) => l.scenario === 'scheduler-event-fanout')!;
    expect(fanout.requests, 'events were delivered to the subscribers').toBeGreaterThan(0);
    expect(fanout.dropped, 'no subscriber missed an event').toBe(0);
    // The events come from real job registrations: each of the 50 is delivered once to each of the 5 subscribers.
    expect(res.stdout).toMatch(/50 events published, 250 delivered \([^;]*; per subscriber 50 each\), missed 0, duplicated 0/);
    expect(res.stdout).toMatch(/cleanup \(scheduler\): removed \d+ thing\(s\) made under sp-[0-9a-z]{10}/);
    for (const l of results.load) {
      expect(l.requests, `${l.scenario}/${l.engine} ran`).toBeGreaterThan(0);
      expect(l.errors, `${l.scenario}/${l.engine} had no errors`).toBe(0);
    }
    expect(readFileSync(join(out, 'index.html'), 'utf8')).toContain('scheduler-event-fanout');
  }, 120_000);

  it('exits 4 when a threshold is breached, and when a run regresses against its baseline', async () => {
    const out = dir();
    const breach = await runCli(['load', '--scenario', 'mesh-roots', '--duration', '1s', '--rate', '20', '--p99', '0.001', '--reports-dir', out]);
    expect(breach.code, breach.stdout).toBe(4);
    expect(breach.stdout).toContain('THRESHOLD BREACHED');
    const baseline = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
    for (const l of baseline.load) {
      l.latencyMs.p99 = 0.0001;
      l.throughput = 1e9;
    }
    const baselineFile = join(out, 'baseline.json');
    writeFileSync(baselineFile, JSON.stringify(baseline));
    const regressed = await runCli(['load', '--scenario', 'mesh-roots', '--duration', '1s', '--rate', '20', '--baseline', baselineFile, '--reports-dir', dir()]);
    expect(regressed.code, regressed.stdout).toBe(4);
    expect(regressed.stdout).toMatch(/REGRESSION mesh-roots \(open-model\): p99 latency/);
  }, 60_000);

  it('runs the open model with coarse arrival timing when asked, says so in the row, the log and the report, and refuses an unknown precision', async () => {
    const out = dir();
    const coarse = await runCli(['load', '--scenario', 'mesh-roots', '--duration', '1s', '--rate', '200', '--arrival-precision', 'coarse', '--reports-dir', out]);
    expect(coarse.code, coarse.stdout).toBe(0);
    const [row] = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')).load;
    expect(row.requests).toBe(200);
    expect(row.errors).toBe(0);
    // The row and the log say how arrivals were timed: coarse forgives up to a tick of a late start.
    expect(row.arrivalPrecision).toBe('coarse');
    expect(coarse.stdout).toContain('mesh-roots (open): 200/s (coarse arrival timing)');
    expect(readFileSync(join(out, 'index.html'), 'utf8')).toContain('open-model (open, coarse timing)');
    const bad = await runCli(['load', '--arrival-precision', 'medium']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--arrival-precision: expected auto, fine or coarse');
  }, 60_000);

  it('refuses targets that are not loopback addresses unless told otherwise, before sending anything', async () => {
    const res = await runCli(['load', '--mesh-url', 'http://staging.example.invalid:8500', '--mesh-token', 'tok-123456']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('load goes only to loopback unless --allow-remote is given');
  });
});

describe('merging results from several runners', () => {
  it('merges HDR histograms: the percentiles of the union, not an average of percentiles', () => {
    const a = newLatencyHistogram();
    const b = newLatencyHistogram();
    const all = newLatencyHistogram();
    for (let i = 1; i <= 990; i++) [a, all].forEach((h) => h.recordValue(1_000));
    for (let i = 1; i <= 10; i++) [b, all].forEach((h) => h.recordValue(500_000));
    const merged = mergeRunnerResults([
      { scenario: 's', engine: 'open-model', requests: 990, errors: 0, dropped: 0, durationMs: 1000, histogram: encodeHistogram(a) },
      { scenario: 's', engine: 'open-model', requests: 10, errors: 0, dropped: 0, durationMs: 1000, histogram: encodeHistogram(b) },
    ])[0]!;
    const direct = percentilesMs(all);
    for (const p of ["p50", "p90", "p99", "max"] as const) expect(merged.latencyMs[p], p).toBeCloseTo(direct[p], 0);
    // The average of the two runners' p99s (1 ms and 500 ms) would be 250 ms; the truth is 1 ms.
    expect(merged.latencyMs.p99).toBeLessThan(2);
    expect(hdr.decodeFromCompressedBase64(merged.histogram!).totalCount).toBe(1000);
  });

  it('merges k6 bucket counts by adding them, and reads them as a single run is read', () => {
    const buckets = (hot: number, count: number) => ({ minMs: BUCKET_LAYOUT.minMs, growth: BUCKET_LAYOUT.growth, counts: Array.from({ length: BUCKET_LAYOUT.count }, (_, i) => (i === hot ? count : 0)) });
    const a = buckets(bucketOf(1), 980);
    const b = buckets(bucketOf(500), 20);
    const merged = mergeRunnerResults([
      { scenario: 'mesh-roots', engine: 'k6', requests: 980, errors: 0, dropped: 0, durationMs: 1000, k6Buckets: a },
      { scenario: 'mesh-roots', engine: 'k6', requests: 20, errors: 0, dropped: 0, durationMs: 1000, k6Buckets: b },
    ])[0]!;
    expect(merged.requests).toBe(1000);
    expect(merged.k6Buckets!.counts.reduce((x, y) => x + y, 0)).toBe(1000);
    expect(merged.latencyMs).toEqual(rowPercentilesMs(histogramFromBuckets(merged.k6Buckets!)));
    // 98% of the samples at 1 ms, 2% at 500 ms: p50 and p90 are 1 ms, p99 is 500 ms (within the buckets' 1%).
    expect(merged.latencyMs.p50).toBeCloseTo(1, 1);
    expect(merged.latencyMs.p90).toBeCloseTo(1, 1);
    expect(Math.abs(merged.latencyMs.p99 - 500) / 500).toBeLessThan(0.012);
    // One file merged alone gives its own figures.
    const single = mergeRunnerResults([{ scenario: 'mesh-roots', engine: 'k6', requests: 980, errors: 0, dropped: 0, durationMs: 1000, k6Buckets: a }])[0]!;
    expect(single.latencyMs).toEqual(rowPercentilesMs(histogramFromBuckets(a)));
  });

  it('refuses to add k6 buckets counted in different layouts', () => {
    const counts = [1, 2, 3];
    expect(() =>
      mergeRunnerResults([
        { scenario: 's', engine: 'k6', requests: 6, errors: 0, dropped: 0, durationMs: 1000, k6Buckets: { minMs: 0.01, growth: 1.02, counts } },
        { scenario: 's', engine: 'k6', requests: 6, errors: 0, dropped: 0, durationMs: 1000, k6Buckets: { minMs: 0.01, growth: 1.05, counts } },
      ]),
    ).toThrow(/layouts differ/);
  });
});

describe('the k6 engine (stand-in binary: the plumbing; test/k6-real.test.ts runs the real k6)', () => {
  const fake = join(ROOT, 'test', 'fixtures', 'fake-k6');
  const k6Env = (extra: NodeJS.ProcessEnv = {}) => ({ PATH: `${fake}:${dirname(process.execPath)}`, K6: '', ...extra });

  it('runs the bundled script of each scenario with its settings, prefixes every line, and reads its summary into results.json', async () => {
    const out = dir();
    const res = await runCli(['load', '--engine', 'k6', '--scenario', 'mesh-roots,oidc-code-flow', '--duration', '1s', '--rate', '7', '--reports-dir', out], { env: k6Env() });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toContain('    k6: fake k6 running mesh-roots.js at 7/s for 1000ms');
    expect(res.stdout).toContain('    k6: fake k6 running oidc-code-flow.js at 7/s for 1000ms');
    expect(res.stdout).toContain('    k6: fake k6 cap 7 iterations');
    expect(res.stdout, 'a line split across two writes is one line').toContain('    k6: fake k6 done');
    expect(res.stdout).toContain('  mesh-roots (k6): 7/s for 1 s, at most 100000 requests');
    expect(res.stdout).toMatch(/ {4}10 done, 0 errors, 0 dropped, 10\/s, p50 0\.07\d* ms, p99 3\.8\d* ms, max 3\.8\d* ms/);
    const results = runResultsSchema.parse(JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')));
    expect(results.load.map((l) => `${l.scenario}/${l.engine}`).sort()).toEqual(['mesh-roots/k6', 'oidc-code-flow/k6']);
    for (const l of results.load) {
      expect(l.k6Buckets!.counts.reduce((a, b) => a + b, 0)).toBe(10);
      expect(hdr.decodeFromCompressedBase64(l.histogram).totalCount, 'an HDR histogram built from the buckets').toBe(10);
      expect(l.thresholds.map((t) => t.name)).toEqual(['error rate', 'dropped rate', "k6's exit code (its thresholds)"]);
    }
  }, 60_000);

  it('honours --max-requests: fewer iterations, and a shorter run', async () => {
    const res = await runCli(['load', '--engine', 'k6', '--scenario', 'oidc-code-flow', '--duration', '10s', '--rate', '100', '--max-requests', '300', '--reports-dir', dir()], { env: k6Env() });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toContain('capped: 100 iterations of 3 request(s), k6 runs 1 s');
    expect(res.stdout).toContain('fake k6 cap 100 iterations');
  }, 60_000);

  it('reports a missing or malformed summary as an error of that row, exits non-zero, and still writes the report', async () => {
    for (const [variable, message] of [
      ['FAKE_K6_NO_SUMMARY', 'k6 wrote no summary (it exited with code 0)'],
      ['FAKE_K6_BAD_SUMMARY', "k6's summary does not have the shape the scripts write"],
    ] as const) {
      const out = dir();
      const res = await runCli(['load', '--engine', 'k6', '--scenario', 'mesh-roots', '--duration', '1s', '--rate', '5', '--reports-dir', out], { env: k6Env({ [variable]: '1' }) });
      expect(res.code, res.stdout + res.stderr).toBe(4);
      expect(res.stdout + res.stderr).not.toMatch(/ENOENT|at .*\.ts:\d+/);
      expect(res.stdout).toContain(`ERROR ${message}`);
      const results = runResultsSchema.parse(JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')));
      expect(results.load[0]!.error).toContain(message);
      expect(readFileSync(join(out, 'index.html'), 'utf8')).toContain(message.replace(/'/g, '&#39;'));
    }
  }, 60_000);

  it('merges k6 summaries written by several runners, judges the merged run by the thresholds, and refuses a file of another shape plainly', async () => {
    const d = dir();
    const summary = (count: number, hot: number) => ({
      kind: 'stackproof-k6-summary', version: 1, scenario: 'mesh-roots', summaryShape: 'machine-readable', targetRate: 100, maxIterations: 1000, requestsPerIteration: 1,
      durationMs: 10_000, requests: count, iterations: count, droppedIterations: 0, failed: 0, exceptions: 0, checks: { passed: count },
      buckets: { minMs: BUCKET_LAYOUT.minMs, growth: BUCKET_LAYOUT.growth, counts: Array.from({ length: BUCKET_LAYOUT.count }, (_, i) => (i === hot ? count : 0)) },
    });
    writeFileSync(join(d, 'a.json'), JSON.stringify(summary(990, bucketOf(1))));
    writeFileSync(join(d, 'b.json'), JSON.stringify(summary(10, bucketOf(200))));
    const res = await runCli(['merge', join(d, 'a.json'), join(d, 'b.json'), '--json']);
    expect(res.code, res.stderr).toBe(0);
    const [merged] = JSON.parse(res.stdout) as { requests: number; runners: number; latencyMs: { p50: number; p99: number; max: number } }[];
    expect(merged!.runners).toBe(2);
    expect(merged!.requests).toBe(1000);
    expect(merged!.latencyMs.p50).toBeCloseTo(1, 1);
    // 1% of the samples at 200 ms: p99 is still 1 ms (rank 990), max is 200 ms (within the buckets' 1%).
    expect(merged!.latencyMs.p99).toBeCloseTo(1, 1);
    expect(Math.abs(merged!.latencyMs.max - 200) / 200).toBeLessThan(0.012);
    // The thresholds judge the merged run, not a runner's share: b alone has 10% errors, the run 0.1%.
    writeFileSync(join(d, 'b-err.json'), JSON.stringify({ ...summary(10, bucketOf(200)), failed: 1 }));
    const judged = await runCli(['merge', join(d, 'a.json'), join(d, 'b-err.json'), '--max-error-rate', '0.002', '--p99', '5', '--reports-dir', join(d, 'reports')]);
    expect(judged.code, judged.stdout + judged.stderr).toBe(0);
    expect(judged.stdout).toContain('mesh-roots (k6, 2 runner(s)): 1000 requests, 1 errors');
    expect(judged.stdout).toContain('thresholds met');
    const report = runResultsSchema.parse(JSON.parse(readFileSync(join(d, 'reports', 'results.json'), 'utf8')));
    expect(report.load[0]!.thresholds.map((t) => [t.name, t.actual, t.ok])).toEqual([['p99 latency (ms)', report.load[0]!.latencyMs.p99, true], ['error rate', 0.001, true]]);
    const breached = await runCli(['merge', join(d, 'a.json'), join(d, 'b-err.json'), '--max-error-rate', '0.0005', '--reports-dir', join(d, 'reports2')]);
    expect(breached.code).toBe(4);
    expect(breached.stdout).toContain('THRESHOLD BREACHED: error rate 0.001 > 0.0005');
    writeFileSync(join(d, 'c.json'), '{"nothing":1}');
    const bad = await runCli(['merge', join(d, 'c.json')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('neither a results.json with load results nor a k6 summary');
  }, 60_000);
});
