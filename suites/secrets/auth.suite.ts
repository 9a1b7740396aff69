import fc from 'fast-check';
import { expect } from 'vitest';
import { errorBodySchema, readResultSchema } from '../../src/client/schemas/secrets.ts';
import { batchShaped, kvKey, kvValue, runPrefix } from '../kit/generators/secrets.ts';
import type { RuleKit } from '../kit/rule-kit.ts';
import { expectNotSuccess } from '../kit/refusal.ts';
import { ruleTest } from '../kit/rule-test.ts';

const run = runPrefix('auth');
const v1 = (kit: RuleKit) => kit.secretsTarget.kv.v1Mount;

/** Every operation on a secret, made with the given headers and none of the client's defaults. */
async function attempts(kit: RuleKit, path: string, dir: string, headers: Record<string, string>) {
  const options = { bare: true, headers };
  return [
    ['read', await kit.secrets.read(path, options)],
    ['LIST', await kit.secrets.list(dir, 'verb', options)],
    ['GET ?list=true', await kit.secrets.list(dir, 'query', options)],
    ['write', await kit.secrets.write(path, { overwritten: 'yes' }, 'POST', options)],
    ['delete', await kit.secrets.delete(path, options)],
  ] as const;
}

async function expectIntact(kit: RuleKit, path: string, value: Record<string, string>): Promise<void> {
  const read = await kit.secrets.read(path);
  expect(read.status, `${path} is still there after the refused requests`).toBe(200);
  expect(read.parse(readResultSchema).data, `${path} is unchanged after the refused requests`).toEqual(value);
}

function expectRefused(what: string, res: { status: number; text: string; json(): unknown }, value: Record<string, string>): void {
  expect(res.status, `${what} is refused with 403 (answered ${res.status}: ${res.text.slice(0, 160)})`).toBe(403);
  expect(errorBodySchema.safeParse(res.json()).success, `${what}: the body is {"errors":[...]}`).toBe(true);
  for (const v of Object.values(value)) if (v.length >= 4) expect(res.text.includes(v), `${what}: no secret data in the answer`).toBe(false);
}

ruleTest('secrets.auth.token-required', async (kit) => {
  let n = 0;
  await kit.property(fc.tuple(kvKey, kvValue), async ([key, value]) => {
    n += 1;
    const dir = `${v1(kit)}${run}/required/${n}/`;
    const path = `${dir}${key}`;
    expect((await kit.secrets.write(path, value)).status, 'the write with a token succeeds').toBeLessThan(300);
    const requestHeader = { [kit.secrets.dialect.secrets.requestHeader]: 'true' };
    for (const [what, res] of await attempts(kit, path, dir, requestHeader)) expectRefused(`${what} without a token`, res, value);
    await expectIntact(kit, path, value);
    const v2 = kit.secretsTarget.capabilities.kvV2 ? kit.secretsTarget.kv.v2Mount : undefined;
    if (!v2) return;
    // The version 2 engine's operations too: data/ for a secret, metadata/ for listing.
    const data = `${v2}data/${run}/required/${n}/${key}`;
    expect((await kit.secrets.write(data, { data: value })).status, 'the version 2 write with a token succeeds').toBeLessThan(300);
    const options = { bare: true, headers: requestHeader };
    for (const [what, res] of [
      ['version 2 read', await kit.secrets.read(data, options)],
      ['version 2 write', await kit.secrets.write(data, { data: { overwritten: 'yes' } }, 'POST', options)],
      ['version 2 delete', await kit.secrets.delete(data, options)],
      ['version 2 LIST', await kit.secrets.list(`${v2}metadata/${run}/required/${n}/`, 'verb', options)],
    ] as const) expectRefused(`${what} without a token`, res, value);
    const read = await kit.secrets.read(data);
    expect(read.status, `${data} is still there after the refused requests`).toBe(200);
    expect(read.parse(readResultSchema).data.data, `${data} is unchanged after the refused requests`).toEqual(value);
    await kit.secrets.delete(`${v2}metadata/${run}/required/${n}/${key}`);
  });
});

// Tokens shaped like batch tokens are sent on purpose at the end, not met by chance (batchShaped).

ruleTest('secrets.auth.bad-token-refused', async (kit) => {
  const real = kit.secretsTarget.token;
  const forged = fc.oneof(
    fc.string({ minLength: 1, maxLength: 40 }).filter((s) => /^[\x21-\x7e]+$/.test(s) && s !== real),
    fc.integer({ min: 0, max: Math.max(0, real.length - 1) }).map((i) => real.slice(0, i) + (real[i] === 'x' ? 'y' : 'x') + real.slice(i + 1)),
    fc.constantFrom(`${real}x`, real.slice(1), real.toUpperCase() === real ? real.toLowerCase() : real.toUpperCase()).filter((t) => t !== real && t.length > 0),
  );
  let n = 0;
  const refusedEverywhere = async (key: string, value: Record<string, string>, token: string, who: string) => {
    n += 1;
    kit.secret(token);
    const dir = `${v1(kit)}${run}/bad-token/${n}/`;
    const path = `${dir}${key}`;
    expect((await kit.secrets.write(path, value)).status, 'the write with the real token succeeds').toBeLessThan(300);
    const headers = { [kit.secrets.dialect.secrets.tokenHeader]: token, [kit.secrets.dialect.secrets.requestHeader]: 'true' };
    for (const [what, res] of await attempts(kit, path, dir, headers)) expectRefused(`${what} with ${who}`, res, value);
    await expectIntact(kit, path, value);
  };
  await kit.property(fc.tuple(kvKey, kvValue, forged.filter((t) => !batchShaped(t))), ([key, value, token]) => refusedEverywhere(key, value, token, 'a token the service did not issue'));
  const body = Buffer.from(`${run}-unissued`).toString('base64url');
  await refusedEverywhere('batch-shaped', { k: 'value-1' }, `hvb.${body}`, 'a token the service did not issue, shaped like a batch token (hvb.<base64url>)');
  await refusedEverywhere('batch-shaped', { k: 'value-2' }, `b.${body}`, 'a token the service did not issue, shaped like a batch token (b.<base64url>)');
  await refusedEverywhere('batch-shaped', { k: 'value-3' }, `b.${body}!`, 'a token the service did not issue, shaped like a batch token whose body is not base64url (b.<not base64url>)');
});

ruleTest('secrets.auth.token-headers-equivalent', async (kit) => {
  const token = kit.secretsTarget.token;
  const d = kit.secrets.dialect.secrets;
  const viaHeader = { bare: true, headers: { [d.tokenHeader]: token, [d.requestHeader]: 'true' } };
  const viaBearer = { bare: true, headers: { authorization: `Bearer ${token}`, [d.requestHeader]: 'true' } };
  let n = 0;
  await kit.property(fc.tuple(kvKey, kvValue, kvValue), async ([key, value, other]) => {
    n += 1;
    const dir = `${v1(kit)}${run}/headers/${n}/`;
    const path = `${dir}${key}`;
    const written = await kit.secrets.write(path, value, 'POST', viaBearer);
    expect(written.status, `a write with Authorization: Bearer succeeds`).toBeLessThan(300);
    const a = await kit.secrets.read(path, viaHeader);
    const b = await kit.secrets.read(path, viaBearer);
    expect(a.status, `read with ${d.tokenHeader} answers 200`).toBe(200);
    expect(b.status, 'read with Authorization: Bearer answers like the token header').toBe(a.status);
    expect(b.parse(readResultSchema).data, 'both headers read the same data').toEqual(a.parse(readResultSchema).data);
    const la = await kit.secrets.list(dir, 'verb', viaHeader);
    const lb = await kit.secrets.list(dir, 'verb', viaBearer);
    expect(lb.status, 'LIST answers the same through both headers').toBe(la.status);
    expect((lb.json() as { data?: unknown }).data, 'LIST returns the same keys through both headers').toEqual((la.json() as { data?: unknown }).data);
    expect((await kit.secrets.write(path, other, 'PUT', viaHeader)).status).toBeLessThan(300);
    expect((await kit.secrets.read(path, viaBearer)).parse(readResultSchema).data, 'a write through one header is seen through the other').toEqual(other);
  }, { numRuns: Math.min(kit.ctx.runs, 15) });

  // Every authenticated route, not only the KV paths: an OIDC scope written, read, listed and
  // deleted, and help, through Bearer alone, each compared with the token header.
  const scope = `identity/oidc/scope/${run}-headers`;
  expect((await kit.secrets.write(scope, { description: 'written through Bearer' }, 'POST', viaBearer)).status, `POST ${scope} with Authorization: Bearer succeeds`).toBeLessThan(300);
  try {
    const [a, b] = [await kit.secrets.read(scope, viaHeader), await kit.secrets.read(scope, viaBearer)];
    expect(a.status, `GET ${scope} with ${d.tokenHeader} answers 200`).toBe(200);
    expect(b.status, `GET ${scope} with Authorization: Bearer answers like the token header`).toBe(a.status);
    expect(b.json(), `GET ${scope}: the same body through both headers`).toMatchObject({ data: (a.json() as { data: unknown }).data });
    const listed = await kit.secrets.list('identity/oidc/scope/', 'verb', viaBearer);
    expect(listed.status, 'LIST identity/oidc/scope with Authorization: Bearer answers 200').toBe(200);
    expect(JSON.stringify((listed.json() as { data?: unknown }).data ?? null), 'and lists the scope written through it').toContain(`${run}-headers`);
    const [helpA, helpB] = [await kit.secrets.help(scope, viaHeader), await kit.secrets.help(scope, viaBearer)];
    expect(helpB.status, `GET ${scope}?help=1 with Authorization: Bearer answers like the token header (${helpA.status})`).toBe(helpA.status);
    expect(helpA.status, `GET ${scope}?help=1 with ${d.tokenHeader} answers 200`).toBe(200);
  } finally {
    const deleted = await kit.secrets.delete(scope, viaBearer);
    expect(deleted.status, `DELETE ${scope} with Authorization: Bearer succeeds`).toBeLessThan(300);
  }
  expect((await kit.secrets.read(scope, viaHeader)).status, 'the scope deleted through Bearer is gone').toBe(404);
});

ruleTest('secrets.proxy.request-header-required', async (kit) => {
  const proxy = kit.secretsProxy;
  const d = proxy.dialect.secrets;
  const token = kit.secretsTarget.token;
  const path = `${v1(kit)}${run}/proxied`;
  const withHeader = await proxy.write(path, { via: 'proxy' }, 'POST', { bare: true, headers: { [d.tokenHeader]: token, [d.requestHeader]: 'true' } });
  expect(withHeader.status, `a write through the proxy with ${d.requestHeader}: true passes`).toBeLessThan(300);
  const read = await proxy.read(path, { bare: true, headers: { [d.tokenHeader]: token, [d.requestHeader]: 'true' } });
  expect(read.status, 'a read through the proxy with the header passes').toBe(200);
  expect(read.parse(readResultSchema).data).toEqual({ via: 'proxy' });
  for (const res of [
    await proxy.read(path, { bare: true, headers: { [d.tokenHeader]: token } }),
    await proxy.write(path, { via: 'no-header' }, 'POST', { bare: true, headers: { [d.tokenHeader]: token } }),
    await proxy.list(`${v1(kit)}${run}/`, 'verb', { bare: true, headers: { [d.tokenHeader]: token } }),
  ]) {
    // The spec says the proxy rejects, not with what (Vault's proxy answers 412: secrets.upstream.proxy-missing-header-412).
    expectNotSuccess(res, `${res.exchange.method} through the proxy without ${d.requestHeader} is rejected`);
    expect(res.text.includes('no-header') || res.text.includes('"via"'), 'no data passes').toBe(false);
  }
  expect((await proxy.read(path, { bare: true, headers: { [d.tokenHeader]: token, [d.requestHeader]: 'true' } })).parse(readResultSchema).data, 'the rejected write changed nothing').toEqual({ via: 'proxy' });
});
