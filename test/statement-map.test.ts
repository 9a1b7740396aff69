import { describe, expect, it } from 'vitest';
import { RULES } from '../src/rules/catalog.ts';
import { faultById } from '../src/reference/faults/catalog.ts';
import { accessStatementsWithoutNeighbours, statementCoverage, statementMapProblems } from '../src/rules/statement-coverage.ts';
import { STATEMENT_MAPS } from '../src/rules/statements/index.ts';

describe('the statement map of the specs', () => {
  it('quotes each statement from its section, names only existing rules, and gives each statement rules or a reason', () => {
    expect(statementMapProblems((id) => faultById(id)?.breaks)).toEqual([]);
  });

  it('names, for every access statement, the neighbouring scopes its decision is asked from (issue 47)', () => {
    expect(accessStatementsWithoutNeighbours()).toEqual([]);
  });

  it('accounts for every rule-bearing unit of the three specs', () => {
    expect(statementCoverage().unaccounted.map((u) => `${u.file}:${u.line} [${u.section}] ${u.text}`)).toEqual([]);
  });

  it('has every testable statement asserted by a rule that runs in the default profile, but the few known gaps, each with its reason', () => {
    const { uncovered, totals } = statementCoverage();
    expect(uncovered.filter((s) => !s.gap).map((s) => `${s.id}: ${s.claim ?? s.quote}`)).toEqual([]);
    expect(uncovered.length, 'known gaps stay few').toBeLessThanOrEqual(Math.ceil(totals.testable / 100));
  });

  it('traces every rule of the default profile to a statement it asserts', () => {
    const asserted = new Set(STATEMENT_MAPS.flatMap((m) => m.statements.flatMap((s) => s.rules ?? [])));
    expect(RULES.filter((r) => r.level !== 'UPSTREAM' && !asserted.has(r.id)).map((r) => r.id)).toEqual([]);
  });
});
