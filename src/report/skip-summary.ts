import type { RuleResult, RunResults } from './results-model.ts';

/** One reason rules got no verdict, with the rules it covers. */
export interface SkipReason {
  reason: string;
  count: number;
  rules: string[];
}

/** How many of the rules the profile runs got no verdict. */
export interface NoVerdictShare {
  skipped: number;
  /** The rules the share is taken of: every rule of the run but the UPSTREAM ones the profile does not run. */
  counted: number;
  /** skipped / counted (0 when nothing is counted). */
  share: number;
  /** UPSTREAM rules skipped because the profile is `default`: not meant to run, so not counted. */
  notCounted: number;
}

type Profile = RunResults['run']['profile'];
type SkippableRule = Pick<RuleResult, 'id' | 'level' | 'outcome' | 'message'>;

/** In the terminal, a group names its rules only when it is this small; the HTML names them all. */
export const IDS_SHOWN_UP_TO = 3;

/** UPSTREAM rules run only under the strict profile: under `default` their SKIP is by design. */
function notMeantToRun(rule: SkippableRule, profile: Profile): boolean {
  return rule.level === 'UPSTREAM' && profile !== 'strict';
}

function reasonOf(rule: SkippableRule): string {
  return (rule.message ?? '').split('\n')[0]!.trim() || 'skipped (no reason given)';
}

/** The SKIP rules grouped by reason, most common first (then by reason, so the order is stable). */
export function groupSkipReasons(rules: readonly SkippableRule[], profile: Profile): SkipReason[] {
  const groups = new Map<string, string[]>();
  for (const r of rules) {
    if (r.outcome !== 'SKIP' || notMeantToRun(r, profile)) continue;
    const reason = reasonOf(r);
    groups.set(reason, [...(groups.get(reason) ?? []), r.id]);
  }
  return [...groups.entries()]
    .map(([reason, ids]) => ({ reason, count: ids.length, rules: ids }))
    .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
}

export function noVerdictShare(rules: readonly SkippableRule[], profile: Profile): NoVerdictShare {
  const notCounted = rules.filter((r) => notMeantToRun(r, profile)).length;
  const counted = rules.length - notCounted;
  const skipped = rules.filter((r) => r.outcome === 'SKIP' && !notMeantToRun(r, profile)).length;
  return { skipped, counted, share: counted === 0 ? 0 : skipped / counted, notCounted };
}

/**
 * A share as a percentage, with a decimal when the whole number would hide which side of a limit
 * it is on (50.4% above 0.5 must not read "50%").
 */
export function percent(share: number, limit?: number): string {
  const whole = Math.round(share * 100);
  if (limit !== undefined && (whole / 100 > limit) !== (share > limit)) return `${(Math.round(share * 1000) / 10).toFixed(1)}%`;
  return `${whole}%`;
}

/** How UPSTREAM rules enter the count, said once in the terminal and the HTML report. */
export function upstreamCountingNote(profile: Profile, notCounted: number): string {
  if (profile === 'strict') return 'UPSTREAM rules run under the strict profile and are counted';
  return notCounted > 0
    ? `${notCounted} UPSTREAM rule(s) skipped by the default profile are not counted: only --profile strict runs them`
    : 'UPSTREAM rules are not counted: only --profile strict runs them';
}

/** The terminal lines before the verdict: one line per reason, ids only for small groups. */
export function noVerdictLines(share: NoVerdictShare, reasons: readonly SkipReason[], profile: Profile): string[] {
  const note = upstreamCountingNote(profile, share.notCounted);
  if (share.skipped === 0) return [`every rule got a verdict (${share.counted} counted; ${note})`];
  const width = String(reasons[0]?.count ?? 0).length;
  return [
    `no verdict for ${share.skipped} of ${share.counted} rules (${percent(share.share)}; ${note}):`,
    ...reasons.map((g) => `  ${String(g.count).padStart(width)}  ${g.reason}${g.count <= IDS_SHOWN_UP_TO ? `  (${g.rules.join(', ')})` : ''}`),
  ];
}
