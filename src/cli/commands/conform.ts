import { relative } from 'node:path';
import { readFileSync } from 'node:fs';
import { ConfigError, ENV_VARIABLES, loadConfig } from '../../config/load-config.ts';
import { runResultsSchema } from '../../report/results-model.ts';
import { NoRulesSelectedError } from '../../run/conform.ts';
import { writeReports } from '../../report/write-reports.ts';
import { noVerdictLines } from '../../report/skip-summary.ts';
import { applySkipShare } from '../../run/exit-policy.ts';
import { conform } from '../../run/conform.ts';
import type { Invocation } from '../../run/invocation.ts';
import { PhaseClock } from '../../run/phase-clock.ts';
import { capabilityCostLines } from '../../run/capability-cost.ts';
import { flagsToConfig, flagTargets, type CommonFlags } from '../flags.ts';

export interface ConformFlags extends CommonFlags {
  referenceFault?: string[];
  loadSmoke?: boolean;
  baseline?: string;
  rerunFailed?: string;
  bail?: boolean;
  oneAtATime?: boolean;
}

export async function runConformCommand(flags: ConformFlags, argvText: string): Promise<number> {
  const fromFlags = flagsToConfig(flags);
  if (flags.rerunFailed) fromFlags.rules = failedRuleIds(flags.rerunFailed);
  const config = loadConfig({ file: flags.config, env: process.env, flags: fromFlags });
  const invocation: Invocation = {
    configFile: flags.config,
    flagTargets: flagTargets(flags),
    envVariables: ENV_VARIABLES.filter((v) => process.env[v]),
    referenceDialect: config.referenceDialect,
    referenceBehavior: config.referenceBehavior,
    referenceFaults: flags.referenceFault ?? [],
    profile: config.profile,
  };
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(`stackproof ${argvText}`.trim());
  const explicitSmoke = process.argv.includes('--load-smoke') ? true : process.argv.includes('--no-load-smoke') ? false : undefined;
  const clock = new PhaseClock();
  // performance.now() counts from the process's start: loading the CLI and reading the config.
  clock.record('start-up', performance.now());
  const run = await conform({
    config,
    invocation,
    command: `stackproof ${argvText}`.trim(),
    loadSmoke: explicitSmoke,
    baseline: flags.baseline,
    log,
    clock,
    bail: flags.bail,
    oneAtATime: flags.oneAtATime,
  });
  // A stopped run's rules that did not run are no SKIPs: the share says nothing there.
  const { results, exitCode, secrets } = run.results.summary.interrupted || run.results.summary.bailed ? run : applySkipShare(run, config.maxSkipShare);
  const paths = await clock.time('reports', () => writeReports(results, config.reportsDir, secrets));
  log('');
  if (results.summary.interrupted) log(`stopped by ${results.summary.interrupted.signal}: the rules running then are INTERRUPTED, and ${results.summary.interrupted.notRun.length} did not run; no verdict is given`);
  for (const line of capabilityCostLines(results.summary.capabilityCosts ?? [])) log(line);
  if (results.summary.noVerdict) for (const line of noVerdictLines(results.summary.noVerdict, results.summary.skipReasons ?? [], results.run.profile)) log(line);
  log(results.summary.verdict);
  for (const r of results.rules.filter((x) => x.outcome === 'FAIL' || x.outcome === 'ERROR')) {
    log(`  ${r.outcome} ${r.id}: ${(r.message ?? '').split('\n')[0]}`);
    if (r.replay) log(`    replay: ${r.replay}`);
  }
  const expected = results.rules.filter((x) => x.outcome === 'EXPECTED');
  if (expected.length) {
    log(`expected deviations (${expected.length}, not failing the run):`);
    for (const r of expected) log(`  EXPECTED ${r.id}: ${r.expectation?.product} ${r.expectation?.behavior ?? ''}`);
  }
  log(`reports: ${relative(process.cwd(), paths.html) || paths.html} (also results.json and junit.xml)`);
  // performance.now() counts from the process's start: the wall time includes loading the CLI.
  log(`wall time ${(performance.now() / 1000).toFixed(1)} s (${clock.summary()})`);
  return exitCode;
}

/** The rules that were FAIL or ERROR in an earlier run. */
function failedRuleIds(file: string): string[] {
  let results;
  try {
    results = runResultsSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch (err) {
    throw new ConfigError(`--rerun-failed ${file}: not a stackproof results file (${(err as Error).message.split('\n')[0]})`);
  }
  const ids = results.rules.filter((r) => r.outcome === 'FAIL' || r.outcome === 'ERROR').map((r) => r.id);
  if (ids.length === 0) throw new NoRulesSelectedError(`--rerun-failed ${file}: no rule failed in that run`);
  return ids;
}
