import type { LoadScenarioResult } from '../report/results-model.ts';

export interface ThresholdSpec {
  p99Ms?: number;
  /** Fraction of requests that may fail, 0..1. */
  errorRate?: number;
  /** Fraction of scheduled requests that may be dropped, 0..1. */
  droppedRate?: number;
}

/** Judges a scenario's result against its SLOs; the verdicts go into the result. */
export function applyThresholds(result: LoadScenarioResult, spec: ThresholdSpec): LoadScenarioResult {
  const checks: LoadScenarioResult['thresholds'] = [];
  const scheduled = result.requests + result.dropped;
  if (spec.p99Ms !== undefined) checks.push({ name: 'p99 latency (ms)', limit: spec.p99Ms, actual: result.latencyMs.p99, ok: result.latencyMs.p99 <= spec.p99Ms });
  if (spec.errorRate !== undefined) {
    const rate = result.requests ? result.errors / result.requests : 0;
    checks.push({ name: 'error rate', limit: spec.errorRate, actual: round(rate), ok: rate <= spec.errorRate });
  }
  if (spec.droppedRate !== undefined) {
    const rate = scheduled ? result.dropped / scheduled : 0;
    checks.push({ name: 'dropped rate', limit: spec.droppedRate, actual: round(rate), ok: rate <= spec.droppedRate });
  }
  return { ...result, thresholds: checks };
}

function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}

export function thresholdsBreached(results: LoadScenarioResult[]): boolean {
  return results.some((r) => r.thresholds.some((t) => !t.ok));
}
