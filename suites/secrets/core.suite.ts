import fc from 'fast-check';
import { expect } from 'vitest';
import { helpResponseSchema, openApi3Schema } from '../../src/client/schemas/openapi.ts';
import { errorBodySchema, listResultSchema, readResultSchema } from '../../src/client/schemas/secrets.ts';
import { expectShape } from '../kit/expect-shape.ts';
import { kvKey, kvValue, runPrefix } from '../kit/generators/secrets.ts';
import { uniqueName } from '../kit/run-names.ts';
import { SkipRule, type RuleKit } from '../kit/rule-kit.ts';
import { authorize, codeFlow, codeOf, exchange, setupOidc } from '../kit/oidc-fixture.ts';
import { encodePath } from '../../src/client/secrets-api.ts';
import { expectNotSuccess } from '../kit/refusal.ts';
import { ruleTest } from '../kit/rule-test.ts';
import { SECRETS_BOUNDS } from '../kit/bounds/secrets.ts';

const segment = fc.stringMatching(/^[a-z][a-z0-9_-]{0,11}$/);
const run = runPrefix('core');

/** The v1 mount the target declares (secret/ on a fresh install). */
const v1 = (kit: RuleKit) => kit.secretsTarget.kv.v1Mount;

ruleTest('secrets.core.list-empty-404', async (kit) => {
  // A sibling secret makes sure the engine has data nearby; the listed directory itself stays empty.
  const sibling = await kit.secrets.write(`${v1(kit)}${run}/present`, { value: 'x' });
  expect(sibling.status, 'writing a sibling secret succeeds').toBeLessThan(300);
  // The sentence is of every LIST: a version 2 engine lists under metadata/ (its own code path).
  const v2 = kit.secretsTarget.capabilities.kvV2 ? kit.secretsTarget.kv.v2Mount : undefined;
  if (v2) expect((await kit.secrets.write(`${v2}data/${run}/present`, { data: { value: 'x' } })).status, 'writing a sibling secret in the version 2 engine succeeds').toBeLessThan(300);
  else kit.note('no version 2 key-value engine in the profile (capabilities.kvV2): only the version 1 engine was listed');
  await kit.property(
    fc.array(segment, { minLength: 1, maxLength: 3 }),
    async (segments) => {
      const dirs = [`${v1(kit)}${run}/empty/${segments.join('/')}/`, ...(v2 ? [`${v2}metadata/${run}/empty/${segments.join('/')}/`] : [])];
      for (const dir of dirs) for (const via of ['verb', 'query'] as const) {
        const res = await kit.secrets.list(dir, via);
        const how = via === 'verb' ? 'LIST' : 'GET ?list=true';
        expect(res.status, `${how} ${dir} with no results answers 404`).toBe(404);
        expect(errorBodySchema.safeParse(res.json()).success, `${how} ${dir}: body is {"errors":[...]}`).toBe(true);
        expect(res.json(), `${how} ${dir}: body is exactly {"errors":[]}`).toEqual({ errors: [] });
      }
    },
    { numRuns: Math.min(kit.ctx.runs, 10) },
  );
});

ruleTest('secrets.core.kv-mounted-at-secret', async (kit) => {
  // The spec does not say which version: `vault server -dev` mounts version 2 there. One probe
  // reads the same on both: version 1 stores a secret named data/<key> holding {data:{...}},
  // version 2 a versioned secret <key>; either way the fields read back under data.data.
  const path = `secret/data/${run}/mounted`;
  const write = await kit.secrets.write(path, { data: { probe: 'mounted' } });
  expect(write.status, `POST /v1/${path} succeeds: a key-value engine (version 1 or 2) is mounted at secret/ (answered ${write.status}: ${write.text.slice(0, 120)})`).toBeLessThan(300);
  const read = await kit.secrets.read(path);
  expect(read.status, `GET /v1/${path} answers 200`).toBe(200);
  expect(read.parse(readResultSchema).data.data, 'the secret reads back').toEqual({ probe: 'mounted' });
  await kit.secrets.delete(path);
  // On version 2 that only marks the version deleted: its metadata goes too (on version 1 there is
  // no such key, and the delete changes nothing).
  await kit.secrets.delete(`secret/metadata/${run}/mounted`);
});

ruleTest('secrets.core.content-type-set', async (kit) => {
  const path = `${v1(kit)}${run}/content-type`;
  await kit.secrets.write(path, { a: 'b' });
  for (const res of [await kit.secrets.read(path), await kit.secrets.list(`${v1(kit)}${run}/`, 'verb'), await kit.secrets.read(`${v1(kit)}${run}/absent`)]) {
    expect(res.header('content-type'), `${res.exchange.method} ${res.exchange.url} (${res.status}) sets Content-Type`).toBeTruthy();
  }
  // Every other exchange of the run is checked too (an observation per response with a body).
});

ruleTest('secrets.core.content-type-not-required', async (kit) => {
  await kit.property(
    fc.tuple(kvKey, kvValue),
    async ([key, value]) => {
      const path = `${v1(kit)}${run}/no-ct/${key}`;
      const res = await kit.secrets.writeRaw(path, JSON.stringify(value));
      expect(res.exchange.requestHeaders['content-type'], 'the request carries no Content-Type').toBeUndefined();
      expect(res.status, 'a write without Content-Type succeeds').toBeLessThan(300);
      const read = await kit.secrets.read(path);
      expect(read.status).toBe(200);
      expect(read.parse(readResultSchema).data, 'the value written without Content-Type reads back').toEqual(value);
      // The hard side: a Content-Type that names another type is not a requirement the body must meet either.
      const plainPath = `${path}-plain`;
      const plain = await kit.secrets.writeRaw(plainPath, JSON.stringify(value), { headers: { 'content-type': 'text/plain' } });
      expect(plain.status, 'a JSON write sent as text/plain succeeds').toBeLessThan(300);
      expect((await kit.secrets.read(plainPath)).parse(readResultSchema).data, 'the value written as text/plain reads back').toEqual(value);
    },
    { numRuns: Math.min(kit.ctx.runs, 10) },
  );
});

ruleTest('secrets.core.post-put-synonyms', async (kit) => {
  let n = 0;
  await kit.property(fc.tuple(kvKey, kvValue, kvValue), async ([key, first, second]) => {
    n += 1;
    const viaPost = `${v1(kit)}${run}/synonyms/${n}/post/${key}`;
    const viaPut = `${v1(kit)}${run}/synonyms/${n}/put/${key}`;
    const a = await kit.secrets.write(viaPost, first, 'POST');
    const b = await kit.secrets.write(viaPut, first, 'PUT');
    expect(b.status, 'PUT answers like POST').toBe(a.status);
    expect(a.status, 'the write succeeds').toBeLessThan(300);
    // Overwrite with the other verb: both replace the value.
    const c = await kit.secrets.write(viaPost, second, 'PUT');
    const d = await kit.secrets.write(viaPut, second, 'POST');
    expect(c.status, 'PUT over a POST answers like POST over a PUT').toBe(d.status);
    const readPost = await kit.secrets.read(viaPost);
    const readPut = await kit.secrets.read(viaPut);
    expect(readPost.parse(readResultSchema).data, 'PUT replaced what POST wrote').toEqual(second);
    expect(readPut.parse(readResultSchema).data, 'POST replaced what PUT wrote').toEqual(second);
  });
});

/** The parts of a list answer that must agree between LIST and GET ?list=true (request ids differ). */
function listAnswer(res: { status: number; json(): unknown }): unknown {
  const body = res.json() as Record<string, unknown>;
  if (res.status >= 400) return { status: res.status, errors: body.errors };
  const keys = ((body.data as { keys?: string[] } | undefined)?.keys ?? []).slice().sort();
  return { status: res.status, keys };
}

ruleTest('secrets.core.list-verb-equals-query', async (kit) => {
  let n = 0;
  await kit.property(fc.uniqueArray(kvKey, { minLength: 1, maxLength: 6 }), async (keys) => {
    n += 1;
    const base = `${v1(kit)}${run}/list-eq/${n}/`;
    for (const key of keys) expect((await kit.secrets.write(`${base}${key}`, { k: key })).status).toBeLessThan(300);
    const dirs = new Set<string>([base, `${base}absent/`]);
    for (const key of keys) {
      const parts = key.split('/');
      for (let i = 1; i < parts.length; i++) dirs.add(`${base}${parts.slice(0, i).join('/')}/`);
    }
    for (const dir of dirs) {
      const verb = await kit.secrets.list(dir, 'verb');
      const query = await kit.secrets.list(dir, 'query');
      expect(listAnswer(query), `GET ${dir}?list=true answers like LIST ${dir}`).toEqual(listAnswer(verb));
    }
  });
});

ruleTest('secrets.core.success-status', async (kit) => {
  const path = `${v1(kit)}${run}/status`;
  const checks = [await kit.secrets.write(path, { a: '1' }), await kit.secrets.read(path), await kit.secrets.list(`${v1(kit)}${run}/`, 'verb'), await kit.secrets.delete(path)];
  for (const res of checks) {
    expect(res.status, `${res.exchange.method} ${res.exchange.url} succeeds`).toBeLessThan(300);
    const ok = (res.status === 200 && res.body.length > 0) || (res.status === 204 && res.body.length === 0);
    expect(ok, `${res.exchange.method} ${res.exchange.url} answered ${res.status} with ${res.body.length} bytes: success is 200 with a body or 204 without`).toBe(true);
  }
});

/**
 * Whether a path template of the document, read relative to the queried path, describes `relative`
 * ('/' for the queried path itself). A {parameter} stands for any text, slashes and the empty text
 * included: Vault documents a key-value mount as /{path}, a parameter that takes the whole rest.
 */
function describes(template: string, relative: string): boolean {
  const pattern = template
    .split(/\{[^}]*\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`).test(relative);
}

/**
 * A path queried with ?help=1: whether it is itself a route read with GET, and routes beneath it
 * that are read with GET, relative to it.
 */
interface HelpCase {
  path: string;
  self: boolean;
  beneath: string[];
}

/** Key-value, identity and auth paths: mount roots, collections, named resources, a secret. */
async function helpCases(kit: RuleKit, resources: Named[]): Promise<HelpCase[]> {
  const secretPath = `${v1(kit)}${run}/helped`;
  expect((await kit.secrets.write(secretPath, { a: 'b' })).status, `writing ${secretPath} succeeds`).toBeLessThan(300);
  const cases: HelpCase[] = [
    { path: v1(kit), self: true, beneath: [`/${run}/helped`] },
    { path: secretPath, self: true, beneath: ['/child'] },
  ];
  for (const { route, name } of resources) {
    const collection = route.replace(/\/$/, '');
    const own = collection.endsWith('oidc/provider') ? ['/.well-known/openid-configuration', '/.well-known/keys'] : [];
    cases.push({ path: collection, self: true, beneath: [`/${name}`, ...own.map((o) => `/${name}${o}`)] });
    cases.push({ path: `${route}${name}`, self: true, beneath: own });
  }
  // The mount roots: nothing is served at the root itself, the resources are beneath it.
  const byMount = new Map<string, string[]>();
  for (const { route, name } of resources) {
    const mount = route.startsWith('identity/') ? 'identity/' : route.slice(0, route.indexOf('/role/') + 1);
    byMount.set(mount, [...(byMount.get(mount) ?? []), `/${route.slice(mount.length)}${name}`]);
  }
  for (const [mount, beneath] of byMount) cases.push({ path: mount, self: false, beneath });
  return cases;
}

ruleTest('secrets.core.help-openapi', async (kit) => {
  const resources = await namedResources(kit);
  const cases = await helpCases(kit, resources);
  try {
    await kit.property(
      fc.constantFrom(...cases),
      async ({ path, self, beneath }) => {
        const res = await kit.secrets.help(path);
        expect(res.status, `GET /v1/${path}?help=1 answers 200 (${res.text.slice(0, 120)})`).toBe(200);
        const body = expectShape(res, helpResponseSchema, `?help=1 on ${path}`);
        const doc = openApi3Schema.safeParse(body.openapi);
        expect(doc.success, `openapi of ${path} is an OpenAPI 3 document: ${doc.success ? '' : doc.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`).toBe(true);
        const paths = Object.keys(doc.data!.paths);
        expect(paths.length, `the document for ${path} describes something`).toBeGreaterThan(0);
        const queried = path.replace(/\/$/, '');
        for (const p of paths) {
          expect(p.startsWith('/v1/'), `path "${p}" is relative to the queried path, not absolute`).toBe(false);
          expect(p.includes(queried), `path "${p}" does not repeat the queried path ${queried}`).toBe(false);
        }
        const readable = (relative: string) => paths.filter((p) => describes(p, relative) && (doc.data!.paths[p] as { get?: unknown }).get !== undefined);
        // "for that path and paths beneath it": the queried route itself, and what lies beneath it,
        // read relative to the queried path.
        if (self) expect(readable('/').length, `the document for ${path} describes reading the queried path itself (paths: ${paths.join(', ')})`).toBeGreaterThan(0);
        for (const child of beneath) {
          expect(readable(child).length, `the document for ${path} describes reading ${child} beneath it, relative to the queried path (paths: ${paths.join(', ')})`).toBeGreaterThan(0);
        }
      },
      { numRuns: 0, examples: cases },
    );
  } finally {
    for (const { route, name } of resources) await kit.secrets.delete(`${route}${name}`);
  }
});

ruleTest('secrets.core.help-no-leak', async (kit) => {
  const paths = [v1(kit), `${v1(kit)}${run}/helped`, 'identity/', 'identity/oidc/provider', 'identity/oidc/client'];
  try {
    paths.push(`auth/${kit.cloudAuth.mount}/role`);
  } catch (err) {
    if (!(err instanceof SkipRule)) throw err;
  }
  for (const path of paths) {
    const res = await kit.secrets.help(path, { bare: true, headers: { [kit.secrets.dialect.secrets.requestHeader]: 'true' } });
    expect(res.status, `?help=1 on ${path} without a token is refused`).toBeGreaterThanOrEqual(400);
    expect(res.status, 'refused with 403 or 404').toBeOneOf([403, 404]);
    const body = res.json() as Record<string, unknown>;
    expect(body.help, 'no help text leaks').toBeUndefined();
    expect(body.openapi, 'no OpenAPI document leaks').toBeUndefined();
  }
});

/** A resource behind a :name route (spec 000, Endpoints), made under a name of this run. */
interface Named {
  route: string;
  name: string;
  /** A write that would change the resource, sent to the name with periods appended. */
  change: Record<string, unknown>;
}

/** The collection routes with a :name segment, and a body each accepts. */
const OIDC_COLLECTIONS: [string, Record<string, unknown>, Record<string, unknown>][] = [
  ['identity/oidc/scope/', { description: 'stackproof probe' }, { description: 'changed through a name with periods' }],
  ['identity/oidc/assignment/', { group_ids: [] }, { group_ids: ['changed-through-periods'] }],
  ['identity/oidc/client/', { redirect_uris: ['https://probe.stackproof.test/cb'], assignments: [] }, { redirect_uris: ['https://changed.stackproof.test/cb'] }],
  ['identity/oidc/provider/', {}, { allowed_client_ids: ['*'] }],
];

/** Makes one resource on every :name route: the OIDC collections, and cloud-identity roles where the target has the auth method. */
async function namedResources(kit: RuleKit): Promise<Named[]> {
  const made: Named[] = [];
  const make = async (route: string, body: Record<string, unknown>, change: Record<string, unknown>) => {
    const name = uniqueName('named');
    const res = await kit.secrets.write(`${route}${name}`, body);
    expect(res.status, `a valid name is accepted: POST /v1/${route}${name} succeeds (${res.text.slice(0, 120)})`).toBeLessThan(300);
    made.push({ route, name, change });
  };
  for (const [route, body, change] of OIDC_COLLECTIONS) await make(route, body, change);
  let mount: string | undefined;
  try {
    mount = kit.cloudAuth.mount;
  } catch (err) {
    if (!(err instanceof SkipRule)) throw err;
    kit.note(`no cloud-identity auth method: its role route is left out (${err.message})`);
  }
  // A role must name some bound (Vault refuses one without).
  if (mount) await make(`auth/${mount}/role/`, { bound_locations: ['westeurope'] }, { bound_locations: ['eastus'] });
  return made;
}

ruleTest('secrets.core.path-param-trailing-period-404', async (kit) => {
  // Every resource exists under its own name first, so a 404 for the name with periods cannot be
  // "not found": a target that drops the periods reaches the resource and answers otherwise.
  const resources = await namedResources(kit);
  try {
    await kit.property(
      fc.integer({ min: 1, max: 3 }),
      async (dots) => {
        for (const { route, name, change } of resources) {
          const before = await kit.secrets.read(`${route}${name}`);
          expect(before.status, `GET /v1/${route}${name} reads the resource`).toBe(200);
          const bad = `${name}${'.'.repeat(dots)}`;
          const probes = [
            await kit.secrets.read(`${route}${bad}`),
            await kit.secrets.write(`${route}${bad}`, change),
            await kit.secrets.write(`${route}${bad}`, change, 'PUT'),
            await kit.secrets.delete(`${route}${bad}`),
            await kit.secrets.list(`${route}${bad}/`, 'verb'),
            await kit.secrets.list(`${route}${bad}/`, 'query'),
          ];
          for (const res of probes) {
            expect(res.status, `${res.exchange.method} ${res.exchange.url}: the name ends in a period, so 404 although ${route}${name} exists (answered ${res.status}: ${res.text.slice(0, 120)})`).toBe(404);
          }
          const after = await kit.secrets.read(`${route}${name}`);
          expect(after.status, `${route}${name} is still there after the requests to ${bad}`).toBe(200);
          expect((after.json() as { data?: unknown }).data, `${route}${name} is unchanged by the requests to ${bad}`).toEqual((before.json() as { data?: unknown }).data);
        }
      },
      { numRuns: Math.min(kit.ctx.runs, 4), examples: [1, 3] },
    );
  } finally {
    for (const { route, name } of resources) await kit.secrets.delete(`${route}${name}`);
  }
});

ruleTest('secrets.core.path-param-trailing-period-flows-404', async (kit) => {
  const setup = await setupOidc(kit);
  const provider = `identity/oidc/provider/${setup.provider}`;
  // The routes work on the provider's own name: discovery, key set, a code, tokens, claims.
  for (const doc of ['openid-configuration', 'keys']) {
    const res = await kit.secrets.read(`${provider}/.well-known/${doc}`);
    expect(res.status, `GET /v1/${provider}/.well-known/${doc} answers 200 on the provider's own name`).toBe(200);
  }
  const { token } = await codeFlow(setup);
  kit.secret(token.access_token);
  const claims = await setup.api.userinfo(setup.provider, token.access_token);
  expect(claims.status, `userinfo answers 200 on the provider's own name (${claims.text.slice(0, 120)})`).toBe(200);
  try {
    await kit.property(
      fc.integer({ min: 1, max: 3 }),
      async (dots) => {
        const bad = `${setup.provider}${'.'.repeat(dots)}`;
        const badSetup = { ...setup, provider: bad };
        const code = codeOf(await authorize(setup));
        const probes = [
          await kit.secrets.read(`identity/oidc/provider/${bad}/.well-known/openid-configuration`),
          await kit.secrets.read(`identity/oidc/provider/${bad}/.well-known/keys`),
          await authorize(badSetup),
          await authorize(badSetup, {}, 'POST'),
          await exchange(badSetup, code),
          // The client token, not the access token: see the rule's notes.
          await kit.secrets.write(`identity/oidc/provider/${bad}/userinfo`, {}),
          await kit.secrets.read(`identity/oidc/provider/${bad}/userinfo`),
        ];
        for (const res of probes) {
          expect(res.status, `${res.exchange.method} ${res.exchange.url}: the provider name ends in a period, so 404 although ${setup.provider} works (answered ${res.status}: ${res.text.slice(0, 120)})`).toBe(404);
        }
      },
      { numRuns: Math.min(kit.ctx.runs, 3), examples: [1] },
    );
  } finally {
    await kit.secrets.delete(provider);
    await kit.secrets.delete(`identity/oidc/client/${setup.client.name}`);
  }
});

ruleTest('secrets.core.name-one-segment', async (kit) => {
  // Not providers: they have routes beneath the name (authorize, token, ...).
  const resources = (await namedResources(kit)).filter((r) => !r.route.endsWith('oidc/provider/'));
  try {
    await kit.property(
      fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/).map((s) => `x${s}`),
      async (more) => {
        for (const { route, name, change } of resources) {
          const before = await kit.secrets.read(`${route}${name}`);
          expect(before.status, `GET /v1/${route}${name} reads the resource`).toBe(200);
          const fresh = uniqueName('segment');
          const probes = [
            await kit.secrets.read(`${route}${name}/${more}`),
            await kit.secrets.write(`${route}${name}/${more}`, change),
            await kit.secrets.delete(`${route}${name}/${more}`),
            await kit.secrets.write(`${route}${fresh}/${more}`, change),
          ];
          for (const res of probes) {
            expect(res.status, `${res.exchange.method} ${res.exchange.url}: a name is one segment, so no route is there (answered ${res.status}: ${res.text.slice(0, 120)})`).toBeGreaterThanOrEqual(400);
            expect(res.status, `${res.exchange.method} ${res.exchange.url} is refused as a client error`).toBeLessThan(500);
          }
          const after = await kit.secrets.read(`${route}${name}`);
          expect(after.status, `${route}${name} is still there after the requests to ${name}/${more}`).toBe(200);
          expect((after.json() as { data?: unknown }).data, `${route}${name} is unchanged by the requests to ${name}/${more}`).toEqual((before.json() as { data?: unknown }).data);
          const made = await kit.secrets.read(`${route}${fresh}`);
          expect(made.status, `POST ${route}${fresh}/${more} made no resource named ${fresh}`).toBe(404);
          const list = await kit.secrets.list(route, 'verb');
          const keys = list.status === 200 ? list.parse(listResultSchema).data.keys : [];
          expect(keys.filter((k) => k.includes('/') && (k.startsWith(`${name}/`) || k.startsWith(`${fresh}/`))), `no name with a slash is listed at ${route}`).toEqual([]);
          if (made.status === 200) await kit.secrets.delete(`${route}${fresh}`);
        }
      },
      { numRuns: Math.min(kit.ctx.runs, 4), examples: ['x'] },
    );
  } finally {
    for (const { route, name } of resources) await kit.secrets.delete(`${route}${name}`);
  }
});

/** Version prefixes other than /v1/ (none at all among them). */
const OTHER_VERSIONS = ['v2', 'v0', 'V1', 'v10', ''];

ruleTest('secrets.versioning.v1-only', async (kit) => {
  const d = kit.secrets.dialect.secrets;
  const value = { version: uniqueName('only-v1') };
  const path = `${v1(kit)}${run}/versioned`;
  expect((await kit.secrets.write(path, value)).status, `the write through /v1/${path} succeeds`).toBeLessThan(300);
  let n = 0;
  await kit.property(
    fc.constantFrom(...OTHER_VERSIONS),
    async (version) => {
      n += 1;
      const under = (p: string) => `${version ? `/${version}` : ''}/${encodePath(p)}`;
      const headers = { [d.tokenHeader]: kit.secretsTarget.token, [d.requestHeader]: 'true' };
      const read = await kit.secrets.http.request({ method: 'GET', path: under(path), headers, bare: true });
      expect(read.text.includes(value.version), `GET ${under(path)} does not serve the secret written under /v1/ (answered ${read.status})`).toBe(false);
      const fresh = `${v1(kit)}${run}/versioned-${n}`;
      await kit.secrets.http.request({ method: 'POST', path: under(fresh), headers, bare: true, json: { written: 'elsewhere' } });
      await kit.secrets.http.request({ method: 'POST', path: under(path), headers, bare: true, json: { overwritten: 'elsewhere' } });
      expect((await kit.secrets.read(fresh)).status, `POST ${under(fresh)} wrote nothing at /v1/${fresh}`).toBe(404);
      const still = await kit.secrets.read(path);
      expect(still.parse(readResultSchema).data, `POST ${under(path)} left the secret at /v1/${path} unchanged`).toEqual(value);
    },
    { numRuns: 0, examples: OTHER_VERSIONS },
  );
  await kit.secrets.delete(path);
});

/** Fields of a secret: each under a megabyte, as real secrets are, and within per-value JSON limits (Vault's max_json_string_value_length is 1 MiB by default). */
const FIELD_BYTES = 1_000_000;

/** A JSON object of about `bytes` bytes made of many ordinary fields. */
function manyFields(bytes: number): string {
  const value = 'x'.repeat(FIELD_BYTES);
  const count = Math.ceil(bytes / FIELD_BYTES);
  return `{${Array.from({ length: count }, (_, i) => `"f${i}":"${value}"`).join(',')}}`;
}

/** How far under the limit the accepted request is: room for a few headers, should a target count them too. */
const UNDER_BY = 4 * 1024;

ruleTest('secrets.limits.max-request-size', async (kit) => {
  const limit = kit.secretsTarget.maxRequestBytes;
  const json = { 'content-type': 'application/json' };
  const over = manyFields(limit + 1024 * 1024);
  const res = await kit.secrets.writeRaw(`${v1(kit)}${run}/oversized`, over, { headers: json });
  // The spec names the limit, not the refusal's status (Vault answers 413).
  expectNotSuccess(res, `a ${over.length}-byte request (over the ${limit}-byte limit) is refused`);
  expect(errorBodySchema.safeParse(res.json()).success, 'with the error body').toBe(true);
  const read = await kit.secrets.read(`${v1(kit)}${run}/oversized`);
  expect(read.status, 'and nothing was stored').toBe(404);
  // Just under the limit: a small secret after whitespace padding (JSON allows it between tokens),
  // so the request is big while what is stored stays small, whatever the target's storage allows.
  const value = { size: 'just-under' };
  const under = `${' '.repeat(limit - UNDER_BY - JSON.stringify(value).length)}${JSON.stringify(value)}`;
  const accepted = await kit.secrets.writeRaw(`${v1(kit)}${run}/just-under`, under, { headers: json });
  expect(accepted.status, `a ${under.length}-byte request (${UNDER_BY} bytes under the ${limit}-byte limit) is accepted (answered ${accepted.status}: ${accepted.text.slice(0, 120)})`).toBeLessThan(300);
  const stored = await kit.secrets.read(`${v1(kit)}${run}/just-under`);
  expect(stored.status, 'the secret sent just under the limit reads back').toBe(200);
  expect(stored.parse(readResultSchema).data).toEqual(value);
}, { timeoutMs: SECRETS_BOUNDS.largeRequest.ms });
