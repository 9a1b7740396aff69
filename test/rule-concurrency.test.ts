import { readFileSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { newRunPrefix } from '../src/provision/run-prefix.ts';
import { ruleById } from '../src/rules/catalog.ts';
import type { Rule } from '../src/rules/types.ts';
import { ConformanceRunner } from '../src/run/conformance-runner.ts';
import type { SuiteContext } from '../src/run/suite-context.ts';
import { timelineFile } from './fixtures/rule-concurrency/timeline.ts';

// The suites' concurrency (suites/kit/rule-test.ts concurrently and inOrder, suites/kit/exclusive.ts
// runAlone) through the runner conform uses, on fixture suites whose rules only wait and write when.
const IDS = ['mesh.roots.documented-fields', 'mesh.roots.no-acl', 'mesh.leaf.fields', 'mesh.leaf.uri-san', 'mesh.leaf.validity', 'mesh.leaf.private-key', 'mesh.leaf.key-usages'];

interface Span {
  rule: string;
  start: number;
  end: number;
}

describe('rules side by side', () => {
  const runPrefix = newRunPrefix();
  afterAll(() => rmSync(timelineFile(runPrefix), { force: true }));

  it('runs a concurrently() block side by side, an inOrder() block within it in order, the next rule after the block, and runAlone files apart', async () => {
    const runner = await ConformanceRunner.create({ testTimeoutMs: 30_000, suitesDir: 'test/fixtures/rule-concurrency' });
    const context: SuiteContext = {
      targets: { mesh: { url: 'http://127.0.0.1:9', token: 'fixture', dialect: 'spec', capabilities: {} } } as unknown as SuiteContext['targets'],
      profile: 'default',
      runs: 1,
      seed: 1,
      requestTimeoutMs: 1_000,
      secrets: [],
      runPrefix,
    };
    let results;
    try {
      results = await runner.run(context, IDS.map((id) => ruleById(id) as Rule));
    } finally {
      await runner.close();
    }
    expect(results.map((r) => [r.id, r.outcome])).toEqual(IDS.map((id) => [id, 'PASS']));
    const spans = new Map(readFileSync(timelineFile(runPrefix), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Span).map((s) => [s.rule, s]));
    const at = (id: string) => spans.get(id)!;
    const overlap = (a: Span, b: Span) => a.start < b.end && b.start < a.end;
    // Side by side within the block, the inOrder chain beside its siblings.
    expect(overlap(at('mesh.roots.documented-fields'), at('mesh.roots.no-acl'))).toBe(true);
    expect(overlap(at('mesh.leaf.fields'), at('mesh.roots.no-acl'))).toBe(true);
    // In order within the chain.
    expect(at('mesh.leaf.uri-san').start).toBeGreaterThanOrEqual(at('mesh.leaf.fields').end);
    // The rule after the block starts once all of it has ended.
    const blockEnd = Math.max(...['mesh.roots.documented-fields', 'mesh.roots.no-acl', 'mesh.leaf.fields', 'mesh.leaf.uri-san'].map((id) => at(id).end));
    expect(at('mesh.leaf.validity').start).toBeGreaterThanOrEqual(blockEnd);
    // The two files that take the same lock never overlap.
    const blocksFile = ['mesh.roots.documented-fields', 'mesh.roots.no-acl', 'mesh.leaf.fields', 'mesh.leaf.uri-san', 'mesh.leaf.validity'].map(at);
    for (const s of blocksFile) expect(overlap(s, at('mesh.leaf.private-key')), `${s.rule} beside the other runAlone file`).toBe(false);
  });
});
