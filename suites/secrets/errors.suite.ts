import fc from 'fast-check';
import { expect } from 'vitest';
import { errorBodySchema } from '../../src/client/schemas/secrets.ts';
import { kvValue, runPrefix } from '../kit/generators/secrets.ts';
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
  // Method and path pairs the spec gives no operation for (Endpoints > OIDC provider), on a
  // provider that exists. Not PATCH on a secret: Vault supports PATCH (JSON merge patch), and
  // answers a PATCH without its media type 400 (hashicorp/vault http/logical.go).
  const provider = `${run}-provider`;
  const created = await kit.secrets.write(`identity/oidc/provider/${provider}`, {});
  expect(created.status, `creating provider ${provider} succeeds (${created.text.slice(0, 120)})`).toBeLessThan(300);
  const base = `identity/oidc/provider/${provider}`;
  const pairs: [string, string, string][] = [
    ['DELETE', `${base}/.well-known/openid-configuration`, 'the configuration is only read (GET)'],
    ['POST', `${base}/.well-known/keys`, 'the key set is only read (GET)'],
    ['GET', `${base}/token`, 'the token endpoint takes POST only'],
    ['DELETE', `${base}/token`, 'the token endpoint takes POST only'],
    ['DELETE', `${base}/authorize`, 'authorize takes GET or POST'],
  ];
  for (const [method, path, why] of pairs) {
    const res = await kit.secrets.raw(method, path);
    expect(res.status, `${method} /v1/${path}: ${why}, so 405 (answered ${res.status}: ${res.text.slice(0, 120)})`).toBe(405);
    expectErrorBody(res);
  }
  await kit.secrets.delete(`identity/oidc/provider/${provider}`);
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

/** Bodies that are no JSON object, whatever reads them: not JSON, JSON of another type. */
const NOT_AN_OBJECT = ['not json', "'a'", '[1,2]', '"text"', '42', 'null', 'true'];
/** Bodies that begin like a JSON object or array and are not one: cut short, or not JSON inside. */
const BROKEN_OBJECT = ['{', '{"a":', '{"a": "b"', '{a: b}', "{'a':'b'}", '{"a":"b",}', '[1,2', '{"a" "b"}'];

/**
 * Each case on its own path, in a fixed order, so the verdict never depends on the seed: every
 * fixed case runs on every run, and generated ones only add to them.
 */
async function expectRefused400(kit: RuleKit, body: string, what: string, n: number): Promise<void> {
  const path = `${v1(kit)}${run}/malformed/${n}`;
  const res = await kit.secrets.writeRaw(path, body, { headers: { 'content-type': 'application/json' } });
  expect(res.status, `a write whose body is ${JSON.stringify(body.slice(0, 40))} (${what}) answers 400`).toBe(400);
  expectErrorBody(res);
}

ruleTest('secrets.errors.malformed-json-400', async (kit) => {
  let n = 0;
  for (const body of NOT_AN_OBJECT) await expectRefused400(kit, body, 'not a JSON object', ++n);
  for (const body of BROKEN_OBJECT) await expectRefused400(kit, body, 'begins like a JSON object or array but is not one', ++n);
  await kit.property(
    fc.oneof(
      fc.json().filter((j) => !j.trimStart().startsWith('{')).map((j) => ({ body: j, what: 'JSON, not an object' })),
      fc.json().map((j) => ({ body: `${j.slice(0, Math.max(1, Math.floor(j.length / 2)))}\u0000`, what: 'JSON cut short, then a NUL' })),
    ),
    async ({ body, what }) => expectRefused400(kit, body, what, ++n),
    { numRuns: Math.min(kit.ctx.runs, 20) },
  );
});

/** What follows a complete JSON object in the trailing-data cases. */
const TRAILERS: [string, string][] = [
  ['}', 'a second closing brace'],
  [' {"c":"d"}', 'a second object'],
  ['x', 'a stray letter'],
  [']', 'a closing bracket'],
  [',', 'a comma'],
];

ruleTest('secrets.errors.trailing-json-400', async (kit) => {
  // A decoder that reads one value and stops never sees the rest; the body as a whole is still not
  // valid JSON. Every case runs on every run, in this order.
  let n = 0;
  await kit.property(
    kvValue,
    async (value) => {
      for (const [trailer, what] of TRAILERS) {
        n += 1;
        const path = `${v1(kit)}${run}/trailing/${n}`;
        const body = `${JSON.stringify(value)}${trailer}`;
        const res = await kit.secrets.writeRaw(path, body, { headers: { 'content-type': 'application/json' } });
        expect(res.status, `a write whose body is a JSON object followed by ${what} (${JSON.stringify(body.slice(-40))}) answers 400`).toBe(400);
        expectErrorBody(res);
        expect((await kit.secrets.read(path)).status, `nothing was stored at ${path}`).toBe(404);
      }
    },
    { numRuns: Math.min(kit.ctx.runs, 3) },
  );
});
