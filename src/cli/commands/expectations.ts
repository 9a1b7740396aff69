import { PRODUCTS, type ProductName } from '../../config/schema.ts';
import { ConfigError } from '../../config/load-config.ts';
import { readExpectationFiles } from '../../expectations/load-expectations.ts';
import { ruleById } from '../../rules/catalog.ts';

/** Lists the shipped expectation files: per product, the rules it deviates from the spec on. */
export async function runExpectationsCommand(flags: { json?: boolean; product?: string }): Promise<number> {
  const products = (flags.product ? flags.product.split(',').map((p) => p.trim()).filter(Boolean) : [...PRODUCTS]) as ProductName[];
  const unknown = products.filter((p) => !(PRODUCTS as readonly string[]).includes(p));
  if (unknown.length) throw new ConfigError(`--product: unknown product(s) ${unknown.join(', ')} (known: ${PRODUCTS.join(', ')})`);
  const files = readExpectationFiles(products);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(files, null, 2)}\n`);
    return 0;
  }
  const out = (s: string) => process.stdout.write(`${s}\n`);
  for (const f of files) {
    out(`${f.name} (--expect ${f.product}, system ${f.system}): ${f.expectations.length} listed deviation(s)`);
    for (const e of f.expectations) {
      const rule = ruleById(e.rule);
      out(`  ${e.rule}${rule ? ` [${rule.level}]` : ' [no such rule]'}`);
      if (rule) out(`    the spec: "${rule.sources[0]?.quote ?? ''}"`);
      out(`    ${f.product} instead: ${e.behavior}`);
      out(`    source: ${e.source.repo} ${e.source.file} (${e.source.function}); versions ${e.versions}${e.range ? ` (range ${e.range})` : ''}${e.conditional ? `; only ${e.conditional}` : ''}`);
    }
    out('');
  }
  out('Run with --expect <product> to report these as EXPECTED instead of FAIL.');
  return 0;
}
