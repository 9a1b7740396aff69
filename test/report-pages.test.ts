import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeHistogram, newLatencyHistogram, percentilesMs, recordLatencyMs } from '../src/load/latency-histogram.ts';
import { failureInWords } from '../src/report/failure-words.ts';
import { renderHistoryHtml } from '../src/report/history-html.ts';
import { readHistoryRuns, ruleSetKey, targetKey } from '../src/report/history-runs.ts';
import { renderHtml } from '../src/report/html.ts';
import { scenarioChartSpecs } from '../src/report/load-chart-data.ts';
import { runResultsSchema, SCHEMA_VERSION, type LoadScenarioResult, type RunResults } from '../src/report/results-model.ts';

function run(id: string, startedAt: string, extra: Partial<RunResults> = {}): RunResults {
  return runResultsSchema.parse({
    schemaVersion: SCHEMA_VERSION,
    tool: { name: 'stackproof', version: '0.1.0' },
    run: { id, startedAt, finishedAt: startedAt, durationMs: 1000, profile: 'default', seed: 0, runs: 0, command: 'stackproof load', faults: [] },
    targets: [{ system: 'mesh', url: 'http://127.0.0.1:1', dialect: 'spec', embedded: true }],
    summary: { total: 0, byOutcome: {}, exitCode: 0, verdict: 'PASSED: 1 load scenario run(s)' },
    rules: [],
    load: [],
    ...extra,
  });
}

function scenario(latencies: number[], p99Limit?: number): LoadScenarioResult {
  const h = newLatencyHistogram();
  for (const l of latencies) recordLatencyMs(h, l);
  const p = percentilesMs(h);
  return {
    scenario: 'mesh-roots',
    engine: 'open-model',
    model: 'open',
    targetRate: 100,
    durationMs: 1000,
    requests: latencies.length,
    errors: 0,
    dropped: 0,
    throughput: latencies.length,
    latencyMs: p,
    histogram: encodeHistogram(h),
    timeline: [{ t: 0, requests: latencies.length, errors: 0, p50: p.p50, p90: p.p90, p99: p.p99, max: p.max }],
    thresholds: p99Limit === undefined ? [] : [{ name: 'p99 latency (ms)', limit: p99Limit, actual: p.p99, ok: p.p99 <= p99Limit }],
  };
}

describe('a failure in words', () => {
  it("says what a boolean check required in the check's own words, never a bare true or false", () => {
    const words = failureInWords({ message: 'a leaf for S-x: no key is handed out: expected true to be false // Object.is equality', expected: 'false', actual: 'true' });
    expect(words).toEqual({ expected: 'a leaf for S-x: no key is handed out', came: expect.stringMatching(/^the opposite/), areValues: false });
    expect(failureInWords({ message: 'expected false to be true', expected: 'true', actual: 'false' })?.expected).toBe('the checked condition to hold');
  });
  it('keeps values as values', () => {
    expect(failureInWords({ message: 'status: expected 403 to be 200', expected: '200', actual: '403' })).toEqual({ expected: '200', came: '403', areValues: true });
    expect(failureInWords({ message: 'the leaf does not chain to the active root' })).toBeUndefined();
  });
});

describe('the charts of a load scenario', () => {
  it('draws the table numbers at their percentiles, and the threshold across the spectrum', () => {
    const latencies = Array.from({ length: 5000 }, (_, i) => 1 + (i % 997) / 100 + (i % 50 === 0 ? 40 : 0));
    const row = scenario(latencies, 20);
    const [latency, rate, spectrum] = scenarioChartSpecs(row, 0);
    expect(latency!.data).toEqual([[0], [row.latencyMs.p50], [row.latencyMs.p90], [row.latencyMs.p99], [row.latencyMs.max]]);
    expect(rate!.data).toEqual([[0], [5000], [0]]);
    const labels = spectrum!.x.pointLabels!;
    const at = (label: string) => spectrum!.data[1]![labels.indexOf(label)];
    expect([at('0%'), at('50%'), at('90%'), at('99%'), at('99.9%'), at('100% (max)')]).toEqual([row.latencyMs.min, row.latencyMs.p50, row.latencyMs.p90, row.latencyMs.p99, row.latencyMs.p999, row.latencyMs.max]);
    const values = spectrum!.data[1]! as number[];
    for (let i = 1; i < values.length; i++) expect(values[i]!, 'the spectrum never goes down').toBeGreaterThanOrEqual(values[i - 1]!);
    expect(new Set(spectrum!.data[2])).toEqual(new Set([20]));
  });
  it('has no time charts where the engine gives no per-second series, and none for a row without figures', () => {
    expect(scenarioChartSpecs({ ...scenario([1, 2, 3]), timeline: [] }, 0).map((c) => c.id)).toEqual(['load-0-spectrum']);
    expect(scenarioChartSpecs({ ...scenario([1, 2, 3]), error: 'k6 wrote no summary' }, 0)).toEqual([]);
  });
});

describe('a load-only report', () => {
  it('has no conformance parts', () => {
    const html = renderHtml(run('r', '2026-11-01T00:00:00.000Z', { load: [scenario([1, 2, 3], 10)] }));
    expect(html).not.toMatch(/0 of 0 rules|runs per property|id="summary"|id="rules"|id="no-verdict"/);
    expect(html).toContain('stackproof load report');
    expect(html).toContain('Nothing: no load threshold was breached.');
  });
});

describe('the history page', () => {
  it('reads runs at any depth, oldest first, once each, and names what it left out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stackproof-history-unit-'));
    mkdirSync(join(dir, 'b', 'c'), { recursive: true });
    writeFileSync(join(dir, 'b', 'c', 'results.json'), JSON.stringify(run('r2', '2026-11-02T00:00:00.000Z')));
    writeFileSync(join(dir, 'results.json'), JSON.stringify(run('r1', '2026-11-01T00:00:00.000Z')));
    writeFileSync(join(dir, 'copy.json'), JSON.stringify(run('r1', '2026-11-01T00:00:00.000Z')));
    writeFileSync(join(dir, 'k6-summary.json'), '{"metrics":{}}');
    writeFileSync(join(dir, 'broken.json'), '{');
    const { runs, skipped } = await readHistoryRuns(dir);
    expect(runs.map((r) => r.results.run.id)).toEqual(['r1', 'r2']);
    expect(skipped.map((s) => s.file).sort()).toEqual(['broken.json', 'k6-summary.json']);
  });
  it('tells apart runs of other targets and other rule sets, and an embedded reference by its dialect only', () => {
    const a = run('a', '2026-11-01T00:00:00.000Z');
    const samePortless = run('b', '2026-11-02T00:00:00.000Z', { targets: [{ system: 'mesh', url: 'http://127.0.0.1:2', dialect: 'spec', embedded: true }] });
    const real = run('c', '2026-11-03T00:00:00.000Z', { targets: [{ system: 'mesh', url: 'http://127.0.0.1:8500', dialect: 'hashicorp', embedded: false }] });
    expect(targetKey(a)).toBe(targetKey(samePortless));
    expect(targetKey(a)).not.toBe(targetKey(real));
    const rule = (id: string) => ({ id, system: 'mesh' as const, title: id, level: 'MUST' as const, sources: [], outcome: 'PASS' as const, durationMs: 1, exchanges: [], droppedExchanges: 0, observations: [], notes: [], faults: [] });
    expect(ruleSetKey({ ...a, rules: [rule('x'), rule('y')] })).not.toBe(ruleSetKey({ ...a, rules: [rule('x')] }));
    expect(ruleSetKey({ ...a, rules: [rule('x'), rule('y')] })).not.toBe(ruleSetKey({ ...a, run: { ...a.run, profile: 'strict' }, rules: [rule('x'), rule('y')] }));
    const html = renderHistoryHtml(
      [a, samePortless, real].map((results) => ({ file: `${results.run.id}.json`, results: { ...results, load: [scenario([1, 2, 3])] } })),
      [],
      'history/',
    );
    expect(html.match(/data-testid="history-group"/g)?.length).toBe(2);
  });
});
