import type { DialectName } from '../../src/config/dialects.ts';
import type { SystemName, Targets } from '../../src/config/schema.ts';
import { provisionMesh } from '../../src/provision/mesh-provisioner.ts';
import { newRunPrefix } from '../../src/provision/run-prefix.ts';
import { provisionScheduler } from '../../src/provision/scheduler-provisioner.ts';
import { provisionSecrets } from '../../src/provision/secrets-provisioner.ts';
import type { SweepReport } from '../../src/provision/sweep-report.ts';
import { startReference } from '../../src/reference/reference.ts';
import type { RuleResult } from '../../src/report/results-model.ts';
import type { Rule } from '../../src/rules/types.ts';
import { ConformanceRunner } from '../../src/run/conformance-runner.ts';
import { referenceTargets } from '../../src/run/reference-targets.ts';
import type { SuiteContext } from '../../src/run/suite-context.ts';

export interface AloneRun {
  result?: Omit<RuleResult, 'replay'>;
  /** What the run did, as conform logs it: the reference, the fixtures, the cleanup. */
  log: string[];
  durationMs: number;
  /** Milliseconds by phase: reference, fixtures, rule, cleanup. */
  phases: Record<string, number>;
  /** The run itself broke (not the rule): the reference did not start, a provisioner threw. */
  error?: string;
}

export interface AloneOptions {
  seed: number;
  runs: number;
  requestTimeoutMs?: number;
}

/**
 * One lane of rule-alone runs: each run starts a fresh embedded reference and makes its fixtures
 * exactly as conform() does (src/run/conform.ts: startReference, referenceTargets, the control
 * listener's provisioners, the same SuiteContext, the sweep at the end), and runs one rule.
 *
 * What it does not redo per run is conform()'s new vitest: one ConformanceRunner serves the lane's
 * runs, as it serves the fault matrix's. Measured one after another in one process: conform() took
 * 7.5-13 s for a one-rule mesh run (its suites phase 4.9-7.6 s, the new vitest transforming the
 * suites again), a lane 3-6 s (1.4-1.9 s of it the runner's run: vitest still starts a new worker
 * for each run), for a rule that itself takes 0.05-0.4 s. A lane runs one rule at a time; lanes run
 * side by side.
 */
export class RuleAloneLane {
  private constructor(private readonly runner: ConformanceRunner) {}

  static async create(testTimeoutMs = 60_000): Promise<RuleAloneLane> {
    return new RuleAloneLane(await ConformanceRunner.create({ testTimeoutMs }));
  }

  async run(rule: Rule, dialect: DialectName, options: AloneOptions): Promise<AloneRun> {
    const log: string[] = [];
    const started = performance.now();
    const phases: Record<string, number> = {};
    let phaseStarted = started;
    const phase = (name: string) => {
      const now = performance.now();
      phases[name] = Math.round(now - phaseStarted);
      phaseStarted = now;
    };
    let outcome: Pick<AloneRun, 'result' | 'error'> = {};
    const systems: SystemName[] = [rule.system];
    const runPrefix = newRunPrefix();
    const teardowns: { system: SystemName; run: () => Promise<SweepReport> }[] = [];
    let reference: Awaited<ReturnType<typeof startReference>> | undefined;
    try {
      reference = await startReference({ dialect });
      log.push(`reference: started on loopback (dialect ${reference.dialect})`);
      phase('reference');
      let targets: Targets = referenceTargets(reference, systems);
      const provisioned: NonNullable<SuiteContext['provisioned']> = {};
      const own = <T extends { provisioner?: string }>(t: T): T => ({ ...t, provisioner: t.provisioner ?? 'control' });
      if (targets.secrets) {
        const p = await provisionSecrets(own(targets.secrets), runPrefix);
        teardowns.push({ system: 'secrets', run: p.teardown });
        log.push(...p.lines);
        targets = { ...targets, secrets: p.target };
        provisioned.secrets = p.provisioned;
      }
      if (targets.mesh) {
        const p = await provisionMesh(own(targets.mesh), runPrefix);
        teardowns.push({ system: 'mesh', run: p.teardown });
        log.push(...p.lines);
        targets = { ...targets, mesh: p.target };
        provisioned.mesh = p.provisioned;
      }
      if (targets.scheduler) {
        const p = await provisionScheduler(own(targets.scheduler), runPrefix);
        teardowns.push({ system: 'scheduler', run: p.teardown });
        log.push(...p.lines);
        targets = { ...targets, scheduler: p.target };
        provisioned.scheduler = p.provisioned;
      }
      const secrets = [
        ...Object.values(targets).flatMap((t) => (t ? [t.token] : [])),
        ...(targets.secrets?.fixtures?.controlToken ? [targets.secrets.fixtures.controlToken] : []),
        ...(targets.scheduler?.fixtures ? [targets.scheduler.fixtures.controlToken] : []),
      ];
      const context: SuiteContext = {
        targets,
        profile: rule.level === 'UPSTREAM' ? 'strict' : 'default',
        runs: options.runs,
        seed: options.seed,
        requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
        secrets,
        runPrefix,
        provisioned,
      };
      phase('fixtures');
      const results = await this.runner.run(context, [rule]);
      phase('rule');
      outcome = results.length === 1 && results[0]!.id === rule.id ? { result: results[0] } : { error: `the run judged ${results.map((r) => r.id).join(', ') || 'no rule'}, not ${rule.id} alone` };
    } catch (err) {
      outcome = { error: (err as Error).stack ?? String(err) };
    } finally {
      for (const t of teardowns.reverse()) {
        const report = await t.run().catch((err: unknown) => ({ removed: [], problems: [`cleanup failed: ${(err as Error).message}`] }));
        log.push(`cleanup (${t.system}): removed ${report.removed.length} thing(s) made under ${runPrefix}${report.problems.length ? `; could not remove: ${report.problems.join('; ')}` : ''}`);
      }
      await reference?.stop();
      phase('cleanup');
    }
    return { log, phases, durationMs: Math.round(performance.now() - started), ...outcome };
  }

  async close(): Promise<void> {
    await this.runner.close();
  }
}
