import type { RuleResult, RunResults } from './results-model.ts';
import { escapeMarkup as x } from './xml-escape.ts';

/**
 * JUnit XML with one testcase per rule, grouped in a testsuite per system. FAIL maps to
 * <failure>, ERROR to <error>, SKIP, WAIVED and EXPECTED to <skipped> (with the reason).
 */
export function renderJunit(results: RunResults): string {
  const systems = [...new Set(results.rules.map((r) => r.system))];
  const count = (rules: RuleResult[], ...outcomes: string[]) => rules.filter((r) => outcomes.includes(r.outcome)).length;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const suites = systems.map((system) => {
    const rules = results.rules.filter((r) => r.system === system);
    const cases = rules.map((r) => renderCase(r)).join('\n');
    return `  <testsuite name="${x(system)}" tests="${rules.length}" failures="${count(rules, 'FAIL')}" errors="${count(rules, 'ERROR')}" skipped="${count(rules, 'SKIP', 'WAIVED', 'EXPECTED', 'INTERRUPTED')}" time="${seconds(rules.reduce((s, r) => s + r.durationMs, 0))}" timestamp="${x(results.run.startedAt)}">\n${cases}\n  </testsuite>`;
  });
  const all = results.rules;
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="stackproof" tests="${all.length}" failures="${count(all, 'FAIL')}" errors="${count(all, 'ERROR')}" skipped="${count(all, 'SKIP', 'WAIVED', 'EXPECTED', 'INTERRUPTED')}" time="${seconds(results.run.durationMs)}">
${suites.join('\n')}
</testsuites>
`;
}

function renderCase(r: RuleResult): string {
  const classname = r.id.split('.').slice(0, 2).join('.');
  const cite = r.sources.map((s) => `${s.file} § ${s.section}: "${s.quote}"`).join('\n');
  const props = `      <properties>
        <property name="level" value="${x(r.level)}"/>
        <property name="outcome" value="${x(r.outcome)}"/>
        <property name="citation" value="${x(cite)}"/>
      </properties>`;
  const detail = [
    r.message,
    r.expected !== undefined ? `expected: ${r.expected}` : undefined,
    r.actual !== undefined ? `actual: ${r.actual}` : undefined,
    r.counterexample ? `counterexample: ${r.counterexample.value} (seed ${r.counterexample.seed}, path ${r.counterexample.path})` : undefined,
    r.replay ? `replay: ${r.replay}` : undefined,
  ]
    .filter(Boolean)
    .join('\n');
  let body = '';
  if (r.outcome === 'FAIL') body = `\n      <failure message="${x(firstLine(r.message))}" type="FAIL">${x(detail)}</failure>`;
  if (r.outcome === 'ERROR') body = `\n      <error message="${x(firstLine(r.message))}" type="ERROR">${x(detail)}</error>`;
  if (r.outcome === 'SKIP' || r.outcome === 'WAIVED' || r.outcome === 'EXPECTED' || r.outcome === 'INTERRUPTED') body = `\n      <skipped message="${x(`${r.outcome}: ${r.message ?? ''}`)}"/>`;
  const out = r.replay ? `\n      <system-out>${x(`replay: ${r.replay}`)}</system-out>` : '';
  return `    <testcase classname="${x(classname)}" name="${x(`${r.id} ${r.title}`)}" time="${(r.durationMs / 1000).toFixed(3)}">\n${props}${body}${out}\n    </testcase>`;
}

function firstLine(s: string | undefined): string {
  return (s ?? '').split('\n')[0]!.slice(0, 500);
}
