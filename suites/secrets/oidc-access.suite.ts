import fc from 'fast-check';
import { decodeJwt } from 'jose';
import { expect } from 'vitest';
import type { EntityFixture } from '../../src/client/identity-fixtures.ts';
import type { HttpResponse } from '../../src/client/http-client.ts';
import type { OidcApi } from '../../src/client/oidc-api.ts';
import { authorizeResponseSchema, clientReadSchema, tokenResponseSchema, userinfoSchema } from '../../src/client/schemas/oidc.ts';
import { Redactor } from '../../src/client/redact.ts';
import { expectWritten, s256, uniqueName } from '../kit/oidc-fixture.ts';
import type { RuleKit } from '../kit/rule-kit.ts';
import { concurrently, ruleTest } from '../kit/rule-test.ts';
import {
  assignmentsAdmit,
  authorizeDecision,
  claimScopes,
  describe as describeDecision,
  grantOf,
  tokenDecision,
  userinfoDecision,
  type AuthorizeRequest,
  type CodeGrant,
  type Decision,
  type ModelClient,
  type OidcWorld,
  type Outcome,
  type Presented,
  type TokenRequest,
} from '../models/oidc-access.ts';

/*
 * The OIDC provider's access decisions asked from the neighbouring scopes (issue 47): one world of
 * several providers, clients (confidential and public), entities, assignments and scopes per rule,
 * and every decision asked in pairs that differ in exactly one attribute, each answer judged against
 * the model written from the spec (suites/models/oidc-access.ts).
 */

/** A client of the world, with what the suite needs to use it. */
interface WorldClient {
  name: string;
  id: string;
  secret?: string;
  type: 'confidential' | 'public';
  own: string;
}

interface World {
  api: OidcApi;
  model: OidcWorld;
  providers: string[];
  clients: WorldClient[];
  entities: EntityFixture[];
  /** Scope names, each with the claim its template sets. */
  scopes: { name: string; claim: string }[];
  /** A redirect URI every client registers, so that pairs can differ in the client alone. */
  shared: string;
  assignments: Record<string, { entity_ids: string[]; group_ids: string[] }>;
}

/** A PKCE verifier for the public client's codes (43 or more unreserved characters). */
const VERIFIER = `v${'k'.repeat(48)}`;

/**
 * Builds the world through the spec's endpoints: scopes sA (on provider A) and sB (on B); entities
 * e1 (no group), e2 and e3 (each in a group of its own); assignments naming e1, and e2's groups;
 * confidential clients A (both assignments) and B (e2's groups), public client P (allow_all);
 * providers A (clients A and P, scope sA), B ('*', scope sB), C (client B only), D (none).
 */
async function buildWorld(kit: RuleKit, reuse?: Pick<World, 'scopes' | 'entities' | 'assignments'>): Promise<World> {
  const api = kit.oidc();
  const { scopes, entities, assignments } = reuse ?? (await buildIdentities(kit));
  const [byEntity, byGroup] = Object.keys(assignments) as [string, string];
  return buildClientsAndProviders(kit, api, scopes, entities, assignments, byEntity, byGroup);
}

/** The scopes, entities and assignments of a world: what the lifecycle's commands never change, so its runs share them. */
async function buildIdentities(kit: RuleKit): Promise<Pick<World, 'scopes' | 'entities' | 'assignments'>> {
  const api = kit.oidc();
  const scopes: World['scopes'] = [];
  for (const tag of ['sa', 'sb']) {
    const name = uniqueName(`scope-${tag}`);
    const claim = `claim_${tag}`;
    expectWritten(await api.write('scope', name, { template: `{"${claim}":"${tag}"}`, description: 'stackproof access model' }), `create scope ${name}`);
    scopes.push({ name, claim });
  }
  const groupNames = [uniqueName('g-two'), uniqueName('g-three')];
  const entities = [
    await kit.fixtures.entity({ name: uniqueName('e-one') }),
    await kit.fixtures.entity({ name: uniqueName('e-two'), groups: [groupNames[0]!] }),
    await kit.fixtures.entity({ name: uniqueName('e-three'), groups: [groupNames[1]!] }),
  ];
  const [e1, e2] = entities as [EntityFixture, EntityFixture];
  const e1Groups = new Set(e1.groups.map((g) => g.id));
  // Group ids from what the fixtures report (static fixtures bring their own groups); a group e1 is
  // in too would make the pair e1/e2 differ in more than the group, so it is left out.
  const assignments: World['assignments'] = {
    [uniqueName('asg-entity')]: { entity_ids: [e1.id], group_ids: [] },
    [uniqueName('asg-group')]: { entity_ids: [], group_ids: e2.groups.map((g) => g.id).filter((g) => !e1Groups.has(g)) },
  };
  for (const [name, body] of Object.entries(assignments)) expectWritten(await api.write('assignment', name, body), `create assignment ${name}`);
  return { scopes, entities, assignments };
}

async function buildClientsAndProviders(
  kit: RuleKit,
  api: OidcApi,
  scopes: World['scopes'],
  entities: EntityFixture[],
  assignments: World['assignments'],
  byEntity: string,
  byGroup: string,
): Promise<World> {
  const shared = `https://${uniqueName('shared')}.example.com:9443/cb/path`;
  const clients: WorldClient[] = [];
  const modelClients: ModelClient[] = [];
  for (const [tag, type, clientAssignments] of [
    ['ca', 'confidential', [byEntity, byGroup]],
    ['cb', 'confidential', [byGroup]],
    ['cp', 'public', ['allow_all']],
  ] as const) {
    const name = uniqueName(`client-${tag}`);
    const own = `https://${name}.example.com:8443/cb`;
    expectWritten(await api.write('client', name, { redirect_uris: [own, shared], assignments: [...clientAssignments], client_type: type }), `create client ${name}`);
    const read = (await api.read('client', name)).parse(clientReadSchema).data;
    kit.secret(read.client_secret);
    clients.push({ name, id: read.client_id, secret: type === 'confidential' ? read.client_secret : undefined, type, own });
    modelClients.push({ name, clientId: read.client_id, type, secret: type === 'confidential' ? read.client_secret : undefined, redirectUris: [own, shared], assignments: [...clientAssignments] });
  }
  const [ca, cb, cp] = clients as [WorldClient, WorldClient, WorldClient];
  const providerBodies = [
    { allowed_client_ids: [ca.id, cp.id], scopes_supported: [scopes[0]!.name] },
    { allowed_client_ids: ['*'], scopes_supported: [scopes[1]!.name] },
    { allowed_client_ids: [cb.id], scopes_supported: [] },
    { allowed_client_ids: [], scopes_supported: [] },
  ];
  const providers: string[] = [];
  for (const [i, body] of providerBodies.entries()) {
    const name = uniqueName(`provider-${'abcd'[i]}`);
    expectWritten(await api.write('provider', name, body), `create provider ${name}`);
    providers.push(name);
  }
  const model: OidcWorld = {
    providers: providers.map((name, i) => ({ name, allowedClientIds: providerBodies[i]!.allowed_client_ids, scopesSupported: providerBodies[i]!.scopes_supported })),
    clients: modelClients,
    assignments: Object.fromEntries(Object.entries(assignments).map(([n, a]) => [n, { entityIds: a.entity_ids, groupIds: a.group_ids }])),
    entities: entities.map((e) => ({ id: e.id, groupIds: e.groups.map((g) => g.id) })),
  };
  return { api, model, providers, clients, entities, scopes, shared, assignments };
}

/** Near misses of a redirect URI: each differs from it in one way a lax matcher would forgive. */
const REDIRECT_MISSES: Record<string, (u: URL) => string> = {
  'query added': (u) => `${u.href}?extra=1`,
  'trailing slash': (u) => `${u.href}/`,
  'other port': (u) => u.href.replace(`:${u.port}`, `:${Number(u.port) + 1}`),
  'no port': (u) => u.href.replace(`:${u.port}`, ''),
  'upper-case host': (u) => u.href.replace(u.hostname, u.hostname.toUpperCase()),
  'upper-case path': (u) => u.href.replace(u.pathname, u.pathname.toUpperCase()),
  'path prefix': (u) => `${u.origin}${u.pathname.split('/').slice(0, -1).join('/') || '/'}`,
  'path extension': (u) => `${u.origin}${u.pathname}/more`,
  'fragment': (u) => `${u.href}#frag`,
  'other scheme': (u) => u.href.replace('https:', 'http:'),
};
const MISS_KINDS = Object.keys(REDIRECT_MISSES);

const outcomeOf = (res: HttpResponse): Outcome => (res.status >= 200 && res.status < 300 ? 'grant' : 'refuse');

/** Judges one answer against the model; a failure names the request, the pair's attribute and what the model allowed. */
function judge(res: HttpResponse, decision: Decision, what: string): Outcome {
  const got = outcomeOf(res);
  const text = new Redactor().text(res.text).slice(0, 200);
  expect(decision.has(got), `${what}: the model allows ${describeDecision(decision)}, the target answered ${res.status} (${text})`).toBe(true);
  if (got === 'refuse') expect(/"(access_token|id_token|code)"\s*:/.test(res.text), `${what}: refused, and no code or token is issued`).toBe(false);
  return got;
}

function authorizeCall(w: World, req: AuthorizeRequest): Promise<HttpResponse> {
  const entity = w.entities.find((e) => e.id === req.entityId)!;
  const params: Record<string, string | undefined> = {
    client_id: req.clientId,
    redirect_uri: req.redirectUri,
    response_type: req.responseType,
    scope: req.scope,
    state: 'st',
    code_challenge: req.codeChallenge,
    code_challenge_method: req.codeChallengeMethod,
  };
  return w.api.authorize(req.provider, params, entity.token);
}

/** The token call a TokenRequest describes; `code` is the string presented as the code. */
function tokenCall(w: World, req: TokenRequest, code: string): Promise<HttpResponse> {
  const form: Record<string, string | undefined> = { grant_type: req.grantType, code, redirect_uri: req.redirectUri, code_verifier: req.codeVerifier };
  if (req.auth.method !== 'basic') Object.assign(form, { client_id: req.auth.clientId, client_secret: req.auth.method === 'post' ? req.auth.secret : undefined });
  else if (req.auth.form) Object.assign(form, { client_id: req.auth.form.clientId, client_secret: req.auth.form.secret });
  return w.api.token(req.provider, form, req.auth.method === 'basic' ? { id: req.auth.clientId ?? '', secret: req.auth.secret ?? '' } : undefined);
}

/** A granted authorize request of the world: provider, client, entity, redirect URI (own or shared), scopes. */
interface Base {
  provider: number;
  client: number;
  entity: number;
  shared: boolean;
  scopes: number[];
}

function baseRequest(w: World, b: Base): AuthorizeRequest {
  const client = w.clients[b.client]!;
  return {
    provider: w.providers[b.provider]!,
    clientId: client.id,
    redirectUri: b.shared ? w.shared : client.own,
    scope: ['openid', ...b.scopes.map((i) => w.scopes[i]!.name)].join(' '),
    responseType: 'code',
    entityId: w.entities[b.entity]!.id,
    ...(client.type === 'public' ? { codeChallenge: s256(VERIFIER), codeChallengeMethod: 'S256' } : {}),
  };
}

/** Every base of the world the model grants outright. */
function grantedBases(w: World): Base[] {
  const out: Base[] = [];
  for (const [provider] of w.providers.entries())
    for (const [client] of w.clients.entries())
      for (const [entity] of w.entities.entries())
        for (const shared of [false, true]) {
          const b = { provider, client, entity, shared, scopes: [0, 1].filter((i) => w.model.providers[provider]!.scopesSupported.includes(w.scopes[i]!.name)) };
          const d = authorizeDecision(w.model, baseRequest(w, b));
          if (d.size === 1 && d.has('grant')) out.push(b);
        }
  return out;
}

const baseArb = (w: World, granted: Base[]): fc.Arbitrary<Base> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...granted) },
    { weight: 1, arbitrary: fc.record({ provider: fc.nat(w.providers.length - 1), client: fc.nat(w.clients.length - 1), entity: fc.nat(w.entities.length - 1), shared: fc.boolean(), scopes: fc.subarray([0, 1]) }) },
  );

const describeBase = (w: World, b: Base) => `provider ${'ABCDE'[b.provider]}, client ${['A', 'B', 'P (public)'][b.client]}, entity e${b.entity + 1}, ${b.shared ? 'the shared' : "the client's own"} redirect URI, scopes [openid${b.scopes.map((i) => ` s${'AB'[i]}`).join('')}]`;

type AuthorizeAttr =
  | { attr: 'provider'; to: number }
  | { attr: 'client'; to: number }
  | { attr: 'entity'; to: number }
  | { attr: 'redirect'; miss: string }
  | { attr: 'redirect-of-other-client'; to: number }
  | { attr: 'scope'; to: 'other provider' | 'unknown' | 'no openid' }
  | { attr: 'response_type' }
  | { attr: 'no code_challenge' };

const authorizeAttrArb: fc.Arbitrary<AuthorizeAttr> = fc.oneof(
  fc.record({ attr: fc.constant('provider' as const), to: fc.nat(3) }),
  fc.record({ attr: fc.constant('client' as const), to: fc.nat(2) }),
  fc.record({ attr: fc.constant('entity' as const), to: fc.nat(2) }),
  fc.record({ attr: fc.constant('redirect' as const), miss: fc.constantFrom(...MISS_KINDS) }),
  fc.record({ attr: fc.constant('redirect-of-other-client' as const), to: fc.nat(2) }),
  fc.record({ attr: fc.constant('scope' as const), to: fc.constantFrom('other provider' as const, 'unknown' as const, 'no openid' as const) }),
  fc.record({ attr: fc.constant('response_type' as const) }),
  fc.record({ attr: fc.constant('no code_challenge' as const) }),
);

/** The neighbour of a base request: the same request with one attribute changed. */
function neighbourOf(w: World, b: Base, n: AuthorizeAttr): { req: AuthorizeRequest; what: string } | undefined {
  const req = baseRequest(w, b);
  switch (n.attr) {
    case 'provider':
      return n.to === b.provider ? undefined : { req: { ...req, provider: w.providers[n.to]! }, what: `provider ${'ABCD'[n.to]} instead` };
    case 'client':
      return n.to === b.client ? undefined : { req: { ...req, clientId: w.clients[n.to]!.id }, what: `the client_id of client ${'ABP'[n.to]} instead` };
    case 'entity':
      return n.to === b.entity ? undefined : { req: { ...req, entityId: w.entities[n.to]!.id }, what: `entity e${n.to + 1}'s client token instead` };
    case 'redirect':
      return { req: { ...req, redirectUri: REDIRECT_MISSES[n.miss]!(new URL(req.redirectUri)) }, what: `redirect URI with ${n.miss}` };
    case 'redirect-of-other-client':
      return n.to === b.client ? undefined : { req: { ...req, redirectUri: w.clients[n.to]!.own }, what: `client ${'ABP'[n.to]}'s own redirect URI instead` };
    case 'scope': {
      const supported = w.model.providers[b.provider]!.scopesSupported;
      const other = w.scopes.find((s) => !supported.includes(s.name))!.name;
      const scope = n.to === 'other provider' ? `${req.scope} ${other}` : n.to === 'unknown' ? `${req.scope} ${uniqueName('noscope')}` : req.scope.replace(/^openid ?/, '') || 'profile';
      return { req: { ...req, scope }, what: n.to === 'no openid' ? 'scope without openid' : `scope with one added that ${n.to === 'unknown' ? 'does not exist' : 'the provider does not support'}` };
    }
    case 'response_type':
      return { req: { ...req, responseType: 'token' }, what: "response_type 'token'" };
    default:
      return req.codeChallenge ? { req: { ...req, codeChallenge: undefined, codeChallengeMethod: undefined }, what: 'no code_challenge' } : { req: { ...req, codeChallenge: s256(VERIFIER), codeChallengeMethod: 'S256' }, what: 'a code_challenge added' };
  }
}

/** One example per attribute, from the first granted base of each client, so every run reaches every neighbour. */
function authorizeExamples(granted: Base[]): [Base, AuthorizeAttr][] {
  const attrs: AuthorizeAttr[] = [
    { attr: 'provider', to: 3 },
    { attr: 'provider', to: 2 },
    { attr: 'client', to: 1 },
    { attr: 'entity', to: 2 },
    { attr: 'entity', to: 0 },
    { attr: 'redirect', miss: 'query added' },
    { attr: 'redirect', miss: 'trailing slash' },
    { attr: 'redirect', miss: 'other port' },
    { attr: 'redirect', miss: 'path prefix' },
    { attr: 'redirect', miss: 'upper-case host' },
    { attr: 'redirect-of-other-client', to: 2 },
    { attr: 'scope', to: 'other provider' },
    { attr: 'scope', to: 'no openid' },
    { attr: 'response_type' },
    { attr: 'no code_challenge' },
  ];
  return attrs.map((a, i) => [granted[i % granted.length]!, a]);
}

/** A code's state as the suite tracks it: the string, what the model says it is bound to, and its history. */
interface IssuedCode {
  code: string;
  grant: CodeGrant;
  earlier: 'none' | 'granted' | 'refused';
}

/** The token request of a code's own client, as it should be made. */
function ownTokenRequest(w: World, grant: CodeGrant, presented: Presented): TokenRequest {
  const client = w.clients.find((c) => c.id === grant.clientId)!;
  return {
    provider: grant.provider,
    grantType: 'authorization_code',
    code: presented,
    redirectUri: grant.redirectUri,
    auth: client.type === 'public' ? { method: 'none', clientId: client.id } : { method: 'basic', clientId: client.id, secret: client.secret },
    codeVerifier: grant.codeChallenge ? VERIFIER : undefined,
    s256,
  };
}

type TokenAttr =
  | { attr: 'other client'; to: number; method: 'basic' | 'post' }
  | { attr: 'other provider'; to: number }
  | { attr: 'secret'; form: 'prefix' | 'extension' | 'one character off' | 'empty'; method: 'basic' | 'post' }
  | { attr: 'method none' }
  | { attr: 'redirect'; miss: string }
  | { attr: 'other registered redirect' }
  | { attr: 'access token as code' }
  | { attr: 'ID token as code' }
  | { attr: 'code used twice' }
  | { attr: 'verifier'; form: 'other' | 'challenge' | 'none' };

const tokenAttrArb: fc.Arbitrary<TokenAttr> = fc.oneof(
  fc.record({ attr: fc.constant('other client' as const), to: fc.nat(2), method: fc.constantFrom('basic' as const, 'post' as const) }),
  fc.record({ attr: fc.constant('other provider' as const), to: fc.nat(3) }),
  fc.record({ attr: fc.constant('secret' as const), form: fc.constantFrom('prefix' as const, 'extension' as const, 'one character off' as const, 'empty' as const), method: fc.constantFrom('basic' as const, 'post' as const) }),
  fc.record({ attr: fc.constant('method none' as const) }),
  fc.record({ attr: fc.constant('redirect' as const), miss: fc.constantFrom(...MISS_KINDS) }),
  fc.record({ attr: fc.constant('other registered redirect' as const) }),
  fc.record({ attr: fc.constant('access token as code' as const) }),
  fc.record({ attr: fc.constant('ID token as code' as const) }),
  fc.record({ attr: fc.constant('code used twice' as const) }),
  fc.record({ attr: fc.constant('verifier' as const), form: fc.constantFrom('other' as const, 'challenge' as const, 'none' as const) }),
);

/**
 * The clients other than `clientId`, first those the provider allows and that admit the entity too:
 * with them only the code's binding to its client tells the pair apart.
 */
function neighbourClients(w: World, provider: number, clientId: string, entityId: string): WorldClient[] {
  const others = w.clients.filter((c) => c.id !== clientId && w.model.clients.some((m) => m.clientId === c.id));
  const closeness = (c: WorldClient) => {
    const model = w.model.clients.find((m) => m.clientId === c.id)!;
    const allowed = w.model.providers[provider]!.allowedClientIds.some((id) => id === '*' || id === c.id);
    return (allowed ? 2 : 0) + (assignmentsAdmit(w.model, model, entityId) ? 1 : 0);
  };
  return others.sort((a, b) => closeness(b) - closeness(a));
}

/** The providers other than `provider`, those that allow the client first. */
function neighbourProviders(w: World, provider: number, clientId: string): number[] {
  const others = w.providers.map((_, i) => i).filter((i) => i !== provider);
  const allows = (i: number) => w.model.providers[i]!.allowedClientIds.some((id) => id === '*' || id === clientId);
  return [...others.filter(allows), ...others.filter((i) => !allows(i))];
}

/** The secret neighbours: the real one cut short, extended, or with one character changed. */
function nearSecret(secret: string, form: 'prefix' | 'extension' | 'one character off' | 'empty'): string {
  if (form === 'prefix') return secret.slice(0, -1);
  if (form === 'extension') return `${secret}x`;
  if (form === 'empty') return '';
  const last = secret.at(-1)!;
  return `${secret.slice(0, -1)}${last === 'a' ? 'b' : 'a'}`;
}

/**
 * Every near miss of a client secret: its letter case changed (all upper, all lower, swapped, one
 * letter), cut short at either end or to half, extended at either end, one character changed at
 * the start, middle or end, a space added, empty, and another client's secret. None equals it.
 */
function secretNeighbours(secret: string, others: string[]): { what: string; value: string }[] {
  const swap = (c: string) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase());
  const cased = [...secret].findIndex((c) => c.toLowerCase() !== c.toUpperCase());
  const mid = Math.floor(secret.length / 2);
  const change = (i: number) => `${secret.slice(0, i)}${secret[i] === 'a' ? 'b' : 'a'}${secret.slice(i + 1)}`;
  const all = [
    { what: 'in upper case', value: secret.toUpperCase() },
    { what: 'in lower case', value: secret.toLowerCase() },
    { what: 'with its letter case swapped', value: [...secret].map(swap).join('') },
    { what: "with one letter's case swapped", value: cased < 0 ? secret : `${secret.slice(0, cased)}${swap(secret[cased]!)}${secret.slice(cased + 1)}` },
    { what: 'less its last character (a prefix)', value: secret.slice(0, -1) },
    { what: 'less its first character (a suffix)', value: secret.slice(1) },
    { what: 'cut to its first half', value: secret.slice(0, mid) },
    { what: 'with a character added', value: `${secret}x` },
    { what: 'with a character put before it', value: `x${secret}` },
    { what: 'with its first character changed', value: change(0) },
    { what: 'with its middle character changed', value: change(mid) },
    { what: 'with its last character changed', value: change(secret.length - 1) },
    { what: 'with a space added', value: `${secret} ` },
    { what: 'empty', value: '' },
    ...others.map((value) => ({ what: "another client's secret", value })),
  ];
  const seen = new Set<string>([secret]);
  return all.filter(({ value }) => !seen.has(value) && seen.add(value));
}

concurrently('side by side: each rule builds its own world of providers, clients, entities and scopes', () => {
  ruleTest('secrets.oidc.access-authorize-neighbours', async (kit) => {
    const w = await buildWorld(kit);
    const granted = grantedBases(w);
    expect(granted.length, 'the world has requests the model grants').toBeGreaterThan(0);
    // The whole grid of provider x client x entity x redirect URI: every point's neighbours in each
    // of those attributes are points of the grid too, so every such pair is asked, both sides.
    const grid: Base[] = [];
    for (const [provider] of w.providers.entries())
      for (const [client] of w.clients.entries())
        for (const [entity] of w.entities.entries())
          for (const shared of [false, true]) grid.push({ provider, client, entity, shared, scopes: [0, 1].filter((i) => w.model.providers[provider]!.scopesSupported.includes(w.scopes[i]!.name)) });
    for (let i = 0; i < grid.length; i += 8) {
      await Promise.all(
        grid.slice(i, i + 8).map(async (b) => {
          const req = baseRequest(w, b);
          const decision = authorizeDecision(w.model, req);
          const near = granted.filter((g) => [g.provider !== b.provider, g.client !== b.client, g.entity !== b.entity, g.shared !== b.shared].filter(Boolean).length === 1);
          const pairs = decision.has('refuse') && near.length ? `; it differs in one attribute from the granted ${describeBase(w, near[0]!)}` : '';
          judge(await authorizeCall(w, req), decision, `authorize with ${describeBase(w, b)}${pairs}`);
        }),
      );
    }
    const check = async ([b, n]: [Base, AuthorizeAttr]) => {
      const neighbour = neighbourOf(w, b, n);
      if (!neighbour) return;
      const base = baseRequest(w, b);
      const pair = `authorize with ${describeBase(w, b)}, and the same with ${neighbour.what}`;
      const [baseRes, nRes] = await Promise.all([authorizeCall(w, base), authorizeCall(w, neighbour.req)]);
      if (judge(baseRes, authorizeDecision(w.model, base), `${pair}: the first`) === 'grant') authorizeResponseSchema.parse(baseRes.json());
      judge(nRes, authorizeDecision(w.model, neighbour.req), `${pair}: the second (differs in ${n.attr})`);
    };
    await kit.property(fc.tuple(baseArb(w, granted), authorizeAttrArb), check, { numRuns: Math.min(kit.ctx.runs, 20), examples: authorizeExamples(granted) });
  });

  ruleTest('secrets.oidc.access-token-neighbours', async (kit) => {
    const w = await buildWorld(kit);
    const granted = grantedBases(w);
    const issue = async (req: AuthorizeRequest): Promise<IssuedCode> => {
      const res = await authorizeCall(w, req);
      expect(res.status, `authorize (${req.clientId === w.clients[2]!.id ? 'public' : 'confidential'} client) succeeds as the model says: ${res.text.slice(0, 200)}`).toBe(200);
      return { code: authorizeResponseSchema.parse(res.json()).code, grant: grantOf(req), earlier: 'none' };
    };
    const check = async ([b0, n, askOther]: [Base, TokenAttr, boolean], endpoints = true) => {
      // With askOther the code also asks for the scope of the other provider: the model lets
      // authorize refuse it or ignore it, and an ignored one must give no claim.
      let b = askOther ? { ...b0, scopes: [0, 1] } : b0;
      if (askOther) {
        const probe = await authorizeCall(w, baseRequest(w, b));
        judge(probe, authorizeDecision(w.model, baseRequest(w, b)), `authorize with ${describeBase(w, b)}`);
        if (outcomeOf(probe) === 'refuse') b = b0;
      }
      const areq = baseRequest(w, b);
      const client = w.clients[b.client]!;
      const where = describeBase(w, b);
      // The granted side: the code's own client, provider and redirect URI.
      const first = await issue(areq);
      const own = ownTokenRequest(w, first.grant, { kind: 'code', grant: first.grant, earlier: 'none' });
      const ownRes = await tokenCall(w, own, first.code);
      judge(ownRes, tokenDecision(w.model, own), `the token call of the code's own client (${where})`);
      const tokens = tokenResponseSchema.parse(ownRes.json());
      kit.secret(tokens.access_token);
      first.earlier = 'granted';
      // Claims only of the scopes the provider supports (the base may ask for one it does not).
      const provider = w.model.providers[b.provider]!;
      const claims = decodeJwt(tokens.id_token) as Record<string, unknown>;
      for (const s of w.scopes) {
        const may = claimScopes(provider, first.grant.scopes).includes(s.name);
        if (first.grant.scopes.includes(s.name) || !may) expect(claims[s.claim] !== undefined, `the ID token (${where}) ${may ? 'has' : 'has no'} the claim of scope ${s.name}`).toBe(may);
      }
      // The other side: one attribute changed, with a fresh code (a refused call may burn the code it names).
      const second = await issue(areq);
      // A code not yet exchanged, at the endpoint it was not issued for: userinfo takes no code as its Bearer token.
      judge(await w.api.userinfo(areq.provider, second.code), userinfoDecision(w.model, { provider: areq.provider, bearer: { kind: 'code', grant: second.grant, earlier: 'none' } }), 'userinfo with an authorization code not yet exchanged as the Bearer token (differs in the endpoint)');
      let req: TokenRequest = ownTokenRequest(w, second.grant, { kind: 'code', grant: second.grant, earlier: 'none' });
      let presented = second.code;
      let what: string;
      switch (n.attr) {
        case 'other client': {
          // Another client the provider allows first: then only the code's binding tells them apart.
          const other = neighbourClients(w, b.provider, client.id, areq.entityId)[n.to % 2];
          if (!other) return;
          req = { ...req, auth: other.type === 'public' ? { method: 'none', clientId: other.id } : { method: n.method, clientId: other.id, secret: other.secret } };
          what = `client ${'ABP'[w.clients.indexOf(other)]}'s own credentials${other.type === 'public' ? '' : ` (${n.method})`}`;
          break;
        }
        case 'other provider': {
          const to = neighbourProviders(w, b.provider, client.id)[n.to % 3];
          if (to === undefined) return;
          req = { ...req, provider: w.providers[to]! };
          what = `the token endpoint of provider ${'ABCD'[to]}`;
          break;
        }
        case 'secret':
          if (!client.secret) return;
          req = { ...req, auth: { method: n.method, clientId: client.id, secret: nearSecret(client.secret, n.form) } };
          what = `the client secret ${n.form === 'empty' ? 'empty' : n.form === 'prefix' ? 'less its last character' : n.form === 'extension' ? 'with a character added' : 'with its last character changed'} (${n.method})`;
          break;
        case 'method none':
          if (client.type === 'public') return;
          req = { ...req, auth: { method: 'none', clientId: client.id } };
          what = 'method none (client_id only)';
          break;
        case 'redirect':
          req = { ...req, redirectUri: REDIRECT_MISSES[n.miss]!(new URL(req.redirectUri)) };
          what = `the redirect URI with ${n.miss}`;
          break;
        case 'other registered redirect':
          req = { ...req, redirectUri: b.shared ? client.own : w.shared };
          what = "the client's other registered redirect URI";
          break;
        case 'access token as code':
          req = { ...req, code: { kind: 'access-token', provider: own.provider, clientId: client.id, entityId: areq.entityId } };
          presented = tokens.access_token;
          what = 'the access token as the code';
          break;
        case 'ID token as code':
          req = { ...req, code: { kind: 'id-token' } };
          presented = tokens.id_token;
          what = 'the ID token as the code';
          break;
        case 'code used twice':
          req = { ...req, code: { kind: 'code', grant: first.grant, earlier: first.earlier } };
          presented = first.code;
          what = 'the first code again';
          break;
        default:
          if (!second.grant.codeChallenge) return;
          req = { ...req, codeVerifier: n.form === 'none' ? undefined : n.form === 'challenge' ? second.grant.codeChallenge : `${VERIFIER}x` };
          what = n.form === 'none' ? 'no code_verifier' : n.form === 'challenge' ? 'the challenge as the verifier' : 'another verifier';
      }
      judge(await tokenCall(w, req, presented), tokenDecision(w.model, req), `the token call of the code's own client (${where}), and the same with ${what} (differs in ${n.attr})`);
      if (!endpoints) return;
      // Outside the endpoint it was issued for: userinfo takes the access token at its own provider only.
      const bearer = async (token: string, p: string) => w.api.userinfo(p, token);
      const at: Presented = { kind: 'access-token', provider: own.provider, clientId: client.id, entityId: areq.entityId };
      const okRes = await bearer(tokens.access_token, own.provider);
      if (judge(okRes, userinfoDecision(w.model, { provider: own.provider, bearer: at }), `userinfo of provider ${'ABCD'[b.provider]} with its access token`) === 'grant') userinfoSchema.parse(okRes.json());
      const other = (b.provider + 1 + (n.attr === 'other provider' ? n.to : 0)) % w.providers.length;
      judge(await bearer(tokens.access_token, w.providers[other]!), userinfoDecision(w.model, { provider: w.providers[other]!, bearer: at }), `userinfo of provider ${'ABCD'[other]} with provider ${'ABCD'[b.provider]}'s access token (differs in the provider)`);
      judge(await bearer(tokens.id_token, own.provider), userinfoDecision(w.model, { provider: own.provider, bearer: { kind: 'id-token' } }), 'userinfo with the ID token as the Bearer token (differs in the token)');
      judge(await bearer(first.code, own.provider), userinfoDecision(w.model, { provider: own.provider, bearer: { kind: 'code', grant: first.grant, earlier: first.earlier } }), 'userinfo with the exchanged authorization code as the Bearer token (differs in the token)');
    };
    const attrs: TokenAttr[] = [
      { attr: 'other client', to: 0, method: 'basic' },
      { attr: 'other client', to: 0, method: 'post' },
      { attr: 'other client', to: 1, method: 'basic' },
      { attr: 'other provider', to: 0 },
      { attr: 'other provider', to: 1 },
      { attr: 'secret', form: 'prefix', method: 'basic' },
      { attr: 'secret', form: 'extension', method: 'post' },
      { attr: 'secret', form: 'one character off', method: 'basic' },
      { attr: 'method none' },
      { attr: 'redirect', miss: 'query added' },
      { attr: 'other registered redirect' },
      { attr: 'access token as code' },
      { attr: 'ID token as code' },
      { attr: 'code used twice' },
      { attr: 'verifier', form: 'other' },
    ];
    // Each example from a base of the client it needs: confidential for the secret ones, public for the verifier.
    const confidential = granted.filter((g) => w.clients[g.client]!.type === 'confidential');
    const pub = granted.filter((g) => w.clients[g.client]!.type === 'public');
    const atA = granted.filter((g) => g.provider === 0);
    // Client A's code for e2 at B: client B is allowed there ('*') and admits e2 (by its group).
    const atB = [...granted.filter((g) => g.provider === 1 && g.client === 0 && g.entity === 1), ...granted.filter((g) => g.provider === 1)];
    const examples = attrs.map((a, i): [Base, TokenAttr, boolean] => {
      // Another client at provider B ('*'), another provider from A (whose clients B allows too): the pairs where only the code's binding differs.
      const pool = a.attr === 'verifier' ? pub : a.attr === 'secret' || a.attr === 'method none' ? confidential : a.attr === 'other client' ? atB : a.attr === 'other provider' ? atA : granted;
      return [(pool.length ? pool : granted)[i % (pool.length || granted.length)]!, a, i % 3 === 0];
    });
    // Every granted provider, client and entity: its code presented by the closest other client and
    // at the closest other provider (the one the provider allows and the entity is admitted by first).
    const seen = new Set<string>();
    for (const b of granted) {
      const key = `${b.provider}/${b.client}/${b.entity}`;
      if (seen.has(key)) continue;
      seen.add(key);
      await check([b, { attr: 'other client', to: 0, method: 'basic' }, false], false);
      await check([b, { attr: 'other provider', to: 0 }, false], false);
    }
    // Every confidential client's code, exchanged with each near miss of its secret over both
    // methods: one code serves them all (the model refuses a client that did not authenticate, the
    // code's state aside), and the last call is the code's own, which only decides the pair.
    const confidentialClients = w.clients.filter((c) => c.secret !== undefined);
    for (const c of confidentialClients) {
      const b = granted.find((g) => w.clients[g.client] === c);
      if (!b) continue;
      const { code, grant } = await issue(baseRequest(w, b));
      const own = ownTokenRequest(w, grant, { kind: 'code', grant, earlier: 'none' });
      const near = secretNeighbours(c.secret!, confidentialClients.filter((o) => o !== c).map((o) => o.secret!));
      await Promise.all(
        near.flatMap(({ what, value }) =>
          (['basic', 'post'] as const).map(async (method) => {
            const req: TokenRequest = { ...own, auth: { method, clientId: c.id, secret: value } };
            judge(await tokenCall(w, req, code), tokenDecision(w.model, req), `the token call of client ${'ABP'[w.clients.indexOf(c)]}'s code (${describeBase(w, b)}) with its own client_id and its secret ${what} (${method}; differs in the secret)`);
          }),
        ),
      );
    }
    // Conflicting identification, both ways round: a code of one client, Basic credentials of
    // another, and the code's client named in the form (client_id, client_secret, or both with a
    // wrong secret), or the other way round (the code's client in the Basic header with a wrong
    // secret, another client's credentials in the form). A provider may refuse two methods or take
    // either, never a client that no method authenticated.
    for (const [x, y] of [[0, 1], [1, 0], [0, 2], [1, 2], [2, 0]] as const) {
      const cx = w.clients[x]!;
      const cy = w.clients[y]!;
      const b = granted.find((g) => g.client === x && g.provider === 1) ?? granted.find((g) => g.client === x);
      if (!b) continue;
      const off = (secret: string) => secretNeighbours(secret, []).find((n) => n.what === 'with its last character changed')!.value;
      const cases: { what: string; basic: { id: string; secret: string }; form: { clientId?: string; secret?: string } }[] = [
        { what: `Basic credentials of client ${'ABP'[y]} and the form client_id of the code's client ${'ABP'[x]}`, basic: { id: cy.id, secret: cy.secret ?? '' }, form: { clientId: cx.id } },
        ...(cx.secret
          ? [
              { what: `Basic credentials of client ${'ABP'[y]} and the form client_secret of the code's client ${'ABP'[x]}`, basic: { id: cy.id, secret: cy.secret ?? '' }, form: { secret: cx.secret } },
              { what: `Basic credentials of client ${'ABP'[y]} and the form client_id of the code's client ${'ABP'[x]} with its secret one character off`, basic: { id: cy.id, secret: cy.secret ?? '' }, form: { clientId: cx.id, secret: off(cx.secret) } },
              // The other way round: the code's client in the Basic header with a wrong secret, another client's credentials in the form.
              { what: `Basic client_id of the code's client ${'ABP'[x]} with its secret one character off, and the form credentials of client ${'ABP'[y]}`, basic: { id: cx.id, secret: off(cx.secret) }, form: { clientId: cy.id, secret: cy.secret } },
            ]
          : []),
      ];
      for (const { what, basic, form } of cases) {
        const { code, grant } = await issue(baseRequest(w, b));
        const own = ownTokenRequest(w, grant, { kind: 'code', grant, earlier: 'none' });
        const req: TokenRequest = { ...own, auth: { method: 'basic', clientId: basic.id, secret: basic.secret, form } };
        judge(await tokenCall(w, req, code), tokenDecision(w.model, req), `the token call of client ${'ABP'[x]}'s code (${describeBase(w, b)}) with ${what} (differs in the client authenticated)`);
      }
    }
    await kit.property(fc.tuple(fc.constantFrom(...granted), tokenAttrArb, fc.boolean()), (v) => check(v), { numRuns: Math.min(kit.ctx.runs, 6), examples });
  });

  ruleTest('secrets.oidc.access-code-binding', async (kit) => {
    const w = await buildWorld(kit);
    const granted = grantedBases(w);
    const key = (b: Base) => `${b.provider}/${b.client}/${b.entity}/${b.shared}/${b.scopes.join()}`;
    // Two clients differ in their own redirect URI too, and a public one in its PKCE challenge: only
    // two confidential clients with the shared redirect URI differ in the client alone.
    const confidentialPair = (a: Base, b: Base) => a.shared && w.clients[a.client]!.type === 'confidential' && w.clients[b.client]!.type === 'confidential';
    const alike = (a: Base, b: Base, attr: 'client' | 'entity') => a[attr] !== b[attr] && (attr !== 'client' || confidentialPair(a, b)) && (['provider', 'client', 'entity', 'shared'] as const).every((k) => k === attr || a[k] === b[k]) && a.scopes.join() === b.scopes.join();
    // Requests that differ in exactly one attribute, made back to back: a code must carry its own
    // request, not the one before it (nor one made earlier that differs in that attribute alone).
    const pairs: { a: AuthorizeRequest; b: AuthorizeRequest; attr: string }[] = [];
    for (const attr of ['client', 'entity'] as const) {
      for (const a of granted) {
        const b = granted.find((x) => alike(a, x, attr));
        if (b) {
          pairs.push({ a: baseRequest(w, a), b: baseRequest(w, b), attr: `${attr} (${describeBase(w, a)} / ${describeBase(w, b)})` });
          break;
        }
      }
    }
    const scoped = granted.find((b) => b.scopes.length > 0);
    if (scoped) {
      const none = { ...scoped, scopes: [] };
      if (authorizeDecision(w.model, baseRequest(w, none)).has('grant')) {
        pairs.push({ a: baseRequest(w, none), b: baseRequest(w, scoped), attr: `the scope list (${describeBase(w, none)} / [openid s${'AB'[scoped.scopes[0]!]}])` });
      }
    }
    // Two scope lists of one length: a provider of its own that supports both scopes of the world.
    const both = uniqueName('provider-e');
    expectWritten(await w.api.write('provider', both, { allowed_client_ids: ['*'], scopes_supported: w.scopes.map((x) => x.name) }), `create provider ${both}`);
    w.providers.push(both);
    w.model.providers.push({ name: both, allowedClientIds: ['*'], scopesSupported: w.scopes.map((x) => x.name) });
    const onBoth = granted.find((b) => b.provider === 0 && b.client === 0);
    if (onBoth) {
      const [sa, sb] = [{ ...onBoth, provider: w.providers.length - 1, scopes: [0] }, { ...onBoth, provider: w.providers.length - 1, scopes: [1] }];
      pairs.push({ a: baseRequest(w, sa), b: baseRequest(w, sb), attr: `the scope (${describeBase(w, sa)} / [openid sB])` });
      // The same two lists with the first written the other way round: they differ at every position,
      // so a store that compares them element by element cannot take one for the other by a slip.
      const ra = baseRequest(w, sa);
      pairs.push({ a: { ...ra, scope: ra.scope.split(' ').reverse().join(' ') }, b: baseRequest(w, sb), attr: 'the scope at every position of the list ([sA openid] / [openid sB])' });
    }
    const pub = granted.find((b) => w.clients[b.client]!.type === 'public');
    if (pub) {
      const s = baseRequest(w, pub);
      pairs.push({ a: s, b: { ...s, codeChallenge: VERIFIER, codeChallengeMethod: 'plain' }, attr: `the PKCE method (${describeBase(w, pub)}, S256 / plain)` });
    }
    expect(pairs.length, `pairs found in the world (granted bases: ${granted.map(key).join(' ')})`).toBe(6);
    for (const { a, b, attr } of pairs) {
      // a, b, then a and b again: the second a follows a code that differs from it in one attribute.
      // Then pairs sent at once, so that they still arrive back to back while other rules use the
      // same provider beside this one.
      const order = [a, b, a, b, b, a];
      const issued: { req: AuthorizeRequest; code: string }[] = [];
      const issue = async (req: AuthorizeRequest) => {
        const res = await authorizeCall(w, req);
        judge(res, authorizeDecision(w.model, req), `authorize, codes made back to back for requests that differ in ${attr}`);
        issued.push({ req, code: authorizeResponseSchema.parse(res.json()).code });
      };
      for (const req of order) await issue(req);
      for (let round = 0; round < 3; round++) await Promise.all(round % 2 ? [issue(b), issue(a)] : [issue(a), issue(b)]);
      const subs = new Map<string, Set<unknown>>();
      for (const [i, { req, code }] of issued.entries()) {
        const grant = grantOf(req);
        const treq = ownTokenRequest(w, grant, { kind: 'code', grant, earlier: 'none' });
        const where = `code ${i + 1} of ${issued.length} (${req === a ? 'the first' : 'the second'} request), made back to back with codes that differ in ${attr}`;
        const res = await tokenCall(w, treq, code);
        judge(res, tokenDecision(w.model, treq), `the token call of ${where}, by its own client with its own verifier`);
        const tokens = tokenResponseSchema.parse(res.json());
        kit.secret(tokens.access_token);
        const claims = decodeJwt(tokens.id_token) as Record<string, unknown>;
        expect(claims.aud, `${where}: the ID token's aud is its own client's client_id`).toBe(req.clientId);
        const scopes = claimScopes(w.model.providers.find((p) => p.name === req.provider)!, grant.scopes);
        for (const sc of w.scopes) expect(claims[sc.claim] !== undefined, `${where}: the ID token ${scopes.includes(sc.name) ? 'has' : 'has no'} the claim of scope ${sc.name}`).toBe(scopes.includes(sc.name));
        const seen = subs.get(req.entityId) ?? new Set();
        subs.set(req.entityId, seen.add(claims.sub));
      }
      // One subject per entity: each entity's codes name it, and two entities are never one subject.
      for (const [entity, seen] of subs) expect(seen.size, `the ID tokens of entity ${entity}'s codes (made back to back with codes that differ in ${attr}) name one subject, got ${[...seen].join(', ')}`).toBe(1);
      const all = [...subs.values()].map((x) => [...x][0]);
      expect(new Set(all).size, `the ID tokens of different entities name different subjects (${attr})`).toBe(all.length);
    }
  });
});

/** The world as a sequence of commands sees it: the model beside what the target handed out. */
interface Run {
  w: World;
  codes: IssuedCode[];
  tokens: { token: string; at: Presented & { kind: 'access-token' } }[];
  /** What each step did, for the failure message. */
  steps: string[];
  secret: (value: string) => void;
}

type Cmd = fc.AsyncCommand<Run, Run>;

const cmd = (name: string, check: (r: Run) => boolean, run: (r: Run) => Promise<void>): Cmd => ({
  check,
  run: async (_m, r) => {
    r.steps.push(name);
    await run(r);
  },
  toString: () => name,
});

const stepsOf = (r: Run) => `after ${r.steps.slice(0, -1).join('; ') || 'nothing'}`;

function authorizeCmd(p: number, c: number, e: number, shared: boolean): Cmd {
  return cmd(`authorize(provider ${'ABCD'[p]}, client ${'ABP'[c]}, e${e + 1})`, () => true, async (r) => {
    const { w } = r;
    const b: Base = { provider: p, client: c, entity: e, shared, scopes: [0, 1].filter((i) => w.model.providers[p]!.scopesSupported.includes(w.scopes[i]!.name)) };
    const req = baseRequest(w, b);
    const res = await authorizeCall(w, req);
    if (judge(res, authorizeDecision(w.model, req), `${r.steps.at(-1)} ${stepsOf(r)}`) === 'grant') r.codes.push({ code: authorizeResponseSchema.parse(res.json()).code, grant: grantOf(req), earlier: 'none' });
  });
}

function exchangeCmd(i: number, how: 'own client' | 'other client' | 'other provider', to: number): Cmd {
  return cmd(`exchange(code #${i}, ${how}${how === 'own client' ? '' : ` ${to}`})`, (r) => r.codes.length > 0, async (r) => {
    const { w } = r;
    const issued = r.codes[i % r.codes.length]!;
    let req = ownTokenRequest(w, issued.grant, { kind: 'code', grant: issued.grant, earlier: issued.earlier });
    if (how === 'other client') {
      const other = neighbourClients(w, w.providers.indexOf(issued.grant.provider), issued.grant.clientId, issued.grant.entityId)[to % 2] ?? w.clients.find((c) => c.id !== issued.grant.clientId)!;
      req = { ...req, auth: other.type === 'public' ? { method: 'none', clientId: other.id } : { method: 'basic', clientId: other.id, secret: other.secret } };
    } else if (how === 'other provider') {
      req = { ...req, provider: w.providers[neighbourProviders(w, w.providers.indexOf(issued.grant.provider), issued.grant.clientId)[to % 3]!]! };
    }
    const res = await tokenCall(w, req, issued.code);
    const got = judge(res, tokenDecision(w.model, req), `${r.steps.at(-1)} ${stepsOf(r)}`);
    if (got === 'grant') {
      issued.earlier = 'granted';
      const token = tokenResponseSchema.parse(res.json()).access_token;
      r.secret(token);
      r.tokens.push({ token, at: { kind: 'access-token', provider: req.provider, clientId: issued.grant.clientId, entityId: issued.grant.entityId } });
    } else if (issued.earlier === 'none') issued.earlier = 'refused';
  });
}

function userinfoCmd(i: number, p: number): Cmd {
  return cmd(`userinfo(access token #${i}, provider ${'ABCD'[p]})`, (r) => r.tokens.length > 0, async (r) => {
    const { w } = r;
    const t = r.tokens[i % r.tokens.length]!;
    const provider = w.providers[p]!;
    judge(await w.api.userinfo(provider, t.token), userinfoDecision(w.model, { provider, bearer: t.at }), `${r.steps.at(-1)} ${stepsOf(r)}`);
  });
}

/** Rewrites a client's assignments (its redirect URIs and type as they were): the entities it admits change. */
function reassignCmd(c: number, pick: boolean[]): Cmd {
  return cmd(`reassign(client ${'ABP'[c]}, [${pick.map((p, i) => (p ? ['by entity', 'by group', 'allow_all'][i] : '')).filter(Boolean)}])`, (r) => r.w.model.clients.some((m) => m.clientId === r.w.clients[c]!.id), async (r) => {
    const { w } = r;
    const client = w.clients[c]!;
    const assignments = [...Object.keys(w.assignments), 'allow_all'].filter((_, i) => pick[i]);
    expectWritten(await w.api.write('client', client.name, { redirect_uris: [client.own, w.shared], assignments, client_type: client.type }), `update client ${client.name}`);
    w.model.clients.find((m) => m.clientId === client.id)!.assignments = assignments;
  });
}

function deleteClientCmd(c: number): Cmd {
  return cmd(`delete(client ${'ABP'[c]})`, (r) => r.w.model.clients.some((m) => m.clientId === r.w.clients[c]!.id), async (r) => {
    const { w } = r;
    const client = w.clients[c]!;
    expectWritten(await w.api.delete('client', client.name), `delete client ${client.name}`);
    w.model.clients = w.model.clients.filter((m) => m.clientId !== client.id);
  });
}

/** Rewrites a provider's allowed_client_ids (its scopes as they were). */
function allowCmd(p: number, choice: number): Cmd {
  const lists = ['*', 'none', 'A', 'B', 'A and P'];
  return cmd(`allow(provider ${'ABCD'[p]}, ${lists[choice]})`, () => true, async (r) => {
    const { w } = r;
    const [ca, cb, cp] = w.clients as [WorldClient, WorldClient, WorldClient];
    const allowed = [['*'], [], [ca.id], [cb.id], [ca.id, cp.id]][choice]!;
    const model = w.model.providers[p]!;
    expectWritten(await w.api.write('provider', model.name, { allowed_client_ids: allowed, scopes_supported: model.scopesSupported }), `update provider ${model.name}`);
    model.allowedClientIds = allowed;
  });
}

const lifecycleCommands = [
  fc.tuple(fc.nat(3), fc.nat(2), fc.nat(2), fc.boolean()).map(([p, c, e, s]) => authorizeCmd(p, c, e, s)),
  fc.tuple(fc.nat(3), fc.nat(2), fc.nat(2), fc.boolean()).map(([p, c, e, s]) => authorizeCmd(p, c, e, s)),
  fc.tuple(fc.nat(20), fc.constantFrom('own client' as const, 'own client' as const, 'other client' as const, 'other provider' as const), fc.nat(5)).map(([i, how, to]) => exchangeCmd(i, how, to)),
  fc.tuple(fc.nat(20), fc.nat(3)).map(([i, p]) => userinfoCmd(i, p)),
  fc.tuple(fc.nat(2), fc.array(fc.boolean(), { minLength: 3, maxLength: 3 })).map(([c, pick]) => reassignCmd(c, pick)),
  fc.nat(2).map((c) => deleteClientCmd(c)),
  fc.tuple(fc.nat(3), fc.nat(4)).map(([p, choice]) => allowCmd(p, choice)),
];

concurrently('side by side: each property run builds its own world', () => {
  ruleTest('secrets.oidc.access-code-lifecycle', async (kit) => {
    // Sequences that every run walks: a code used twice; a code after its entity was unassigned,
    // after its client was deleted, after its provider stopped allowing the client.
    const examples = [
      [authorizeCmd(0, 0, 0, false), exchangeCmd(0, 'own client', 0), exchangeCmd(0, 'own client', 0), userinfoCmd(0, 0)],
      [authorizeCmd(0, 0, 0, true), reassignCmd(0, [false, true, false]), exchangeCmd(0, 'own client', 0), authorizeCmd(0, 0, 0, true)],
      [authorizeCmd(1, 1, 1, false), exchangeCmd(0, 'other client', 0), deleteClientCmd(1), exchangeCmd(0, 'own client', 0), authorizeCmd(1, 1, 1, false)],
      [authorizeCmd(1, 2, 2, true), allowCmd(1, 2), exchangeCmd(0, 'own client', 0), authorizeCmd(1, 2, 2, true), allowCmd(1, 0), authorizeCmd(1, 2, 2, true)],
    ];
    let identities: Pick<World, 'scopes' | 'entities' | 'assignments'> | undefined;
    let judged = 0;
    await kit.property(
      fc.commands(lifecycleCommands, { maxCommands: 14, size: 'large' }),
      async (cmds) => {
        const w = await buildWorld(kit, (identities ??= await buildIdentities(kit)));
        const run: Run = { w, codes: [], tokens: [], steps: [], secret: (t) => kit.secret(t) };
        await fc.asyncModelRun(() => ({ model: run, real: run }), cmds);
        judged += run.steps.length;
      },
      { numRuns: Math.min(kit.ctx.runs, 6), examples },
    );
    // The examples alone walk 19 steps: a run that judged fewer walked nothing it was meant to.
    expect(judged, 'steps judged against the model').toBeGreaterThanOrEqual(19);
    kit.note(`${judged} steps judged against the model`);
  });
});

concurrently('side by side: the strict profile asks userinfo again after each change', () => {
  ruleTest('secrets.upstream.oidc-userinfo-rechecks-access', async (kit) => {
    const w = await buildWorld(kit);
    const run: Run = { w, codes: [], tokens: [], steps: [], secret: (t) => kit.secret(t) };
    // Three access tokens: client A for e1 and client P for e3 at provider A, client B for e2 at provider B ('*').
    for (const [i, [p, c, e]] of ([[0, 0, 0], [1, 1, 1], [0, 2, 2]] as const).entries()) {
      await authorizeCmd(p, c, e, false).run(run, run);
      await exchangeCmd(i, 'own client', 0).run(run, run);
    }
    expect(run.tokens.length, 'three codes exchanged by their own clients').toBe(3);
    let judged = 0;
    // Each token at its own provider's userinfo, judged by the model as upstream decides: the
    // client, its assignments and the provider's allowed_client_ids are looked at on every call.
    const everyToken = async () => {
      await Promise.all(
        run.tokens.map(async (t) => {
          const decision = userinfoDecision(w.model, { provider: t.at.provider, bearer: t.at }, true);
          const res = await w.api.userinfo(t.at.provider, t.token);
          const who = `client ${'ABP'[w.clients.findIndex((c) => c.id === t.at.clientId)]}'s access token at provider ${'ABCD'[w.providers.indexOf(t.at.provider)]}`;
          judged += 1;
          if (judge(res, decision, `userinfo with ${who} ${stepsOf(run)} (the strict profile: upstream re-checks at every call)`) === 'refuse') {
            expect(res.status, `userinfo with ${who} ${stepsOf(run)}: refused 403 access_denied as upstream does (${res.text.slice(0, 120)})`).toBe(403);
          }
        }),
      );
    };
    await everyToken();
    // Provider A's list emptied, then one of its two clients, then both again; provider B's '*' narrowed to
    // client A and widened again; client A's assignments without e1 and back; client B deleted.
    const changes = [allowCmd(0, 1), allowCmd(0, 2), allowCmd(0, 4), allowCmd(1, 2), allowCmd(1, 0), reassignCmd(0, [false, true, false]), reassignCmd(0, [true, true, false]), deleteClientCmd(1)];
    for (const change of changes) {
      await change.run(run, run);
      run.steps.push('userinfo');
      await everyToken();
    }
    kit.note(`${judged} userinfo calls judged`);
  });
});
