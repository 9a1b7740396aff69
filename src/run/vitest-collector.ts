import type { Reporter, TestCase, TestModule } from 'vitest/node';
import type { RuleEvidence } from './evidence.ts';

/** What one vitest test said about one rule. */
export interface TestVerdict {
  ruleId: string;
  testName: string;
  state: 'passed' | 'failed' | 'skipped' | 'pending';
  /** The test was running when the run was stopped: whatever it reports afterwards is no verdict. */
  interrupted?: boolean;
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
  /** Tests started and not yet reported, by test id: the ones in flight when the run is stopped. */
  private readonly running = new Map<string, number>();
  private stoppedWhileRunning: Set<string> | undefined;
  private startedAfterStop: Set<string> | undefined;
  private readonly reported = new Set<string>();
  moduleErrors: { file: string; message: string }[] = [];
  unhandledErrors: string[] = [];

  constructor(private readonly onVerdict?: (verdict: TestVerdict) => void) {}

  reset(): void {
    this.verdicts = [];
    this.running.clear();
    this.reported.clear();
    this.stoppedWhileRunning = undefined;
    this.startedAfterStop = undefined;
    this.moduleErrors = [];
    this.unhandledErrors = [];
  }

  onTestCaseReady(testCase: TestCase): void {
    this.running.set(testCase.id, performance.now());
    // Vitest announces the tests it cancels as starting too; one that really starts in the moment
    // vitest takes to stop, and fails, fails for the stop (the CA configuration is put back at once).
    this.stoppedWhileRunning?.add(testCase.id);
    this.startedAfterStop?.add(testCase.id);
  }

  /** The run is being stopped: the tests running now get no verdict, whatever they report later. */
  markInterrupted(): void {
    this.stoppedWhileRunning ??= new Set(this.running.keys());
    this.startedAfterStop ??= new Set();
  }

  onTestCaseResult(testCase: TestCase): void {
    // Vitest reports a cancelled test more than once; the first report stands.
    if (this.reported.has(testCase.id)) return;
    this.reported.add(testCase.id);
    const startedAt = this.running.get(testCase.id);
    this.running.delete(testCase.id);
    const result = testCase.result();
    const interrupted = this.stoppedWhileRunning?.has(testCase.id);
    // Cancelled before it started: it ran nothing and says nothing.
    const cancelled = result.state !== 'passed' && result.state !== 'failed';
    if (this.stoppedWhileRunning && cancelled && (!interrupted || this.startedAfterStop!.has(testCase.id))) return;
    const verdict: TestVerdict = {
      ruleId: testCase.name.split(' ')[0] ?? testCase.name,
      testName: testCase.name,
      state: result.state,
      // A cancelled test reports no duration: how long it had run is what the reader wants.
      durationMs: Math.round(interrupted && result.state !== 'passed' && startedAt !== undefined ? performance.now() - startedAt : (testCase.diagnostic()?.duration ?? 0)),
      errors: (result.errors ?? []).map((e) => ({
        name: e.name,
        message: String(e.message ?? ''),
        expected: typeof e.expected === 'string' ? e.expected : undefined,
        actual: typeof e.actual === 'string' ? e.actual : undefined,
      })),
      skipNote: result.state === 'skipped' ? result.note : undefined,
      evidence: testCase.meta().stackproof,
      ...(interrupted ? { interrupted: true } : {}),
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
