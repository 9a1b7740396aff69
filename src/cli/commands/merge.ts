import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../../config/load-config.ts';
import { k6SummarySchema, k6SummaryToResult } from '../../load/k6-summary.ts';
import { mergeRunnerResults, type RunnerResult } from '../../load/merge.ts';
import { collectedRunResults } from '../../load/collected-run.ts';
import { loadScenarioResultSchema, type LoadScenarioResult } from '../../report/results-model.ts';
import { writeReports } from '../../report/write-reports.ts';
import { thresholdsFromFlags, type ThresholdFlags } from '../threshold-flags.ts';

export interface MergeFlags extends ThresholdFlags {
  json?: boolean;
  reportsDir?: string;
}

/** A results.json (any stackproof run), or only its load rows: what merge needs of it. */
const resultsFileSchema = z.object({ load: z.array(loadScenarioResultSchema) });

/** Reads one runner's file: a stackproof results.json, or the summary a k6 script wrote (a k6-operator runner's). */
async function readRunnerFile(file: string): Promise<RunnerResult[]> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`${file}: cannot be read as a results file (${(err as Error).message})`);
  }
  const k6 = k6SummarySchema.safeParse(json);
  if (k6.success) return [k6SummaryToResult(k6.data)];
  const results = resultsFileSchema.safeParse(json);
  if (results.success) return results.data.load.filter((r) => !r.error);
  const issue = results.error.issues[0];
  throw new ConfigError(`${file}: neither a results.json with load results nor a k6 summary written by load/k6 (${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'unknown shape'})`);
}

/**
 * `stackproof merge a.json b.json …`: the load results of several runners, merged by histogram, with
 * the thresholds applied to the merged run (each runner judged only its own share), and the run's
 * reports written as a local run's are.
 */
export async function runMergeCommand(files: string[], flags: MergeFlags, argvText: string): Promise<number> {
  const thresholds = thresholdsFromFlags(flags);
  const started = new Date();
  const results: RunnerResult[] = [];
  for (const file of files) results.push(...(await readRunnerFile(file)));
  const merged = mergeRunnerResults(results);
  const rows: LoadScenarioResult[] = merged.map(({ runners: _runners, ...m }) => ({ ...m, timeline: [], thresholds: [] }));
  const { results: run, exitCode } = collectedRunResults(rows, { started, command: `stackproof ${argvText}`.trim(), thresholds });
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(merged.map((m, i) => ({ ...m, thresholds: run.load[i]!.thresholds })), null, 2)}\n`);
    return exitCode;
  }
  for (const [i, m] of merged.entries()) {
    const breached = run.load[i]!.thresholds.filter((t) => !t.ok).map((t) => `${t.name} ${t.actual} > ${t.limit}`);
    process.stdout.write(
      `${m.scenario} (${m.engine}, ${m.runners} runner(s)): ${m.requests} requests, ${m.errors} errors, ${m.dropped} dropped, ${m.throughput}/s, p50 ${m.latencyMs.p50} ms, p90 ${m.latencyMs.p90} ms, p99 ${m.latencyMs.p99} ms, p99.9 ${m.latencyMs.p999} ms, max ${m.latencyMs.max} ms${breached.length ? `, THRESHOLD BREACHED: ${breached.join('; ')}` : run.load[i]!.thresholds.length ? ', thresholds met' : ''}\n`,
    );
  }
  const paths = await writeReports(run, flags.reportsDir ?? 'reports', []);
  process.stdout.write(`\n${run.summary.verdict}\nreports: ${relative(process.cwd(), paths.html) || paths.html} (also results.json and junit.xml)\n`);
  return exitCode;
}
