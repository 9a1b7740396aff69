import { relative } from 'node:path';
import { loadConfig } from '../../config/load-config.ts';
import { findK6, K6Missing, K6_SCRIPT } from '../../load/k6-engine.ts';
import { LOAD_SCENARIOS } from '../../load/scenarios/catalog.ts';
import { runLoad, type LoadEngine } from '../../load/run-load.ts';
import type { ArrivalPrecision } from '../../load/open-model-runner.ts';
import { writeReports } from '../../report/write-reports.ts';
import { ConfigError } from '../../config/load-config.ts';
import { EXIT } from '../exit-codes.ts';
import { flagsToConfig, type CommonFlags } from '../flags.ts';

export interface LoadFlags extends CommonFlags {
  engine: string;
  scenario?: string;
  rate: string;
  arrivalPrecision: string;
  duration: string;
  maxRequests: string;
  progressInterval?: string;
  connections: string;
  subscribers: string;
  eventRate: string;
  p99?: string;
  maxErrorRate: string;
  maxDroppedRate: string;
  baseline?: string;
  tolerance: string;
  allowRemote?: boolean;
  fromPrometheus?: string;
  testrun?: string;
  since: string;
}

function positive(name: string, raw: string, max: number): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || n > max) throw new ConfigError(`--${name}: expected a number in (0, ${max}], got ${JSON.stringify(raw)}`);
  return n;
}

function durationMs(raw: string, flag = 'duration'): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(raw.trim());
  if (!m) throw new ConfigError(`--${flag}: expected e.g. 10s, 2m or 500ms, got ${JSON.stringify(raw)}`);
  const ms = Number(m[1]) * { ms: 1, s: 1000, m: 60_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm'];
  if (ms <= 0 || ms > 3_600_000) throw new ConfigError(`--${flag}: more than 0 and at most one hour`);
  return ms;
}

function arrivalPrecision(raw: string): ArrivalPrecision {
  if (raw !== 'auto' && raw !== 'fine' && raw !== 'coarse') throw new ConfigError(`--arrival-precision: expected auto, fine or coarse, got ${JSON.stringify(raw)}`);
  return raw;
}

/**
 * The fan-out has no k6 script: it is a streaming fan-out, and k6's http reads whole bodies, so it
 * cannot time each event as it arrives. Its own runner, stackproof's stream subscribers, is not k6:
 * named with --engine k6 it is refused before any traffic rather than run on them under k6's name.
 */
function refuseWithoutK6Script(asked: string[]): void {
  const noScript = asked.filter((sc) => !(sc in K6_SCRIPT));
  if (noScript.length) throw new ConfigError(`--engine k6: ${noScript.join(', ')} has no k6 script (a streaming fan-out, which k6's http cannot time event by event); run it with --engine open, which runs stackproof's own stream subscribers`);
}

/** Asked for no scenario in particular, a k6 run leaves the fan-out out unless the open engine runs too, and says so. */
function defaultK6Scenarios(engines: string[], log: (line: string) => void): string[] {
  if (engines.includes('open')) return [];
  log("scheduler-event-fanout: not run, it has no k6 script (`--engine open --scenario scheduler-event-fanout` runs it on stackproof's own stream subscribers)");
  return LOAD_SCENARIOS.map((sc) => sc.name);
}

export async function runLoadCommand(flags: LoadFlags, argvText: string): Promise<number> {
  if (flags.fromPrometheus) {
    const { runLoadFromPrometheus } = await import('./load-from-prometheus.ts');
    return runLoadFromPrometheus({ ...flags, fromPrometheus: flags.fromPrometheus }, argvText);
  }
  const config = loadConfig({ file: flags.config, env: process.env, flags: flagsToConfig(flags) });
  const engines = flags.engine.split(',').map((e) => e.trim());
  // A typo is a usage error naming the known names, never a run of nothing that passes.
  const scenarios = flags.scenario ? flags.scenario.split(',').map((s) => s.trim()).filter(Boolean) : [];
  const known = [...LOAD_SCENARIOS.map((sc) => sc.name), 'scheduler-event-fanout'];
  const unknown = scenarios.filter((sc) => !known.includes(sc));
  if (unknown.length) throw new ConfigError(`--scenario: ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not a load scenario; the scenarios are ${known.join(', ')}`);
  for (const e of engines) if (!['open', 'autocannon', 'k6'].includes(e)) throw new ConfigError(`--engine: ${e} is not one of open, autocannon, k6`);
  const log = (line: string) => process.stdout.write(`${line}\n`);
  if (engines.includes('k6')) {
    refuseWithoutK6Script(scenarios);
    const k6 = findK6();
    if (!k6) {
      process.stderr.write(`stackproof: ${new K6Missing().message}\n`);
      return EXIT.USAGE;
    }
    log(`k6 found at ${k6}; the k6 engine runs the bundles in load/dist (see README, "Distributed load with k6").`);
  }
  const selected = engines.includes('k6') && scenarios.length === 0 ? defaultK6Scenarios(engines, log) : scenarios;
  const { results, exitCode, secrets } = await runLoad({
    config,
    engines: engines as LoadEngine[],
    scenarios: selected,
    rate: positive('rate', flags.rate, 100_000),
    arrivalPrecision: arrivalPrecision(flags.arrivalPrecision),
    durationMs: durationMs(flags.duration),
    maxRequests: positive('max-requests', flags.maxRequests, 10_000_000),
    connections: positive('connections', flags.connections, 10_000),
    subscribers: positive('subscribers', flags.subscribers, 10_000),
    eventRate: positive('event-rate', flags.eventRate, 100_000),
    thresholds: {
      p99Ms: flags.p99 === undefined ? undefined : positive('p99', flags.p99, 3_600_000),
      errorRate: Number(flags.maxErrorRate),
      droppedRate: Number(flags.maxDroppedRate),
    },
    baseline: flags.baseline,
    tolerance: Number(flags.tolerance),
    allowRemote: Boolean(flags.allowRemote),
    command: `stackproof ${argvText}`.trim(),
    log,
    progressEveryMs: durationMs(flags.progressInterval ?? '5s', 'progress-interval'),
  });
  const paths = await writeReports(results, config.reportsDir, secrets);
  log('');
  log(results.summary.verdict);
  log(`reports: ${relative(process.cwd(), paths.html) || paths.html} (also results.json and junit.xml)`);
  return exitCode;
}
