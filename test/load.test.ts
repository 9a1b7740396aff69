import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as hdr from 'hdr-histogram-js';
import { encodeHistogram, newLatencyHistogram, percentilesMs } from '../src/load/latency-histogram.ts';
import { mergeRunnerResults, percentilesFromBuckets } from '../src/load/merge.ts';
import { runResultsSchema } from '../src/report/results-model.ts';
import { ROOT, runCli } from './support/run-cli.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'stackproof-load-'));

describe('k6 scripts', () => {
  it('bundle into scripts k6 can run: k6 modules external, no Node built-ins, no syntax its engine lacks', async () => {
    const { buildK6Bundles } = (await import(join(ROOT, 'load', 'build-k6.mjs'))) as { buildK6Bundles: () => Promise<string[]> };
    const outputs = await buildK6Bundles();
    expect(outputs.map((o) => o.split('/').pop()).sort()).toEqual(['mesh.js', 'oidc.js', 'scheduler.js']);
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
    }
  });

  it('says plainly that k6 is missing when there is no k6 binary', async () => {
    const res = await runCli(['load', '--engine', 'k6'], { env: { PATH: dirname(process.execPath) } });
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

  it('merges k6 bucket counts by adding them', () => {
    const buckets = (hot: number, count: number) => Array.from({ length: 400 }, (_, i) => (i === hot ? count : 0));
    const merged = mergeRunnerResults([
      { scenario: 'mesh', engine: 'k6', requests: 980, errors: 0, dropped: 0, durationMs: 1000, k6Buckets: buckets(50, 980) },
      { scenario: 'mesh', engine: 'k6', requests: 20, errors: 0, dropped: 0, durationMs: 1000, k6Buckets: buckets(200, 20) },
    ])[0]!;
    expect(merged.latencyMs).toEqual(percentilesFromBuckets(merged.k6Buckets!));
    expect(merged.latencyMs.p50).toBeLessThan(merged.latencyMs.p99);
    expect(merged.requests).toBe(1000);
  });
});

describe('the k6 engine', () => {
  it('runs the bundled script of each scenario with its settings when a k6 binary is on PATH, and reads its summary', async () => {
    const out = dir();
    const fake = join(ROOT, 'test', 'fixtures', 'fake-k6');
    const res = await runCli(['load', '--engine', 'k6', '--scenario', 'mesh-roots,oidc-code-flow', '--duration', '1s', '--rate', '7', '--reports-dir', out], {
      env: { PATH: `${fake}:${dirname(process.execPath)}` },
    });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toContain('fake k6 running mesh.js at 7/s for 1s');
    expect(res.stdout).toContain('fake k6 running oidc.js at 7/s for 1s');
    const results = runResultsSchema.parse(JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')));
    expect(results.load.map((l) => `${l.scenario}/${l.engine}`).sort()).toEqual(['mesh-roots/k6', 'oidc-code-flow/k6']);
  }, 60_000);
});
