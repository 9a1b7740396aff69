import { faultsBreaking } from '../reference/faults/catalog.ts';
import type { Outcome, RuleResult } from '../report/results-model.ts';
import type { Rule } from '../rules/types.ts';
import type { Observation } from './evidence.ts';
import type { TestVerdict } from './vitest-collector.ts';

/** Test failures that are the target's doing rather than a broken rule. */
function isTargetError(err: TestVerdict['errors'][number]): boolean {
  return err.name === 'TargetError' || /^Test timed out in \d+ms/.test(err.message);
}

/**
 * Folds what the tests said into one verdict per rule: any ERROR wins over FAIL (the rule could
 * not be judged), FAIL over PASS; a rule whose tests were all skipped is SKIP; a rule nobody
 * reported on is ERROR, since a verdict was expected and none came.
 */
export function ruleOutcome(
  rule: Rule,
  verdicts: TestVerdict[],
  observations: Observation[],
  context: { moduleErrors: { file: string; message: string }[]; system: string },
): Omit<RuleResult, 'replay'> {
  const base = {
    id: rule.id,
    system: rule.system,
    title: rule.title,
    level: rule.level,
    sources: rule.sources,
    upstream: rule.upstream,
    ...(rule.notes?.length ? { ruleNotes: rule.notes } : {}),
    faults: faultsBreaking(rule.id).map((f) => f.id),
    durationMs: verdicts.reduce((sum, v) => sum + v.durationMs, 0),
    exchanges: verdicts.flatMap((v) => v.evidence?.exchanges ?? []),
    droppedExchanges: verdicts.reduce((sum, v) => sum + (v.evidence?.droppedExchanges ?? 0), 0),
    observations,
    notes: verdicts.flatMap((v) => v.evidence?.notes ?? []),
    counterexample: verdicts.find((v) => v.evidence?.counterexample)?.evidence?.counterexample,
  };
  const failedObservations = observations.filter((o) => !o.ok);

  if (verdicts.length === 0) {
    const broken = context.moduleErrors.find((m) => m.file.includes(`/suites/${rule.system}/`));
    return {
      ...base,
      outcome: 'ERROR',
      message: broken
        ? `no verdict: suite file ${broken.file} failed to load: ${broken.message}`
        : 'no verdict: no test reported on this rule',
    };
  }
  // Stopped while it ran: what it reported after that (a failure, a cancellation) is no verdict;
  // a pass it still reached is one.
  const stopped = verdicts.find((v) => v.interrupted && v.state !== 'passed');
  if (stopped) return { ...base, outcome: 'INTERRUPTED', message: "the run was stopped while this rule's test ran" };
  const errored = verdicts.flatMap((v) => v.errors).find(isTargetError);
  if (errored) return { ...base, outcome: 'ERROR', message: errored.message };
  const failed = verdicts.find((v) => v.state === 'failed');
  if (failed) {
    const err = failed.errors[0];
    return { ...base, outcome: 'FAIL', message: err?.message ?? 'the test failed', expected: err?.expected, actual: err?.actual };
  }
  if (failedObservations.length > 0) {
    return {
      ...base,
      outcome: 'FAIL',
      message: `${failedObservations.length} exchange(s) broke this rule while other rules ran; first: ${failedObservations[0]!.detail}`,
    };
  }
  if (verdicts.every((v) => v.state === 'skipped' || v.state === 'pending')) {
    return { ...base, outcome: 'SKIP', message: verdicts.find((v) => v.skipNote)?.skipNote ?? 'skipped' };
  }
  return { ...base, outcome: 'PASS' };
}

export function countOutcomes(results: { outcome: Outcome }[]): Record<Outcome, number> {
  const counts: Record<Outcome, number> = { PASS: 0, FAIL: 0, SKIP: 0, ERROR: 0, WAIVED: 0, EXPECTED: 0, INTERRUPTED: 0 };
  for (const r of results) counts[r.outcome] += 1;
  return counts;
}
