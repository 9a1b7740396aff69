import type { RuleResult } from '../report/results-model.ts';

export type FailOn = 'MUST' | 'SHOULD' | 'MAY';

const RANK = { MUST: 3, SHOULD: 2, MAY: 1 } as const;

/**
 * Whether a rule's FAIL or ERROR fails the run: its level must be at or above `failOn` (MUST only
 * by default). UPSTREAM rules run only under the strict profile, and there they count as MUST.
 */
export function failsRun(rule: Pick<RuleResult, 'level' | 'outcome'>, failOn: FailOn): boolean {
  if (rule.outcome !== 'FAIL' && rule.outcome !== 'ERROR') return false;
  const level = rule.level === 'UPSTREAM' ? 'MUST' : rule.level;
  return RANK[level] >= RANK[failOn];
}
