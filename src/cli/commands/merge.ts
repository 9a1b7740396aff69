import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ConfigError } from '../../config/load-config.ts';
import { k6SummarySchema, k6SummaryToResult } from '../../load/k6-summary.ts';
import { mergeRunnerResults, type RunnerResult } from '../../load/merge.ts';
import { loadScenarioResultSchema } from '../../report/results-model.ts';

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

/** `stackproof merge a.json b.json …`: the load results of several runners, merged by histogram. */
export async function runMergeCommand(files: string[], flags: { json?: boolean }): Promise<number> {
  const results: RunnerResult[] = [];
  for (const file of files) results.push(...(await readRunnerFile(file)));
  const merged = mergeRunnerResults(results);
  if (flags.json) process.stdout.write(`${JSON.stringify(merged, null, 2)}\n`);
  else {
    for (const m of merged) {
      process.stdout.write(`${m.scenario} (${m.engine}, ${m.runners} runner(s)): ${m.requests} requests, ${m.errors} errors, ${m.dropped} dropped, ${m.throughput}/s, p50 ${m.latencyMs.p50} ms, p90 ${m.latencyMs.p90} ms, p99 ${m.latencyMs.p99} ms, p99.9 ${m.latencyMs.p999} ms, max ${m.latencyMs.max} ms\n`);
    }
  }
  return 0;
}
