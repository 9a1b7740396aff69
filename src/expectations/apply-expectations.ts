import type { RuleResult } from '../report/results-model.ts';
import type { ExpectationFile } from './schema.ts';

export interface ExpectationFinding {
  rule: string;
  product: string;
  kind: 'no-longer-happens' | 'other-failure' | 'unknown-rule';
  message: string;
}

/**
 * Applies the expectation files of the products named with `--expect`: a FAIL of a listed rule
 * whose message matches the listed deviation becomes EXPECTED, keeping what was observed. A FAIL
 * that does not match stays FAIL (another bug hides behind no expectation), and a listed rule that
 * passes is reported: the deviation no longer happens, so the entry can go.
 */
export function applyExpectations(results: RuleResult[], files: readonly ExpectationFile[]): { results: RuleResult[]; findings: ExpectationFinding[] } {
  const findings: ExpectationFinding[] = [];
  const entries = files.flatMap((f) => f.expectations.map((e) => ({ ...e, product: f.product, productName: f.name, system: f.system })));
  const out = results.map((r) => {
    const listed = entries.filter((e) => e.rule === r.id && e.system === r.system);
    if (listed.length === 0) return r;
    if (r.outcome === 'FAIL') {
      const match = listed.find((e) => new RegExp(e.failure).test(r.message ?? ''));
      if (!match) {
        findings.push({
          rule: r.id,
          product: listed[0]!.product,
          kind: 'other-failure',
          message: `${r.id} fails, but not as ${listed.map((e) => e.productName).join(' / ')} is expected to (${listed.map((e) => e.behavior).join('; ')}): it stays FAIL`,
        });
        return r;
      }
      return {
        ...r,
        outcome: 'EXPECTED' as const,
        expectation: { product: match.product, behavior: match.behavior, source: `${match.source.repo} ${match.source.file} (${match.source.function})`, versions: match.versions },
        message: `expected deviation of ${match.productName}: ${match.behavior} [${match.source.repo} ${match.source.file} ${match.source.function}] (observed: ${r.message ?? ''})`,
      };
    }
    if (r.outcome === 'PASS') {
      for (const e of listed.filter((x) => !x.conditional)) {
        findings.push({ rule: r.id, product: e.product, kind: 'no-longer-happens', message: `${r.id} passes: the expected deviation of ${e.productName} (${e.behavior}) no longer happens` });
      }
    }
    return r;
  });
  return { results: out, findings };
}
