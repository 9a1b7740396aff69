import { relative } from 'node:path';
import { ConfigError } from '../../config/load-config.ts';
import { collectedRunResults } from '../../load/collected-run.ts';
import { PrometheusUnavailable, readTestRunFromPrometheus, SeveralRunsInWindow, TESTRUN_NAME } from '../../load/prometheus-testrun.ts';
import { writeReports } from '../../report/write-reports.ts';
import { EXIT } from '../exit-codes.ts';
import { thresholdsFromFlags, type ThresholdFlags } from '../threshold-flags.ts';

export interface FromPrometheusFlags extends ThresholdFlags {
  fromPrometheus: string;
  testrun?: string;
  since: string;
  reportsDir?: string;
}

function sinceMs(raw: string): number {
  const m = /^(\d+(?:\.\d+)?)(m|h|d)$/.exec(raw.trim());
  if (!m) throw new ConfigError(`--since: expected e.g. 30m, 6h or 2d, got ${JSON.stringify(raw)}`);
  return Number(m[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'm' | 'h' | 'd'];
}

/**
 * `stackproof load --from-prometheus <url> --testrun <name>`: the run's reports, built from what its
 * k6-operator runners sent to Prometheus, with the thresholds applied to the whole run. Nothing is
 * sent to any target.
 */
export async function runLoadFromPrometheus(flags: FromPrometheusFlags, argvText: string): Promise<number> {
  if (!flags.testrun) throw new ConfigError('--from-prometheus: say which run with --testrun <TestRun name> (its runners tag every series testrun_name=<name>)');
  if (!TESTRUN_NAME.test(flags.testrun)) throw new ConfigError(`--testrun ${JSON.stringify(flags.testrun)}: not a TestRun name (lower-case letters, digits, '-' and '.', as Kubernetes names objects)`);
  try {
    new URL(flags.fromPrometheus);
  } catch {
    throw new ConfigError(`--from-prometheus: not a URL: ${JSON.stringify(flags.fromPrometheus)}`);
  }
  const thresholds = thresholdsFromFlags(flags);
  const started = new Date();
  const log = (line: string) => process.stdout.write(`${line}\n`);
  let read: Awaited<ReturnType<typeof readTestRunFromPrometheus>>;
  try {
    read = await readTestRunFromPrometheus({ url: flags.fromPrometheus, testrun: flags.testrun, since: new Date(started.getTime() - sinceMs(flags.since)), until: started });
  } catch (err) {
    if (err instanceof SeveralRunsInWindow) throw new ConfigError(err.message);
    if (!(err instanceof PrometheusUnavailable)) throw err;
    process.stderr.write(`stackproof: ${err.message}\n`);
    return EXIT.UNREACHABLE;
  }
  if (read.rows.length === 0) {
    process.stderr.write(`stackproof: Prometheus at ${flags.fromPrometheus} holds no series of test run ${flags.testrun} in the last ${flags.since} (k6_sp_iterations_total{testrun_name="${flags.testrun}"}): did its runners send with -o experimental-prometheus-rw, and is --since long enough?\n`);
    return EXIT.UNREACHABLE;
  }
  const { results, exitCode } = collectedRunResults(read.rows, { started, command: `stackproof ${argvText}`.trim(), thresholds });
  for (const r of results.load) {
    const breached = r.thresholds.filter((t) => !t.ok).map((t) => `${t.name} ${t.actual} > ${t.limit}`);
    log(
      r.error
        ? `  ${r.scenario} (k6, from Prometheus): ERROR ${r.error}`
        : `  ${r.scenario} (k6, ${read.runners.get(r.scenario) ?? 0} runner(s), from Prometheus): ${r.requests} requests, ${r.errors} errors, ${r.dropped} dropped, ${r.throughput}/s, p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms, max ${r.latencyMs.max} ms${breached.length ? `, THRESHOLD BREACHED: ${breached.join('; ')}` : ', thresholds met'}`,
    );
  }
  const paths = await writeReports(results, flags.reportsDir ?? 'reports', []);
  log('');
  log(results.summary.verdict);
  log(`reports: ${relative(process.cwd(), paths.html) || paths.html} (also results.json and junit.xml)`);
  return exitCode;
}
