import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { runResultsSchema, type RunResults } from './results-model.ts';

export interface HistoryRun {
  /** Where it was read, relative to the history directory. */
  file: string;
  results: RunResults;
}

export interface SkippedFile {
  file: string;
  why: string;
}

/**
 * Every stackproof results.json under a directory, at any depth (a nightly job keeps one folder a
 * night), oldest first. JSON files that are not a stackproof run are left out and said so; a run
 * found twice (the same run id) counts once.
 */
export async function readHistoryRuns(dir: string): Promise<{ runs: HistoryRun[]; skipped: SkippedFile[] }> {
  const runs = new Map<string, HistoryRun>();
  const skipped: SkippedFile[] = [];
  for (const path of await jsonFilesUnder(dir)) {
    const file = relative(dir, path);
    let json: unknown;
    try {
      json = JSON.parse(await readFile(path, 'utf8'));
    } catch (err) {
      skipped.push({ file, why: `not JSON (${(err as Error).message})` });
      continue;
    }
    const tool = (json as { tool?: { name?: unknown } } | null)?.tool?.name;
    if (tool !== 'stackproof') {
      // Other JSON beside the runs (k6 summaries, coverage.json) is not an error, but is named.
      skipped.push({ file, why: 'not a stackproof results.json (no tool.name "stackproof")' });
      continue;
    }
    const parsed = runResultsSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      skipped.push({ file, why: `a results.json this stackproof cannot read (${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'unknown shape'})` });
      continue;
    }
    if (!runs.has(parsed.data.run.id)) runs.set(parsed.data.run.id, { file, results: parsed.data });
  }
  const sorted = [...runs.values()].sort((a, b) => a.results.run.startedAt.localeCompare(b.results.run.startedAt) || a.file.localeCompare(b.file));
  return { runs: sorted, skipped };
}

async function jsonFilesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await jsonFilesUnder(path)));
    else if (entry.isFile() && entry.name.endsWith('.json')) out.push(path);
  }
  return out.sort();
}

/**
 * What runs must share to be drawn on one line: the same targets (an embedded reference counts by
 * its dialect, since its port changes every run) and, for conformance, the same profile and rule set.
 */
export function targetKey(results: RunResults): string {
  return results.targets
    .map((t) => `${t.system}: ${t.embedded ? `embedded reference (${t.dialect})` : `${t.url} (${t.dialect})`}`)
    .sort()
    .join('; ');
}

export function ruleSetKey(results: RunResults): string {
  const ids = results.rules.map((r) => r.id).sort();
  const digest = createHash('sha256').update(ids.join('\n')).digest('hex').slice(0, 8);
  return `${results.run.profile} profile, ${ids.length} rules (set ${digest})`;
}

export function loadSeriesKey(s: RunResults['load'][number]): string {
  return `${s.scenario} · ${s.engine} (${s.model}${s.targetRate !== undefined ? `, ${s.targetRate}/s` : ''})`;
}

/** What each point of a history says of its run: when, where, which product and which stackproof. */
export function runLabel(results: RunResults): string {
  const products = results.targets
    .filter((t) => t.product)
    .map((t) => `${t.product!.name} ${t.product!.version ?? '(version unknown)'}`);
  return `${results.run.startedAt.replace('T', ' ').slice(0, 16)} UTC · run ${results.run.id} · ${products.length ? `${products.join(', ')} · ` : ''}stackproof ${results.tool.version}`;
}
