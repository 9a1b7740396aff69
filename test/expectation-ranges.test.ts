import { describe, expect, it } from 'vitest';
import { applicableExpectations, applyExpectations, expectationLines } from '../src/expectations/apply-expectations.ts';
import { readExpectationFiles } from '../src/expectations/load-expectations.ts';
import { expectationFileSchema, type ExpectationFile } from '../src/expectations/schema.ts';
import { isValidRange, parseVersion, satisfies } from '../src/expectations/version-range.ts';
import { capabilitiesOf } from '../src/provision/consul-capabilities.ts';
import type { RuleResult } from '../src/report/results-model.ts';

function result(id: string, outcome: RuleResult['outcome'], message?: string): RuleResult {
  return { id, system: 'mesh', title: id, level: 'MUST', sources: [], outcome, durationMs: 1, message, exchanges: [], droppedExchanges: 0, observations: [], notes: [], faults: [] };
}

describe('semver ranges of expectations (src/expectations/version-range.ts)', () => {
  it('compares major, minor and patch, leaving out pre-release and build suffixes', () => {
    expect(parseVersion('1.8.7')).toEqual([1, 8, 7]);
    expect(parseVersion('v1.16.0-rc1')).toEqual([1, 16, 0]);
    expect(parseVersion('1.8.7+ent')).toEqual([1, 8, 7]);
    expect(parseVersion('1.9')).toEqual([1, 9, 0]);
    expect(parseVersion('dev')).toBeUndefined();
  });

  it.each([
    ['1.8.7', '>=1.2.0', true],
    ['1.8.7', '>=1.16.0', false],
    ['1.16.0', '>=1.16.0', true],
    ['1.8.7', '>=1.2.0 <1.11.0', true],
    ['1.11.0', '>=1.2.0 <1.11.0', false],
    ['1.10.9', '>=1.2.0 <1.11.0', true],
    ['1.9.3', '<1.9.0 || >=1.10.0', false],
    ['1.10.0', '<1.9.0 || >=1.10.0', true],
    ['1.8.7', '1.8.7', true],
    ['1.8.7', '=1.8.6', false],
    ['1.8.7', '> 1.8.6 <= 1.8.7', true],
    ['0.1.0', '*', true],
    ['1.8.7+ent', '>=1.8.0 <1.9.0', true],
    ['not-a-version', '*', false],
  ])('%s in %s: %s', (version, range, inside) => {
    expect(satisfies(version, range)).toBe(inside);
  });

  it('refuses what is not a range, and the expectation schema with it', () => {
    for (const bad of ['', '>=', '~1.2', '>=1.2.0 ||', 'one']) expect(isValidRange(bad), bad).toBe(false);
    const entry = { rule: 'mesh.a', behavior: 'b', failure: 'x', source: { repo: 'r', file: 'f', function: 'g' }, versions: 'prose' };
    expect(expectationFileSchema.safeParse({ product: 'consul', name: 'C', system: 'mesh', expectations: [{ ...entry, range: 'one' }] }).success).toBe(false);
    expect(expectationFileSchema.safeParse({ product: 'consul', name: 'C', system: 'mesh', expectations: [{ ...entry, range: '>=1.2.0 <1.9.0' }] }).success).toBe(true);
  });

  it('every shipped expectation carries a well-formed range beside its prose', () => {
    for (const f of readExpectationFiles()) {
      for (const e of f.expectations) expect(e.range && isValidRange(e.range), `${f.product} ${e.rule}: range`).toBe(true);
    }
  });
});

describe('an expectation applies only to the versions of its range', () => {
  const file: ExpectationFile = {
    product: 'consul',
    name: 'HashiCorp Consul',
    system: 'mesh',
    expectations: [
      { rule: 'mesh.old', behavior: 'old agents do X', failure: 'X', source: { repo: 'hashicorp/consul', file: 'a.go', function: 'f' }, versions: 'before 1.11', range: '>=1.2.0 <1.11.0' },
      { rule: 'mesh.new', behavior: 'new agents do Y', failure: 'Y', source: { repo: 'hashicorp/consul', file: 'b.go', function: 'g' }, versions: '1.16 on', range: '>=1.16.0' },
    ],
  };

  it('inside the range a matching FAIL is EXPECTED, with the range; outside it the FAIL stays FAIL', () => {
    const { results, applied } = applyExpectations([result('mesh.old', 'FAIL', 'X happened'), result('mesh.new', 'FAIL', 'Y happened')], [file], { mesh: '1.8.7' });
    expect(results.map((r) => r.outcome)).toEqual(['EXPECTED', 'FAIL']);
    expect(results[0]!.expectation).toMatchObject({ range: '>=1.2.0 <1.11.0' });
    expect(applied).toMatchObject([
      { rule: 'mesh.old', applies: true, version: '1.8.7', why: '1.8.7 is in >=1.2.0 <1.11.0' },
      { rule: 'mesh.new', applies: false, version: '1.8.7', why: '1.8.7 is outside >=1.16.0' },
    ]);
  });

  it('a PASS outside the range is no finding: the deviation was never expected of that version', () => {
    const { findings } = applyExpectations([result('mesh.new', 'PASS')], [file], { mesh: '1.8.7' });
    expect(findings).toEqual([]);
  });

  it('with the version unknown, a PASS is reported as no longer happening only of a deviation the newest versions have', () => {
    const { findings } = applyExpectations([result('mesh.old', 'PASS'), result('mesh.new', 'PASS')], [file], {});
    expect(findings).toMatchObject([{ rule: 'mesh.new', kind: 'no-longer-happens' }]);
    expect(applyExpectations([result('mesh.old', 'PASS')], [file], { mesh: '1.10.0' }).findings).toMatchObject([{ rule: 'mesh.old', kind: 'no-longer-happens' }]);
  });

  it('with the version unknown (the embedded reference, a product that does not say) every entry applies, and the run says so', () => {
    const applied = applicableExpectations([file], {});
    expect(applied.every((a) => a.applies)).toBe(true);
    expect(expectationLines(applied)[0]).toMatch(/expectations of consul: 2 of 2 apply \(version unknown: every listed deviation applies\)/);
    expect(expectationLines(applicableExpectations([file], { mesh: '1.8.7' }))).toEqual([
      'expectations of consul: 1 of 2 apply to the version found, 1.8.7: mesh.old (>=1.2.0 <1.11.0)',
      '  not applied: mesh.new: 1.8.7 is outside >=1.16.0',
    ]);
  });

  it("Consul 1.8.7's listed deviations are the shipped ones whose range holds it, each cited at v1.8.7 or in the source", () => {
    const consul = readExpectationFiles(['consul']);
    const applied = applicableExpectations(consul, { mesh: '1.8.7' });
    expect(applied.filter((a) => a.applies).map((a) => a.rule).sort()).toEqual(
      ['mesh.authorize.serial-format', 'mesh.leaf.blocking-wakes-on-rotation', 'mesh.leaf.new-after-rotation', 'mesh.leaf.renewed-when-expired', 'mesh.leaf.serial-64-bit', 'mesh.leaf.serial-monotonic'].sort(),
    );
    expect(applied.find((a) => a.rule === 'mesh.acl.leaf')).toMatchObject({ applies: false });
    for (const rule of ['mesh.leaf.new-after-rotation', 'mesh.leaf.renewed-when-expired', 'mesh.leaf.blocking-wakes-on-rotation']) {
      const e = consul[0]!.expectations.find((x) => x.rule === rule)!;
      expect(e.source.function, rule).toMatch(/at v1\.8\.7/);
      expect(satisfies('1.8.7', e.range!), rule).toBe(true);
    }
  });
});

describe('what a Consul version can do (src/provision/consul-capabilities.ts)', () => {
  it('before 1.9: intentions by POST /v1/connect/intentions, service-defaults only, no L7 permissions (named with the version that brought them)', () => {
    const caps = capabilitiesOf('1.8.7', 'test');
    expect(caps).toMatchObject({ product: { name: 'HashiCorp Consul', version: '1.8.7' }, intentionApi: 'legacy', configEntryKinds: ['service-defaults'] });
    expect(caps.missing.l7Permissions).toMatch(/came in Consul 1\.9\.0/);
  });

  it('1.9 and later, Enterprise, and a version not told: exact intentions and service-intentions entries', () => {
    expect(capabilitiesOf('1.9.0', 'test')).toMatchObject({ intentionApi: 'exact', configEntryKinds: ['service-intentions', 'service-defaults'], missing: {} });
    expect(capabilitiesOf('1.16.2+ent', 'test').product.name).toBe('HashiCorp Consul Enterprise');
    expect(capabilitiesOf(undefined, 'unknown')).toMatchObject({ intentionApi: 'exact', missing: {}, product: { name: 'HashiCorp Consul', how: 'unknown' } });
  });
});

describe("a product's listed deviations apply to that product only (issue 53 part 3)", () => {
  const vault: ExpectationFile = {
    product: 'vault',
    name: 'HashiCorp Vault',
    system: 'secrets',
    expectations: [{ rule: 'secrets.a', behavior: 'Vault does X', failure: 'X', source: { repo: 'hashicorp/vault', file: 'a.go', function: 'f' }, versions: '1.15 on', range: '>=1.15.0' }],
  };
  const secretsResult = (outcome: RuleResult['outcome'], message?: string): RuleResult => ({ ...result('secrets.a', outcome, message), system: 'secrets' });

  it("Vault's entries and ranges say nothing of OpenBao: on an OpenBao target its FAIL stays FAIL, and the run says which product it met", () => {
    const products = { secrets: { key: 'openbao' as const, name: 'OpenBao' } };
    const { results, applied, findings } = applyExpectations([secretsResult('FAIL', 'X happened')], [vault], { secrets: '2.6.2' }, products);
    expect(results[0]!.outcome).toBe('FAIL');
    expect(findings).toEqual([]);
    expect(applied).toMatchObject([{ rule: 'secrets.a', applies: false, otherProduct: true }]);
    expect(expectationLines(applied)).toEqual(['expectations of vault: none apply: the secrets target is OpenBao 2.6.2, not HashiCorp Vault (its deviations are listed for --expect openbao)']);
    // A PASS of another product's deviation is no finding either.
    expect(applyExpectations([secretsResult('PASS')], [vault], { secrets: '2.6.2' }, products).findings).toEqual([]);
  });

  it('on the product itself its range decides, and with the product not told every entry applies as before', () => {
    expect(applyExpectations([secretsResult('FAIL', 'X happened')], [vault], { secrets: '1.15.2' }, { secrets: { key: 'vault', name: 'HashiCorp Vault' } }).results[0]!.outcome).toBe('EXPECTED');
    expect(applyExpectations([secretsResult('FAIL', 'X happened')], [vault], { secrets: '1.14.0' }, { secrets: { key: 'vault', name: 'HashiCorp Vault' } }).results[0]!.outcome).toBe('FAIL');
    expect(applyExpectations([secretsResult('FAIL', 'X happened')], [vault], {}, {}).results[0]!.outcome).toBe('EXPECTED');
  });
});

describe("Consul's agent-cache deviations end where their fixes were backported (issue 53 part 4)", () => {
  // Read in the CHANGELOG.md of Consul v1.14.0 (GH-11693 under 1.9.14 and 1.10.7; GH-15005 under
  // 1.11.11, 1.12.6 and 1.13.3) and in the module sources at v1.10.6/v1.11.11 and v1.13.2/v1.13.3.
  const consul = readExpectationFiles(['consul'])[0]!;
  const range = (rule: string) => consul.expectations.find((e) => e.rule === rule)!.range!;
  it.each([
    ['mesh.leaf.new-after-rotation', ['1.8.7', '1.9.13', '1.10.6'], ['1.9.14', '1.10.7', '1.11.0', '1.16.0']],
    ['mesh.leaf.renewed-when-expired', ['1.8.7', '1.9.13', '1.10.6'], ['1.9.14', '1.10.7', '1.11.0', '1.16.0']],
    ['mesh.leaf.blocking-wakes-on-rotation', ['1.8.7', '1.11.10', '1.12.5', '1.13.2'], ['1.11.11', '1.12.6', '1.13.3', '1.14.0']],
  ])('%s holds for %j and not for %j', (rule, inside, outside) => {
    for (const v of inside) expect(satisfies(v, range(rule)), `${v} in ${range(rule)}`).toBe(true);
    for (const v of outside) expect(satisfies(v, range(rule)), `${v} in ${range(rule)}`).toBe(false);
  });
});
