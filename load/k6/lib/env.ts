/**
 * Scenario settings come from SP_* environment variables, which `stackproof load --engine k6` sets
 * (or a k6-operator TestRun, see load/k8s/). A missing one throws in the init context, so k6 stops
 * before sending anything and says which.
 */
export function env(name: string, fallback?: string): string {
  const value = __ENV[`SP_${name}`] ?? fallback;
  if (value === undefined) throw new Error(`SP_${name} is not set`);
  return value;
}

/** Iterations started per second. */
export const RATE = Number(env('RATE', '100'));
/** k6 duration syntax (30s, 1500ms). */
export const DURATION = env('DURATION', '30s');
export const MAX_VUS = Number(env('MAX_VUS', '200'));

function durationSeconds(d: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(d);
  if (!m) throw new Error(`SP_DURATION: expected e.g. 30s or 1500ms, got ${d}`);
  return Number(m[1]) * ({ ms: 0.001, s: 1, m: 60, h: 3600 } as Record<string, number>)[m[2] ?? 's']!;
}

/**
 * The most iterations this runner starts. constant-arrival-rate has no iteration cap and starts one
 * more than rate x duration (one at 0 s and one at the end); the guard in iteration.ts skips any
 * iteration past this, so the requests sent never exceed the schedule nor stackproof's --max-requests.
 */
export const MAX_ITERATIONS = Number(env('MAX_ITERATIONS', String(Math.floor(RATE * durationSeconds(DURATION)))));

/** Thresholds: the same limits stackproof applies, so k6's own exit code agrees with the report. */
export const MAX_ERROR_RATE = Number(env('MAX_ERROR_RATE', '0'));
export const MAX_DROPPED_RATE = Number(env('MAX_DROPPED_RATE', '0.01'));
const P99_MS = __ENV.SP_P99_MS;

/** Open model: iterations start at a constant arrival rate, whatever the answers take. */
export function arrivalRate(exec: string, scenario: string) {
  return {
    executor: 'constant-arrival-rate' as const,
    // On every metric of the scenario: what `stackproof load --from-prometheus` groups a run's series by.
    tags: { sp_scenario: scenario, sp_rate: String(RATE) },
    rate: RATE,
    timeUnit: '1s',
    duration: DURATION,
    // VUs made during the run are initialised then, late enough to drop iterations (a blocking query
    // holds one for its whole wait); so one VU per iteration per second is made up front.
    preAllocatedVUs: Math.max(1, Math.min(MAX_VUS, Math.ceil(RATE))),
    maxVUs: MAX_VUS,
    exec,
  };
}

/**
 * Options every scenario script shares: one scenario, the trend stats stackproof shows, and
 * thresholds that never abort the run (a run always ends with its summary).
 */
export function scenarioOptions(exec: string, scenario: string) {
  return {
    scenarios: { [exec]: arrivalRate(exec, scenario) },
    summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(50)', 'p(90)', 'p(99)', 'p(99.9)'],
    // A k6-operator runner runs a share of the run: judged alone, its share could breach a limit the
    // whole run meets, or the reverse. SP_THRESHOLDS=none leaves judging to `stackproof merge` or
    // `stackproof load --from-prometheus`, which apply the limits to the whole run.
    thresholds: env('THRESHOLDS', 'k6') === 'none' ? {} : k6Thresholds(),
  };
}

function k6Thresholds(): Record<string, { threshold: string; abortOnFail: boolean }[]> {
  const thresholds: Record<string, { threshold: string; abortOnFail: boolean }[]> = {
    // sp_failed: failed checks, unexpected statuses and exceptions (iteration.ts); a script with no checks can still fail.
    sp_failed: [{ threshold: `rate<=${MAX_ERROR_RATE}`, abortOnFail: false }],
    dropped_iterations: [{ threshold: `count<=${Math.floor(MAX_DROPPED_RATE * MAX_ITERATIONS)}`, abortOnFail: false }],
  };
  if (P99_MS) thresholds.http_req_duration = [{ threshold: `p(99)<=${Number(P99_MS)}`, abortOnFail: false }];
  return thresholds;
}
