import { readFile } from 'node:fs/promises';
import { ConfigError } from '../../config/load-config.ts';
import { mergeRunnerResults, type RunnerResult } from '../../load/merge.ts';

/** `stackproof merge a.json b.json …`: the load results of several runners, merged by histogram. */
export async function runMergeCommand(files: string[], flags: { json?: boolean }): Promise<number> {
  const results: RunnerResult[] = [];
  for (const file of files) {
    let parsed: { load?: RunnerResult[] };
    try {
      parsed = JSON.parse(await readFile(file, 'utf8')) as { load?: RunnerResult[] };
    } catch (err) {
      throw new ConfigError(`${file}: cannot be read as a results file (${(err as Error).message})`);
    }
    if (!Array.isArray(parsed.load)) throw new ConfigError(`${file}: has no load results`);
    results.push(...parsed.load);
  }
  const merged = mergeRunnerResults(results);
  if (flags.json) process.stdout.write(`${JSON.stringify(merged, null, 2)}\n`);
  else {
    for (const m of merged) {
      process.stdout.write(`${m.scenario} (${m.engine}, ${m.runners} runner(s)): ${m.requests} requests, ${m.errors} errors, ${m.throughput}/s, p50 ${m.latencyMs.p50} ms, p99 ${m.latencyMs.p99} ms, max ${m.latencyMs.max} ms\n`);
    }
  }
  return 0;
}
