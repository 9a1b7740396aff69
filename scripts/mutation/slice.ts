// The CI slice (test/mutation-slice.test.ts): a few mutants of one mapped module, drawn at random
// from the committed record with a printed seed, judged afresh within a time budget.
import { moduleName, readModuleMap, type ModuleEntry } from './module-map.ts';
import type { MutationReport, ReportMutant } from './report-shape.ts';
import { readRecords } from './triage.ts';

/** What one mutant process costs when the record has no measurement (a mutant of the smallest modules, on a busy 2-core machine). */
const DEFAULT_MUTANT_MS = 20_000;
/** Starting Stryker, instrumenting and copying the sandbox. */
const STRYKER_OVERHEAD_MS = 10_000;
/** A picked mutant's location may hold a few smaller ones (Stryker mutates everything inside a range). */
const MAX_NESTED = 3;

export interface Slice {
  seed: number;
  entry: ModuleEntry;
  /** The picked mutants, as the record has them. */
  picked: { mutant: ReportMutant; range: string }[];
  /** Every mutant the ranges hold (the picked ones and those nested in them): what the run will judge. */
  expectedMutants: number;
  estimatedMs: number;
}

/** A small seeded generator (mulberry32): the same seed draws the same slice on any machine. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function contains(outer: ReportMutant['location'], inner: ReportMutant['location']): boolean {
  const before = (a: { line: number; column: number }, b: { line: number; column: number }) => a.line < b.line || (a.line === b.line && a.column <= b.column);
  return before(outer.start, inner.start) && before(inner.end, outer.end);
}

/** Stryker's mutate range for exactly a mutant's location (its lines are 1-based, its columns 0-based). */
export function rangeOf(file: string, m: ReportMutant): string {
  const { start, end } = m.location;
  return `${file}:${start.line}:${start.column - 1}-${end.line}:${end.column - 1}`;
}

/**
 * Draws the slice: one module with a record, then mutants of it in random order while the
 * estimate (dry run of every dialect, Stryker's start, the measured cost per mutant) fits the budget.
 */
export function drawSlice(seed: number, budgetMs: number): Slice | undefined {
  const entries = readModuleMap();
  const records = new Map(readRecords().map((r) => [r.name, r.report] as const));
  const candidates = entries.filter((e) => records.has(moduleName(e.file)));
  if (candidates.length === 0) return undefined;
  const random = mulberry32(seed);
  const entry = candidates[Math.floor(random() * candidates.length)]!;
  const report = records.get(moduleName(entry.file)) as MutationReport;
  const file = report.files[entry.file];
  if (!file) return undefined;
  const info = report.stackproof;
  const dryMs = Object.values(info?.dryRunMs ?? {}).reduce((s, x) => s + x, 0) || DEFAULT_MUTANT_MS * entry.dialects.length;
  // The record's cost per mutant was measured with each mutant judged by the rules that reach it;
  // a slice judges with every mapped rule (no per-rule dry run for a few mutants): a survivor runs
  // them all in each dialect, a kill stops at its first FAIL (about half way, on average).
  const costOf = (m: ReportMutant) => (m.status === 'Survived' ? dryMs : Math.max(info?.cost.meanMs ?? DEFAULT_MUTANT_MS, dryMs / 2));
  const shuffled = file.mutants.map((m) => ({ m, key: random() })).sort((a, b) => a.key - b.key).map((x) => x.m);
  const picked: Slice['picked'] = [];
  let expected = 0;
  let estimate = STRYKER_OVERHEAD_MS + dryMs;
  for (const m of shuffled) {
    // An ignored mutant (a fault switch) is never run.
    if (m.status === 'Ignored') continue;
    const nested = file.mutants.filter((o) => contains(m.location, o.location));
    if (nested.length > MAX_NESTED || picked.some((p) => nested.includes(p.mutant))) continue;
    // A mutant no rule reaches costs no process.
    const cost = nested.filter((o) => o.status !== 'NoCoverage' && o.status !== 'Ignored').reduce((sum, o) => sum + costOf(o), 0);
    if (estimate + cost > budgetMs && picked.length > 0) break;
    picked.push({ mutant: m, range: rangeOf(entry.file, m) });
    expected += nested.length;
    estimate += cost;
  }
  return { seed, entry, picked, expectedMutants: expected, estimatedMs: estimate };
}
