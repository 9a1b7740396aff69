import type { StackproofConfig, Targets } from '../config/schema.ts';
import { EXIT } from '../cli/exit-codes.ts';
import { startReference, type RunningReference } from '../reference/reference.ts';
import { loadScenarioResultSchema, type LoadScenarioResult, type RunResults } from '../report/results-model.ts';
import { runHeader } from '../report/run-header.ts';
import { referenceTargets } from '../run/reference-targets.ts';
import { preflight } from '../run/preflight.ts';
import { UnreachableTargetError } from '../run/conform.ts';
import { runClosedModel } from './autocannon-engine.ts';
import { compareWithBaseline, type Regression } from './baseline.ts';
import { runEventFanout } from './event-fanout.ts';
import { isLoopback } from './loopback.ts';
import { runOpenModel } from './open-model-runner.ts';
import { LOAD_SCENARIOS, ScenarioUnavailable } from './scenarios/catalog.ts';
import type { PreparedScenario } from './scenarios/types.ts';
import { findK6, K6_SCRIPT, runK6 } from './k6-engine.ts';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PACKAGE_ROOT } from '../run/package-root.ts';
import { applyThresholds, thresholdsBreached, type ThresholdSpec } from './thresholds.ts';

export type LoadEngine = 'open' | 'autocannon' | 'k6';

export interface LoadOptions {
  config: StackproofConfig;
  engines: LoadEngine[];
  scenarios: string[];
  rate: number;
  durationMs: number;
  maxRequests: number;
  connections: number;
  subscribers: number;
  eventRate: number;
  thresholds: ThresholdSpec;
  baseline?: string;
  tolerance: number;
  allowRemote: boolean;
  command: string;
  log: (line: string) => void;
}

export class RemoteTargetRefused extends Error {}

/**
 * Runs a scenario's bundled k6 script with the scenario's settings and reads back its summary. k6
 * exits non-zero when one of the script's thresholds fails; that becomes a breached threshold here.
 */
async function runK6Scenario(prepared: PreparedScenario, o: LoadOptions): Promise<LoadScenarioResult | undefined> {
  const binary = findK6();
  const script = K6_SCRIPT[prepared.name];
  if (!binary || !script) {
    o.log(`    no k6 script for ${prepared.name}`);
    return undefined;
  }
  const { buildK6Bundles } = (await import(pathToFileURL(join(PACKAGE_ROOT, 'load', 'build-k6.mjs')).href)) as { buildK6Bundles: () => Promise<string[]> };
  await buildK6Bundles();
  const dir = await mkdtemp(join(tmpdir(), 'stackproof-k6-'));
  const resultsFile = join(dir, 'summary.json');
  try {
    const code = await runK6(binary, join(PACKAGE_ROOT, 'load', 'dist', script), { ...prepared.k6Env, RATE: String(o.rate), DURATION: `${Math.round(o.durationMs / 1000)}s`, RESULTS: resultsFile, ...(o.thresholds.p99Ms ? { P99_MS: String(o.thresholds.p99Ms) } : {}) }, (l) => o.log(`    k6: ${l}`));
    const summary = JSON.parse(await readFile(resultsFile, 'utf8')) as { load: LoadScenarioResult[] };
    const r = loadScenarioResultSchema.parse({ ...summary.load[0], scenario: prepared.name });
    return { ...r, thresholds: [{ name: "k6's thresholds", limit: 0, actual: code, ok: code === 0 }] };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A bounded load run: every selected scenario with every selected engine (each capped by duration
 * and request count), the event fan-out, thresholds and a baseline comparison.
 */
export async function runLoad(o: LoadOptions): Promise<{ results: RunResults; exitCode: number; secrets: string[]; regressions: Regression[] }> {
  const started = new Date();
  const external = Object.values(o.config.targets).some(Boolean);
  let reference: RunningReference | undefined;
  try {
    let targets: Targets;
    if (external) targets = o.config.targets;
    else {
      reference = await startReference({ dialect: o.config.referenceDialect });
      targets = referenceTargets(reference);
      o.log(`reference: started on loopback (dialect ${reference.dialect})`);
    }
    const remote = Object.entries(targets).filter(([, t]) => t && !isLoopback(t.url));
    if (remote.length && !o.allowRemote) {
      throw new RemoteTargetRefused(`load goes only to loopback unless --allow-remote is given; not loopback: ${remote.map(([s, t]) => `${s} ${t!.url}`).join(', ')}`);
    }
    const down = (await preflight(targets)).filter((p) => !p.ok);
    if (down.length) throw new UnreachableTargetError(down.map((p) => `${p.system} target ${p.url} does not answer: ${p.problem}`).join('\n'));
    const results: LoadScenarioResult[] = [];
    const wanted = (name: string) => o.scenarios.length === 0 || o.scenarios.includes(name);
    for (const scenario of LOAD_SCENARIOS.filter((s) => wanted(s.name) && targets[s.system])) {
      let prepared;
      try {
        prepared = await scenario.prepare(targets);
      } catch (err) {
        if (err instanceof ScenarioUnavailable) {
          o.log(`  ${scenario.name}: skipped (${err.message})`);
          continue;
        }
        throw err;
      }
      try {
        for (const engine of o.engines) {
          o.log(`  ${scenario.name} (${engine}): ${engine === 'open' ? `${o.rate}/s` : `${o.connections} connections`} for ${o.durationMs / 1000} s, at most ${o.maxRequests} requests`);
          if (engine === 'k6') {
            const r = await runK6Scenario(prepared, o);
            if (r) results.push(r);
            continue;
          }
          const raw =
            engine === 'open'
              ? await runOpenModel({ scenario: scenario.name, rate: o.rate, durationMs: o.durationMs, maxRequests: o.maxRequests, maxInFlight: 256, request: prepared.iterate })
              : await runClosedModel(prepared, { connections: o.connections, durationMs: o.durationMs, maxRequests: o.maxRequests });
          const judged = applyThresholds(raw, engine === 'open' ? o.thresholds : { errorRate: o.thresholds.errorRate });
          results.push(judged);
          o.log(`    ${judged.requests} done, ${judged.errors} errors, ${judged.dropped} dropped, ${judged.throughput}/s, p50 ${judged.latencyMs.p50} ms, p99 ${judged.latencyMs.p99} ms, max ${judged.latencyMs.max} ms${judged.thresholds.some((t) => !t.ok) ? ' - THRESHOLD BREACHED' : ''}`);
        }
      } finally {
        await prepared.close();
      }
    }
    if (wanted('scheduler-event-fanout') && targets.scheduler?.fixtures) {
      o.log(`  scheduler-event-fanout: ${o.subscribers} subscribers, ${o.eventRate} events/s for ${o.durationMs / 1000} s`);
      const f = await runEventFanout(targets.scheduler, { subscribers: o.subscribers, rate: o.eventRate, durationMs: o.durationMs });
      const judged = applyThresholds(f, { p99Ms: o.thresholds.p99Ms, errorRate: o.thresholds.errorRate, droppedRate: 0 });
      judged.thresholds.push({ name: 'duplicated deliveries', limit: 0, actual: f.duplicates, ok: f.duplicates === 0 });
      results.push(judged);
      o.log(`    ${f.published} events published, ${f.requests} delivered (${f.throughput}/s), missed ${f.missed}, duplicated ${f.duplicates}, delivery p50 ${f.latencyMs.p50} ms, p99 ${f.latencyMs.p99} ms, max ${f.latencyMs.max} ms`);
    }
    const regressions = o.baseline ? await compareWithBaseline(results, o.baseline, o.tolerance) : [];
    for (const r of regressions) o.log(`  REGRESSION ${r.scenario} (${r.engine}): ${r.metric} ${r.baseline} -> ${r.current} (${Math.round(r.change * 100)}% worse)`);
    const breached = thresholdsBreached(results) || regressions.length > 0;
    const finished = new Date();
    const exitCode = breached ? EXIT.THRESHOLD : EXIT.OK;
    const secrets = Object.values(targets).flatMap((t) => (t ? [t.token] : []));
    const res: RunResults = {
      ...runHeader(started, finished, { profile: o.config.profile, seed: 0, runs: 0, command: o.command, faults: [] }),
      targets: Object.entries(targets).flatMap(([system, t]) => (t ? [{ system: system as 'secrets', url: t.url, dialect: t.dialect, embedded: !external }] : [])),
      summary: {
        total: 0,
        byOutcome: { PASS: 0, FAIL: 0, SKIP: 0, ERROR: 0, WAIVED: 0 },
        exitCode,
        verdict: `${breached ? 'FAILED' : 'PASSED'}: ${results.length} load scenario run(s), ${results.filter((r) => r.thresholds.some((t) => !t.ok)).length} breaching a threshold${o.baseline ? `, ${regressions.length} regression(s) against the baseline` : ''}`,
      },
      rules: [],
      load: results,
      regressions,
    };
    return { results: res, exitCode, secrets, regressions };
  } finally {
    await reference?.stop();
  }
}
