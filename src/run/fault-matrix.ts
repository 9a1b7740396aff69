import type { DialectName } from '../config/dialects.ts';
import type { SystemName } from '../config/schema.ts';
import { referenceTargets } from './reference-targets.ts';
import { FAULTS } from '../reference/faults/catalog.ts';
import type { Fault } from '../reference/faults/types.ts';
import { startReference } from '../reference/reference.ts';
import type { Outcome } from '../report/results-model.ts';
import { RULES, ruleById } from '../rules/catalog.ts';
import type { Rule } from '../rules/types.ts';
import { ConformanceRunner } from './conformance-runner.ts';
import { newRunPrefix } from '../provision/run-prefix.ts';
import { provisionMesh } from '../provision/mesh-provisioner.ts';
import { provisionSecrets } from '../provision/secrets-provisioner.ts';
import { provisionScheduler } from '../provision/scheduler-provisioner.ts';
import type { SuiteContext } from './suite-context.ts';

export interface FaultVerdict {
  fault: string;
  system: SystemName;
  description: string;
  breaks: string[];
  /** True when every rule the fault breaks was reported FAIL. */
  caught: boolean;
  outcomes: { rule: string; outcome: Outcome; message?: string }[];
  durationMs: number;
  /**
   * The ERRORs of a first run that was repeated: an ERROR is a bound that ran out (a loaded
   * machine), not a fault the rule let through, so such a run is made once more. A PASS is never.
   */
  erroredFirst?: { rule: string; message?: string }[];
}

export interface FaultMatrixReport {
  dialect: DialectName;
  seed: number;
  runs: number;
  /** With no fault on, every selected rule must PASS. */
  baseline: { allPass: boolean; outcomes: { rule: string; outcome: Outcome; message?: string }[] };
  faults: FaultVerdict[];
  allCaught: boolean;
}

export interface FaultMatrixOptions {
  faults?: readonly Fault[];
  rules?: readonly Rule[];
  dialect: DialectName;
  runs: number;
  seed: number;
  testTimeoutMs: number;
  requestTimeoutMs: number;
  log: (line: string) => void;
  /** Run the no-fault baseline (a shard of a parallel matrix leaves it to the parent). */
  baseline?: boolean;
  /**
   * Who makes the fixtures: the control listener (default), or the upstream provisioners through
   * the reference's Vault, Consul and Nomad APIs (hashicorp dialect), as on a real product: then a
   * fault must be caught through the fixtures a real Vault, Consul or Nomad gives.
   */
  fixtures?: 'control' | 'upstream';
}

/**
 * Starts the reference once with no fault and once per fault, runs the suites of the rules each
 * fault breaks, and reports whether the suites caught it (FAIL on every rule it breaks).
 */
export async function runFaultMatrix(options: FaultMatrixOptions): Promise<FaultMatrixReport> {
  const faults = options.faults ?? FAULTS;
  const baselineRules = options.rules ?? RULES.filter((r) => r.level !== 'UPSTREAM');
  const runner = await ConformanceRunner.create({ testTimeoutMs: options.testTimeoutMs, sideBySide: false });
  const runWith = async (faultIds: string[], rules: readonly Rule[]) => {
    const ref = await startReference({ dialect: options.dialect, faults: faultIds });
    const runPrefix = newRunPrefix();
    const teardowns: (() => Promise<unknown>)[] = [];
    try {
      let targets = referenceTargets(ref);
      const provisioned: NonNullable<SuiteContext['provisioned']> = {};
      if (options.fixtures === 'upstream') {
        // As a real Vault, Consul and Nomad are seen: no control fixtures, nothing declared that the admin APIs can make.
        const { fixtures: _f, oidcAltKey: _k, ...secrets } = targets.secrets!;
        const s = await provisionSecrets({ ...secrets, provisioner: 'upstream', capabilities: { ...secrets.capabilities, identityFixtures: false, kvV2: false } }, runPrefix);
        const { fixtures: _m, ...mesh } = targets.mesh!;
        const m = await provisionMesh({ ...mesh, provisioner: 'upstream', capabilities: { ...mesh.capabilities, meshFixtures: false } }, runPrefix);
        const { fixtures: _s, ...scheduler } = targets.scheduler!;
        const sc = await provisionScheduler({ ...scheduler, provisioner: 'upstream', capabilities: { ...scheduler.capabilities, schedulerFixtures: false } }, runPrefix);
        teardowns.push(s.teardown, m.teardown, sc.teardown);
        targets = { ...targets, secrets: s.target, mesh: m.target, scheduler: sc.target };
        Object.assign(provisioned, { secrets: s.provisioned, mesh: m.provisioned, scheduler: sc.provisioned });
      }
      const context: SuiteContext = {
        targets,
        profile: rules.some((r) => r.level === 'UPSTREAM') ? 'strict' : 'default',
        runs: options.runs,
        seed: options.seed,
        requestTimeoutMs: options.requestTimeoutMs,
        secrets: [ref.secrets.token, ref.mesh.token, ref.scheduler.token, ref.control.token],
        runPrefix,
        provisioned,
      };
      return await runner.run(context, rules);
    } finally {
      for (const t of teardowns) await t().catch(() => undefined);
      await ref.stop();
    }
  };
  try {
    const baselineResults = options.baseline === false ? [] : await runWith([], baselineRules);
    const baseline = {
      allPass: baselineResults.every((r) => r.outcome === 'PASS'),
      outcomes: baselineResults.map((r) => ({ rule: r.id, outcome: r.outcome, message: r.message })),
    };
    if (options.baseline !== false) {
      options.log(`baseline (no fault): ${baselineResults.filter((r) => r.outcome === 'PASS').length}/${baselineResults.length} rules pass`);
      // A baseline that does not pass makes every verdict below doubtful: say which rule and why.
      for (const r of baselineResults.filter((x) => x.outcome !== 'PASS')) options.log(`  baseline ${r.outcome} ${r.id}: ${(r.message ?? '').split('\n')[0]!.slice(0, 300)}`);
    }
    const verdicts: FaultVerdict[] = [];
    for (const fault of faults) {
      const started = performance.now();
      const rules = fault.breaks.map((id) => ruleById(id)).filter((r): r is Rule => Boolean(r));
      let results = await runWith([fault.id], rules);
      let erroredFirst: FaultVerdict['erroredFirst'];
      if (results.some((r) => r.outcome === 'ERROR') && results.every((r) => r.outcome === 'FAIL' || r.outcome === 'ERROR')) {
        erroredFirst = results.filter((r) => r.outcome === 'ERROR').map((r) => ({ rule: r.id, message: r.message }));
        options.log(`  ERROR    ${fault.id} -> ${erroredFirst.map((e) => `${e.rule}: ${(e.message ?? '').split('\n')[0]!.slice(0, 200)}`).join('; ')}; run once more`);
        results = await runWith([fault.id], rules);
      }
      const caught = rules.length > 0 && results.every((r) => r.outcome === 'FAIL');
      const verdict: FaultVerdict = {
        fault: fault.id,
        system: fault.system,
        description: fault.description,
        breaks: fault.breaks,
        caught,
        outcomes: results.map((r) => ({ rule: r.id, outcome: r.outcome, message: r.message })),
        durationMs: Math.round(performance.now() - started),
        ...(erroredFirst ? { erroredFirst } : {}),
      };
      verdicts.push(verdict);
      options.log(`  ${caught ? 'caught ' : 'MISSED '} ${fault.id} -> ${results.map((r) => `${r.id} ${r.outcome}`).join(', ')}`);
    }
    return {
      dialect: options.dialect,
      seed: options.seed,
      runs: options.runs,
      baseline,
      faults: verdicts,
      allCaught: baseline.allPass && verdicts.every((v) => v.caught),
    };
  } finally {
    await runner.close();
  }
}
