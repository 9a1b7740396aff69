import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTestRunFromPrometheus, SeveralRunsInWindow } from '../src/load/prometheus-testrun.ts';

/**
 * How a k6-operator run is read from Prometheus's query API, against a stand-in that answers with
 * series written here (test/k6-operator-routes.test.ts reads real ones from a real Prometheus): the
 * last sample of every runner's series added, histograms bucket by bucket, a restarted counter refused.
 */
type Series = { metric: Record<string, string>; values?: [number, string][]; histograms?: [number, { count: string; sum: string; buckets: [number, string, string, string][] }][] };

let answers: Record<string, Series[]> = {};
const queries: string[] = [];
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams.get('query') ?? '';
    queries.push(q);
    const metric = q.slice(0, q.indexOf('{'));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: answers[metric] ?? [] } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => server.close());

const labels = (runner: number, extra: Record<string, string> = {}) => ({ testrun_name: 'sp-run', instance_id: String(runner), sp_scenario: 'mesh-roots', sp_rate: '100', ...extra });
const counter = (name: string, runner: number, values: number[], extra: Record<string, string> = {}): Series => ({ metric: { __name__: name, ...labels(runner, extra) }, values: values.map((v, i) => [1_800_000_000 + i, String(v)]) });
const read = () => readTestRunFromPrometheus({ url, testrun: 'sp-run', since: new Date(Date.now() - 3_600_000), until: new Date() });

describe('a k6-operator run read from Prometheus', () => {
  it('adds the last sample of each runner, sums the histograms bucket by bucket, and reads percentiles from the sum', async () => {
    const hist = (counts: [string, string, number][]) => [[1_800_000_009, { count: String(counts.reduce((s, c) => s + c[2], 0)), sum: '1', buckets: counts.map(([lo, hi, n]) => [0, lo, hi, String(n)] as [number, string, string, string]) }]] as Series['histograms'];
    answers = {
      // Two series for runner 1 (status 200 and 500) and one for runner 2: all add up.
      k6_http_reqs_total: [counter('k6_http_reqs_total', 1, [10, 60], { status: '200' }), counter('k6_http_reqs_total', 1, [0, 2], { status: '500' }), counter('k6_http_reqs_total', 2, [30, 38])],
      k6_sp_iterations_total: [counter('k6_sp_iterations_total', 1, [10, 62]), counter('k6_sp_iterations_total', 2, [30, 38])],
      k6_sp_errors_total: [counter('k6_sp_errors_total', 1, [0, 2])],
      k6_dropped_iterations_total: [counter('k6_dropped_iterations_total', 2, [1, 3])],
      k6_sp_elapsed_ms: [counter('k6_sp_elapsed_ms', 1, [500, 1_000]), counter('k6_sp_elapsed_ms', 2, [400, 1_020])],
      k6_http_req_duration_seconds: [
        { metric: labels(1), histograms: hist([['0.001', '0.0010905', 50], ['0.1', '0.10905', 12]]) },
        { metric: labels(2), histograms: hist([['0.001', '0.0010905', 30], ['0.2', '0.2181', 8]]) },
      ],
    };
    const { rows, runners } = await read();
    expect(rows).toHaveLength(1);
    const r = rows[0]!;
    expect(r).toMatchObject({ scenario: 'mesh-roots', engine: 'k6', targetRate: 100, requests: 100, errors: 2, iterations: 100, droppedIterations: 3, dropped: 3, durationMs: 1_020 });
    expect(runners.get('mesh-roots')).toBe(2);
    // 80 of 100 at ~1.04 ms, 12 at ~104 ms, 8 at ~208 ms: p50 in the first bucket, p90 in the second, p99 in the third.
    expect(r.latencyMs.p50).toBeCloseTo(Math.sqrt(0.001 * 0.0010905) * 1000, 2);
    expect(r.latencyMs.p90).toBeCloseTo(Math.sqrt(0.1 * 0.10905) * 1000, 0);
    expect(r.latencyMs.p99).toBeCloseTo(Math.sqrt(0.2 * 0.2181) * 1000, 0);
    // Every query names the run: a series of another TestRun is never read.
    expect(queries.every((q) => q.includes('{testrun_name="sp-run"}['))).toBe(true);
  });

  it('refuses a window that holds two runs of the same name (a counter that starts again), naming when', async () => {
    answers = { k6_http_reqs_total: [counter('k6_http_reqs_total', 1, [40, 80, 5, 30])], k6_sp_iterations_total: [counter('k6_sp_iterations_total', 1, [40, 80, 5, 30])] };
    await expect(read()).rejects.toThrow(SeveralRunsInWindow);
    await expect(read()).rejects.toThrow(/more than one run of test run sp-run .* starts again at 2027-01-15T08:00:02\.000Z/);
  });

  it('makes a row without figures, saying what to set, when the runners sent no native histogram (trend stats only)', async () => {
    answers = { k6_http_reqs_total: [counter('k6_http_reqs_total', 1, [5, 9])], k6_sp_iterations_total: [counter('k6_sp_iterations_total', 1, [5, 9])] };
    const { rows } = await read();
    expect(rows[0]!.requests).toBe(9);
    expect(rows[0]!.error).toMatch(/no native histogram .* K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true .* --enable-feature=native-histograms/);
  });

  it('makes a row without figures of series from a script it does not know, rather than guessing its requests per iteration', async () => {
    answers = { k6_http_reqs_total: [counter('k6_http_reqs_total', 1, [5], { sp_scenario: 'somebody-elses' })] };
    const { rows } = await read();
    expect(rows[0]!.error).toMatch(/not a stackproof k6 script \(somebody-elses\)/);
  });
});
