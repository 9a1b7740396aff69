import { EXIT } from '../cli/exit-codes.ts';
import type { RuleResult, RunResults } from '../report/results-model.ts';
import { groupSkipReasons, noVerdictShare, percent, type NoVerdictShare } from '../report/skip-summary.ts';

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

/** A run that mostly SKIPs says little: above `maxSkipShare` (0..1) of the counted rules without a verdict, it fails. */
export function skipShareExceeded(share: NoVerdictShare, maxSkipShare: number | undefined): boolean {
  return maxSkipShare !== undefined && share.share > maxSkipShare;
}

/** Why the run failed on its SKIPs, in the words the verdict line uses. */
export function skipShareReason(share: NoVerdictShare, maxSkipShare: number): string {
  return `${share.skipped} of ${share.counted} rules (${percent(share.share, maxSkipShare)}) got no verdict, above --max-skip-share ${maxSkipShare}`;
}

/**
 * Adds to a run's summary which rules got no verdict and why, and fails the run (the ordinary
 * failure exit code) when their share is above `maxSkipShare`; the verdict then starts with why.
 */
export function applySkipShare<T extends { results: RunResults; exitCode: number }>(outcome: T, maxSkipShare?: number): T {
  const { results } = outcome;
  const profile = results.run.profile;
  const share = noVerdictShare(results.rules, profile);
  const exceeded = skipShareExceeded(share, maxSkipShare);
  const exitCode = exceeded && outcome.exitCode === EXIT.OK ? EXIT.RULES_FAILED : outcome.exitCode;
  const counts = results.summary.verdict.replace(/^(PASSED|FAILED): /, '');
  const verdict = exceeded ? `FAILED: ${skipShareReason(share, maxSkipShare!)}; ${counts}` : results.summary.verdict;
  return {
    ...outcome,
    exitCode,
    results: {
      ...results,
      summary: {
        ...results.summary,
        exitCode,
        verdict,
        skipReasons: groupSkipReasons(results.rules, profile),
        noVerdict: { ...share, ...(maxSkipShare !== undefined ? { maxSkipShare } : {}), exceeded },
      },
    },
  };
}
