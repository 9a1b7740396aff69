import { EXIT } from '../cli/exit-codes.ts';
import { runHeader } from '../report/run-header.ts';
import type { LoadScenarioResult, RunResults } from '../report/results-model.ts';
import { applyThresholds, thresholdsBreached, type ThresholdSpec } from './thresholds.ts';

/**
 * The results of a load run that ran elsewhere (k6-operator's runners) and was collected afterwards,
 * from their files (`stackproof merge`) or from Prometheus (`stackproof load --from-prometheus`).
 * The thresholds are applied here, to the whole run: each runner judged only its own share.
 */
export function collectedRunResults(rows: LoadScenarioResult[], o: { started: Date; command: string; thresholds: ThresholdSpec }): { results: RunResults; exitCode: number } {
  const judged = rows.map((r) => (r.error ? r : applyThresholds(r, o.thresholds)));
  const failed = judged.filter((r) => r.error || r.thresholds.some((t) => !t.ok));
  const breached = thresholdsBreached(judged) || judged.some((r) => r.error);
  const exitCode = breached ? EXIT.THRESHOLD : EXIT.OK;
  const results: RunResults = {
    ...runHeader(o.started, new Date(), { profile: 'default', seed: 0, runs: 0, command: o.command, faults: [] }),
    targets: [],
    summary: {
      total: 0,
      byOutcome: { PASS: 0, FAIL: 0, SKIP: 0, ERROR: 0, WAIVED: 0 },
      exitCode,
      verdict: `${breached ? 'FAILED' : 'PASSED'}: ${judged.length} load scenario run(s), ${failed.length} breaching a threshold or without figures`,
    },
    rules: [],
    load: judged,
  };
  return { results, exitCode };
}
