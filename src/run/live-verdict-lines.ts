import type { RuleResult } from '../report/results-model.ts';
import type { Rule } from '../rules/types.ts';
import { ruleOutcome } from './outcomes.ts';
import type { TestVerdict } from './vitest-collector.ts';

/** Wide enough for the longest outcome, INTERRUPTED. */
const OUTCOME_WIDTH = 11;
/** A reason or message is cut here on the live line: the whole of it is in the report. */
const SHORT_TEXT = 100;

/** The first line of a reason or message, cut to fit a terminal line. */
export function shortText(text: string | undefined): string {
  const first = (text ?? '').split('\n')[0]!.trim();
  return first.length > SHORT_TEXT ? `${first.slice(0, SHORT_TEXT - 1)}…` : first;
}

/** One rule's live line: its outcome as the run reports it, how long its test took, and why when it did not pass. */
export function verdictLine(result: Pick<RuleResult, 'id' | 'outcome' | 'message' | 'expectation' | 'durationMs'>): string {
  const head = `  ${result.outcome.padEnd(OUTCOME_WIDTH)} ${result.id} (${result.durationMs} ms)`;
  if (result.outcome === 'PASS') return head;
  if (result.outcome === 'EXPECTED') return `${head}: listed deviation of ${result.expectation?.product ?? 'the product'}`;
  const why = shortText(result.message);
  return why ? `${head}: ${why}` : head;
}

/**
 * The terminal's lines as the suites run, one per rule and each printed once, with the outcome the
 * run will report (`settle` applies the expectations and waivers). A rule judged on every exchange
 * of its system (Rule.judgedOnEveryExchange) can still turn FAIL while other rules run: its line
 * waits for the end of the suites, as does any rule no test reported on.
 */
export class LiveVerdictLines {
  private readonly printed = new Set<string>();

  constructor(
    private readonly log: (line: string) => void,
    private readonly rules: ReadonlyMap<string, Rule>,
    private readonly settle: (result: RuleResult) => RuleResult,
  ) {}

  onVerdict(verdict: TestVerdict): void {
    const rule = this.rules.get(verdict.ruleId);
    if (!rule || rule.judgedOnEveryExchange || this.printed.has(rule.id)) return;
    this.printed.add(rule.id);
    const result = ruleOutcome(rule, [verdict], [], { moduleErrors: [], system: rule.system });
    this.log(verdictLine(this.settle(result)));
  }

  /** Once the suites have ended: the lines still owed, from the run's final results. */
  flush(results: readonly RuleResult[]): void {
    for (const r of results) {
      if (this.printed.has(r.id)) continue;
      this.printed.add(r.id);
      this.log(verdictLine(r));
    }
  }
}
