import type { DiffedEndpoint, DiffedRequest, DiffRun } from './diff-model.ts';
import { quoteOf } from './spec-word.ts';

/**
 * The diff as a page a user reads: the two targets, then one section per endpoint (method and spec
 * path) with what the spec states about its answer, and every request that was answered differently,
 * both answers (normalised, redacted, cut) and what the spec says about each difference.
 */
export function diffMarkdown(run: DiffRun): string {
  const names = { a: run.a.name, b: run.b.name };
  const c = run.counts;
  const out: string[] = [
    `# stackproof diff: ${run.system}`,
    '',
    `- **a**: ${names.a} (${run.a.url})`,
    `- **b**: ${names.b} (${run.b.url})`,
    `- seed ${run.seed} (replay with \`--seed ${run.seed} --runs ${run.runs}\`), run prefix ${run.prefix}, started ${run.startedAt}, ${Math.round(run.durationMs / 100) / 10} s`,
    `- known differences (docs/reference-fidelity.md): ${run.listing}`,
    `- ${c.requests} requests: ${c.alike} answered alike, ${c.differing} differently (${c.listed} listed, **${c.unlisted} not listed**)${c.unanswered ? `; ${c.unanswered} without an answer from a target` : ''}`,
    ...(run.interrupted ? ['- **stopped by Ctrl-C**: not every request was sent'] : []),
    '',
    '| endpoint | requests | alike | listed | not listed |',
    '|---|---|---|---|---|',
    ...run.endpoints.map((e) => {
      const differing = e.requests.filter((r) => r.differences.length);
      const unlisted = differing.filter((r) => r.differences.some((d) => !d.listed)).length;
      return `| \`${e.method} ${e.path}\` | ${e.requests.length} | ${e.requests.length - differing.length} | ${differing.length - unlisted} | ${unlisted} |`;
    }),
    '',
  ];
  if (run.skipped.length) out.push('Not compared:', '', ...run.skipped.map((x) => `- \`${x.endpoint}\`: ${x.why}`), '');
  for (const e of run.endpoints) out.push(...endpointSection(e, names));
  if (run.unseen.length) {
    out.push('## Listed, but not seen in this run', '', 'Rows of docs/reference-fidelity.md for this product and version that no difference matched: fixed since (then the row goes), or not reached by these requests.', '');
    for (const u of run.unseen) out.push(`- line ${u.line}: \`${u.row}\``);
    out.push('');
  }
  out.push('## Cleanup', '');
  for (const side of ['a', 'b'] as const) {
    const r = run.cleanup[side];
    out.push(`- ${names[side]}: removed ${r.removed.length} thing(s)${r.problems.length ? `; **could not remove**: ${r.problems.map(escapeCell).join('; ')}` : ''}`);
  }
  return `${out.join('\n')}\n`;
}

function endpointSection(e: DiffedEndpoint, names: { a: string; b: string }): string[] {
  const differing = e.requests.filter((r) => r.differences.length);
  const out = [`## \`${e.method} ${e.path}\``, ''];
  out.push(e.spec.length ? `What the spec states about this answer:` : 'The spec states nothing about this answer.', '');
  for (const q of e.spec) out.push(`- ${quoteOf(q)}`);
  out.push('', `${e.requests.length} request(s), ${differing.length} answered differently.`, '');
  const alike = e.requests.filter((r) => !r.differences.length);
  if (alike.length) out.push(`Answered alike: ${alike.map((r) => `${r.class} (${r.what}, ${r.a.status ?? 'no answer'})`).join('; ')}.`, '');
  for (const r of differing) out.push(...requestBlock(r, names));
  return out;
}

function requestBlock(r: DiffedRequest, names: { a: string; b: string }): string[] {
  const unlisted = r.differences.some((d) => !d.listed);
  const out = [`### ${unlisted ? '**not listed**' : 'listed'}: ${r.class}, ${r.what}`, '', `\`${r.request}\``, ''];
  for (const d of r.differences) {
    out.push(`- ${d.line}`);
    out.push(`  - listed: ${d.listed ? `docs/reference-fidelity.md line ${d.listed.line}: ${d.listed.why}` : '**no**'}`);
    out.push(`  - the spec: ${d.spec}`);
  }
  out.push('');
  for (const side of ['a', 'b'] as const) {
    const ans = r[side];
    out.push(`${names[side]}: ${ans.status ?? `no answer (${ans.noAnswer})`}${ans.contentType ? ` ${ans.contentType}` : ''}`, '', '```', ans.excerpt || '(empty)', '```', '');
  }
  return out;
}

const escapeCell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The console summary: the targets, counts by endpoint, and every difference no row lists. */
export function diffSummary(run: DiffRun, reportFile?: string): string {
  const c = run.counts;
  const lines = [
    `diff ${run.system}: a = ${run.a.name} (${run.a.url}), b = ${run.b.name} (${run.b.url})`,
    `seed ${run.seed} (replay: --seed ${run.seed} --runs ${run.runs}), run prefix ${run.prefix}`,
    `known differences: ${run.listing}`,
    '',
  ];
  const width = Math.max(...run.endpoints.map((e) => `${e.method} ${e.path}`.length), 10);
  lines.push(`${'endpoint'.padEnd(width)}  sent  alike  listed  not listed`);
  for (const e of run.endpoints) {
    const differing = e.requests.filter((r) => r.differences.length);
    const unlisted = differing.filter((r) => r.differences.some((d) => !d.listed)).length;
    lines.push(`${`${e.method} ${e.path}`.padEnd(width)}  ${String(e.requests.length).padStart(4)}  ${String(e.requests.length - differing.length).padStart(5)}  ${String(differing.length - unlisted).padStart(6)}  ${String(unlisted).padStart(10)}`);
  }
  for (const x of run.skipped) lines.push(`${x.endpoint.padEnd(width)}  not compared: ${x.why}`);
  lines.push('', `${c.requests} requests: ${c.alike} alike, ${c.differing} different (${c.listed} listed, ${c.unlisted} not listed)`);
  if (c.unanswered) {
    lines.push(`${c.unanswered} request(s) had no answer from a target, and say nothing of it:`);
    for (const e of run.endpoints) for (const r of e.requests.filter((x) => x.a.status === undefined || x.b.status === undefined)) lines.push(`  ${e.method} ${e.path} [${r.class}] ${r.what}: ${[r.a, r.b].map((x, i) => (x.status === undefined ? `${i ? run.b.name : run.a.name}: ${x.noAnswer}` : '')).filter(Boolean).join('; ')}`);
  }
  const unlisted = run.endpoints.flatMap((e) => e.requests.filter((r) => r.differences.some((d) => !d.listed)).map((r) => ({ e, r })));
  if (unlisted.length) {
    lines.push('', 'not listed in docs/reference-fidelity.md:');
    for (const { e, r } of unlisted.slice(0, 40)) {
      for (const d of r.differences.filter((x) => !x.listed)) lines.push(`  ${e.method} ${e.path} [${r.class}] ${r.what}: ${d.line.slice(0, 240)}`);
    }
    if (unlisted.length > 40) lines.push(`  … and ${unlisted.length - 40} more request(s): see the report`);
  }
  if (run.unseen.length) lines.push('', `${run.unseen.length} listed difference(s) not seen in this run (fixed, or not reached): lines ${run.unseen.map((u) => u.line).join(', ')} of docs/reference-fidelity.md`);
  if (run.interrupted) lines.push('', 'stopped by Ctrl-C: not every request was sent');
  for (const side of ['a', 'b'] as const) {
    const r = run.cleanup[side];
    lines.push(`cleanup ${run[side].name}: removed ${r.removed.length} thing(s)${r.problems.length ? `, could not remove ${r.problems.length}: ${r.problems.join('; ')}` : ''}`);
  }
  if (reportFile) lines.push(`report: ${reportFile}`);
  return `${lines.join('\n')}\n`;
}
