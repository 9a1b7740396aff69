import { faultsBreaking } from '../../reference/faults/catalog.ts';
import { RULES } from '../../rules/catalog.ts';
import { STATEMENT_MAPS } from '../../rules/statements/index.ts';

/**
 * docs/wrong-ways.md: for every rule, how a real implementation could get it wrong and still look
 * right, and what closes each way: the examples the statement map lists for the rule's hard side,
 * and every fault of the reference's catalog the fault matrix shows the rule catching.
 */
export function wrongWaysMarkdown(): string {
  const ways = STATEMENT_MAPS.flatMap((m) => m.statements.flatMap((s) => (s.wrongWays ?? []).map((w) => ({ ...w, statement: s.id }))));
  const lines = [
    '# How each rule could be fooled, and what closes it',
    '',
    'Generated from the rule catalog, the statement map and the fault catalog: `npx stackproof rules --wrong-ways > docs/wrong-ways.md` (a test keeps it current).',
    '',
    'For each rule: the ways an implementation could get it wrong and still pass an easy check, each a fault of the reference\'s catalog that the fault matrix shows caught (`npx stackproof faults --fault <id>`). Where the statement map lists a way on the check\'s hard side (exact against prefix, read against write, another namespace, allowed and forbidden mixed in one request, one route or verb left unchecked, the first item only, a stream position ignored), the example that shows it is named.',
    '',
  ];
  let system = '';
  for (const rule of RULES) {
    if (rule.system !== system) {
      system = rule.system;
      lines.push(`## ${system}`, '');
    }
    lines.push(`### ${rule.id} (${rule.level})`, '', rule.title, '');
    for (const w of ways.filter((x) => x.rule === rule.id)) lines.push(`- **${w.kind}** (${w.statement}): ${w.how} Closed by: ${w.example}; fault \`${w.fault}\`.`);
    const listed = new Set(ways.filter((x) => x.rule === rule.id).map((w) => w.fault));
    for (const f of faultsBreaking(rule.id).filter((x) => !listed.has(x.id))) lines.push(`- ${f.description.replace(/\.$/, "")}. Fault \`${f.id}\`.`);
    lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
