import type { RuleResult } from './results-model.ts';

export interface FailureInWords {
  /** What the rule's check required, as a sentence (or a value, when `areValues`). */
  expected: string;
  came: string;
  /** The two are values to show as they are (a status, a body), not sentences. */
  areValues: boolean;
}

const BOOLEAN = new Set(['true', 'false']);

/**
 * What a failure expected and what came, in words. A check of a condition fails with the values
 * `true` and `false`, which say nothing on their own: the check's own message (every suite's
 * boolean check carries one, test/suite-check-messages.test.ts holds them to it) says what was
 * required, and what came is that it did not hold.
 */
export function failureInWords(r: Pick<RuleResult, 'message' | 'expected' | 'actual'>): FailureInWords | undefined {
  const message = (r.message ?? '').trim();
  const firstLine = message.split('\n')[0] ?? '';
  // vitest: "<the check's message>: expected false to be true // Object.is equality"
  const said = /^(.*?):\s+expected .* to (?:be|equal|deeply equal|strictly equal|be truthy|be falsy)\b/s.exec(firstLine)?.[1]?.trim();
  if (r.expected !== undefined && r.actual !== undefined && BOOLEAN.has(r.expected.trim()) && BOOLEAN.has(r.actual.trim())) {
    if (said) return { expected: said, came: 'the opposite: this does not hold of what the target answered (the exchanges below show it)', areValues: false };
    return { expected: 'the checked condition to hold', came: 'it did not hold (the check gave no message of its own)', areValues: false };
  }
  if (r.expected !== undefined || r.actual !== undefined) {
    return { expected: r.expected ?? '(not given)', came: r.actual ?? '(not given)', areValues: true };
  }
  if (/^expected (true|false) to be (true|false)/.test(firstLine)) {
    return { expected: 'the checked condition to hold', came: 'it did not hold (the check gave no message of its own)', areValues: false };
  }
  return undefined;
}
