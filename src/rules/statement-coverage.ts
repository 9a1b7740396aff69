import { RULES } from './catalog.ts';
import { specUnits, type SpecUnit } from './coverage.ts';
import { SPEC_FILES } from './spec-files.ts';
import { normalizeSpecText, readSpec, sectionText } from './spec-text.ts';
import { STATEMENT_MAPS } from './statements/index.ts';
import type { Neighbour, Statement, StatementMap, WrongWay } from './statements/types.ts';

export interface SectionCoverage {
  file: string;
  section: string;
  statements: number;
  testable: number;
  covered: number;
}

export interface StatementCoverage {
  sections: SectionCoverage[];
  /** Testable statements no default-profile rule asserts. */
  uncovered: (Statement & { file: string })[];
  /** Statements with a reason instead of a rule. */
  reasoned: (Statement & { file: string })[];
  /** Rule-bearing units of a spec that no statement or non-statement of the map accounts for. */
  unaccounted: SpecUnit[];
  totals: { statements: number; testable: number; covered: number };
  /** Every wrong way listed, with its statement. */
  wrongWays: (WrongWay & { statement: string })[];
  /** Every neighbouring scope an access decision is checked from, with its statement. */
  neighbours: (Neighbour & { statement: string })[];
}

const ruleById = new Map(RULES.map((r) => [r.id, r]));

/** Asserted in the default profile: a rule of the catalog that is not UPSTREAM. */
const asserts = (id: string) => {
  const level = ruleById.get(id)?.level;
  return level !== undefined && level !== 'UPSTREAM';
};

const covers = (unit: SpecUnit, quote: string) => {
  const u = normalizeSpecText(unit.text);
  const q = normalizeSpecText(quote);
  return u.includes(q) || q.includes(u);
};

/**
 * The rules a fault of the reference's catalog breaks, by fault id (undefined: no such fault). The
 * caller passes it in: the rules are harness code, which reaches the reference only to start it.
 */
export type FaultBreaks = (faultId: string) => readonly string[] | undefined;

/**
 * What is wrong with the map: quotes not in their section, unknown rules, a statement with neither
 * rules nor a reason, a wrong way whose fault does not exist or does not break its rule.
 */
export function statementMapProblems(faultBreaks: FaultBreaks, maps: readonly StatementMap[] = STATEMENT_MAPS): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const map of maps) {
    const spec = readSpec(SPEC_FILES[map.system]);
    const inSection = (section: string, quote: string, what: string) => {
      const text = sectionText(spec, section);
      if (text === undefined) problems.push(`${what}: no section "${section}" in ${SPEC_FILES[map.system]}`);
      else if (!normalizeSpecText(text).includes(normalizeSpecText(quote))) problems.push(`${what}: the quote is not in section "${section}": ${quote.slice(0, 100)}`);
    };
    for (const s of map.statements) {
      if (ids.has(s.id)) problems.push(`${s.id}: the id is used twice`);
      ids.add(s.id);
      if (!s.id.startsWith(`${map.system}.`)) problems.push(`${s.id}: the id does not start with ${map.system}.`);
      inSection(s.section, s.quote, s.id);
      const rules = s.rules ?? [];
      if (rules.length === 0 && !s.untestable && !s.gap) problems.push(`${s.id}: neither rules, nor a reason it cannot be tested, nor a known gap's reason`);
      if (s.gap && (rules.length > 0 || s.untestable)) problems.push(`${s.id}: a known gap cannot have rules or be untestable`);
      if (rules.length > 0 && s.untestable) problems.push(`${s.id}: both rules and a reason it cannot be tested`);
      for (const id of rules) {
        const rule = ruleById.get(id);
        if (!rule) problems.push(`${s.id}: no rule ${id}`);
        else if (rule.system !== map.system) problems.push(`${s.id}: rule ${id} is of another system`);
      }
      for (const w of s.wrongWays ?? []) {
        // An UPSTREAM rule may close a way where the spec leaves the detail "not shown" (strict profile only).
        const upstream = ruleById.get(w.rule)?.level === 'UPSTREAM' && ruleById.get(w.rule)?.system === map.system;
        if (!rules.includes(w.rule) && !upstream) problems.push(`${s.id}: wrong way "${w.kind}" names rule ${w.rule}, which does not assert the statement`);
        const breaks = faultBreaks(w.fault);
        if (!breaks) problems.push(`${s.id}: wrong way "${w.kind}" names no fault of the catalog (${w.fault})`);
        else if (!breaks.includes(w.rule)) problems.push(`${s.id}: fault ${w.fault} does not break ${w.rule}, so the matrix never shows the way caught`);
      }
      for (const n of s.neighbours ?? []) {
        const upstream = ruleById.get(n.rule)?.level === 'UPSTREAM' && ruleById.get(n.rule)?.system === map.system;
        if (!rules.includes(n.rule) && !upstream) problems.push(`${s.id}: neighbour "${n.scope}" names rule ${n.rule}, which does not assert the statement`);
      }
    }
    for (const n of map.nonStatements ?? []) inSection(n.section, n.quote, `non-statement "${n.quote.slice(0, 40)}"`);
  }
  return problems;
}

/** The wrong ways of a stream position, not of an access decision. */
const STREAM_POSITION_WAYS = new Set<WrongWay['kind']>(['position-ignored', 'older-index-blocks', 'created-after']);

/**
 * Access statements (those that list wrong ways of an access decision) that name no neighbouring scope their decision is
 * checked from: each decision must be asked from beside the granted scope too (issue 47).
 */
export function accessStatementsWithoutNeighbours(maps: readonly StatementMap[] = STATEMENT_MAPS): string[] {
  const access = (s: Statement) => (s.wrongWays ?? []).some((w) => !STREAM_POSITION_WAYS.has(w.kind));
  return maps.flatMap((m) => m.statements.filter((s) => access(s) && !s.neighbours?.length).map((s) => s.id));
}

/** Statements covered and testable per spec section, and what the map leaves out. */
export function statementCoverage(maps: readonly StatementMap[] = STATEMENT_MAPS): StatementCoverage {
  const sections = new Map<string, SectionCoverage>();
  const uncovered: StatementCoverage['uncovered'] = [];
  const reasoned: StatementCoverage['reasoned'] = [];
  for (const map of maps) {
    const file = SPEC_FILES[map.system];
    for (const s of map.statements) {
      const key = `${file} ${s.section}`;
      let c = sections.get(key);
      if (!c) sections.set(key, (c = { file, section: s.section, statements: 0, testable: 0, covered: 0 }));
      c.statements += 1;
      if (s.untestable) {
        reasoned.push({ ...s, file });
        continue;
      }
      c.testable += 1;
      if ((s.rules ?? []).some(asserts)) c.covered += 1;
      else uncovered.push({ ...s, file });
    }
  }
  const unaccounted: SpecUnit[] = [];
  for (const file of Object.values(SPEC_FILES)) {
    const quotes = maps.filter((m) => SPEC_FILES[m.system] === file).flatMap((m) => [...m.statements.map((s) => s.quote), ...(m.nonStatements ?? []).map((n) => n.quote)]);
    for (const unit of specUnits(file)) if (!quotes.some((q) => covers(unit, q))) unaccounted.push(unit);
  }
  const list = [...sections.values()];
  const sum = (k: 'statements' | 'testable' | 'covered') => list.reduce((n, s) => n + s[k], 0);
  const wrongWays = maps.flatMap((m) => m.statements.flatMap((s) => (s.wrongWays ?? []).map((w) => ({ ...w, statement: s.id }))));
  const neighbours = maps.flatMap((m) => m.statements.flatMap((s) => (s.neighbours ?? []).map((n) => ({ ...n, statement: s.id }))));
  return { sections: list, uncovered, reasoned, unaccounted, wrongWays, neighbours, totals: { statements: sum('statements'), testable: sum('testable'), covered: sum('covered') } };
}
