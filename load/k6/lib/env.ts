/** Scenario settings come from SP_* environment variables, which `stackproof load --engine k6` sets. */
export function env(name: string, fallback?: string): string {
  const value = __ENV[`SP_${name}`] ?? fallback;
  if (value === undefined) throw new Error(`SP_${name} is not set`);
  return value;
}

export const RATE = Number(env('RATE', '100'));
export const DURATION = env('DURATION', '30s');
export const MAX_VUS = Number(env('MAX_VUS', '200'));

/** Open model: iterations start at a constant arrival rate, whatever the answers take. */
export function arrivalRate(exec: string) {
  return { executor: 'constant-arrival-rate' as const, rate: RATE, timeUnit: '1s', duration: DURATION, preAllocatedVUs: Math.min(MAX_VUS, RATE), maxVUs: MAX_VUS, exec };
}
