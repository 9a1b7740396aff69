import type { Reporter, TestCase, TestModule } from 'vitest/node';
import type { RuleEvidence } from './evidence.ts';

/** What one vitest test said about one rule. */
export interface TestVerdict {
  ruleId: string;
  testName: string;
  state: 'passed' | 'failed' | 'skipped' | 'pending';
  durationMs: number;
  errors: { name?: string; message: string; expected?: string; actual?: string }[];
  skipNote?: string;
  evidence?: RuleEvidence;
}

/**
 * A vitest reporter that keeps, per rule id (the first word of a test's name), what each test
 * reported, and which suite files failed to load at all.
 */
export class RuleCollector implements Reporter {
  verdicts: TestVerdict[] = [];
  moduleErrors: { file: string; message: string }[] = [];
  unhandledErrors: string[] = [];

  constructor(private readonly onVerdict?: (verdict: TestVerdict) => void) {}

  reset(): void {
    this.verdicts = [];
    this.moduleErrors = [];
    this.unhandledErrors = [];
  }

  onTestCaseResult(testCase: TestCase): void {
    const result = testCase.result();
    const verdict: TestVerdict = {
      ruleId: testCase.name.split(' ')[0] ?? testCase.name,
      testName: testCase.name,
      state: result.state,
      durationMs: Math.round(testCase.diagnostic()?.duration ?? 0),
      errors: (result.errors ?? []).map((e) => ({
        name: e.name,
        message: String(e.message ?? ''),
        expected: typeof e.expected === 'string' ? e.expected : undefined,
        actual: typeof e.actual === 'string' ? e.actual : undefined,
      })),
      skipNote: result.state === 'skipped' ? result.note : undefined,
      evidence: testCase.meta().stackproof,
    };
    this.verdicts.push(verdict);
    this.onVerdict?.(verdict);
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<{ message?: string }>): void {
    for (const mod of testModules) {
      for (const err of mod.errors()) this.moduleErrors.push({ file: mod.moduleId, message: String(err.message ?? err) });
    }
    for (const err of unhandledErrors) this.unhandledErrors.push(String(err.message ?? err));
  }
}
