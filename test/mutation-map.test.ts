import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { selectRules } from '../src/rules/catalog.ts';
import { MAP_FILE, moduleName, readModuleMap, ROOT } from '../scripts/mutation/module-map.ts';
import { mutantRows, readEquivalents, readRecords, score } from '../scripts/mutation/triage.ts';
import type { MutationReport } from '../scripts/mutation/report-shape.ts';
// @ts-expect-error: plain JavaScript, loaded by Stryker as a plugin
import { faultIgnorer } from '../scripts/mutation/fault-ignorer.mjs';

// The map from the security-relevant modules of the reference to the rules that judge their
// mutants (mutation/modules.json, docs/mutation-testing.md): a module that moved or a glob that
// matches no rule would make `npm run mutate` judge nothing and call every mutant NoCoverage.
describe('mutation/modules.json', () => {
  const entries = readModuleMap();

  it('lists the security-relevant modules issue 47 names', () => {
    const files = entries.map((e) => e.file);
    for (const f of [
      'src/reference/secrets/oidc/flows.ts',
      'src/reference/secrets/oidc/code-grants.ts',
      'src/reference/secrets/oidc/redirect-match.ts',
      'src/reference/secrets/namespaces.ts',
      'src/reference/secrets/cidr.ts',
      'src/reference/secrets/cloud-auth-login.ts',
      'src/reference/mesh/acl.ts',
      'src/reference/mesh/acl-rules.ts',
      'src/reference/mesh/intentions.ts',
      'src/reference/mesh/certificate-authority.ts',
      'src/reference/scheduler/acl.ts',
      'src/reference/scheduler/acl-policies.ts',
      'src/reference/scheduler/event-broker.ts',
      'src/reference/scheduler/alloc-fs.ts',
      'src/reference/scheduler/fs-endpoints.ts',
    ]) expect(files, f).toContain(f);
  });

  it.each(entries.map((e) => [e.file, e] as const))('%s exists, and every rule glob of it matches rules of its system', (file, entry) => {
    expect(existsSync(join(ROOT, file)), `${file} is no file: update mutation/modules.json`).toBe(true);
    expect(file.startsWith('src/reference/'), 'only the reference is mutated').toBe(true);
    for (const glob of entry.rules) {
      const rules = selectRules([entry.system], [glob], entry.profile);
      expect(rules.length, `${file}: --rules ${glob} selects no ${entry.system} rule (profile ${entry.profile})`).toBeGreaterThan(0);
    }
    for (const glob of entry.upstream?.rules ?? []) {
      const rules = selectRules([entry.system], [glob], entry.profile);
      expect(rules.length, `${file}: the upstream run's --rules ${glob} selects no ${entry.system} rule (profile ${entry.profile})`).toBeGreaterThan(0);
    }
  });

  it('names every record file after one module', () => {
    const names = entries.map((e) => moduleName(e.file));
    expect(new Set(names).size).toBe(names.length);
  });

  it('refuses a malformed entry with the reason', () => {
    const bad = join(ROOT, 'node_modules', '.stackproof-mutation-map-test.json');
    const good = JSON.parse(readFileSync(MAP_FILE, 'utf8')) as { modules: Record<string, Record<string, unknown>> };
    good.modules['src/reference/secrets/cidr.ts'] = { ...good.modules['src/reference/secrets/cidr.ts'], rules: ['mesh.acl'], dialects: ['klingon'] };
    writeFileSync(bad, JSON.stringify(good));
    expect(() => readModuleMap(bad)).toThrow(/cidr\.ts: rules must be globs of secrets rule ids[\s\S]*dialects must be some of spec, hashicorp/);
    good.modules['src/reference/secrets/cidr.ts'] = { ...good.modules['src/reference/secrets/cidr.ts'], rules: ['secrets.cloudauth'], dialects: ['spec'], upstream: { rules: ['secrets.cloudauth.role-bad-input'], expect: ['vaultish'] } };
    writeFileSync(bad, JSON.stringify(good));
    expect(() => readModuleMap(bad)).toThrow(/cidr\.ts: upstream\.expect must be some of vault, openbao, consul, nomad/);
  });
});

describe('mutation records and triage', () => {
  it('every committed report is of a mapped module, and every equivalent entry gives a reason', () => {
    const mapped = new Set(readModuleMap().map((e) => moduleName(e.file)));
    for (const { name, report } of readRecords()) {
      expect(mapped.has(name), `mutation/reports/${name}.json is of no mapped module`).toBe(true);
      expect(report.stackproof?.module).toBeTruthy();
      mutantRows(report);
    }
    for (const e of readEquivalents()) expect(e.reason.length).toBeGreaterThan(20);
  });

  it('sets an equivalent mutant aside, and keeps one out of reach in the score as triaged', () => {
    const at = (column: number) => ({ start: { line: 1, column }, end: { line: 1, column: column + 1 } });
    const report: MutationReport = {
      schemaVersion: '3',
      thresholds: {},
      files: {
        'm.ts': {
          language: 'typescript',
          source: 'a<b',
          mutants: [
            { id: '1', mutatorName: 'EqualityOperator', replacement: '<=', location: at(2), status: 'Survived' },
            { id: '2', mutatorName: 'StringLiteral', replacement: '""', location: at(1), status: 'Survived' },
            { id: '3', mutatorName: 'StringLiteral', replacement: '""', location: at(3), status: 'Killed' },
            { id: '4', mutatorName: 'BooleanLiteral', replacement: 'true', location: at(3), status: 'Survived' },
          ],
        },
      },
    };
    const listed = { file: 'm.ts', line: 1, reason: 'a reason of at least twenty characters' };
    const rows = mutantRows(report, [
      { ...listed, mutator: 'EqualityOperator', original: '<', replacement: '<=' },
      { ...listed, mutator: 'StringLiteral', original: 'a', replacement: '""', kind: 'out-of-reach' },
    ]);
    expect(rows.map((r) => r.triage)).toEqual(['equivalent', 'out-of-reach', 'detected', 'gap']);
    const s = score(rows);
    expect([s.equivalent, s.outOfReach, s.gaps]).toEqual([1, 1, 1]);
    expect(s.scoreWithoutEquivalent, 'the mutant out of reach still counts against the score').toBeCloseTo(100 / 3);
  });

  it('every record judged the module as it is now', () => {
    // The CI slice picks mutants by their recorded place: on changed code it would judge other
    // mutants than the record names, and fail at random. A change to a mapped module comes with
    // its record (npm run mutate -- <file>: incremental, only what changed is judged).
    const stale = readRecords().flatMap(({ report }) =>
      Object.entries(report.files)
        .filter(([file, f]) => existsSync(join(ROOT, file)) && readFileSync(join(ROOT, file), 'utf8') !== f.source)
        .map(([file]) => `${file} changed since its record: npm run mutate -- ${file}, and commit mutation/`),
    );
    expect(stale).toEqual([]);
  });
});

describe('the fault ignorer (scripts/mutation/fault-ignorer.mjs)', () => {
  // Babel nodes, as Stryker's instrumenter hands them over, cut down to what the ignorer reads.
  const check = (id: string) => ({ type: 'CallExpression', callee: { type: 'MemberExpression', computed: false, property: { type: 'Identifier', name: 'has' } }, arguments: [{ type: 'StringLiteral', value: id }] });
  const other = { type: 'Identifier', name: 'x' };
  const ignored = (node: unknown, parent?: unknown) => Boolean(faultIgnorer.shouldIgnore({ node, parent } as never));

  it('ignores fault checks and the branches only a fault turns on', () => {
    const fault = check('secrets.cloudauth-policies-unchecked');
    expect(ignored(fault)).toBe(true);
    expect(ignored({ type: 'UnaryExpression', operator: '!', argument: fault })).toBe(true);
    const branch = { type: 'ReturnStatement' };
    expect(ignored(branch, { type: 'IfStatement', test: fault, consequent: branch })).toBe(true);
    expect(ignored(branch, { type: 'IfStatement', test: { type: 'LogicalExpression', operator: '&&', left: other, right: fault }, consequent: branch })).toBe(true);
    expect(ignored(branch, { type: 'IfStatement', test: { type: 'UnaryExpression', operator: '!', argument: fault }, consequent: other, alternate: branch })).toBe(true);
    // `viaBasic && faults.has(…)`: false with the fault off, whatever the left side is.
    expect(ignored(other, { type: 'LogicalExpression', operator: '&&', left: other, right: fault })).toBe(true);
  });

  it('takes a field of a flaws object for a fault switch', () => {
    const flaw = { type: 'MemberExpression', computed: false, object: { type: 'Identifier', name: 'flaws' }, property: { type: 'Identifier', name: 'readAsWrite' } };
    const thisFlaw = { type: 'MemberExpression', computed: false, object: { type: 'MemberExpression', computed: false, object: { type: 'ThisExpression' }, property: { type: 'Identifier', name: 'flaws' } }, property: { type: 'Identifier', name: 'ignoreSourceNamespace' } };
    expect(ignored(flaw)).toBe(true);
    expect(ignored(thisFlaw)).toBe(true);
    const branch = { type: 'ReturnStatement' };
    expect(ignored(branch, { type: 'IfStatement', test: { type: 'LogicalExpression', operator: '&&', left: flaw, right: other }, consequent: branch })).toBe(true);
    expect(ignored({ type: 'MemberExpression', computed: false, object: { type: 'Identifier', name: 'rules' }, property: { type: 'Identifier', name: 'segments' } })).toBe(false);
  });

  it('keeps the left side of `x && faults.has(…)` when evaluating x acts', () => {
    const act = { type: 'CallExpression', callee: { type: 'MemberExpression', computed: false, property: { type: 'Identifier', name: 'consume' } }, arguments: [] };
    expect(ignored(act, { type: 'LogicalExpression', operator: '&&', left: act, right: check('secrets.x') })).toBe(false);
    const assign = { type: 'AssignmentExpression', operator: '=', left: other, right: other };
    expect(ignored(assign, { type: 'LogicalExpression', operator: '&&', left: assign, right: check('secrets.x') })).toBe(false);
  });

  it('mutates everything else', () => {
    expect(ignored(check('notafault'))).toBe(false);
    const branch = { type: 'ReturnStatement' };
    // Taken with the fault off too: real code.
    expect(ignored(branch, { type: 'IfStatement', test: { type: 'LogicalExpression', operator: '||', left: other, right: check('mesh.x') }, consequent: branch })).toBe(false);
    expect(ignored(branch, { type: 'IfStatement', test: check('mesh.x'), consequent: other, alternate: branch })).toBe(false);
  });
});

describe('the fault ignorer, after Stryker placed the condition\'s own mutants', () => {
  it('still sees the fault check in the original the placed condition keeps', () => {
    const fault = { type: 'CallExpression', callee: { type: 'MemberExpression', computed: false, property: { type: 'Identifier', name: 'has' } }, arguments: [{ type: 'StringLiteral', value: 'secrets.oidc-redirect-loopback-any-path' }] };
    const originalTest = { type: 'LogicalExpression', operator: '&&', left: { type: 'Identifier', name: 'loopback' }, right: fault };
    const placed = {
      type: 'ConditionalExpression',
      test: { type: 'CallExpression', callee: { type: 'Identifier', name: 'stryMutAct_9fa48' }, arguments: [] },
      consequent: { type: 'BooleanLiteral', value: false },
      alternate: { type: 'SequenceExpression', expressions: [{ type: 'CallExpression', callee: { type: 'Identifier', name: 'stryCov_9fa48' } }, originalTest] },
    };
    const branch = { type: 'BlockStatement' };
    expect(faultIgnorer.shouldIgnore({ node: branch, parent: { type: 'IfStatement', test: placed, consequent: branch } } as never)).toBeTruthy();
  });
});
