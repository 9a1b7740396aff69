import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAULTS } from '../src/reference/faults/catalog.ts';
import { RULES } from '../src/rules/catalog.ts';
import { normalizeSpecText, readSpec, sectionText, SPEC_DIR } from '../src/rules/spec-text.ts';
import { SPEC_FILES } from '../src/rules/spec-files.ts';
import { ROOT } from './support/run-cli.ts';

function suiteFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? suiteFiles(join(dir, e.name)) : e.name.endsWith('.suite.ts') ? [join(dir, e.name)] : [],
  );
}

/** Rule ids that have a test, read from the suites' ruleTest('<id>', ...) calls. */
function testedRuleIds(): string[] {
  return suiteFiles(join(ROOT, 'suites')).flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/ruleTest\(\s*'([^']+)'/g)].map((m) => m[1]!));
}

describe('rule catalog', () => {
  it('has unique ids, each prefixed by its system', () => {
    const ids = RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of RULES) expect(r.id.startsWith(`${r.system}.`), r.id).toBe(true);
  });

  it('cites, for every rule, a sentence that is really in the named section of the spec file', () => {
    for (const rule of RULES) {
      expect(rule.sources.length, `${rule.id} has a citation`).toBeGreaterThan(0);
      for (const source of rule.sources) {
        expect(source.file, `${rule.id} cites its own system's spec`).toBe(SPEC_FILES[rule.system]);
        const section = sectionText(readSpec(source.file), source.section);
        expect(section, `${rule.id}: section "${source.section}" exists in ${source.file}`).toBeDefined();
        expect(normalizeSpecText(section!), `${rule.id}: quote is in section "${source.section}"`).toContain(normalizeSpecText(source.quote));
      }
      if (rule.level === 'UPSTREAM') expect(rule.upstream, `${rule.id}: an UPSTREAM rule names its upstream source`).toBeDefined();
    }
  });

  it('gives every rule exactly one test, and every test a rule', () => {
    const tested = testedRuleIds();
    const catalog = new Set(RULES.map((r) => r.id));
    for (const id of tested) expect(catalog.has(id), `test for "${id}" has a catalog rule`).toBe(true);
    for (const r of RULES) expect(tested.filter((id) => id === r.id).length, `${r.id} has one test`).toBe(1);
  });

  it('breaks every rule with at least one fault, and every fault breaks known rules', () => {
    const catalog = new Set(RULES.map((r) => r.id));
    const faultIds = FAULTS.map((f) => f.id);
    expect(new Set(faultIds).size).toBe(faultIds.length);
    for (const f of FAULTS) {
      expect(f.breaks.length, `${f.id} breaks a rule`).toBeGreaterThan(0);
      for (const id of f.breaks) expect(catalog.has(id), `${f.id} breaks known rule ${id}`).toBe(true);
    }
    for (const r of RULES) expect(FAULTS.some((f) => f.breaks.includes(r.id)), `${r.id} has a fault`).toBe(true);
  });

  it('vendors the spec files unchanged from ../shared/spec when that folder is present', () => {
    const shared = join(ROOT, '..', 'shared', 'spec');
    for (const file of Object.values(SPEC_FILES)) {
      expect(existsSync(join(SPEC_DIR, file)), `spec/${file} is vendored`).toBe(true);
      if (existsSync(shared)) expect(readFileSync(join(SPEC_DIR, file), 'utf8')).toBe(readFileSync(join(shared, file), 'utf8'));
    }
  });
});
