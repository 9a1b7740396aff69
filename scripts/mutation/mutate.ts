#!/usr/bin/env node
// npm run mutate -- <file>... [--force] [--concurrency <n>]
// Mutation-tests modules of the reference (each listed in mutation/modules.json) with StrykerJS:
// every mutant is judged by the rules that reach its module, in a process of its own, and the
// verdicts are recorded in mutation/reports/<module>.json (incremental file:
// mutation/incremental/<module>.json, so a rerun judges only what changed). docs/mutation-testing.md.
import { entryFor, readModuleMap, type ModuleEntry } from './module-map.ts';
import { mutateModule } from './mutate-module.ts';
import { type MutantRow, describeMutant, mutantRows, score } from './triage.ts';
import type { CostSummary } from './report-shape.ts';

const args = process.argv.slice(2);
const usage = 'usage: npm run mutate -- <src/reference/...ts>[:<from line>-<to line>]... [--force] [--concurrency <1|2>]  (--all: every mapped module)';
/** file.ts:120-180 judges only the mutants on those lines; the record keeps the others' earlier verdicts. */
const LINES = /^(.*\.ts):(\d+-\d+)$/;
const files: string[] = [];
let force = false;
let concurrency = 1;
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--force') force = true;
  else if (a === '--concurrency') concurrency = Number(args[++i]);
  else if (a === '--all') files.push(...readModuleMap().map((e) => e.file));
  else if (a === '--help' || a === '-h') { console.log(usage); process.exit(0); }
  else if (a.startsWith('-')) { console.error(`unknown option ${a}\n${usage}`); process.exit(2); }
  else files.push(a);
}
if (files.length === 0 || !Number.isInteger(concurrency) || concurrency < 1) {
  console.error(usage);
  process.exit(2);
}
let entries: ModuleEntry[];
try {
  const map = readModuleMap();
  entries = files.map((f) => entryFor(f.replace(LINES, '$1'), map));
} catch (err) {
  console.error((err as Error).message);
  process.exit(2);
}
const summaries: { entry: ModuleEntry; rows: MutantRow[]; s: ReturnType<typeof score>; cost: CostSummary; wallMs: number }[] = [];
for (const [i, entry] of entries.entries()) {
  const lines = LINES.exec(files[i]!)?.[2];
  console.log(`\n== ${entry.file}: rules ${entry.rules.join(',')} (${entry.system}, dialects ${entry.dialects.join(', ')}${entry.upstream ? `, and hashicorp --reference-behavior upstream with ${entry.upstream.rules.join(',')} --expect ${entry.upstream.expect.join(',')}` : ''}, profile ${entry.profile}, seed ${entry.seed})`);
  try {
    const { report } = await mutateModule(entry, { force, concurrency, ...(lines ? { ranges: [`${entry.file}:${lines}`] } : {}) });
    const rows = mutantRows(report);
    summaries.push({ entry, rows, s: score(rows), cost: report.stackproof.cost, wallMs: report.stackproof.wallMs });
  } catch (err) {
    // One module that cannot be judged (its dry run fails) does not stop the others.
    console.error(`${entry.file}: not judged: ${(err as Error).message}`);
    process.exitCode = 1;
  }
}
console.log('\nmutation score (killed + timeout over all but errors; equivalent mutants set aside in the second figure):');
for (const { entry, rows, s, cost, wallMs } of summaries) {
  console.log(`  ${entry.file}: ${s.mutants} mutants (${s.ignored} ignored: fault switches), ${s.killed} killed, ${s.timeout} timeout, ${s.survived} survived (${s.equivalent} equivalent, ${s.undecided} undecided), ${s.noCoverage} no coverage: ${s.score.toFixed(1)}% (${s.scoreWithoutEquivalent.toFixed(1)}% without the equivalent); ${cost.meanMs ? `${(cost.meanMs / 1000).toFixed(1)} s` : "-"} per judged mutant (measured over ${cost.judged}), ${(wallMs / 1000).toFixed(0)} s in all`);
  for (const r of rows.filter((x) => x.triage === 'gap')) console.log(`    gap: ${describeMutant(r)}`);
  for (const r of rows.filter((x) => x.triage === 'undecided')) console.log(`    undecided: ${describeMutant(r)}`);
}
console.log('\nrecorded in mutation/reports/ and mutation/incremental/; triage: mutation/equivalent.json; all modules: npm run mutate:score');
