import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createVitest, type TestSpecification, type Vitest } from 'vitest/node';
import type { SystemName } from '../config/schema.ts';
import type { RuleResult } from '../report/results-model.ts';
import type { Rule } from '../rules/types.ts';
import type { Observation } from './evidence.ts';
import { ruleOutcome } from './outcomes.ts';
import { PACKAGE_ROOT } from './package-root.ts';
import type { SuiteContext } from './suite-context.ts';
import { SuiteSequencer } from './suite-sequencer.ts';
import { RuleCollector, type TestVerdict } from './vitest-collector.ts';

/** Suite files run at once: the long-waiting ones (suite-sequencer.ts) each get a worker. */
const SUITE_WORKERS = 4;
/** Rules in flight at once per worker (vitest counts per block too): more than any block holds. */
const RULES_SIDE_BY_SIDE = 32;

export interface ConformanceRunnerOptions {
  testTimeoutMs: number;
  /**
   * Files and rules side by side (default true). The fault matrix says false: it already runs
   * references in parallel jobs, and a baseline run under that much load on two cores once failed
   * a rule that passes alone, so each of its runs takes the rules one at a time as before.
   */
  sideBySide?: boolean;
  onVerdict?: (verdict: TestVerdict) => void;
  /** Where the suite files are, under the package root: `suites` but for the runner's own tests. */
  suitesDir?: string;
}

/** Reads each suite file's ruleTest('<id>' …) declarations. */
async function ruleFiles(files: string[]): Promise<Map<string, string>> {
  const map = new Map<string, string>();
  for (const file of files) {
    for (const m of (await readFile(file, 'utf8')).matchAll(/ruleTest\(\s*'([^']+)'/g)) map.set(m[1]!, file);
  }
  return map;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Runs the conformance suites through vitest's Node API. One runner can run many times (the fault
 * matrix does), each time with new targets handed to the suites through provide/inject.
 */
export class ConformanceRunner {
  private constructor(
    private readonly vitest: Vitest,
    private readonly collector: RuleCollector,
    private readonly specs: TestSpecification[],
    /** Which suite file declares each rule's test, so a run loads only the files it needs. */
    private readonly fileOfRule: Map<string, string>,
  ) {}

  static async create(options: ConformanceRunnerOptions): Promise<ConformanceRunner> {
    const collector = new RuleCollector(options.onVerdict);
    const signalListeners = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
    const vitest = await createVitest(
      'test',
      {
        config: false,
        root: PACKAGE_ROOT,
        // Vitest takes a relative dir from the working directory, not from root: a user's project (the
        // package installed in its node_modules) or a subfolder of a clone would find no suites.
        dir: resolve(PACKAGE_ROOT, options.suitesDir ?? 'suites'),
        include: ['**/*.suite.ts'],
        // Installed as a package, the suites live under node_modules/stackproof: vitest's default
        // exclude (node_modules) would find none, and its default externalising of node_modules
        // would hand their TypeScript to Node untransformed.
        exclude: ['**/.git/**'],
        server: { deps: { inline: [new RegExp(`^${escapeRegExp(PACKAGE_ROOT.replaceAll('\\', '/'))}/(?:suites|src)/`)] } },
        watch: false,
        reporters: [collector],
        testTimeout: options.testTimeoutMs,
        hookTimeout: options.testTimeoutMs,
        teardownTimeout: 10_000,
        passWithNoTests: true,
        pool: 'threads',
        // Suites share nothing through module state, and reusing workers saves the fault matrix a
        // fresh module graph per run.
        isolate: false,
        // The suites wait on the targets far more than they compute: files run side by side (vitest
        // would take one worker on two cores), the long ones first, and within a file the rules of
        // a concurrently() block do (suites/kit/rule-test.ts).
        maxWorkers: options.sideBySide === false ? 1 : SUITE_WORKERS,
        maxConcurrency: options.sideBySide === false ? 1 : RULES_SIDE_BY_SIDE,
        sequence: { sequencer: SuiteSequencer },
        silent: true,
        allowOnly: false,
      },
      { logLevel: 'silent', clearScreen: false, cacheDir: 'node_modules/.vite-stackproof' },
    );
    // Vitest's logger exits the process on Ctrl-C; stackproof's own handler (conform) cancels the
    // run instead, so that what the run made is removed before it exits.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      for (const listener of process.listeners(signal)) if (!signalListeners[signal].includes(listener)) process.off(signal, listener);
    }
    const specs = await vitest.globTestSpecifications();
    return new ConformanceRunner(vitest, collector, specs, await ruleFiles(specs.map((s) => s.moduleId)));
  }

  /** After a run that was stopped (cancel()): the rules whose test never started. */
  notRun: string[] = [];
  private cancelled = false;

  /**
   * Runs the tests of the given rules against the targets in `context`; one result per rule, but
   * for a run stopped by cancel(): then the rules whose test never started are in `notRun` instead.
   */
  async run(context: SuiteContext, rules: readonly Rule[]): Promise<Omit<RuleResult, 'replay'>[]> {
    this.collector.reset();
    this.cancelled = false;
    this.notRun = [];
    const systems = new Set<SystemName>(rules.map((r) => r.system));
    const files = new Set(rules.map((r) => this.fileOfRule.get(r.id)));
    // A rule whose file is unknown (not declared with ruleTest) falls back to every file of its system.
    const specs = this.specs.filter((s) => files.has(s.moduleId) || (files.has(undefined) && [...systems].some((system) => s.moduleId.includes(`/suites/${system}/`))));
    if (rules.length > 0 && specs.length > 0) {
      this.vitest.provide('stackproof', context);
      // A test's name is "<rule id> <title>": select by the id followed by a space.
      this.vitest.setGlobalTestNamePattern(new RegExp(`(?:^| )(?:${rules.map((r) => escapeRegExp(r.id)).join('|')}) `));
      await this.vitest.runTestSpecifications(specs, false);
    }
    const verdictsByRule = new Map<string, TestVerdict[]>();
    const observationsByRule = new Map<string, Observation[]>();
    for (const v of this.collector.verdicts) {
      verdictsByRule.set(v.ruleId, [...(verdictsByRule.get(v.ruleId) ?? []), v]);
      for (const o of v.evidence?.observations ?? []) observationsByRule.set(o.rule, [...(observationsByRule.get(o.rule) ?? []), o]);
    }
    if (this.cancelled) {
      this.notRun = rules.filter((r) => !verdictsByRule.has(r.id)).map((r) => r.id);
      rules = rules.filter((r) => verdictsByRule.has(r.id));
    }
    return rules.map((rule) =>
      ruleOutcome(rule, verdictsByRule.get(rule.id) ?? [], observationsByRule.get(rule.id) ?? [], {
        moduleErrors: this.collector.moduleErrors,
        system: rule.system,
      }),
    );
  }

  /** Stops the current run (Ctrl-C): tests still running are cancelled, and run() returns. */
  async cancel(): Promise<void> {
    this.cancelled = true;
    this.collector.markInterrupted();
    await this.vitest.cancelCurrentRun('keyboard-input');
  }

  async close(): Promise<void> {
    await this.vitest.close();
  }
}
