// The record's verdicts, triaged: a mutant that was not killed is either listed as equivalent in
// mutation/equivalent.json (with the reason no HTTP client could tell it apart), undecided (a rule
// stayed ERROR: judged again by the next run), or a gap a rule should close.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EQUIVALENT_FILE, REPORTS_DIR } from './module-map.ts';
import { UNDECIDED_PREFIX } from './mutate-module.ts';
import type { MutationReport, ReportMutant } from './report-shape.ts';

/** An entry of mutation/equivalent.json. */
export interface Equivalent {
  file: string;
  line: number;
  /** Only where two mutants of the same text sit on one line: the column tells them apart. */
  column?: number;
  mutator: string;
  /** The source text the mutant replaces, and what it puts there (as Stryker reports them). */
  original: string;
  replacement: string;
  /** Why no HTTP client could tell the mutant from the original. */
  reason: string;
  /**
   * 'out-of-reach': not equivalent, but told apart only where no rule may look (past every bound a run
   * keeps, such as a code's five minutes, or on endpoints no spec describes): triaged with the reason,
   * and still counted against the score.
   */
  kind?: 'equivalent' | 'out-of-reach';
}

export interface MutantRow {
  file: string;
  id: string;
  line: number;
  column: number;
  location: ReportMutant['location'];
  mutator: string;
  original: string;
  replacement: string;
  status: ReportMutant['status'];
  reason: string;
  /** detected: killed or timeout; equivalent and out-of-reach: listed; undecided: ERROR twice, judged again next run; gap: neither. */
  triage: 'detected' | 'equivalent' | 'out-of-reach' | 'undecided' | 'gap';
  equivalentReason?: string;
}

export function readEquivalents(file = EQUIVALENT_FILE): Equivalent[] {
  if (!existsSync(file)) return [];
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { mutants?: Record<string, unknown>[] };
  const problems: string[] = [];
  for (const [i, e] of (raw.mutants ?? []).entries()) {
    for (const key of ['file', 'mutator', 'original', 'replacement', 'reason']) {
      if (typeof e[key] !== 'string') problems.push(`mutation/equivalent.json mutants[${i}]: ${key} is missing`);
    }
    if (typeof e.reason === 'string' && e.reason.trim().length < 20) problems.push(`mutation/equivalent.json mutants[${i}]: the reason must say why no HTTP client can tell the mutant apart`);
    if (e.kind !== undefined && e.kind !== 'equivalent' && e.kind !== 'out-of-reach') problems.push(`mutation/equivalent.json mutants[${i}]: kind is 'equivalent' or 'out-of-reach'`);
    if (!Number.isInteger(e.line)) problems.push(`mutation/equivalent.json mutants[${i}]: line must be a line number`);
  }
  if (problems.length) throw new Error(problems.join('\n'));
  return (raw.mutants ?? []) as unknown as Equivalent[];
}

/** The source text a mutant replaces (report locations: 1-based lines and columns). */
export function originalText(source: string, location: ReportMutant['location']): string {
  const lines = source.split('\n');
  const { start, end } = location;
  const line = (n: number) => lines[n - 1] ?? '';
  if (start.line === end.line) return line(start.line).slice(start.column - 1, end.column - 1);
  return [line(start.line).slice(start.column - 1), ...lines.slice(start.line, end.line - 1), line(end.line).slice(0, end.column - 1)].join('\n');
}

export function sameMutant(e: Omit<Equivalent, 'reason'>, r: Pick<MutantRow, 'file' | 'line' | 'column' | 'mutator' | 'original' | 'replacement'>): boolean {
  return e.file === r.file && e.line === r.line && (e.column === undefined || e.column === r.column) && e.mutator === r.mutator && e.original === r.original && e.replacement === r.replacement;
}

/** One flat row per mutant of a report, with its triage. */
export function mutantRows(report: MutationReport, equivalents = readEquivalents()): MutantRow[] {
  const rows: MutantRow[] = [];
  for (const [file, f] of Object.entries(report.files)) {
    for (const m of f.mutants) {
      const base = { file, id: m.id, line: m.location.start.line, column: m.location.start.column, location: m.location, mutator: m.mutatorName, original: originalText(f.source, m.location), replacement: m.replacement ?? m.mutatorName, status: m.status, reason: m.statusReason ?? '' };
      const notKilled = m.status === 'Survived' || m.status === 'NoCoverage';
      const equivalent = notKilled ? equivalents.find((e) => sameMutant(e, base)) : undefined;
      const listed = equivalent ? (equivalent.kind ?? 'equivalent') : undefined;
      const triage: MutantRow['triage'] = !notKilled ? 'detected' : listed ? listed : base.reason.startsWith(UNDECIDED_PREFIX) ? 'undecided' : 'gap';
      rows.push({ ...base, triage, ...(equivalent ? { equivalentReason: equivalent.reason } : {}) });
    }
  }
  return rows;
}

export function readRecords(dir = REPORTS_DIR): { name: string; report: MutationReport }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ name: f.replace(/\.json$/, ''), report: JSON.parse(readFileSync(join(dir, f), 'utf8')) as MutationReport }));
}

/** Counts and scores of one module's rows: Stryker's score, and the score with the equivalent mutants set aside. */
export function score(rows: MutantRow[]) {
  const count = (s: MutantRow['status']) => rows.filter((r) => r.status === s).length;
  const killed = count('Killed');
  const timeout = count('Timeout');
  const survived = count('Survived');
  const noCoverage = count('NoCoverage');
  const errors = count('RuntimeError') + count('CompileError');
  const ignored = count('Ignored');
  const equivalent = rows.filter((r) => r.triage === 'equivalent').length;
  const outOfReach = rows.filter((r) => r.triage === 'out-of-reach').length;
  const valid = killed + timeout + survived + noCoverage;
  return {
    mutants: rows.length, killed, timeout, survived, noCoverage, errors, ignored, equivalent, outOfReach,
    undecided: rows.filter((r) => r.triage === 'undecided').length,
    gaps: rows.filter((r) => r.triage === 'gap').length,
    score: valid ? (100 * (killed + timeout)) / valid : NaN,
    scoreWithoutEquivalent: valid - equivalent ? (100 * (killed + timeout)) / (valid - equivalent) : NaN,
  };
}

/** Entries of equivalent.json that match no mutant any more (the code moved or changed): to be looked at again. */
export function staleEquivalents(allRows: MutantRow[], equivalents = readEquivalents()): Equivalent[] {
  return equivalents.filter((e) => !allRows.some((r) => (r.triage === 'equivalent' || r.triage === 'out-of-reach') && sameMutant(e, r)));
}

export function describeMutant(r: MutantRow): string {
  const one = (s: string) => s.replace(/\s+/g, ' ').trim();
  const cut = (s: string) => (s.length > 120 ? `${s.slice(0, 119)}…` : s);
  return `${r.file}:${r.line}:${r.column} ${r.mutator} ${r.status}: ${cut(one(r.original))} -> ${cut(one(r.replacement))}`;
}
