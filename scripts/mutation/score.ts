#!/usr/bin/env node
// npm run mutate:score [-- --check]: the mutation score per module from the committed record
// (mutation/reports/*.json), and every mutant not killed that is not triaged as equivalent.
// --check exits 1 when one is left (a gap) or an equivalent.json entry matches nothing (stale).
import { type MutantRow, describeMutant, mutantRows, readEquivalents, readRecords, score, staleEquivalents } from './triage.ts';

const check = process.argv.includes('--check');
const equivalents = readEquivalents();
const records = readRecords();
if (records.length === 0) {
  console.log('no record yet: run `npm run mutate -- <file>` (mutation/reports/ is empty)');
  process.exit(check ? 1 : 0);
}
const pct = (x: number) => (Number.isNaN(x) ? '   -  ' : `${x.toFixed(1).padStart(5)}%`);
console.log(`${'module'.padEnd(34)} mutants ignored  killed timeout survived nocov  equiv  reach undecided gaps   score  w/o equiv  s/mutant`);
const all: MutantRow[] = [];
for (const { name, report } of records) {
  const rows = mutantRows(report, equivalents);
  all.push(...rows);
  const s = score(rows);
  const cost = report.stackproof?.cost?.meanMs ? (report.stackproof.cost.meanMs / 1000).toFixed(1) : '-';
  console.log(`${name.padEnd(34)} ${String(s.mutants).padStart(7)} ${String(s.ignored).padStart(7)} ${String(s.killed).padStart(7)} ${String(s.timeout).padStart(7)} ${String(s.survived).padStart(8)} ${String(s.noCoverage).padStart(5)} ${String(s.equivalent).padStart(6)} ${String(s.outOfReach).padStart(6)} ${String(s.undecided).padStart(9)} ${String(s.gaps).padStart(4)} ${pct(s.score)} ${pct(s.scoreWithoutEquivalent).padStart(10)} ${cost.padStart(9)}`);
}
const gaps = all.filter((r) => r.triage === 'gap');
const outOfReach = all.filter((r) => r.triage === 'out-of-reach');
const undecided = all.filter((r) => r.triage === 'undecided');
const stale = staleEquivalents(all, equivalents);
if (undecided.length) {
  console.log(`\nundecided (a rule stayed ERROR twice; the next \`npm run mutate\` judges them again): ${undecided.length}`);
  for (const r of undecided) console.log(`  ${describeMutant(r)}\n    ${r.reason}`);
}
if (outOfReach.length) {
  console.log(`\nout of reach (not equivalent: told apart only past every bound a run keeps, or on endpoints no spec describes; counted against the score): ${outOfReach.length}`);
  for (const r of outOfReach) console.log(`  ${describeMutant(r)}`);
}
console.log(`\nuntriaged survivors (gaps: not killed, not listed in mutation/equivalent.json): ${gaps.length}`);
for (const r of gaps) console.log(`  ${describeMutant(r)}`);
if (stale.length) {
  console.log(`\nstale entries of mutation/equivalent.json (no such mutant survives any more; update or remove): ${stale.length}`);
  for (const e of stale) console.log(`  ${e.file}:${e.line} ${e.mutator}: ${e.original} -> ${e.replacement}`);
}
if (check && (gaps.length || stale.length)) process.exitCode = 1;
