import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { specCoverage } from '../../rules/coverage.ts';
import { escapeMarkup as h } from '../../report/xml-escape.ts';

/** `stackproof coverage`: every rule-bearing unit of the specs and the rules that cover it. */
export async function runCoverageCommand(flags: { json?: boolean; reportsDir?: string }): Promise<number> {
  const { units, covered, total } = specCoverage();
  const dir = flags.reportsDir ?? 'reports';
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'coverage.json'), `${JSON.stringify({ covered, total, units }, null, 2)}\n`);
  const rows = units
    .map((u) => `<tr class="${u.rules.length ? 'covered' : 'uncovered'}"><td>${h(u.file)}:${u.line}</td><td>${h(u.section)}</td><td>${h(u.text)}</td><td>${u.rules.map(h).join('<br>') || '<strong>not covered</strong>'}</td></tr>`)
    .join('');
  await writeFile(
    join(dir, 'coverage.html'),
    `<!doctype html><meta charset="utf-8"><title>stackproof spec coverage</title><style>body{font:13px system-ui;margin:20px}td{border-bottom:1px solid #ddd;padding:3px 6px;vertical-align:top}.uncovered{background:#fff4e0}</style><h1>Spec coverage: ${covered} of ${total} rule-bearing units</h1><table>${rows}</table>`,
  );
  if (flags.json) process.stdout.write(`${JSON.stringify({ covered, total, units }, null, 2)}\n`);
  else {
    for (const u of units.filter((x) => x.rules.length === 0)) process.stdout.write(`not covered  ${u.file}:${u.line}  [${u.section}]  ${u.text.slice(0, 140)}\n`);
    process.stdout.write(`\n${covered} of ${total} rule-bearing units of the specs are covered by a rule; ${join(dir, 'coverage.html')} lists them all\n`);
  }
  return 0;
}
