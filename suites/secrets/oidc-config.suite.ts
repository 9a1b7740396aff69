import fc from 'fast-check';
import { expect } from 'vitest';
import type { HttpResponse } from '../../src/client/http-client.ts';
import { assignmentReadSchema, clientReadSchema, discoverySchema, providerReadSchema, scopeReadSchema, userinfoSchema } from '../../src/client/schemas/oidc.ts';
import { listResultSchema } from '../../src/client/schemas/secrets.ts';
import { expectShape } from '../kit/expect-shape.ts';
import { authorize, authorizeParams, codeFlow, codeOf, exchange, expectWritten, setupOidc, uniqueName, verifyIdToken, type OidcSetupOptions } from '../kit/oidc-fixture.ts';
import { batchShaped } from '../kit/generators/secrets.ts';
import { SkipRule, type RuleKit } from '../kit/rule-kit.ts';
import type { EntityFixture } from '../../src/client/identity-fixtures.ts';
import { ruleTest } from '../kit/rule-test.ts';
import { expectNotSuccess } from '../kit/refusal.ts';

async function expectListed(kit: RuleKit, kind: 'provider' | 'scope' | 'client' | 'assignment', name: string, present: boolean): Promise<void> {
  const res = await kit.oidc().list(kind);
  const keys = res.status === 200 ? res.parse(listResultSchema).data.keys : [];
  if (present) expect(res.status, `LIST identity/oidc/${kind} answers 200`).toBe(200);
  expect(keys.includes(name), `LIST identity/oidc/${kind} ${present ? 'includes' : 'no longer includes'} ${name}`).toBe(present);
}

async function expectDeleted(kit: RuleKit, kind: 'provider' | 'scope' | 'client' | 'assignment', name: string): Promise<void> {
  expectWritten(await kit.oidc().delete(kind, name), `DELETE ${kind} ${name}`);
  expect((await kit.oidc().read(kind, name)).status, `${kind} ${name} is gone after DELETE`).toBe(404);
  await expectListed(kit, kind, name, false);
}

ruleTest('secrets.oidc.provider-crud', async (kit) => {
  const api = kit.oidc();
  const scope = uniqueName('scope');
  expectWritten(await api.write('scope', scope, { template: '{"x":"y"}' }), 'create a scope');
  const name = uniqueName('provider');
  const issuer = 'https://oidc.example.com:8200';
  expectWritten(await api.write('provider', name, { issuer, allowed_client_ids: ['a', 'b'], scopes_supported: [scope] }), 'create a provider');
  const read = expectShape(await api.read('provider', name), providerReadSchema, 'provider read');
  expect(read.data.allowed_client_ids.slice().sort(), 'allowed_client_ids reads back as written').toEqual(['a', 'b']);
  expect(read.data.scopes_supported, 'scopes_supported reads back as written').toEqual([scope]);
  await expectListed(kit, 'provider', name, true);
  await expectDeleted(kit, 'provider', name);
  // Last, so that every other part of the rule has been judged when this one fails.
  expect(read.data.issuer, `the issuer reads back as written (read back ${JSON.stringify(read.data.issuer)})`).toBe(issuer);
});

ruleTest('secrets.oidc.provider-issuer-empty-when-unset', async (kit) => {
  const name = uniqueName('provider');
  expectWritten(await kit.oidc().write('provider', name, {}), 'create a provider with no issuer');
  const read = expectShape(await kit.oidc().read('provider', name), providerReadSchema, 'provider read');
  expect(read.data.issuer, `the issuer reads back as the empty string (read back ${JSON.stringify(read.data.issuer)})`).toBe('');
});

ruleTest('secrets.oidc.provider-issuer-default', async (kit) => {
  const name = uniqueName('provider');
  expectWritten(await kit.oidc().write('provider', name, {}), 'create a provider with no issuer');
  const doc = expectShape(await kit.oidc().discovery(name), discoverySchema, 'OpenID configuration');
  expect(doc.issuer, 'the issuer is a URL').toMatch(/^https?:\/\/[^/]+\//);
  expect(new URL(doc.issuer).pathname, 'its path is /v1/<namespace>/identity/oidc/provider/<name> (root namespace: no namespace segment)').toBe(`/v1/identity/oidc/provider/${name}`);
  if (kit.secretsTarget.capabilities.namespaces) {
    const ns = kit.secretsTarget.namespaces[0]!;
    const inNs = kit.oidc(ns);
    expectWritten(await inNs.write('provider', name, {}), `create the provider in namespace ${ns}`);
    const nsDoc = expectShape(await inNs.discovery(name), discoverySchema, 'OpenID configuration in a namespace');
    expect(new URL(nsDoc.issuer).pathname, `in namespace ${ns} the path carries the namespace`).toBe(`/v1/${ns}identity/oidc/provider/${name}`);
  }
});

ruleTest('secrets.oidc.provider-issuer-configured', async (kit) => {
  const name = uniqueName('provider');
  const issuer = 'https://issuer.example.com:8200';
  expectWritten(await kit.oidc().write('provider', name, { issuer }), 'create a provider with an issuer');
  const read = expectShape(await kit.oidc().read('provider', name), providerReadSchema, 'provider read');
  const doc = expectShape(await kit.oidc().discovery(name), discoverySchema, 'OpenID configuration');
  expect(new URL(doc.issuer).origin, 'the issuer is the scheme://host:port of the iss').toBe(issuer);
  // Last, so that the discovered issuer has been judged when this one fails.
  expect(read.data.issuer, `the issuer reads back as written (read back ${JSON.stringify(read.data.issuer)})`).toBe(issuer);
});

ruleTest('secrets.oidc.provider-scopes-supported', async (kit) => {
  const api = kit.oidc();
  const scopes = [uniqueName('scope'), uniqueName('scope')];
  for (const s of scopes) expectWritten(await api.write('scope', s, { template: '{}' }), `create scope ${s}`);
  const name = uniqueName('provider');
  expectWritten(await api.write('provider', name, { scopes_supported: scopes }), 'create a provider with two scopes');
  const doc = expectShape(await api.discovery(name), discoverySchema, 'OpenID configuration');
  expect(doc.scopes_supported.slice().sort(), "scopes_supported is the provider's scopes and openid").toEqual([...scopes, 'openid'].sort());
});

ruleTest('secrets.oidc.scope-crud', async (kit) => {
  const api = kit.oidc();
  const name = uniqueName('scope');
  const template = '{"username":{{identity.entity.name}}}';
  expectWritten(await api.write('scope', name, { template, description: 'who you are' }), 'create a scope');
  const read = expectShape(await api.read('scope', name), scopeReadSchema, 'scope read');
  expect(read.data.description).toBe('who you are');
  expect(read.data.template).toBe(template);
  await expectListed(kit, 'scope', name, true);
  await expectDeleted(kit, 'scope', name);
});

ruleTest('secrets.oidc.scope-openid-reserved', async (kit) => {
  const res = await kit.oidc().write('scope', 'openid', { template: '{}', description: 'not allowed' });
  expectNotSuccess(res, "creating the scope 'openid' is refused");
});

/** The claims the forms template gives an entity; an entity in no group may get groups absent, null or []. */
function formsClaims(entity: EntityFixture): Record<string, unknown> {
  return { username: entity.name, groups: entity.groups.map((g) => g.name).sort(), contact: { email: entity.metadata.email ?? '' } };
}

ruleTest('secrets.oidc.scope-template-forms', async (kit) => {
  // The closing braces are spaced: "}}" after an expression is refused by Vault's and OpenBao's
  // template parser (sdk/helper/identitytpl PopulateString, "unbalanced templating characters").
  const template = '{"username":{{identity.entity.name}},"groups":{{identity.entity.groups.names}},"contact":{"email":{{identity.entity.metadata.email}} } }';
  // Each form is compared with what it renders for its own entity: entities made beforehand (static
  // fixtures) differ between the two setups, so the two renderings need not be equal to each other.
  for (const [form, text] of [
    ['JSON', template],
    ['base64', Buffer.from(template).toString('base64')],
  ] as const) {
    const setup = await setupOidc(kit, { scopes: [{ template: text }], entity: { metadata: { email: 'same@example.com' }, groups: [uniqueName('forms')] } });
    const { token } = await codeFlow(setup);
    const { sub: _sub, ...claims } = (await setup.api.userinfo(setup.provider, token.access_token)).parse(userinfoSchema);
    const rendered = { username: claims.username, groups: (claims.groups ?? []).slice().sort(), contact: claims.contact };
    expect(rendered, `the ${form} template renders the entity's name, groups and email`).toEqual(formsClaims(setup.entity));
  }
});

ruleTest('secrets.oidc.client-crud', async (kit) => {
  const api = kit.oidc();
  const assignment = uniqueName('assignment');
  expectWritten(await api.write('assignment', assignment, { entity_ids: ['e1'] }), 'create an assignment');
  const name = uniqueName('client');
  const body = { redirect_uris: ['https://a.example.com/cb', 'https://b.example.com/cb'], assignments: [assignment], id_token_ttl: 1800, access_token_ttl: 7200 };
  expectWritten(await api.write('client', name, body), 'create a client');
  const read = expectShape(await api.read('client', name), clientReadSchema, 'client read');
  kit.secret(read.data.client_secret);
  expect(read.data).toMatchObject({ ...body, key: 'default', client_type: 'confidential' });
  await expectListed(kit, 'client', name, true);
  await expectDeleted(kit, 'client', name);
});

ruleTest('secrets.oidc.client-defaults', async (kit) => {
  const name = uniqueName('client');
  expectWritten(await kit.oidc().write('client', name, {}), 'create a client with no fields');
  const read = expectShape(await kit.oidc().read('client', name), clientReadSchema, 'client read');
  kit.secret(read.data.client_secret);
  expect(read.data.key, "key defaults to 'default'").toBe('default');
  expect(read.data.client_type, "client_type defaults to 'confidential'").toBe('confidential');
  expect(read.data.id_token_ttl, 'id_token_ttl defaults to 24h').toBe(86_400);
  expect(read.data.access_token_ttl, 'access_token_ttl defaults to 24h').toBe(86_400);
  expect(read.data.assignments, 'no assignments by default').toEqual([]);
});

/** A duration as the spec allows it: integer seconds, or a string of units. */
const duration = fc.oneof(
  fc.integer({ min: 1, max: 86_400 }).map((s) => ({ given: s as number | string, seconds: s })),
  fc.integer({ min: 1, max: 86_400 }).map((s) => ({ given: String(s) as number | string, seconds: s })),
  fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 59 }))
    .filter(([h, m, s]) => h + m + s > 0)
    .map(([h, m, s]) => ({ given: `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}` as number | string, seconds: h * 3600 + m * 60 + s })),
);

ruleTest('secrets.oidc.client-ttl-forms', async (kit) => {
  await kit.property(
    fc.tuple(duration, duration),
    async ([idTtl, accessTtl]) => {
      const name = uniqueName('client');
      expectWritten(await kit.oidc().write('client', name, { id_token_ttl: idTtl.given, access_token_ttl: accessTtl.given }), `create a client with TTLs ${JSON.stringify(idTtl.given)} and ${JSON.stringify(accessTtl.given)}`);
      const res = await kit.oidc().read('client', name);
      const raw = res.json() as { data?: Record<string, unknown> };
      expect(raw.data?.id_token_ttl, `id_token_ttl ${JSON.stringify(idTtl.given)} reads back as ${idTtl.seconds} (integer seconds)`).toBe(idTtl.seconds);
      expect(raw.data?.access_token_ttl, `access_token_ttl ${JSON.stringify(accessTtl.given)} reads back as ${accessTtl.seconds}`).toBe(accessTtl.seconds);
      kit.secret(res.parse(clientReadSchema).data.client_secret);
      await kit.oidc().delete('client', name);
    },
    { numRuns: Math.min(kit.ctx.runs, 15) },
  );
});

ruleTest('secrets.oidc.client-key-immutable', async (kit) => {
  // Changing to a key that does not exist is refused anyway; only a second, existing key tells.
  const alt = kit.secretsTarget.oidcAltKey;
  if (!alt) throw new SkipRule('the target profile names no second signing key (oidcAltKey), so a key change cannot be told from a missing key');
  for (const [from, to] of [
    ['default', alt],
    [alt, 'default'],
  ]) {
    const name = uniqueName('client');
    expectWritten(await kit.oidc().write('client', name, { key: from }), `create a client with key ${from}`);
    const res = await kit.oidc().write('client', name, { key: to });
    expectNotSuccess(res, `changing the key from ${from} to ${to} (which exists) is refused`);
    const same = await kit.oidc().write('client', name, { key: from });
    expect(same.status, 'naming the same key again is an ordinary update').toBeLessThan(300);
    const read = (await kit.oidc().read('client', name)).parse(clientReadSchema).data;
    kit.secret(read.client_secret);
    expect(read.key, 'the key is unchanged').toBe(from);
  }
});

ruleTest('secrets.oidc.client-type-immutable', async (kit) => {
  for (const [from, to] of [
    ['confidential', 'public'],
    ['public', 'confidential'],
  ] as const) {
    const name = uniqueName('client');
    expectWritten(await kit.oidc().write('client', name, { client_type: from }), `create a ${from} client`);
    const res = await kit.oidc().write('client', name, { client_type: to });
    expectNotSuccess(res, `changing client_type from ${from} to ${to} is refused`);
    const read = (await kit.oidc().read('client', name)).parse(clientReadSchema).data;
    kit.secret(read.client_secret);
    expect(read.client_type, 'the type is unchanged').toBe(from);
  }
});

ruleTest('secrets.oidc.client-credentials', async (kit) => {
  const api = kit.oidc();
  const conf = uniqueName('client');
  expectWritten(await api.write('client', conf, { client_type: 'confidential' }), 'create a confidential client');
  const first = (await api.read('client', conf)).parse(clientReadSchema).data;
  kit.secret(first.client_secret);
  expect(first.client_id.length, 'a client_id is generated').toBeGreaterThan(0);
  expect(first.client_secret?.length ?? 0, 'a confidential client has a client_secret').toBeGreaterThan(0);
  expectWritten(await api.write('client', conf, { redirect_uris: ['https://x.example.com/cb'] }), 'update the client');
  const second = (await api.read('client', conf)).parse(clientReadSchema).data;
  expect(second.client_id, 'the client_id does not change on update').toBe(first.client_id);
  const pub = uniqueName('client');
  expectWritten(await api.write('client', pub, { client_type: 'public' }), 'create a public client');
  const p = (await api.read('client', pub)).parse(clientReadSchema).data;
  expect(p.client_id.length).toBeGreaterThan(0);
  expect(p.client_secret ?? '', 'a public client has no client_secret').toBe('');
  expect(p.client_id, 'each client gets its own client_id').not.toBe(first.client_id);
});

ruleTest('secrets.oidc.assignment-crud', async (kit) => {
  const api = kit.oidc();
  const name = uniqueName('assignment');
  expectWritten(await api.write('assignment', name, { entity_ids: ['e1', 'e2'], group_ids: ['g1'] }), 'create an assignment');
  const read = expectShape(await api.read('assignment', name), assignmentReadSchema, 'assignment read');
  expect(read.data).toEqual({ entity_ids: ['e1', 'e2'], group_ids: ['g1'] });
  await expectListed(kit, 'assignment', name, true);
  await expectDeleted(kit, 'assignment', name);
});

ruleTest('secrets.oidc.assignment-allow-all', async (kit) => {
  expect((await kit.oidc().read('assignment', 'allow_all')).status, "the assignment 'allow_all' exists").toBe(200);
  const setup = await setupOidc(kit, { assignments: 'allow_all' });
  const res = await authorize(setup);
  expect(res.status, `an entity no assignment names authenticates through a client with allow_all: ${res.text.slice(0, 200)}`).toBe(200);
});

ruleTest('secrets.oidc.client-no-assignments-denies', async (kit) => {
  const setup = await setupOidc(kit, { assignments: 'none' });
  const res = await authorize(setup);
  expectNotSuccess(res, 'authorize through a client with no assignments is refused');
  expect((res.json() as { code?: unknown }).code, 'and no code is issued').toBeUndefined();
});

// The hard sides (issue 37): '*' for a client made after the provider, the client named after
// another entry, and an entry that is only a prefix of the client_id.
ruleTest('secrets.oidc.allowed-client-ids', async (kit) => {
  type Allowed = NonNullable<OidcSetupOptions['allowedClientIds']>;
  const cases: [Allowed, boolean, string, boolean?][] = [
    [[], false, 'an empty allowed_client_ids allows no client'],
    ['*', true, "'*' allows every client"],
    ['*', true, "'*' allows a client created after the provider", true],
    ['self', true, 'a list naming the client allows it'],
    [(id) => ['someone-else', id], true, 'a list naming the client second, after another client_id, allows it'],
    [['someone-else'], false, 'a list not naming the client refuses it'],
    [(id) => [id.slice(0, -1)], false, 'a list naming the client_id less its last character (a prefix of it) refuses it'],
  ];
  for (const [allowed, expectOk, what, providerFirst] of cases) {
    const setup = await setupOidc(kit, { allowedClientIds: allowed, providerFirst });
    const res = await authorize(setup);
    if (expectOk) expect(res.status, `${what}: ${res.text.slice(0, 200)}`).toBe(200);
    else expectNotSuccess(res, what);
    if (expectOk) {
      const { token } = await codeFlow(setup);
      await verifyIdToken(setup, token.id_token);
    }
  }
  // Generated lists for one client: other client_ids around it, and the client_id itself, a prefix
  // of it or it extended, at any position. Only the client_id itself admits.
  const setup = await setupOidc(kit, { allowedClientIds: ['someone-else'] });
  const id = setup.client.id;
  await kit.property(
    fc.record({ others: fc.array(fc.stringMatching(/^[a-z0-9]{4,16}$/), { maxLength: 3 }), position: fc.nat(), form: fc.constantFrom(...ID_FORMS), cut: fc.integer({ min: 1, max: 8 }) }),
    async ({ others, position, form: asked, cut }) => {
      const near = idNearMiss(id, asked, cut);
      // A client_id with no letter has no other case: it is then asked as itself.
      const form: IdForm = near === id ? 'itself' : asked;
      const entry = near;
      const list = [...others];
      list.splice(position % (list.length + 1), 0, entry);
      const provider = uniqueName('provider');
      expectWritten(await setup.api.write('provider', provider, { allowed_client_ids: list }), `create provider ${provider}`);
      const res = await setup.api.authorize(provider, authorizeParams(setup), setup.entity.token);
      const what = `allowed_client_ids ${JSON.stringify(list)} for client_id ${id}`;
      if (form === 'itself') expect(res.status, `${what} admits it: ${res.text.slice(0, 200)}`).toBe(200);
      else expectNotSuccess(res, `${what} (the client_id ${ID_FORM_WORDS[form]}, not itself) refuses it`);
    },
    { numRuns: Math.min(kit.ctx.runs, 10), examples: [{ others: ['a1b2c3d4'], position: 1, form: 'itself' as IdForm, cut: 1 }, ...ID_FORMS.filter((f) => f !== 'itself').map((form) => ({ others: [] as string[], position: 0, form, cut: 1 }))] },
  );
});

ruleTest('secrets.upstream.oidc-key-allowed-client-ids', async (kit) => {
  const key = uniqueName('key');
  let writeKey = (allowed: string[]) => kit.secrets.write(`identity/oidc/key/${key}`, { algorithm: 'RS256', allowed_client_ids: allowed });
  let made = await writeKey(['*']);
  // The spec does not show how keys are made: where identity/oidc/key is not served, the profile's control interface makes one.
  const control = made.status === 404 || made.status === 405 ? kit.secretsControl : undefined;
  if (made.status === 404 || made.status === 405) {
    if (!control) throw new SkipRule(`identity/oidc/key answered ${made.status} and the profile names no control interface: the target makes no signing keys the run can name (the spec does not show how keys are made)`);
    writeKey = (allowed: string[]) => control.request({ method: 'PUT', path: `/v1/control/secrets/oidc-keys/${key}`, json: { allowed_client_ids: allowed } });
    made = await writeKey(['*']);
  }
  expectWritten(made, `create the signing key ${key}`);
  try {
    await keyAllowlist(kit, key, writeKey);
  } finally {
    if (control) await control.request({ method: 'DELETE', path: `/v1/control/secrets/oidc-keys/${key}` });
  }
});

async function keyAllowlist(kit: RuleKit, key: string, writeKey: (allowed: string[]) => Promise<HttpResponse>): Promise<void> {
  const setup = await setupOidc(kit, { key });
  const id = setup.client.id;
  const wrong: string[] = [];
  const ask = async (allowed: string[], admits: boolean, what: string) => {
    expectWritten(await writeKey(allowed), `set the key's allowed_client_ids to ${JSON.stringify(allowed)}`);
    const res = await exchange(setup, codeOf(await authorize(setup)));
    if (admits ? res.status !== 200 : res.status < 400 || res.status >= 500) wrong.push(`${what} (allowed_client_ids ${JSON.stringify(allowed)}): the token call answered ${res.status} ${res.text.slice(0, 160)}, ${admits ? 'where the key admits the client' : 'where the key refuses the client (4xx)'}`);
  };
  await ask([id], true, 'the client_id itself');
  await ask(['someone-else', id], true, 'the client_id second in the list');
  for (const form of ID_FORMS.filter((f) => f !== 'itself')) {
    for (const cut of [1, 3]) {
      const near = idNearMiss(id, form, cut);
      if (near !== id) await ask([near], false, `the client_id ${ID_FORM_WORDS[form]}`);
    }
  }
  await ask([], false, 'an empty list');
  await ask(['*'], true, "'*'");
  expect(wrong, `a signing key's allowed_client_ids admit exactly the listed clients:\n${wrong.join('\n')}`).toEqual([]);
}

const ID_FORMS = ['itself', 'prefix', 'extended', 'suffix', 'changed', 'case'] as const;
type IdForm = (typeof ID_FORMS)[number];
const ID_FORM_WORDS: Record<IdForm, string> = {
  itself: 'itself',
  prefix: 'shortened at its end',
  extended: 'extended',
  suffix: 'shortened at its start',
  changed: 'with one character changed',
  case: 'with its letters in the other case',
};

/** An allowed_client_ids entry near the client_id: the allowlist names a client, so only the client_id itself, exactly, may admit it. */
function idNearMiss(id: string, form: IdForm, cut: number): string {
  const at = Math.min(cut, id.length) - 1;
  switch (form) {
    case 'itself':
      return id;
    case 'prefix':
      return id.slice(0, Math.max(1, id.length - cut));
    case 'extended':
      return `${id}${'x'.repeat(cut)}`;
    case 'suffix':
      return id.slice(Math.min(cut, id.length - 1));
    case 'changed':
      return `${id.slice(0, at)}${id[at] === 'z' ? 'y' : 'z'}${id.slice(at + 1)}`;
    case 'case':
      return [...id].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
  }
}

/** Whether the entity is one the assignments admit: named in entity_ids, or in one of group_ids. */
function admitted(entity: EntityFixture, assignments: { entity_ids: string[]; group_ids: string[] }[]): boolean {
  return assignments.some((a) => a.entity_ids.includes(entity.id) || entity.groups.some((g) => a.group_ids.includes(g.id)));
}

interface AssignmentCase {
  entityGroups: string[];
  helperGroups: string[];
  byEntity: boolean;
  groupMask: boolean[];
  count: number;
  position: number;
}

ruleTest('secrets.oidc.assignments-decide', async (kit) => {
  const fixtures = kit.fixtures;
  const groupPool = ['red', 'green', 'blue'].map((g) => `${uniqueName('g')}-${g}`);
  const api = kit.oidc();
  let groupsSeen = false;
  const check = async ({ entityGroups, helperGroups, byEntity, groupMask, count, position }: AssignmentCase) => {
    const entity = await fixtures.entity({ name: uniqueName('entity'), groups: entityGroups });
    const helper = await fixtures.entity({ name: uniqueName('helper'), groups: helperGroups });
    // Group ids come from what the fixtures say the entities belong to, never from names made up
    // here: with entities made beforehand (static fixtures) their groups are whatever they are.
    const known = [...new Map([...entity.groups, ...helper.groups].map((g) => [g.id, g])).values()];
    groupsSeen ||= known.length > 0;
    const grant = { entity_ids: byEntity ? [entity.id] : [], group_ids: known.filter((_, i) => groupMask[i % groupMask.length]).map((g) => g.id) };
    // The grant sits in any of up to three assignments; the others name someone else or nobody.
    const others = { entity_ids: helper.id === entity.id ? [] : [helper.id], group_ids: [] as string[] };
    const bodies = Array.from({ length: count }, (_, i) => (i === position % count ? grant : others));
    const assignments: string[] = [];
    for (const body of bodies) {
      const a = uniqueName('assignment');
      expectWritten(await api.write('assignment', a, body), 'create an assignment');
      assignments.push(a);
    }
    const setup = await setupOidc(kit, { assignments });
    const expected = admitted(entity, bodies);
    const res = await api.authorize(setup.provider, { client_id: setup.client.id, redirect_uri: setup.redirectUri, response_type: 'code', scope: 'openid', state: 's' }, entity.token);
    const shown = bodies.map((b, i) => `#${i + 1} entities [${b.entity_ids.map((id) => (id === entity.id ? 'it' : 'other'))}] groups ${b.group_ids.length}`).join('; ');
    expect(res.status === 200, `entity in groups [${entity.groups.map((g) => g.name)}] ${expected ? 'may' : 'may not'} authenticate through a client with assignments ${shown} (answer ${res.status})`).toBe(expected);
  };
  // Cases every run checks, whatever is generated: the grant in a later assignment, by entity and by group.
  const [red, green] = groupPool as [string, string];
  await check({ entityGroups: [red], helperGroups: [], byEntity: true, groupMask: [false], count: 3, position: 2 });
  await check({ entityGroups: [green], helperGroups: [green], byEntity: false, groupMask: [true], count: 2, position: 1 });
  await kit.property(
    fc.record({
      entityGroups: fc.subarray(groupPool),
      helperGroups: fc.subarray(groupPool),
      byEntity: fc.boolean(),
      groupMask: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
      count: fc.integer({ min: 1, max: 3 }),
      position: fc.nat(2),
    }),
    check,
    { numRuns: Math.min(kit.ctx.runs, 15) },
  );
  if (!groupsSeen) kit.note('no fixture entity belongs to a group: only assignments by entity were checked');
});

/** The list forms: the LIST verb with and without the trailing slash, and GET with list=true (Core: "LIST or GET with list=true | <path>/"). */
type ConfigOp = 'read' | 'list' | 'list-slash' | 'list-get' | 'read-collection' | 'write' | 'delete';
const KINDS = ['provider', 'scope', 'client', 'assignment'] as const;
// read-collection: GET of the collection itself, without ?list (a verb its route does not take: Vault
// answers a permitted caller 405, one without permission 403 before routing).
const OPS: ConfigOp[] = ['read', 'list', 'list-slash', 'list-get', 'read-collection', 'write', 'delete'];
type Kind = (typeof KINDS)[number];

/** What an intruder's write would change, per kind: something a read with the real token would show. */
const INTRUSION: Record<Kind, Record<string, unknown>> = {
  provider: { allowed_client_ids: ['intruder'] },
  scope: { description: 'intruder' },
  client: { redirect_uris: ['https://intruder.example.com/cb'] },
  assignment: { entity_ids: ['intruder'] },
};

/** One of each configuration resource, made with the real token, and how each reads back. */
interface ConfigSet {
  names: Record<Kind, string>;
  reads: Record<Kind, unknown>;
  clientSecret: string;
}

async function readAll(kit: RuleKit, names: Record<Kind, string>): Promise<Record<Kind, unknown>> {
  const out = {} as Record<Kind, unknown>;
  for (const kind of KINDS) {
    const res = await kit.oidc().read(kind, names[kind]);
    expect(res.status, `${kind} ${names[kind]} reads with the real token`).toBe(200);
    out[kind] = (res.json() as { data?: unknown }).data;
  }
  return out;
}

async function makeConfigSet(kit: RuleKit, names?: Partial<Record<Kind, string>>): Promise<ConfigSet> {
  const api = kit.oidc();
  const n = {
    scope: names?.scope ?? uniqueName('scope'),
    assignment: names?.assignment ?? uniqueName('assignment'),
    client: names?.client ?? uniqueName('client'),
    provider: names?.provider ?? uniqueName('provider'),
  };
  if (!names?.scope) expectWritten(await api.write('scope', n.scope, { template: '{"k":"v"}', description: 'guarded' }), 'create a scope');
  if (!names?.assignment) expectWritten(await api.write('assignment', n.assignment, { entity_ids: ['someone'] }), 'create an assignment');
  if (!names?.client) expectWritten(await api.write('client', n.client, { redirect_uris: ['https://guarded.example.com/cb'], assignments: [n.assignment] }), 'create a confidential client');
  if (!names?.provider) expectWritten(await api.write('provider', n.provider, { allowed_client_ids: ['*'], scopes_supported: [n.scope] }), 'create a provider');
  const client = (await api.read('client', n.client)).parse(clientReadSchema).data;
  kit.secret(client.client_secret);
  expect(client.client_secret?.length ?? 0, 'the confidential client has a secret to guard').toBeGreaterThan(0);
  return { names: n, reads: await readAll(kit, n), clientSecret: client.client_secret ?? '' };
}

/** One configuration request with exactly the given token (or none), nothing else of the client's defaults. */
function attempt(kit: RuleKit, kind: Kind, op: ConfigOp, name: string, token: string | undefined) {
  const d = kit.secrets.dialect.secrets;
  const headers: Record<string, string> = { [d.requestHeader]: 'true' };
  if (token !== undefined) headers[d.tokenHeader] = token;
  const options = { bare: true, headers };
  const path = `identity/oidc/${kind}/${name}`;
  switch (op) {
    case 'read':
      return kit.secrets.read(path, options);
    case 'list':
      return kit.secrets.list(`identity/oidc/${kind}`, 'verb', options);
    case 'list-slash':
      return kit.secrets.list(`identity/oidc/${kind}/`, 'verb', options);
    case 'list-get':
      return kit.secrets.list(`identity/oidc/${kind}`, 'query', options);
    case 'read-collection':
      return kit.secrets.read(`identity/oidc/${kind}`, options);
    case 'write':
      return kit.secrets.write(path, INTRUSION[kind], 'POST', options);
    default:
      return kit.secrets.delete(path, options);
  }
}

/** The request is refused (403, or 404 for a path the caller may not see), shows no secret nor names, and changes nothing. */
async function expectGuarded(kit: RuleKit, set: ConfigSet, kind: Kind, op: ConfigOp, token: string | undefined, who: string): Promise<void> {
  const name = set.names[kind];
  const res = await attempt(kit, kind, op, name, token);
  const what = `${op} of ${kind} ${op.startsWith('list') ? `(${op === 'list-get' ? 'GET ?list=true' : op === 'list-slash' ? 'LIST, trailing slash' : 'LIST'})` : op === 'read-collection' ? '(GET of the collection, no ?list)' : name} ${who}`;
  expect([403, 404], `${what} is refused with 403 or 404 (answered ${res.status}: ${res.text.slice(0, 160)})`).toContain(res.status);
  expect(res.text.includes(set.clientSecret), `${what}: the answer carries no client secret`).toBe(false);
  if (op.startsWith('list') || op === 'read-collection') expect(res.text.includes(name), `${what}: the answer lists no names`).toBe(false);
  if (op === 'write' || op === 'delete') {
    const after = await kit.oidc().read(kind, name);
    expect(after.status, `${kind} ${name} still exists after the refused ${op}`).toBe(200);
    expect((after.json() as { data?: unknown }).data, `${kind} ${name} is unchanged after the refused ${op}`).toEqual(set.reads[kind]);
  }
}

/**
 * A string that looks like a token but that the service never issued. Not one shaped like a batch
 * token (b., hvb.): how those are read is secrets.auth.bad-token-refused's to judge, which sends
 * them on purpose; here they would only make the verdict depend on the seed.
 */
const forgedToken = fc.stringMatching(/^[A-Za-z0-9._-]{8,40}$/).filter((t) => !batchShaped(t));

ruleTest('secrets.oidc.config-requires-token', async (kit) => {
  const set = await makeConfigSet(kit);
  const real = kit.secretsTarget.token;
  type Case = { kind: Kind; op: ConfigOp; token: string | undefined };
  // Every route and operation without a token, whatever is generated; then generated forged tokens.
  const examples: Case[] = KINDS.flatMap((kind) => OPS.map((op) => ({ kind, op, token: undefined })));
  examples.push(...KINDS.map((kind, i) => ({ kind, op: OPS[i]!, token: `${real}x` })));
  await kit.property(
    fc.record({ kind: fc.constantFrom(...KINDS), op: fc.constantFrom(...OPS), token: fc.option(forgedToken.filter((t) => t !== real), { nil: undefined }) }),
    async ({ kind, op, token }) => {
      if (token !== undefined) kit.secret(token);
      await expectGuarded(kit, set, kind, op, token, token === undefined ? 'without a token' : 'with a token the service did not issue');
    },
    { numRuns: Math.min(kit.ctx.runs, 10), examples },
  );
});

ruleTest('secrets.oidc.config-requires-policy', async (kit) => {
  if (!kit.fixtures.dynamic) {
    throw new SkipRule("the profile's entities were made beforehand, so their tokens' policies are unknown: only entities the fixtures make carry nothing but the default policy");
  }
  // The entity's token works: it authorizes through a client that admits it, so a refusal below is about its policies.
  const setup = await setupOidc(kit);
  expect((await authorize(setup)).status, "the entity's token authorizes through a client that admits it").toBe(200);
  const set = await makeConfigSet(kit, { client: setup.client.name, provider: setup.provider });
  await kit.property(
    fc.record({ kind: fc.constantFrom(...KINDS), op: fc.constantFrom(...OPS) }),
    ({ kind, op }) => expectGuarded(kit, set, kind, op, setup.entity.token, "with an entity's token (policy: default)"),
    { numRuns: Math.min(kit.ctx.runs, 4), examples: KINDS.flatMap((kind) => OPS.map((op) => ({ kind, op }))) },
  );
});

