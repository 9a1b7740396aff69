// The CI slice (test/mutation-slice.test.ts): a few mutants of one mapped module, drawn at random
// from the committed record with a printed seed, judged afresh within a time budget.
import fc from 'fast-check';
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
  const [index, order] = fc.sample(fc.tuple(fc.nat({ max: candidates.length - 1 }), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 2000, maxLength: 2000 })), { seed, numRuns: 1 })[0]!;
  const entry = candidates[index]!;
  const report = records.get(moduleName(entry.file)) as MutationReport;
  const file = report.files[entry.file];
  if (!file) return undefined;
  const info = report.stackproof;
  const dryMs = Object.values(info?.dryRunMs ?? {}).reduce((s, x) => s + x, 0) || DEFAULT_MUTANT_MS * entry.dialects.length;
  const perMutant = info?.cost.meanMs ?? DEFAULT_MUTANT_MS;
  const shuffled = file.mutants.map((m, i) => ({ m, key: order[i % order.length]! + i * 1e-9 })).sort((a, b) => a.key - b.key).map((x) => x.m);
  const picked: Slice['picked'] = [];
  let expected = 0;
  let estimate = STRYKER_OVERHEAD_MS + dryMs;
  for (const m of shuffled) {
    const nested = file.mutants.filter((o) => contains(m.location, o.location));
    if (nested.length > MAX_NESTED || picked.some((p) => nested.includes(p.mutant))) continue;
    // A mutant no rule reaches costs no process.
    const cost = nested.filter((o) => o.status !== 'NoCoverage').length * perMutant;
    if (estimate + cost > budgetMs && picked.length > 0) break;
    picked.push({ mutant: m, range: rangeOf(entry.file, m) });
    expected += nested.length;
    estimate += cost;
  }
  return { seed, entry, picked, expectedMutants: expected, estimatedMs: estimate };
}
