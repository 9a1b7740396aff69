import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { faultById } from '../../reference/faults/catalog.ts';
import { statementCoverage, statementMapProblems, type StatementCoverage } from '../../rules/statement-coverage.ts';
import { STATEMENT_MAPS } from '../../rules/statements/index.ts';
import { escapeMarkup as h } from '../../report/xml-escape.ts';

const pct = (covered: number, testable: number) => (testable === 0 ? '100%' : `${Math.floor((covered / testable) * 1000) / 10}%`);

/** The statement map as a page: per section the counts, then every statement with its rules or its reason. */
function coverageHtml(c: StatementCoverage): string {
  const sectionRows = c.sections
    .map((s) => `<tr class="${s.covered < s.testable ? 'gap' : ''}"><td>${h(s.file)}</td><td>${h(s.section)}</td><td>${s.covered} / ${s.testable}</td><td>${s.statements - s.testable}</td></tr>`)
    .join('');
  const statementRows = STATEMENT_MAPS.flatMap((m) =>
    m.statements.map((s) => {
      const state = s.untestable ? 'reasoned' : c.uncovered.some((u) => u.id === s.id) ? 'gap' : 'covered';
      const how = s.untestable ? `<em>not testable from outside:</em> ${h(s.untestable)}` : s.rules?.length ? s.rules.map(h).join('<br>') : `<strong>no rule</strong>${s.gap ? `: ${h(s.gap)}` : ''}`;
      return `<tr class="${state}"><td>${h(s.id)}</td><td>${h(s.section)}</td><td>${h(s.quote)}${s.claim ? `<br><small>${h(s.claim)}</small>` : ''}</td><td>${how}</td></tr>`;
    }),
  ).join('');
  const wrongWayRows = STATEMENT_MAPS.flatMap((m) =>
    m.statements.flatMap((s) => (s.wrongWays ?? []).map((w) => `<tr><td>${h(s.id)}</td><td>${h(w.kind)}</td><td>${h(w.how)}</td><td>${h(w.rule)}: ${h(w.example)}</td><td>${h(w.fault)}</td></tr>`)),
  ).join('');
  const neighbourRows = c.neighbours.map((n) => `<tr><td>${h(n.statement)}</td><td>${h(n.scope)}</td><td>${h(n.rule)}: ${h(n.example)}</td></tr>`).join('');
  const unaccounted = c.unaccounted.map((u) => `<li>${h(u.file)}:${u.line} [${h(u.section)}] ${h(u.text)}</li>`).join('');
  return `<!doctype html><meta charset="utf-8"><title>stackproof spec coverage</title><style>body{font:13px system-ui;margin:20px}td{border-bottom:1px solid #ddd;padding:3px 6px;vertical-align:top}.gap{background:#fff4e0}.reasoned{color:#666}</style>
<h1>Spec coverage: ${c.totals.covered} of ${c.totals.testable} testable statements asserted (${pct(c.totals.covered, c.totals.testable)})</h1>
<p>${c.totals.statements} statements in the three specs; ${c.totals.statements - c.totals.testable} cannot be observed from outside (each says why).</p>
<table><tr><th>spec</th><th>section</th><th>asserted / testable</th><th>not testable</th></tr>${sectionRows}</table>
${unaccounted ? `<h2>Spec text the map does not account for</h2><ul>${unaccounted}</ul>` : ''}
<h2>How a check could be wrong and still pass its easy side: ${c.wrongWays.length} ways, each with its example and its fault</h2>
<table><tr><th>statement</th><th>kind</th><th>how</th><th>asserted by</th><th>fault the matrix catches</th></tr>${wrongWayRows}</table>
<h2>Access decisions asked from beside the granted scope: ${c.neighbours.length} neighbours</h2>
<table><tr><th>statement</th><th>neighbouring scope</th><th>asked by</th></tr>${neighbourRows}</table>
<h2>Statements</h2><table><tr><th>statement</th><th>section</th><th>spec text</th><th>asserted by</th></tr>${statementRows}</table>`;
}

/** `stackproof coverage`: the statement map of the specs, statements asserted per section. */
export async function runCoverageCommand(flags: { json?: boolean; reportsDir?: string }): Promise<number> {
  const problems = statementMapProblems((id) => faultById(id)?.breaks);
  const c = statementCoverage();
  const dir = flags.reportsDir ?? 'reports';
  await mkdir(dir, { recursive: true });
  const json = { totals: c.totals, sections: c.sections, uncovered: c.uncovered, reasoned: c.reasoned, unaccounted: c.unaccounted, wrongWays: c.wrongWays, neighbours: c.neighbours, problems };
  await writeFile(join(dir, 'coverage.json'), `${JSON.stringify(json, null, 2)}\n`);
  await writeFile(join(dir, 'coverage.html'), coverageHtml(c));
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    return problems.length ? 1 : 0;
  }
  const out = (line: string) => process.stdout.write(`${line}\n`);
  for (const s of c.sections) out(`${pct(s.covered, s.testable).padStart(6)}  ${String(s.covered).padStart(3)}/${String(s.testable).padEnd(3)} ${s.file.slice(0, 3)} ${s.section}${s.statements > s.testable ? `  (${s.statements - s.testable} not testable from outside)` : ''}`);
  for (const u of c.uncovered) out(`not asserted  ${u.id}  [${u.section}]  ${(u.claim ?? u.quote).slice(0, 120)}${u.gap ? `\n    known gap: ${u.gap}` : ''}`);
  for (const u of c.unaccounted) out(`not in the map  ${u.file}:${u.line}  [${u.section}]  ${u.text.slice(0, 120)}`);
  for (const w of c.wrongWays) out(`wrong way  ${w.statement}  ${w.kind}: ${w.how}\n    asserted by ${w.rule}: ${w.example}; fault ${w.fault}`);
  for (const n of c.neighbours) out(`neighbour  ${n.statement}  ${n.scope}\n    asked by ${n.rule}: ${n.example}`);
  for (const p of problems) out(`map problem  ${p}`);
  out(`\n${c.wrongWays.length} ways an access-control or stream-position check could be wrong, each asserted by an example and caught as a fault (${new Set(c.wrongWays.map((w) => w.statement)).size} statements)`);
  out(`${c.neighbours.length} neighbouring scopes an access decision is asked from (${new Set(c.neighbours.map((n) => n.statement)).size} statements)`);
  out(`${c.totals.covered} of ${c.totals.testable} testable statements asserted by a rule's test (${pct(c.totals.covered, c.totals.testable)}); ${c.totals.statements - c.totals.testable} statements cannot be observed from outside; ${join(dir, 'coverage.html')} lists them all`);
  return problems.length ? 1 : 0;
}
