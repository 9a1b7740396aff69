import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type ReferenceWithControl } from '../src/reference/reference.ts';
import { runResultsSchema, type RunResults } from '../src/report/results-model.ts';
import { startChaosTarget, type ChaosMode } from './support/chaos-target.ts';
import { runCli } from './support/run-cli.ts';

/**
 * The harness against hostile targets: for each way a target can misbehave, a conformance run
 * finishes within its budget, the affected rules are ERROR or FAIL with a message saying what the
 * target did, the unaffected rules still get verdicts, and the reports are written.
 */
const BUDGET_MS = 45_000;

interface Case {
  mode: ChaosMode;
  system: 'mesh' | 'scheduler';
  affected: RegExp;
  rules: string;
  /** Expected outcome of the affected rule, and a pattern of the message that says what happened. */
  affectedRule: string;
  expect: ('ERROR' | 'FAIL' | 'PASS')[];
  message?: RegExp;
  unaffectedRule: string;
}

const mesh = (mode: ChaosMode, outcome: ('ERROR' | 'FAIL')[], message: RegExp): Case => ({
  mode,
  system: 'mesh',
  affected: /\/ca\/roots/,
  rules: 'mesh.roots.documented-fields,mesh.leaf.fields,mesh.leaf.uri-san',
  affectedRule: 'mesh.roots.documented-fields',
  expect: outcome,
  message,
  unaffectedRule: 'mesh.leaf.fields',
});

const CASES: Case[] = [
  mesh('never-answer', ['ERROR'], /no complete answer within \d+ ms/),
  mesh('headers-then-stall', ['ERROR'], /no complete answer within|closed or reset/),
  mesh('slow-body', ['ERROR'], /no complete answer within/),
  mesh('reset', ['ERROR'], /closed or reset|connection/),
  mesh('invalid-json', ['ERROR'], /not JSON/),
  mesh('huge-body', ['ERROR'], /body over \d+ bytes/),
  { ...mesh('wrong-content-type', ['FAIL'], /application\/json/), rules: 'mesh.endpoints.json,mesh.leaf.fields', affectedRule: 'mesh.endpoints.json' },
  {
    // Half of the leaf answers are 500 or 503 at random; the property makes ten of them.
    ...mesh('random-5xx', ['FAIL', 'ERROR'], /answers 200|expected 50[03]/),
    affected: /\/ca\/leaf\//,
    rules: 'mesh.leaf.service-need-not-exist,mesh.roots.documented-fields',
    affectedRule: 'mesh.leaf.service-need-not-exist',
    unaffectedRule: 'mesh.roots.documented-fields',
  },
  {
    mode: 'stream-close-early',
    system: 'scheduler',
    affected: /\/event\/stream/,
    rules: 'scheduler.events.frame-shape,scheduler.metadata.null-unsets',
    affectedRule: 'scheduler.events.frame-shape',
    expect: ['FAIL', 'ERROR'],
    message: /frames? of the registration \(index \d+\)|expected 0/,
    unaffectedRule: 'scheduler.metadata.null-unsets',
  },
  {
    mode: 'split-frames',
    system: 'scheduler',
    affected: /\/event\/stream/,
    rules: 'scheduler.events.frame-shape,scheduler.events.topic-star-equivalence,scheduler.metadata.null-unsets',
    affectedRule: 'scheduler.events.frame-shape',
    expect: ['PASS'],
    unaffectedRule: 'scheduler.metadata.null-unsets',
  },
];

describe('the harness against hostile targets', () => {
  let ref: ReferenceWithControl;
  beforeAll(async () => {
    ref = await startReference();
  });
  afterAll(async () => ref.stop());

  for (const c of CASES) {
    it(`${c.mode}: the run ends in time with ${c.expect.join(' or ')} on ${c.affectedRule} and verdicts elsewhere`, async () => {
      const upstream = c.system === 'mesh' ? ref.mesh : ref.scheduler;
      const chaos = await startChaosTarget(upstream.url, c.mode, c.affected);
      const dir = mkdtempSync(join(tmpdir(), `stackproof-chaos-${c.mode}-`));
      try {
        const target =
          c.system === 'mesh'
            ? { mesh: { url: chaos.url, token: ref.mesh.token } }
            : { scheduler: { url: chaos.url, token: ref.scheduler.token, capabilities: { schedulerFixtures: true }, fixtures: { controlUrl: ref.control.url, controlToken: ref.control.token } } };
        const res = await runCli(['conform', '--rules', c.rules, '--runs', '10', '--request-timeout', '1500', '--reports-dir', dir], { configFile: { targets: target }, timeoutMs: BUDGET_MS + 10_000 });
        expect(res.durationMs, `the run ended within its ${BUDGET_MS} ms budget`).toBeLessThan(BUDGET_MS);
        expect(res.stderr, 'no crash').not.toMatch(/unexpected failure|Unhandled|FATAL/);
        for (const f of ['results.json', 'junit.xml', 'index.html']) expect(existsSync(join(dir, f)), `${f} was written`).toBe(true);
        const results: RunResults = runResultsSchema.parse(JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')));
        const affected = results.rules.find((r) => r.id === c.affectedRule)!;
        expect(c.expect, `${c.affectedRule} is ${affected.outcome}: ${affected.message}`).toContain(affected.outcome);
        if (c.message) expect(affected.message ?? '', 'the message says what the target did').toMatch(c.message);
        const unaffected = results.rules.find((r) => r.id === c.unaffectedRule)!;
        expect(unaffected.outcome, `${c.unaffectedRule} still gets a verdict: ${unaffected.message}`).toBe('PASS');
        expect(res.code, 'the exit code gates on the outcome').toBe(c.expect.includes('PASS') ? 0 : 1);
      } finally {
        await chaos.close();
      }
    }, BUDGET_MS + 20_000);
  }
});
