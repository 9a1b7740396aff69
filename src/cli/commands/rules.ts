import { faultsBreaking } from '../../reference/faults/catalog.ts';
import { selectRules } from '../../rules/catalog.ts';
import { loadConfig } from '../../config/load-config.ts';
import { flagsToConfig, type CommonFlags } from '../flags.ts';

export async function runRulesCommand(flags: CommonFlags & { json?: boolean; long?: boolean; wrongWays?: boolean }): Promise<number> {
  if (flags.wrongWays) {
    const { wrongWaysMarkdown } = await import('./wrong-ways-doc.ts');
    process.stdout.write(wrongWaysMarkdown());
    return 0;
  }
  const config = loadConfig({ env: {}, flags: { ...flagsToConfig(flags), profile: flags.profile ?? 'strict' } });
  const rules = selectRules(config.systems, config.rules, config.profile).map((r) => ({
    ...r,
    faults: faultsBreaking(r.id).map((f) => f.id),
  }));
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(rules, null, 2)}\n`);
    return 0;
  }
  if (!flags.long) {
    const width = Math.max(...rules.map((r) => r.id.length));
    for (const r of rules) process.stdout.write(`${r.id.padEnd(width)}  ${r.level.padEnd(8)}  ${r.title}\n`);
    process.stdout.write(`${rules.length} rule(s); --long for citations and faults, --json for all of it\n`);
    return 0;
  }
  for (const r of rules) {
    process.stdout.write(`${r.id}  [${r.system}, ${r.level}]${r.capability ? ` (needs capability ${r.capability})` : ''}\n`);
    process.stdout.write(`  ${r.title}\n`);
    for (const s of r.sources) process.stdout.write(`  spec: ${s.file} § ${s.section}: "${s.quote}"\n`);
    if (r.upstream) process.stdout.write(`  upstream: ${r.upstream.product} ${r.upstream.source}: ${r.upstream.note}\n`);
    for (const n of r.notes ?? []) process.stdout.write(`  judged: ${n}\n`);
    process.stdout.write(`  faults: ${r.faults.join(', ') || '(none)'}\n\n`);
  }
  process.stdout.write(`${rules.length} rule(s)\n`);
  return 0;
}
