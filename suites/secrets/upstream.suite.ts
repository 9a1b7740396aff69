import fc from 'fast-check';
import { readResultSchema } from '../../src/client/schemas/secrets.ts';
import { expect } from 'vitest';
import { kvKey, kvValue, runPrefix } from '../kit/generators/secrets.ts';
import { ruleTest } from '../kit/rule-test.ts';

const run = runPrefix('upstream');

ruleTest('secrets.upstream.proxy-missing-header-412', async (kit) => {
  const proxy = kit.secretsProxy;
  const res = await proxy.read(`${kit.secretsTarget.kv.v1Mount}${run}/x`, { bare: true, headers: { [proxy.dialect.secrets.tokenHeader]: kit.secretsTarget.token } });
  expect(res.status, `a request without ${proxy.dialect.secrets.requestHeader} is refused with 412`).toBe(412);
});

ruleTest('secrets.upstream.list-invalid-bool-400', async (kit) => {
  for (const value of ['notabool', 'yes', '2']) {
    const res = await kit.secrets.read(kit.secretsTarget.kv.v1Mount, { query: { list: value } });
    expect(res.status, `GET ?list=${value} answers 400`).toBe(400);
  }
});

ruleTest('secrets.upstream.unsupported-path-message', async (kit) => {
  const res = await kit.secrets.read(`identity/oidc/scope/${run}.`);
  expect(res.status).toBe(404);
  const errors = (res.json() as { errors?: string[] }).errors ?? [];
  expect(errors.join(' '), 'the error says the path is unsupported').toMatch(/unsupported path/i);
});

ruleTest('secrets.upstream.json-body-under-form-type', async (kit) => {
  await kit.property(
    fc.tuple(kvKey, kvValue, fc.constantFrom('', ' ', '\n  ', '\t')),
    async ([key, value, lead]) => {
      const path = `${kit.secretsTarget.kv.v1Mount}${run}/form-type/${key}`;
      const res = await kit.secrets.writeRaw(path, `${lead}${JSON.stringify(value)}`, { headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(res.status, 'a JSON write sent with the form media type succeeds').toBeLessThan(300);
      const read = await kit.secrets.read(path);
      expect(read.status, 'it reads back').toBe(200);
      expect(read.parse(readResultSchema).data, 'the JSON body was read as JSON, not as a form').toEqual(value);
    },
    { numRuns: Math.min(kit.ctx.runs, 10) },
  );
});
