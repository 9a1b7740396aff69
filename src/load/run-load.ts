import type { SecretsTarget, StackproofConfig, Targets } from '../config/schema.ts';
import { EXIT } from '../cli/exit-codes.ts';
import { startReference, type RunningReference } from '../reference/reference.ts';
import type { LoadScenarioResult, RunResults } from '../report/results-model.ts';
import { runHeader } from '../report/run-header.ts';
import { referenceTargets } from '../run/reference-targets.ts';
import { preflight } from '../run/preflight.ts';
import { identifyTargets, identityProblems, TargetIdentityError } from '../run/target-identity.ts';
import { InterruptWatch, UnreachableTargetError } from '../run/conform.ts';
import { runClosedModel } from './autocannon-engine.ts';
import { compareWithBaseline, type Regression } from './baseline.ts';
import { runEventFanout } from './event-fanout.ts';
import { newRunPrefix } from '../provision/run-prefix.ts';
import { provisionSecretsIdentity, type ProvisionedIdentity } from '../provision/secrets-identity-provisioner.ts';
import type { Provision } from '../provision/sweep-report.ts';
import { NomadSchedulerFixtures } from '../provision/nomad-scheduler-fixtures.ts';
import { meshFixturesFor, provisionMesh, type MeshProvision } from '../provision/mesh-provisioner.ts';
import { provisionScheduler, schedulerControlHttpFor, schedulerHttpFor, type SchedulerProvision } from '../provision/scheduler-provisioner.ts';
import { isLoopback } from './loopback.ts';
import { maxInFlightFor, perClientConnectionLimit } from './connection-limits.ts';
import { resolvePrecision, runOpenModel, type ArrivalPrecision } from './open-model-runner.ts';
import { LOAD_SCENARIOS, ScenarioUnavailable } from './scenarios/catalog.ts';
import type { LoadFixtures, LoadScenario, PreparedScenario } from './scenarios/types.ts';
import { findK6, K6Missing, K6_SCRIPT, k6Schedule, runK6 } from './k6-engine.ts';
import { rowWithoutFigures } from './row-without-figures.ts';
import { k6SummarySchema, k6SummaryToResult } from './k6-summary.ts';
import { dialectFor } from '../config/dialects.ts';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PACKAGE_ROOT } from '../run/package-root.ts';
import { applyThresholds, thresholdsBreached, type ThresholdSpec } from './thresholds.ts';
import { PROGRESS_EVERY_MS, progressLine } from './load-progress.ts';
import { capStop } from './open-model-runner.ts';
import { CpuWatch } from './cpu-watch.ts';
import { findListeningProcess, type ListeningProcess } from './listening-process.ts';
import { judgeSaturation } from './saturation.ts';
import { lossLines } from '../report/load-losses.ts';
import { schedulerEventBufferSize } from './event-buffer-size.ts';

export type LoadEngine = 'open' | 'autocannon' | 'k6';

export interface LoadOptions {
  config: StackproofConfig;
  engines: LoadEngine[];
  scenarios: string[];
  rate: number;
  /** The open model's arrival timing (src/load/arrival-schedule.ts); auto unless asked (resolvePrecision). */
  arrivalPrecision?: ArrivalPrecision;
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
  /** How often a running scenario prints where it is (PROGRESS_EVERY_MS by default). */
  progressEveryMs?: number;
}

export class RemoteTargetRefused extends Error {
  readonly exitCode = EXIT.USAGE;
}

/** The line every engine prints after a run: counts, rate and latency. */
function statusLine(r: LoadScenarioResult): string {
  if (r.error) return `    ERROR ${r.error}`;
  const kinds = r.errorKinds ? ` (${Object.entries(r.errorKinds).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n} ${k}`).join(', ')})` : '';
  return `    ${r.requests} done, ${r.errors} errors${kinds}, ${r.dropped} dropped, ${r.throughput}/s, p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms, max ${r.latencyMs.max} ms${breachText(r)}${r.stoppedEarly ? `\n    ${r.stoppedEarly}` : ''}`;
}

/** How far back from the first stream that ended the CPU figures reach. */
const CPU_BEFORE_FIRST_END_MS = 2_000;

/** Whether a row lost arrivals, answers or streams, or breached a threshold: then who ran out of CPU is said. */
function lostSomething(r: LoadScenarioResult): boolean {
  return r.dropped > 0 || r.errors > 0 || Boolean(r.streams && (r.streams.endedEarly > 0 || r.streams.missed > 0)) || r.thresholds.some((t) => !t.ok);
}

/** The judged row and, where it lost something, who ran out of CPU while it ran. */
function withSaturation<R extends LoadScenarioResult>(row: R): R {
  return row.cpu && lostSomething(row) ? { ...row, saturation: judgeSaturation(row.cpu) } : row;
}

/** Under a row that lost something: why each stream ended, the CPU figures, and who ran out. */
function resourceLines(r: LoadScenarioResult): string[] {
  return lossLines(r).map((l) => `    ${l}`);
}

/** Each breached threshold with its limit and the value measured, so the terminal names the culprit. */
function breachText(r: LoadScenarioResult): string {
  const breached = r.thresholds.filter((t) => !t.ok);
  return breached.length ? ` - THRESHOLD BREACHED: ${breached.map((t) => `${t.name} ${t.actual} > ${t.limit}`).join('; ')}` : '';
}

let bundlesBuilt: Promise<unknown> | undefined;

/** A k6 row that has no figures: it carries the reason, and a failed check so the run fails. */
const k6ErrorRow = (scenario: string, rate: number, message: string) => rowWithoutFigures(scenario, 'k6', rate, 'k6 wrote a summary', message);

/** Reads the summary a k6 script wrote; a missing or malformed file is an error row, never a crash. */
async function readK6Summary(file: string, scenario: string, rate: number, code: number): Promise<LoadScenarioResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return k6ErrorRow(scenario, rate, `k6 wrote no summary (it exited with code ${code}); its output above says why`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return k6ErrorRow(scenario, rate, `k6's summary is not JSON (${(err as Error).message}); k6 exited with code ${code}`);
  }
  const parsed = k6SummarySchema.safeParse(json);
  if (!parsed.success) return k6ErrorRow(scenario, rate, `k6's summary does not have the shape the scripts write: ${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  return { ...k6SummaryToResult(parsed.data), scenario };
}

/**
 * Runs a scenario's own bundled k6 script with the scenario's settings and reads back its summary.
 * stackproof's thresholds apply to the row like to any other engine's; k6's own thresholds (the same
 * limits, in the script) show in k6's exit code, which is kept as one more check.
 */
async function runK6Scenario(scenario: LoadScenario, prepared: PreparedScenario, target: { dialect: 'spec' | 'hashicorp' }, o: LoadOptions, signal?: AbortSignal): Promise<LoadScenarioResult> {
  const binary = findK6();
  const entry = K6_SCRIPT[prepared.name];
  if (!binary) return k6ErrorRow(prepared.name, o.rate, new K6Missing().message);
  if (!entry) return k6ErrorRow(prepared.name, o.rate, `no k6 script for ${prepared.name}`);
  const schedule = k6Schedule(o.rate, o.durationMs, o.maxRequests, entry.requestsPerIteration);
  o.log(`  ${prepared.name} (k6): ${o.rate}/s for ${o.durationMs / 1000} s, at most ${o.maxRequests} requests${schedule.capped ? ` (capped: ${schedule.iterations} iterations of ${entry.requestsPerIteration} request(s), k6 runs ${schedule.durationMs / 1000} s)` : ''}`);
  bundlesBuilt ??= import(pathToFileURL(join(PACKAGE_ROOT, 'load', 'build-k6.mjs')).href).then((m: { buildK6Bundles: () => Promise<string[]> }) => m.buildK6Bundles());
  try {
    await bundlesBuilt;
  } catch (err) {
    return k6ErrorRow(prepared.name, o.rate, (err as Error).message);
  }
  const dir = await mkdtemp(join(tmpdir(), 'stackproof-k6-'));
  const resultsFile = join(dir, 'summary.json');
  // The mesh agent's and scheduler's token header follows the target's dialect; the catalog's own variables win.
  const carrier = scenario.system === 'mesh' ? dialectFor(target.dialect).mesh.token : scenario.system === 'scheduler' ? dialectFor(target.dialect).scheduler.token : undefined;
  const env = {
    ...(carrier ? { TOKEN_HEADER: carrier.header, TOKEN_SCHEME: carrier.scheme ?? '' } : {}),
    ...prepared.k6Env,
    RATE: String(o.rate),
    DURATION: `${schedule.durationMs}ms`,
    MAX_ITERATIONS: String(schedule.iterations),
    // One connection per VU: no more VUs than the product takes connections from one client.
    MAX_VUS: String(Math.max(10, Math.min(1000, perClientConnectionLimit(scenario.system, target.dialect) ? maxInFlightFor(scenario.system, target.dialect) : 1000, Math.ceil(o.rate)))),
    MAX_ERROR_RATE: String(o.thresholds.errorRate ?? 0),
    MAX_DROPPED_RATE: String(o.thresholds.droppedRate ?? 1),
    RESULTS: resultsFile,
    ...(o.thresholds.p99Ms ? { P99_MS: String(o.thresholds.p99Ms) } : {}),
  };
  // k6 gives its figures at the end: meanwhile the run says it is alive and where it is in time.
  const k6Started = performance.now();
  const heartbeat = setInterval(() => o.log(`    … ${Math.round((performance.now() - k6Started) / 1000)} s: k6 running its ${(schedule.durationMs / 1000).toFixed(1)} s at ${o.rate}/s (its counts come at its end)`), o.progressEveryMs ?? PROGRESS_EVERY_MS);
  heartbeat.unref();
  try {
    const code = await runK6(binary, join(PACKAGE_ROOT, 'load', 'dist', entry.script), env, (l) => o.log(`    k6: ${l}`), signal).finally(() => clearInterval(heartbeat));
    const row = await readK6Summary(resultsFile, prepared.name, o.rate, code);
    if (row.error) return row;
    const judged = applyThresholds(row, o.thresholds);
    // Stopped by Ctrl-C, k6 exits 105 (an external abort): the row says it was interrupted instead.
    if (signal?.aborted) return { ...judged, stoppedEarly: `interrupted after ${((performance.now() - k6Started) / 1000).toFixed(1)} s of the ${(o.durationMs / 1000).toFixed(1)} s asked` };
    // 99 is k6's "thresholds crossed"; anything else non-zero (a script error, say) fails the row too.
    return { ...judged, ...(schedule.capped ? { stoppedEarly: capStop(o.maxRequests, schedule.durationMs, o.durationMs) } : {}), thresholds: [...judged.thresholds, { name: "k6's exit code (its thresholds)", limit: 0, actual: code, ok: code === 0 }] };
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
  let scheduler: SchedulerProvision | undefined;
  let mesh: MeshProvision | undefined;
  let identity: Provision<SecretsTarget, ProvisionedIdentity> | undefined;
  const runPrefix = newRunPrefix();
  // Ctrl-C or SIGTERM: the scenario running stops starting requests, the rest are not run, and what the run made is removed.
  const interrupt = new InterruptWatch(o.log, runPrefix, 'the load');
  const stop = new AbortController();
  interrupt.onInterrupt(() => stop.abort());
  const products: Partial<Record<keyof Targets, { name: string; version?: string; how: string }>> = {};
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
    const wanted = (name: string) => o.scenarios.length === 0 || o.scenarios.includes(name);
    if (external) {
      // As conform: a wrong URL, product, dialect or token is said before any load, not counted as the product's errors.
      // Only the targets this run's scenarios load.
      const used = new Set([...LOAD_SCENARIOS.filter((sc) => wanted(sc.name)).map((sc) => sc.system), ...(wanted('scheduler-event-fanout') ? ['scheduler' as const] : [])]);
      const identities = await identifyTargets(Object.fromEntries(Object.entries(targets).filter(([system]) => used.has(system as keyof Targets))) as Targets, runPrefix);
      const problems = identityProblems(identities);
      if (problems.length) throw new TargetIdentityError(problems.join('\n'));
      for (const i of identities) if (i.product && i.system !== 'mesh') products[i.system] = { name: i.product.name, ...(i.product.version ? { version: i.product.version } : {}), how: i.product.how };
    } else {
      const down = (await preflight(targets)).filter((p) => !p.ok);
      if (down.length) throw new UnreachableTargetError(down.map((p) => `${p.system} target ${p.url} does not answer: ${p.problem}`).join('\n'));
    }
    const results: LoadScenarioResult[] = [];
    /** Credentials the scenarios made, redacted from the reports with the targets' tokens. */
    const madeSecrets: string[] = [];
    // The CPU of the target (where it listens on this machine), of the generator and of the machine, for every row.
    const listening = new Map<keyof Targets, ListeningProcess>();
    const measured = async <R extends LoadScenarioResult & { firstEndingAt?: number }>(system: keyof Targets, run: (threads: Map<number, string>) => Promise<R>): Promise<R> => {
      if (!listening.has(system)) listening.set(system, findListeningProcess(targets[system]!.url));
      const threads = new Map<number, string>();
      const watch = new CpuWatch(listening.get(system)!, () => threads);
      let row: R;
      try {
        row = await run(threads);
      } catch (err) {
        watch.stop();
        throw err;
      }
      // Where streams ended early, the figures of the seconds before the first of them: what made it fall
      // behind (later, with fewer streams to serve, the target had less to do).
      const first = row.firstEndingAt;
      return { ...row, cpu: watch.stop(first !== undefined ? { fromEpochMs: first - CPU_BEFORE_FIRST_END_MS, untilEpochMs: first + 500, about: 'the seconds up to the first stream that ended' } : undefined) };
    };
    let made: LoadFixtures = { runPrefix };
    const needsScheduler = Boolean(targets.scheduler) && (wanted('scheduler-logs') || wanted('scheduler-event-fanout'));
    const needsMesh = Boolean(targets.mesh) && wanted('mesh-authorize');
    const needsEntities = Boolean(targets.secrets) && wanted('oidc-code-flow');
    o.log(`run prefix: ${runPrefix} (what the load run makes is named under it and removed at the end; \`stackproof cleanup --prefix ${runPrefix}\` if a run is killed)`);
    if (needsScheduler) {
      ({ made, provision: scheduler } = await provisionLoadFixtures(targets, external, runPrefix, o.log));
      if (scheduler?.putBack) interrupt.onLeave('scheduler', scheduler.putBack.bind(scheduler));
    }
    if (needsMesh) {
      mesh = await provisionLoadMesh(targets, external, runPrefix, o.log);
      if (mesh.putBack) interrupt.onLeave('mesh', mesh.putBack.bind(mesh));
      made = { ...made, mesh: meshFixturesFor(mesh, runPrefix), meshMissing: mesh.provisioned.missing.meshFixtures };
    }
    if (needsEntities) {
      identity = await provisionLoadSecrets(targets, external, runPrefix, o.log);
      made = { ...made, entities: identity.provisioned.entities, entitiesMissing: identity.provisioned.missing };
    }
    for (const scenario of LOAD_SCENARIOS.filter((s) => wanted(s.name) && targets[s.system])) {
      let prepared;
      try {
        prepared = await scenario.prepare(targets, made);
      } catch (err) {
        if (err instanceof ScenarioUnavailable) {
          o.log(`  ${scenario.name}: skipped (${err.message})`);
          continue;
        }
        throw err;
      }
      madeSecrets.push(...(prepared.secrets ?? []));
      try {
        for (const engine of o.engines) {
          if (stop.signal.aborted) break;
          if (engine === 'k6') {
            const r = withSaturation(await measured(scenario.system, () => runK6Scenario(scenario, prepared, targets[scenario.system]!, o, stop.signal)));
            results.push(r);
            o.log(statusLine(r));
            for (const line of resourceLines(r)) o.log(line);
            continue;
          }
          const target = targets[scenario.system]!;
          const limit = perClientConnectionLimit(scenario.system, target.dialect);
          o.log(`  ${scenario.name} (${engine}): ${engine === 'open' ? `${o.rate}/s (${resolvePrecision(o.arrivalPrecision, o.rate)} arrival timing)${limit ? `, at most ${maxInFlightFor(scenario.system, target.dialect)} in flight (${limit.why})` : ''}` : `${o.connections} connections`} for ${o.durationMs / 1000} s, at most ${o.maxRequests} requests`);
          const raw = await measured(scenario.system, () =>
            engine === 'open'
              ? runOpenModel({
                  scenario: scenario.name,
                  rate: o.rate,
                  durationMs: o.durationMs,
                  maxRequests: o.maxRequests,
                  // The lean client sends one request per arrival; an iteration may send several.
                  requestsPerIteration: prepared.openFixed && prepared.fixed && new URL(prepared.url).protocol === 'http:' ? 1 : (prepared.requestsPerIteration ?? 1),
                  onProgress: (p) => o.log(progressLine(p)),
                  progressEveryMs: o.progressEveryMs,
                  maxInFlight: maxInFlightFor(scenario.system, targets[scenario.system]!.dialect),
                  precision: o.arrivalPrecision,
                  signal: stop.signal,
                  // Fixed requests over plain HTTP go through the lean client; anything else runs the iteration.
                  ...(prepared.openFixed && prepared.fixed && new URL(prepared.url).protocol === 'http:'
                    ? { fixed: { url: prepared.url, requests: prepared.fixed, ...prepared.openFixed, timeoutMs: 10_000 } }
                    : { request: prepared.iterate }),
                })
              : runClosedModel(prepared, { connections: o.connections, durationMs: o.durationMs, maxRequests: o.maxRequests, onProgress: (p) => o.log(progressLine(p)), progressEveryMs: o.progressEveryMs, signal: stop.signal }),
          );
          const judged = withSaturation(applyThresholds(raw, engine === 'open' ? o.thresholds : { errorRate: o.thresholds.errorRate }));
          results.push(judged);
          o.log(statusLine(judged));
          for (const line of resourceLines(judged)) o.log(line);
        }
      } finally {
        await prepared.close();
      }
      if (stop.signal.aborted) break;
    }
    if (wanted('scheduler-event-fanout') && targets.scheduler && !made.scheduler) o.log(`  scheduler-event-fanout: skipped (${made.schedulerMissing ?? 'no scheduler fixtures'})`);
    if (wanted('scheduler-event-fanout') && targets.scheduler && made.scheduler && !stop.signal.aborted) {
      const scheduler = targets.scheduler;
      const fixtures = made.scheduler;
      const eventBufferSize = await schedulerEventBufferSize(scheduler);
      o.log(`  scheduler-event-fanout: ${o.subscribers} subscribers, ${o.eventRate} job registrations/s for ${o.durationMs / 1000} s${eventBufferSize !== undefined ? ` (the target buffers ${eventBufferSize} events)` : ''}`);
      const fanoutStarted = performance.now();
      const heartbeat = setInterval(() => o.log(`    … ${Math.round((performance.now() - fanoutStarted) / 1000)} s of ${Math.round(o.durationMs / 1000)} s: registering and delivering (counts at the end)`), o.progressEveryMs ?? PROGRESS_EVERY_MS);
      heartbeat.unref();
      const f = await measured('scheduler', (threads) =>
        runEventFanout(scheduler, fixtures, { subscribers: o.subscribers, rate: o.eventRate, durationMs: o.durationMs, runPrefix, eventBufferSize, signal: stop.signal, onWorkerThreads: (tids) => tids.forEach((name, tid) => threads.set(tid, name)) }),
      ).finally(() => clearInterval(heartbeat));
      for (const p of f.problems) o.log(`    registration failed: ${p}`);
      const judged = applyThresholds(f, { p99Ms: o.thresholds.p99Ms, errorRate: o.thresholds.errorRate });
      // An event a subscriber never got, or got twice, is a wrong answer whatever the rate: limit 0. A
      // registration the generator could not start on schedule is the --max-dropped-rate kind of drop.
      const scheduled = f.published + f.skipped;
      const droppedRate = scheduled ? Math.round((f.skipped / scheduled) * 10_000) / 10_000 : 0;
      judged.thresholds.push(
        { name: 'missed deliveries', limit: 0, actual: f.missed, ok: f.missed === 0 },
        { name: 'duplicated deliveries', limit: 0, actual: f.duplicates, ok: f.duplicates === 0 },
        ...(o.thresholds.droppedRate !== undefined ? [{ name: 'dropped rate (registrations not started on schedule)', limit: o.thresholds.droppedRate, actual: droppedRate, ok: droppedRate <= o.thresholds.droppedRate }] : []),
      );
      const row = withSaturation(judged);
      results.push(row);
      o.log(`    ${f.published} events published, ${f.requests} delivered (${f.throughput}/s; per subscriber ${summarise(f.deliveredPerSubscriber)}), missed ${f.missed}, duplicated ${f.duplicates}, registrations not started ${f.skipped}, delivery p50 ${judged.latencyMs.p50} ms, p99 ${judged.latencyMs.p99} ms, max ${judged.latencyMs.max} ms${breachText(judged)}`);
      for (const line of resourceLines(row)) o.log(line);
    }
    const regressions = o.baseline ? await compareWithBaseline(results, o.baseline, o.tolerance) : [];
    for (const r of regressions) o.log(`  REGRESSION ${r.scenario} (${r.engine}): ${r.metric} ${r.baseline} -> ${r.current} (${Math.round(r.change * 100)}% worse)`);
    const breached = thresholdsBreached(results) || regressions.length > 0;
    const finished = new Date();
    const stoppedBy = interrupt.signal;
    const exitCode = stoppedBy ? EXIT.INTERRUPTED : breached ? EXIT.THRESHOLD : EXIT.OK;
    const secrets = [...Object.values(targets).flatMap((t) => (t ? [t.token] : [])), ...madeSecrets];
    const res: RunResults = {
      ...runHeader(started, finished, { profile: o.config.profile, seed: 0, runs: 0, command: o.command, faults: [] }),
      targets: Object.entries(targets).flatMap(([system, t]) => {
        const product = system === 'mesh' && mesh?.provisioned.product ? mesh.provisioned.product : products[system as keyof Targets];
        return t ? [{ system: system as 'secrets', url: t.url, dialect: t.dialect, embedded: !external, ...(product ? { product } : {}) }] : [];
      }),
      summary: {
        total: 0,
        byOutcome: { PASS: 0, FAIL: 0, SKIP: 0, ERROR: 0, WAIVED: 0 },
        exitCode,
        ...(stoppedBy ? { interrupted: { signal: stoppedBy, notRun: [] } } : {}),
        verdict: `${stoppedBy ? `INTERRUPTED (${stoppedBy})` : breached ? 'FAILED' : 'PASSED'}: ${results.length} load scenario run(s), ${results.filter((r) => r.thresholds.some((t) => !t.ok)).length} breaching a threshold${o.baseline ? `, ${regressions.length} regression(s) against the baseline` : ''}`,
      },
      rules: [],
      load: results,
      regressions,
    };
    return { results: res, exitCode, secrets, regressions };
  } finally {
    if (identity) {
      const report = await identity.teardown();
      o.log(`cleanup (secrets): removed ${report.removed.length} thing(s) made under ${runPrefix}${report.problems.length ? `; ${report.problems.length} could not be removed:` : ''}`);
      for (const p of report.problems.slice(0, 20)) o.log(`  ${p}`);
    }
    if (mesh) {
      const report = await mesh.teardown();
      o.log(`cleanup (mesh): removed ${report.removed.length} thing(s) made under ${runPrefix}${report.problems.length ? `; ${report.problems.length} could not be removed:` : ''}`);
      for (const p of report.problems.slice(0, 20)) o.log(`  ${p}`);
    }
    if (scheduler) {
      const report = await scheduler.teardown();
      o.log(`cleanup (scheduler): removed ${report.removed.length} thing(s) made under ${runPrefix}${report.problems.length ? `; ${report.problems.length} could not be removed:` : ''}`);
      for (const p of report.problems.slice(0, 20)) o.log(`  ${p}`);
    }
    interrupt.dispose();
    await reference?.stop();
  }
}

/**
 * Provisions the scheduler fixtures the load scenarios act through, as conform does: the embedded
 * reference's control listener, a real agent's own API otherwise. The provision's teardown removes
 * what the run made.
 */
export async function provisionLoadFixtures(targets: Targets, external: boolean, runPrefix: string, log: (line: string) => void): Promise<{ made: LoadFixtures; provision?: SchedulerProvision }> {
  if (!targets.scheduler) return { made: { runPrefix } };
  const t = external ? targets.scheduler : { ...targets.scheduler, provisioner: targets.scheduler.provisioner ?? 'control' };
  const provision = await provisionScheduler(t, runPrefix);
  for (const line of provision.lines) log(line);
  return { made: { runPrefix, scheduler: schedulerFixturesFor(provision, runPrefix), schedulerMissing: provision.provisioned.missing.schedulerFixtures }, provision };
}

/**
 * The mesh fixtures for the authorize scenario's intention, as conform makes them: Consul's own API
 * in the hashicorp dialect (the version decides how intentions are made), the embedded reference's
 * control listener otherwise. Only the provisioner's product line is said; its list of what the
 * conformance rules would miss is theirs.
 */
export async function provisionLoadMesh(targets: Targets, external: boolean, runPrefix: string, log: (line: string) => void): Promise<MeshProvision> {
  const t = external ? targets.mesh! : { ...targets.mesh!, provisioner: targets.mesh!.provisioner ?? 'control' };
  const provision = await provisionMesh(t, runPrefix);
  // The product line only: the rest lists what the conformance rules would make and miss.
  for (const line of provision.lines.filter((l) => l.startsWith('mesh product'))) log(line);
  const { provisioner } = provision.provisioned;
  log(provisioner === 'none' ? `mesh fixtures: none (${provision.provisioned.missing.meshFixtures})` : `mesh fixtures: the authorize scenario's intention through ${provisioner === 'upstream' ? "Consul's API" : 'the control listener'}, under the run prefix`);
  return provision;
}

/**
 * The identity entities the OIDC code flow logs in as, as conform has them: through Vault's admin
 * API on a hashicorp-dialect target (a userpass auth method under the run prefix), the embedded
 * reference's control listener otherwise. The teardown removes them and what the scenario made.
 */
export async function provisionLoadSecrets(targets: Targets, external: boolean, runPrefix: string, log: (line: string) => void): Promise<Provision<SecretsTarget, ProvisionedIdentity>> {
  const t = external ? targets.secrets! : { ...targets.secrets!, provisioner: targets.secrets!.provisioner ?? 'control' };
  const provision = await provisionSecretsIdentity(t, runPrefix);
  for (const line of provision.lines) log(line);
  return provision;
}

/** The scheduler fixtures through whichever API the provisioner chose (none: the scheduler scenarios skip, saying why). */
function schedulerFixturesFor(p: SchedulerProvision, runPrefix: string): NomadSchedulerFixtures | undefined {
  const { provisioner, nodeId } = p.provisioned;
  if (provisioner === 'none' || !nodeId) return undefined;
  const http = provisioner === 'upstream' ? schedulerHttpFor(p.target) : schedulerControlHttpFor(p.target.fixtures!);
  return new NomadSchedulerFixtures(http, { nodeId, runPrefix, metadataHttp: provisioner === 'upstream' ? undefined : schedulerHttpFor(p.target) });
}

/** Per-subscriber counts in a line: "50 each" when they agree, else the lowest and highest. */
function summarise(counts: number[]): string {
  const min = Math.min(...counts);
  const max = Math.max(...counts);
  return min === max ? `${min} each` : `${min} to ${max}`;
}
