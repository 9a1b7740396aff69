import { randomInt } from 'node:crypto';
import type { StackproofConfig, SystemName, Targets } from '../config/schema.ts';
import { EXIT } from '../cli/exit-codes.ts';
import { runLoadSmoke } from '../load/smoke.ts';
import { startReference, type RunningReference } from '../reference/reference.ts';
import type { LoadScenarioResult, RuleResult, RunResults, TargetSummary } from '../report/results-model.ts';
import { runHeader } from '../report/run-header.ts';
import { selectRules } from '../rules/catalog.ts';
import { ConformanceRunner } from './conformance-runner.ts';
import { replayCommand, type Invocation } from './invocation.ts';
import { countOutcomes, ruleOutcome } from './outcomes.ts';
import type { Rule } from '../rules/types.ts';
import type { TestVerdict } from './vitest-collector.ts';
import { preflight } from './preflight.ts';
import { identifyTargets, identityProblems, TargetIdentityError } from './target-identity.ts';
import { productHeaderLine, type TargetProduct } from './target-product.ts';
import { referenceTargets } from './reference-targets.ts';
import type { SuiteContext } from './suite-context.ts';
import { failsRun, type FailOn } from './exit-policy.ts';
import { applyWaivers, readWaivers } from './waivers.ts';
import { applyExpectations, expectationLines } from '../expectations/apply-expectations.ts';
import { readExpectationFiles } from '../expectations/load-expectations.ts';
import { ruleById } from '../rules/catalog.ts';
import { readFileSync } from 'node:fs';
import { newRunPrefix } from '../provision/run-prefix.ts';
import { provisionSecrets } from '../provision/secrets-provisioner.ts';
import { provisionMesh } from '../provision/mesh-provisioner.ts';
import { provisionScheduler } from '../provision/scheduler-provisioner.ts';
import { isPutBack, type Provision, type SweepReport } from '../provision/sweep-report.ts';
import { ConfigError } from '../config/load-config.ts';
import { runResultsSchema } from '../report/results-model.ts';
import { PhaseClock } from './phase-clock.ts';
import { LiveVerdictLines } from './live-verdict-lines.ts';
import { capabilityCosts, capabilityNoticeLines, type MissingCapabilities } from './capability-cost.ts';

export class UnreachableTargetError extends Error {
  readonly exitCode = EXIT.UNREACHABLE;
}

/**
 * Ctrl-C (or SIGTERM) during a run: what the run changed and did not make (the CA configuration of
 * a Consul agent) is put back at once, the suites are cancelled, what the run made is removed, and
 * the command exits 130. A second Ctrl-C leaves soon: what the run made stays (the run prefix is
 * printed for cleanup), but what it changed is put back first, within PUT_BACK_DEADLINE_MS; a third
 * leaves at once. `stackproof load` uses it too (what it stops is `stopping`).
 */
export class InterruptWatch {
  private interrupted = false;
  private stoppedBy: NodeJS.Signals | undefined;
  private leaving = false;
  private cancel: (() => Promise<void> | void) | undefined;
  private readonly putBacks: { system: SystemName; run: (options: { leaving: boolean }) => Promise<SweepReport> }[] = [];
  private readonly handler = (signal: NodeJS.Signals) => {
    if (this.leaving) process.exit(130);
    if (this.interrupted) {
      this.leaving = true;
      void this.putBackAndLeave(signal);
      return;
    }
    this.interrupted = true;
    this.stoppedBy = signal;
    this.log(`${signal}: stopping ${this.stopping} and removing what the run made (press Ctrl-C again to leave it behind)`);
    void this.putBackNow();
    void this.cancel?.();
  };

  constructor(
    private readonly log: (line: string) => void,
    private readonly runPrefix: string,
    private readonly stopping = 'the suites',
  ) {
    process.on('SIGINT', this.handler);
    process.on('SIGTERM', this.handler);
  }

  onInterrupt(cancel: () => Promise<void> | void): void {
    this.cancel = cancel;
  }

  /** What must be put back even when the run leaves at once (Provision.putBack). */
  onLeave(system: SystemName, putBack: (options: { leaving: boolean }) => Promise<SweepReport>): void {
    this.putBacks.push({ system, run: putBack });
  }

  /** Puts back what the run changed and did not make; `leaving`: no teardown follows. */
  private async putBackNow(leaving = false): Promise<void> {
    const reports = await Promise.all(this.putBacks.map(async (p) => ({ p, report: await withDeadline(p.run({ leaving }), PUT_BACK_DEADLINE_MS, this.runPrefix) })));
    for (const { p, report } of reports) {
      for (const what of report.removed) this.log(`${isPutBack(what) ? 'put back' : 'removed'} (${p.system}): ${what}`);
      for (const problem of report.problems) this.log(`could not put back (${p.system}): ${problem}`);
      for (const note of report.notes ?? []) this.log(`${p.system}: ${note}`);
    }
  }

  private async putBackAndLeave(signal: NodeJS.Signals): Promise<void> {
    if (this.putBacks.length) this.log(`${signal} again: putting back what the run changed but did not make, then leaving (press Ctrl-C again to leave at once)`);
    await this.putBackNow(true);
    this.log(`left what the run made: \`stackproof cleanup --prefix ${this.runPrefix}\` removes it`);
    process.exit(130);
  }

  /** The signal that stopped the run, if one did. */
  get signal(): NodeJS.Signals | undefined {
    return this.stoppedBy;
  }

  throwIfInterrupted(): void {
    if (this.interrupted) throw new InterruptedError('interrupted: the run was stopped before its end, and no verdict is given');
  }

  dispose(): void {
    process.off('SIGINT', this.handler);
    process.off('SIGTERM', this.handler);
  }
}

export class InterruptedError extends Error {
  readonly exitCode = EXIT.INTERRUPTED;
}

/** A target that stops answering must not hold the run's end: cleanup gets this long per system. */
const CLEANUP_DEADLINE_MS = 120_000;
/** How long a second Ctrl-C waits for what the run changed to be put back before it leaves. */
const PUT_BACK_DEADLINE_MS = 10_000;

function withDeadline(sweep: Promise<SweepReport>, ms: number, prefix: string): Promise<SweepReport> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<SweepReport>((resolve) => {
    timer = setTimeout(() => resolve({ removed: [], problems: [`cleanup did not finish within ${ms / 1000} s: run \`stackproof cleanup --prefix ${prefix}\` once the target answers again`] }), ms);
  });
  return Promise.race([sweep.catch((err: unknown) => ({ removed: [], problems: [`cleanup failed: ${(err as Error).message}`] })), late]).finally(() => clearTimeout(timer));
}
/** Watches the verdicts as they come for the first that the run will report as FAIL (--bail). */
class FirstFail {
  rule: string | undefined;

  constructor(
    private readonly rules: ReadonlyMap<string, Rule>,
    private readonly settle: (result: RuleResult) => RuleResult,
  ) {}

  /** True once, for the verdict of the first FAIL. */
  sees(verdict: TestVerdict): boolean {
    const rule = this.rules.get(verdict.ruleId);
    if (this.rule || !rule || verdict.interrupted) return false;
    if (this.settle(ruleOutcome(rule, [verdict], [], { moduleErrors: [], system: rule.system })).outcome !== 'FAIL') return false;
    this.rule = rule.id;
    return true;
  }
}

export class NoRulesSelectedError extends Error {
  readonly exitCode = EXIT.USAGE;
}

export interface ConformOptions {
  config: StackproofConfig;
  invocation: Invocation;
  command: string;
  /** A results.json to compare outcomes with. */
  baseline?: string;
  /** Run the short load smoke after the suites (default: only against the embedded reference). */
  loadSmoke?: boolean;
  log: (line: string) => void;
  /** Times the run's phases (the caller prints them with the wall time). */
  clock?: PhaseClock;
  /**
   * Stop at the first rule that FAILs (`--bail`): the rules still running or not yet started get
   * no verdict and are listed as not run. For the mutation tests, where one FAIL decides.
   */
  bail?: boolean;
  /**
   * Run the rules one after another (`--one-at-a-time`), as the fault matrix does: for a target
   * that answers a request differently when others arrive beside it, and for mutants whose effect
   * shows only when a rule's requests reach the target back to back.
   */
  oneAtATime?: boolean;
}

export interface ConformOutcome {
  results: RunResults;
  exitCode: number;
  secrets: string[];
}

/** Exit code by outcome: 1 when a FAIL or ERROR at or above the fail-on level (MUST by default). */
export function exitCodeFor(rules: Pick<RuleResult, 'level' | 'outcome'>[], failOn: FailOn = 'MUST'): number {
  return rules.some((r) => failsRun(r, failOn)) ? EXIT.RULES_FAILED : EXIT.OK;
}

/**
 * One conformance run: targets (configured, or the embedded reference started here), preflight,
 * the suites, an optional load smoke, and the results with an exit code.
 */
export async function conform(options: ConformOptions): Promise<ConformOutcome> {
  const { config, log } = options;
  const clock = options.clock ?? new PhaseClock();
  const started = new Date();
  // Read the waivers first: a bad file is a usage error before anything runs.
  const waivers = config.waivers ? readWaivers(config.waivers) : [];
  const expectationFiles = readExpectationFiles(config.expect);
  for (const f of expectationFiles) {
    const unknown = f.expectations.filter((e) => !ruleById(e.rule));
    if (unknown.length) throw new ConfigError(`expectation file of ${f.product}: no rule ${unknown.map((e) => e.rule).join(', ')} in the catalog`);
  }
  const rules = selectRules(config.systems, config.rules, config.profile);
  if (rules.length === 0) {
    throw new NoRulesSelectedError(`no rule matches --systems ${config.systems.join(',')} --rules ${config.rules.join(',') || '(all)'} (profile ${config.profile}); see \`stackproof rules\``);
  }
  const systems = [...new Set(rules.map((r) => r.system))];
  const external = Object.values(config.targets).some(Boolean);
  let reference: RunningReference | undefined;
  const runPrefix = newRunPrefix();
  const teardowns: { system: SystemName; run: () => Promise<SweepReport> }[] = [];
  const provisioned: NonNullable<SuiteContext['provisioned']> = {};
  const interrupt = new InterruptWatch(log, runPrefix);
  const provisioning: string[] = [];
  // What the identity step found on the secrets and scheduler targets (the mesh's: its provisioner).
  const products: Partial<Record<'secrets' | 'scheduler', TargetProduct>> = {};
  try {
    let targets: Targets;
    if (external) {
      targets = Object.fromEntries(systems.filter((s) => config.targets[s]).map((s) => [s, config.targets[s]])) as Targets;
    } else {
      clock.start('reference');
      reference = await startReference({ dialect: config.referenceDialect, behavior: config.referenceBehavior, faults: options.invocation.referenceFaults });
      targets = referenceTargets(reference, systems);
      log(`reference: started on loopback (dialect ${reference.dialect}${reference.behavior !== 'spec' ? `, behaviour ${reference.behavior}` : ''}${reference.faults.length ? `, faults ${reference.faults.join(', ')}` : ''})`);
    }
    for (const s of systems) {
      const t = targets[s];
      log(t ? `  ${s.padEnd(9)} ${t.url}` : `  ${s.padEnd(9)} (no target configured: its rules are SKIP)`);
    }

    clock.start('preflight');
    if (external) {
      // Identified before any verdict: a wrong URL, product, dialect or token is the profile's error, not the product's.
      const identities = await identifyTargets(targets, runPrefix);
      const problems = identityProblems(identities);
      if (problems.length > 0) throw new TargetIdentityError(problems.join('\n'));
      for (const i of identities) log(`preflight: ${i.system}: ${i.line} (${i.durationMs} ms)`);
      for (const i of identities) {
        if (i.product && i.system !== 'mesh') {
          products[i.system] = i.product;
          log(productHeaderLine(i.system, i.product));
        }
      }
    } else {
      const probes = await preflight(targets);
      const down = probes.filter((p) => !p.ok);
      if (down.length > 0) {
        throw new UnreachableTargetError(down.map((p) => `${p.system} target ${p.url} does not answer: ${p.problem}`).join('\n'));
      }
      log(`preflight: ${probes.map((p) => `${p.system} answers (${p.durationMs} ms)`).join(', ')}`);
    }

    log(`run prefix: ${runPrefix} (everything the run makes is named under it and removed at the end; \`stackproof cleanup --prefix ${runPrefix}\` if a run is killed)`);
    // The embedded reference is thrown away at the end: its control listener makes the fixtures.
    const own = <T extends { provisioner?: string }>(t: T): T => (external ? t : { ...t, provisioner: t.provisioner ?? 'control' });
    const adopt = <T, P>(system: SystemName, provision: Provision<T, P>): Provision<T, P> => {
      teardowns.push({ system, run: provision.teardown });
      if (provision.putBack) interrupt.onLeave(system, provision.putBack.bind(provision));
      for (const line of provision.lines) log(line);
      provisioning.push(...provision.lines.map((l) => l.trim()));
      return provision;
    };
    clock.start('provisioning');
    if (targets.secrets) {
      const { target, provisioned: p } = adopt('secrets', await provisionSecrets(own(targets.secrets), runPrefix));
      targets = { ...targets, secrets: target };
      provisioned.secrets = p;
    }
    if (targets.mesh) {
      const { target, provisioned: p } = adopt('mesh', await provisionMesh(own(targets.mesh), runPrefix));
      targets = { ...targets, mesh: target };
      provisioned.mesh = p;
    }
    if (targets.scheduler) {
      const { target, provisioned: p } = adopt('scheduler', await provisionScheduler(own(targets.scheduler), runPrefix));
      targets = { ...targets, scheduler: target };
      provisioned.scheduler = p;
    }
    interrupt.throwIfInterrupted();
    const missing: MissingCapabilities = Object.fromEntries(Object.entries(provisioned).map(([s, p]) => [s, p?.missing ?? {}]));
    for (const line of capabilityNoticeLines(missing, provisioning)) log(line);

    const secrets = [...Object.values(targets).flatMap((t) => (t ? [t.token] : [])), ...(targets.secrets?.fixtures?.controlToken ? [targets.secrets.fixtures.controlToken] : []), ...(targets.scheduler?.fixtures ? [targets.scheduler.fixtures.controlToken] : []), ...(targets.secrets?.fixtures?.entities.map((e) => e.token) ?? []), ...(targets.secrets?.cloudIdentity ? [targets.secrets.cloudIdentity.simulatorToken] : [])];
    const seed = config.seed ?? randomInt(0, 2 ** 31 - 1);
    const context: SuiteContext = {
      targets,
      profile: config.profile,
      runs: config.runs,
      seed,
      path: config.path,
      requestTimeoutMs: Math.round(config.requestTimeoutMs * config.timeScale),
      timeScale: config.timeScale,
      secrets,
      runPrefix,
      provisioned,
    };
    log(`conform: ${rules.length} rule(s), profile ${config.profile}, seed ${seed}, ${config.runs} run(s) per property`);
    // An expectation applies when the version the provisioner found is inside its range (all of
    // them when the version is unknown: the embedded reference, a product that does not say).
    // A product that did not say which it is has no release numbers to check a range against.
    const versionOf = (p: TargetProduct | undefined) => (p?.key ? p.version : undefined);
    const versions = { mesh: provisioned.mesh?.product?.version, secrets: versionOf(products.secrets), scheduler: versionOf(products.scheduler) };
    const productKeys = {
      ...(provisioned.mesh?.product ? { mesh: { key: 'consul' as const, name: provisioned.mesh.product.name } } : {}),
      ...(products.secrets?.key ? { secrets: { key: products.secrets.key, name: products.secrets.name } } : {}),
      ...(products.scheduler?.key ? { scheduler: { key: products.scheduler.key, name: products.scheduler.name } } : {}),
    };
    const settle = (results: RuleResult[]) => {
      const expected = expectationFiles.length ? applyExpectations(results, expectationFiles, versions, productKeys) : { results, findings: [], applied: [] };
      const waived = config.waivers ? applyWaivers(expected.results, waivers) : { results: expected.results, findings: [] };
      return { results: waived.results, expectationFindings: expected.findings, expectationsApplied: expected.applied, waiverFindings: waived.findings };
    };
    // With workers reused across files, tests of rules not selected report too: not worth a line.
    const live = new LiveVerdictLines(log, new Map(rules.map((r) => [r.id, r])), (r) => settle([r]).results[0]!);
    const bail = options.bail ? new FirstFail(new Map(rules.map((r) => [r.id, r])), (r) => settle([r]).results[0]!) : undefined;
    clock.start('vitest start');
    const runner = await ConformanceRunner.create({
      testTimeoutMs: Math.round(config.testTimeoutMs * config.timeScale),
      ...(options.oneAtATime ? { sideBySide: false } : {}),
      onVerdict: (v) => {
        live.onVerdict(v);
        if (bail?.sees(v)) void runner.cancel();
      },
    });
    let ruleResults: RuleResult[];
    let notRun: string[] = [];
    interrupt.onInterrupt(() => runner.cancel());
    try {
      clock.start('suites');
      let raw = await runner.run(context, rules);
      notRun = runner.notRun;
      if (bail?.rule) {
        // Cancelled by the bail, not by the user: the rules it cut short have no verdict either way.
        notRun = [...notRun, ...raw.filter((r) => r.outcome === 'INTERRUPTED').map((r) => r.id)];
        raw = raw.filter((r) => r.outcome !== 'INTERRUPTED');
      }
      ruleResults = raw.map((r) => ({
        ...r,
        replay:
          r.outcome === 'FAIL' || r.outcome === 'ERROR'
            ? replayCommand(options.invocation, r.id, r.counterexample?.seed ?? seed, config.runs, r.counterexample?.path)
            : undefined,
      }));
    } finally {
      clock.start('vitest close');
      await runner.close();
      clock.stop();
    }

    const settled = settle(ruleResults);
    ruleResults = settled.results;
    live.flush(ruleResults);
    const stoppedBy = interrupt.signal;
    const bailed = bail?.rule && !stoppedBy ? { rule: bail.rule, notRun } : undefined;

    let load: LoadScenarioResult[] = [];
    if (!stoppedBy && !bailed && (options.loadSmoke ?? !external) && config.load.smoke) {
      log('load smoke: 2 s at 50 requests/s per read path, open model');
      load = await clock.time('load smoke', () => runLoadSmoke(targets, { rate: 50, durationMs: 2_000, runPrefix }));
      for (const s of load) {
        log(`  ${s.scenario}: ${s.requests} requests, ${s.errors} errors, p50 ${s.latencyMs.p50} ms, p99 ${s.latencyMs.p99} ms, thresholds ${s.thresholds.every((t) => t.ok) ? 'met' : 'BREACHED'}`);
      }
    }

    const { expectationFindings, expectationsApplied, waiverFindings: findings } = settled;
    for (const line of expectationLines(expectationsApplied)) log(line);
    for (const f of expectationFindings) log(`expectation: ${f.message}`);
    for (const f of findings) log(`waiver: ${f.message}`);
    let baselineDiff: { rule: string; before: string; after: string }[] | undefined;
    if (options.baseline) {
      const before = new Map(runResultsSchema.parse(JSON.parse(readFileSync(options.baseline, 'utf8'))).rules.map((r) => [r.id, r.outcome as string]));
      baselineDiff = ruleResults.filter((r) => (before.get(r.id) ?? 'NEW') !== r.outcome).map((r) => ({ rule: r.id, before: before.get(r.id) ?? 'NEW', after: r.outcome }));
      for (const d of baselineDiff) log(`changed since the baseline: ${d.rule} ${d.before} -> ${d.after}`);
    }
    let exitCode = stoppedBy ? EXIT.INTERRUPTED : exitCodeFor(ruleResults, config.failOn);
    if (config.strictWaivers && findings.length > 0) exitCode = EXIT.RULES_FAILED;
    if (config.strictExpectations && expectationFindings.some((f) => f.kind === 'no-longer-happens')) exitCode = EXIT.RULES_FAILED;
    const counts = countOutcomes(ruleResults);
    const costs = capabilityCosts(missing, ruleResults);
    const finished = new Date();
    const targetSummaries: TargetSummary[] = (Object.entries(targets) as [SystemName, NonNullable<Targets[SystemName]>][]).map(([system, t]) => ({
      system,
      url: t.url,
      dialect: t.dialect,
      embedded: !external,
      ...(system === 'mesh' && provisioned.mesh?.product ? { product: provisioned.mesh.product } : {}),
      ...(system !== 'mesh' && products[system] ? { product: { name: products[system].name, ...(products[system].version ? { version: products[system].version } : {}), how: products[system].how } } : {}),
    }));
    const results: RunResults = {
      ...runHeader(started, finished, { profile: config.profile, seed, runs: config.runs, command: options.command, faults: reference?.faults ?? [],
        ...(reference ? { referenceBehavior: reference.behavior } : {}),
        ...(config.expect.length ? { expect: config.expect } : {}),
        runPrefix,
        provisioning }),
      targets: targetSummaries,
      summary: {
        total: ruleResults.length,
        byOutcome: counts,
        exitCode,
        verdict: `${stoppedBy ? `INTERRUPTED (${stoppedBy})` : bailed ? `FAILED (--bail: stopped at the first FAIL, ${bailed.rule}; ${bailed.notRun.length} rule(s) not run)` : exitCode === 0 ? 'PASSED' : 'FAILED'}: ${counts.PASS} pass, ${counts.FAIL} fail, ${counts.ERROR} error, ${counts.SKIP} skip${counts.WAIVED ? `, ${counts.WAIVED} waived` : ''}${counts.EXPECTED ? `, ${counts.EXPECTED} expected (listed deviations of ${config.expect.join(', ')})` : ''}${stoppedBy ? `, ${counts.INTERRUPTED} interrupted, ${notRun.length} not run` : ''} of ${rules.length} rules`,
        ...(costs.length ? { capabilityCosts: costs } : {}),
        ...(stoppedBy ? { interrupted: { signal: stoppedBy, notRun } } : {}),
        ...(bailed ? { bailed } : {}),
      },
      rules: ruleResults,
      load,
      ...(config.waivers ? { waiverFindings: findings } : {}),
      ...(config.expect.length ? { expectationFindings, expectationsApplied } : {}),
      ...(baselineDiff ? { baselineDiff } : {}),
    };
    return { results, exitCode, secrets };
  } finally {
    clock.start('cleanup');
    // Each system's sweep touches only its own target: they run side by side, reported last made first.
    const sweeps = await Promise.all(teardowns.reverse().map(async (t) => ({ t, report: await withDeadline(t.run(), CLEANUP_DEADLINE_MS, runPrefix) })));
    for (const { t, report } of sweeps) {
      const line = `cleanup (${t.system}): removed ${report.removed.filter((w) => !isPutBack(w)).length} thing(s) made under ${runPrefix}${report.problems.length ? `; ${report.problems.length} could not be removed:` : ''}`;
      log(line);
      for (const p of report.problems.slice(0, 20)) log(`  ${p}`);
      // The results (written after this) share this list: the report says what was removed too.
      provisioning.push(line, ...report.problems.slice(0, 20));
      // What was put back rather than removed, and what the sweep has to say besides (how many CA
      // rotations the run made, which no cleanup undoes).
      for (const note of [...report.removed.filter(isPutBack).map((w) => `put back ${w}`), ...(report.notes ?? [])]) {
        log(`cleanup (${t.system}): ${note}`);
        provisioning.push(`cleanup (${t.system}): ${note}`);
      }
    }
    interrupt.dispose();
    await reference?.stop();
    clock.stop();
  }
}
