import type { RuleResult } from '../report/results-model.ts';
import type { ProductName } from '../config/names.ts';
import type { ExpectationFile } from './schema.ts';
import { coversNewest, satisfies } from './version-range.ts';

/** Whether one listed deviation applied to this run, by the version found on its system's target. */
export interface ExpectationApplication {
  rule: string;
  product: string;
  range?: string;
  /** The version of the product the provisioner found on the target (absent when unknown). */
  version?: string;
  applies: boolean;
  /** Set when the target is another product than the file's (its entries are left out together). */
  otherProduct?: boolean;
  why: string;
}

/** The product version found on each system's target (undefined: not found, e.g. the embedded reference). */
export type DetectedVersions = Partial<Record<'secrets' | 'mesh' | 'scheduler', string | undefined>>;

/**
 * The product found on each system's target (undefined: not told, e.g. the embedded reference). A
 * product's entries and ranges are for that product: Vault's say nothing of OpenBao's 2.x releases.
 */
export type DetectedProducts = Partial<Record<'secrets' | 'mesh' | 'scheduler', { key: ProductName; name: string } | undefined>>;

/**
 * Which entries apply: an entry with a range applies when the detected version is inside it; when the
 * version is unknown (the embedded reference, a product that does not say, a token that cannot read
 * it) every entry applies, as before ranges existed, and the run says so.
 */
export function applicableExpectations(files: readonly ExpectationFile[], versions: DetectedVersions = {}, products: DetectedProducts = {}): ExpectationApplication[] {
  return files.flatMap((f) =>
    f.expectations.map((e) => {
      const found = products[f.system];
      const version = versions[f.system];
      const base = { rule: e.rule, product: f.product, ...(e.range ? { range: e.range } : {}), ...(version ? { version } : {}) };
      if (found && found.key !== f.product) return { ...base, applies: false, otherProduct: true, why: `the ${f.system} target is ${found.name}${version ? ` ${version}` : ''}, not ${f.name} (its deviations are listed for --expect ${found.key})` };
      if (!e.range) return { ...base, applies: true, why: 'no range: applies to every version' };
      if (!version) return { ...base, applies: true, why: `version of ${f.name} unknown: applies (range ${e.range} not checked)` };
      return satisfies(version, e.range)
        ? { ...base, applies: true, why: `${version} is in ${e.range}` }
        : { ...base, applies: false, why: `${version} is outside ${e.range}` };
    }),
  );
}

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
 * passes is reported: the deviation no longer happens, so the entry can go. Only the entries whose
 * range holds the detected version take part (applicableExpectations); with the version unknown all
 * do, but a pass is reported only of an entry whose range reaches the newest versions.
 */
export function applyExpectations(
  results: RuleResult[],
  files: readonly ExpectationFile[],
  versions: DetectedVersions = {},
  products: DetectedProducts = {},
): { results: RuleResult[]; findings: ExpectationFinding[]; applied: ExpectationApplication[] } {
  const findings: ExpectationFinding[] = [];
  const applied = applicableExpectations(files, versions, products);
  let i = 0;
  const entries = files
    .flatMap((f) => f.expectations.map((e) => ({ ...e, product: f.product, productName: f.name, system: f.system, versionKnown: Boolean(versions[f.system]), applies: applied[i++]!.applies })))
    .filter((e) => e.applies);
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
        expectation: { product: match.product, behavior: match.behavior, source: `${match.source.repo} ${match.source.file} (${match.source.function})`, versions: match.versions, ...(match.range ? { range: match.range } : {}) },
        message: `expected deviation of ${match.productName}: ${match.behavior} [${match.source.repo} ${match.source.file} ${match.source.function}] (observed: ${r.message ?? ''})`,
      };
    }
    if (r.outcome === 'PASS') {
      // With the version unknown, a deviation only older versions have (a range with an upper bound,
      // like Consul 1.8's) says nothing when the rule passes: the target may be newer.
      for (const e of listed.filter((x) => !x.conditional && (x.versionKnown || !x.range || coversNewest(x.range)))) {
        findings.push({ rule: r.id, product: e.product, kind: 'no-longer-happens', message: `${r.id} passes: the expected deviation of ${e.productName} (${e.behavior}) no longer happens` });
      }
    }
    return r;
  });
  return { results: out, findings, applied };
}

/** What the terminal says about which expectations applied: one line per product, then the ones left out. */
export function expectationLines(applied: readonly ExpectationApplication[]): string[] {
  const lines: string[] = [];
  for (const product of [...new Set(applied.map((a) => a.product))]) {
    const mine = applied.filter((a) => a.product === product);
    const used = mine.filter((a) => a.applies);
    const version = mine.find((a) => a.version)?.version;
    const other = mine.find((a) => a.otherProduct);
    if (other) {
      lines.push(`expectations of ${product}: none apply: ${other.why}`);
      continue;
    }
    lines.push(
      `expectations of ${product}: ${used.length} of ${mine.length} apply ${version ? `to the version found, ${version}` : '(version unknown: every listed deviation applies)'}${used.length ? `: ${used.map((a) => `${a.rule}${a.range ? ` (${a.range})` : ''}`).join(', ')}` : ''}`,
    );
    for (const a of mine.filter((x) => !x.applies)) lines.push(`  not applied: ${a.rule}: ${a.why}`);
  }
  return lines;
}
