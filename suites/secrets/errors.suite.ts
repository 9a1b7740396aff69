import fc from 'fast-check';
import { expect } from 'vitest';
import { errorBodySchema } from '../../src/client/schemas/secrets.ts';
import { runPrefix } from '../kit/generators/secrets.ts';
import type { RuleKit } from '../kit/rule-kit.ts';
import { ruleTest } from '../kit/rule-test.ts';

const run = runPrefix('errors');
const v1 = (kit: RuleKit) => kit.secretsTarget.kv.v1Mount;

function expectErrorBody(res: { status: number; json(): unknown; exchange: { method: string; url: string } }): void {
  const parsed = errorBodySchema.safeParse(res.json());
  expect(parsed.success, `${res.exchange.method} ${res.exchange.url} answered ${res.status} with {"errors":[...]}`).toBe(true);
}

ruleTest('secrets.errors.body-on-every-error', async (kit) => {
  const provoked = [
    await kit.secrets.read(`${v1(kit)}${run}/absent`),
    await kit.secrets.read(`${v1(kit)}${run}/x`, { bare: true }),
    await kit.secrets.raw('PATCH', `${v1(kit)}${run}/x`),
    await kit.secrets.writeRaw(`${v1(kit)}${run}/x`, '{not json'),
    await kit.secrets.read(`${run}-no-such-mount/x`),
  ];
  for (const res of provoked) {
    expect(res.status, `${res.exchange.method} ${res.exchange.url} is an error`).toBeGreaterThanOrEqual(400);
    expectErrorBody(res);
  }
  // Every other >= 400 answer of the run is checked too, as an observation on this rule.
});

ruleTest('secrets.errors.method-not-allowed-405', async (kit) => {
  const path = `${v1(kit)}${run}/method`;
  await kit.secrets.write(path, { a: 'b' });
  const res = await kit.secrets.raw('PATCH', path);
  expect(res.status, `PATCH is not among the service's verbs (GET, POST, PUT, DELETE, LIST): /v1/${path} answers 405`).toBe(405);
  expectErrorBody(res);
});

ruleTest('secrets.errors.unknown-path-404', async (kit) => {
  await kit.property(
    fc.tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/), fc.constantFrom('GET', 'POST', 'DELETE')),
    async ([name, method]) => {
      const path = `${run}-unmounted-${name}/value`;
      const res = method === 'POST' ? await kit.secrets.write(path, { a: 'b' }) : await kit.secrets.raw(method, path);
      expect(res.status, `${method} /v1/${path}, a path no engine serves, answers 404`).toBe(404);
      expectErrorBody(res);
    },
    { numRuns: Math.min(kit.ctx.runs, 10) },
  );
});

ruleTest('secrets.errors.malformed-json-400', async (kit) => {
  const malformed = fc.oneof(
    fc.constantFrom('{', '{"a":', '{"a": "b"', 'not json', '{a: b}', "{'a':'b'}", '[1,2]', '"text"', '42', 'null', '{"a":"b"}}'),
    fc.json().filter((j) => !j.startsWith('{')).map((j) => j),
    fc.json().map((j) => `${j.slice(0, Math.max(1, Math.floor(j.length / 2)))}\u0000`),
  );
  await kit.property(
    malformed,
    async (body) => {
      const path = `${v1(kit)}${run}/malformed`;
      const res = await kit.secrets.writeRaw(path, body, { headers: { 'content-type': 'application/json' } });
      expect(res.status, `a write whose body is ${JSON.stringify(body.slice(0, 40))} answers 400`).toBe(400);
      expectErrorBody(res);
    },
    { numRuns: Math.min(kit.ctx.runs, 20) },
  );
});
