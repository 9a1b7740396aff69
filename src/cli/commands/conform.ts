import { relative } from 'node:path';
import { ENV_VARIABLES, loadConfig } from '../../config/load-config.ts';
import { writeReports } from '../../report/write-reports.ts';
import { conform } from '../../run/conform.ts';
import type { Invocation } from '../../run/invocation.ts';
import { flagsToConfig, flagTargets, type CommonFlags } from '../flags.ts';

export interface ConformFlags extends CommonFlags {
  referenceFault?: string[];
  loadSmoke?: boolean;
}

export async function runConformCommand(flags: ConformFlags, argvText: string): Promise<number> {
  const config = loadConfig({ file: flags.config, env: process.env, flags: flagsToConfig(flags) });
  const invocation: Invocation = {
    configFile: flags.config,
    flagTargets: flagTargets(flags),
    envVariables: ENV_VARIABLES.filter((v) => process.env[v]),
    referenceDialect: config.referenceDialect,
    referenceFaults: flags.referenceFault ?? [],
    profile: config.profile,
  };
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(`stackproof ${argvText}`.trim());
  const explicitSmoke = process.argv.includes('--load-smoke') ? true : process.argv.includes('--no-load-smoke') ? false : undefined;
  const { results, exitCode, secrets } = await conform({
    config,
    invocation,
    command: `stackproof ${argvText}`.trim(),
    loadSmoke: explicitSmoke,
    log,
  });
  const paths = await writeReports(results, config.reportsDir, secrets);
  log('');
  log(results.summary.verdict);
  for (const r of results.rules.filter((x) => x.outcome === 'FAIL' || x.outcome === 'ERROR')) {
    log(`  ${r.outcome} ${r.id}: ${(r.message ?? '').split('\n')[0]}`);
    if (r.replay) log(`    replay: ${r.replay}`);
  }
  log(`reports: ${relative(process.cwd(), paths.html) || paths.html} (also results.json and junit.xml)`);
  return exitCode;
}
