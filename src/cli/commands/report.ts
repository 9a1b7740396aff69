import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { ConfigError } from '../../config/load-config.ts';
import { renderHistoryHtml } from '../../report/history-html.ts';
import { readHistoryRuns } from '../../report/history-runs.ts';

/** `stackproof report --history <dir>`: one page over every run kept under a directory. */
export async function runReportCommand(flags: { history?: string; out: string }): Promise<number> {
  if (!flags.history) throw new ConfigError('report: say which runs to read: --history <dir> (a directory of results.json files, at any depth)');
  const dir = resolve(flags.history);
  const found = await stat(dir).catch(() => undefined);
  if (!found?.isDirectory()) throw new ConfigError(`report --history ${flags.history}: no such directory`);
  const { runs, skipped } = await readHistoryRuns(dir);
  for (const s of skipped) process.stderr.write(`left out ${s.file}: ${s.why}\n`);
  if (runs.length === 0) throw new ConfigError(`report --history ${flags.history}: no stackproof results.json found under it`);
  const out = resolve(flags.out);
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, renderHistoryHtml(runs, skipped, flags.history));
  const first = runs[0]!.results.run.startedAt;
  const last = runs[runs.length - 1]!.results.run.startedAt;
  process.stdout.write(`history: ${relative(process.cwd(), out) || out} (${runs.length} run(s) from ${first} to ${last}${skipped.length ? `; ${skipped.length} file(s) left out` : ''})\n`);
  return 0;
}
