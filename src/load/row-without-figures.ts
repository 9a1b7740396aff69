import type { LoadScenarioResult } from '../report/results-model.ts';

/**
 * A load row that has no figures, with the reason, and a failed threshold named for what did not
 * happen (`setup`, `k6 wrote a summary`), so the run fails and the row says why.
 */
export function rowWithoutFigures(scenario: string, engine: string, rate: number, missing: string, message: string): LoadScenarioResult {
  return {
    scenario,
    engine,
    model: 'open',
    targetRate: rate,
    durationMs: 0,
    requests: 0,
    errors: 0,
    dropped: 0,
    throughput: 0,
    latencyMs: { p50: 0, p90: 0, p99: 0, p999: 0, max: 0, min: 0, mean: 0 },
    histogram: '',
    timeline: [],
    thresholds: [{ name: missing, limit: 1, actual: 0, ok: false }],
    error: message,
  };
}
