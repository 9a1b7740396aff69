import fc from 'fast-check';
import { expect } from 'vitest';
import { z } from 'zod';
import { authorizeSchema, type LeafResponse } from '../../src/client/mesh-api.ts';
import type { HttpResponse } from '../../src/client/http-client.ts';
import { serviceRulesHcl, type AclServiceRule, type MeshRuleToken } from '../../src/client/mesh-acl-rules.ts';
import { x509 } from '../../src/crypto/x509.ts';
import { expectShape } from '../kit/expect-shape.ts';
import { certOf, expectRefused, leafOf, meshNamespaces, serviceName } from '../kit/mesh-helpers.ts';
import type { RuleKit } from '../kit/rule-kit.ts';
import { ruleTest } from '../kit/rule-test.ts';
import { tokenHeaders } from '../../src/config/dialects.ts';
import { MESH_BOUNDS } from '../kit/bounds/mesh.ts';
import { boundMs, KIT_BOUNDS, KIT_MARGINS } from '../kit/bounds/bound.ts';
import {
  authorizeOutcome,
  keyAccess,
  leafIdentity,
  leafOutcomes,
  listOrder,
  mayReadService,
  mayWriteService,
  mergePolicies,
  mergeWords,
  parseServiceUri,
  precedence,
  serviceIdentityRules,
  wordGrants,
  type IntentionModel,
  type KeyRule,
  type RuleWord,
  type LeafOutcome,
  type ServiceRef,
  type TokenModel,
} from '../models/mesh-access.ts';

/**
 * Issue 47: the mesh's access decisions asked from the neighbouring scopes, not only the granted
 * one, and judged against the model (suites/models/mesh-access.ts). Each world is generated, named
 * under the run prefix, and every decision of its grid is asked, so that each answer has neighbours
 * that differ from it in exactly one attribute (service, namespace, token, read or write, source,
 * destination, wildcard); a failure names the cell, the model's answer and those neighbours.
 */

/**
 * The namespaces a world spreads over: default (every namespace's parent) and two of its own
 * (siblings) where the target has namespaces, else default alone, and the run says what was left out.
 */
async function worldNamespaces(kit: RuleKit): Promise<string[]> {
  if (!meshNamespaces(kit)) {
    kit.note(`namespace neighbours not asked (the world holds the default namespace only): ${kit.ctx.provisioned?.mesh?.missing.namespaces ?? 'the target declares no namespaces'}`);
    return ['default'];
  }
  const names = [`${serviceName('ns')}-a`, `${serviceName('ns')}-b`];
  for (const ns of names) await kit.meshFixtures.namespace(ns);
  return ['default', ...names];
}

/** ?ns only where the target has namespaces (Consul CE refuses it with 400). */
const nsQuery = (kit: RuleKit, ns: string) => (meshNamespaces(kit) ? { ns } : undefined);

/** The client identity a proxy would present: a leaf's URI and serial, made with the run's token. */
async function clientOf(kit: RuleKit, service: string, ns: string): Promise<{ uri: string; serial: string }> {
  const leaf = leafOf(kit, await kit.mesh.leaf(service, { query: nsQuery(kit, ns) }), `leaf of ${ns}/${service}`);
  return { uri: leaf.ServiceURI, serial: leaf.SerialNumber };
}

type Grant = 'write' | 'read' | 'none';
type Decision = 'granted' | 'refused';

/** A 200 passed the ACL check (whatever Authorized says), a 4xx refused it; a 5xx is no answer. */
function aclDecision(res: HttpResponse, what: string): Decision {
  if (res.status === 200) return 'granted';
  expectRefused(res, what);
  expect(res.text.includes('PRIVATE KEY'), `${what}: a refusal hands out no key`).toBe(false);
  return 'refused';
}

async function authorizeDecision(kit: RuleKit, client: { uri: string; serial: string }, token: string, ns: string, service: string): Promise<Decision> {
  const res = await kit.mesh.authorize({ Target: service, ClientCertURI: client.uri, ClientCertSerial: client.serial }, { token, query: nsQuery(kit, ns) });
  if (res.status === 200) expectShape(res, authorizeSchema, 'authorize response');
  return aclDecision(res, `authorize for ${ns}/${service}`);
}

async function leafAnswer(kit: RuleKit, token: string, ns: string, service: string): Promise<{ decision: Decision; serial?: string }> {
  const res = await kit.mesh.leaf(service, { token, query: nsQuery(kit, ns) });
  const decision = aclDecision(res, `the leaf of ${ns}/${service}`);
  return decision === 'granted' ? { decision, serial: leafOf(kit, res, `the leaf of ${ns}/${service}`).SerialNumber } : { decision };
}

const intentionCheckSchema = z.object({ Allowed: z.boolean() }).passthrough();

/**
 * service:read on a service, asked through Consul's intention check (service:read on the
 * destination); a target of the spec dialect has no endpoint that needs service:read.
 */
async function readDecision(kit: RuleKit, token: string, ns: string, service: string): Promise<Decision> {
  const res = await kit.mesh.intentionCheck(`${service}-checker`, service, { token, query: nsQuery(kit, ns) });
  if (res.status === 200) expectShape(res, intentionCheckSchema, 'intention check response');
  return aclDecision(res, `the intention check towards ${ns}/${service}`);
}

/**
 * Whether read decisions can be asked (Consul's API); the run notes it when not. Only the UPSTREAM
 * rule asks them: the endpoint is not spec 001's.
 */
function asksRead(kit: RuleKit): boolean {
  if (kit.mesh.dialect.name === 'hashicorp') return true;
  kit.note('service:read neighbours not asked: spec 001 names no endpoint that needs service:read (the hashicorp dialect asks them through the intention check)');
  return false;
}

const rulesOf = (services: string[], grants: Grant[]): AclServiceRule[] =>
  services.flatMap((name, i) => (grants[i] === 'none' || grants[i] === undefined ? [] : [{ name, prefix: false, access: grants[i] as 'read' | 'write' }]));

const describeRules = (rules: readonly AclServiceRule[]) => (rules.length ? rules.map((r) => `${r.prefix ? 'service_prefix' : 'service'} "${r.name}" ${r.access}`).join(', ') : 'no rules');

/**
 * One cell of an ACL grid: a token asking for a service in a namespace, and what the model says of
 * service:write (authorize, leaf) and, where asked, service:read (the intention check).
 */
interface AclCell {
  token: number;
  ns: string;
  service: string;
  allowed: boolean;
  readable?: boolean;
}

type GridEndpoint = 'authorize' | 'leaf' | 'read';

/**
 * Asks every cell of the grid on both endpoints and compares with the model. The refused cells go
 * first: a Consul from 1.16 hands a leaf it holds to any caller (a deviation listed for mesh.acl.leaf),
 * and a refusal asked after a grant of the same leaf would go unseen there.
 */
async function judgeGrid(kit: RuleKit, cells: AclCell[], tokens: { secret: string; model: TokenModel; about?: string }[], client: { uri: string; serial: string }): Promise<void> {
  const ordered = [...cells.filter((c) => !c.allowed), ...cells.filter((c) => c.allowed)];
  const answers = new Map<AclCell, Partial<Record<GridEndpoint, Decision>>>();
  for (const cell of ordered) {
    const secret = tokens[cell.token]!.secret;
    answers.set(cell, {
      authorize: await authorizeDecision(kit, client, secret, cell.ns, cell.service),
      leaf: (await leafAnswer(kit, secret, cell.ns, cell.service)).decision,
      ...(cell.readable === undefined ? {} : { read: await readDecision(kit, secret, cell.ns, cell.service) }),
    });
  }
  const label = (c: AclCell) => `token ${c.token} (namespace ${tokens[c.token]!.model.namespace}: ${tokens[c.token]!.about ?? describeRules(tokens[c.token]!.model.rules)}) for ${c.ns}/${c.service}`;
  for (const cell of cells) {
    const expected: Decision = cell.allowed ? 'granted' : 'refused';
    const got = answers.get(cell)!;
    for (const endpoint of ['authorize', 'leaf', 'read'] as const) {
      if (got[endpoint] === undefined) continue;
      const held = (c: AclCell) => (endpoint === 'read' ? c.readable! : c.allowed);
      const want: Decision = endpoint === 'read' ? (cell.readable ? 'granted' : 'refused') : expected;
      if (got[endpoint] === want) continue;
      const permission = endpoint === 'read' ? 'service:read' : 'service:write';
      // The neighbours: the cells that differ from this one in exactly one attribute, and the same
      // cell asked for the other permission (read for write, write for read).
      const differ = (c: AclCell) => [c.token !== cell.token, c.ns !== cell.ns, c.service !== cell.service].filter(Boolean).length === 1;
      const neighbours = cells.filter(differ).map((c) => `${c.token !== cell.token ? 'token' : c.ns !== cell.ns ? 'namespace' : 'service'} -> ${label(c)}: model ${held(c) ? 'granted' : 'refused'}, got ${answers.get(c)![endpoint]}`);
      const other = endpoint === 'read' ? `service:write (leaf): model ${cell.allowed ? 'granted' : 'refused'}, got ${got.leaf}` : got.read === undefined ? undefined : `service:read (intention check): model ${cell.readable ? 'granted' : 'refused'}, got ${got.read}`;
      expect.fail(`${endpoint} with ${label(cell)}: the model says ${want} (${permission} ${held(cell) ? 'held' : 'not held'} there), the target ${got[endpoint]}. Its neighbours:\n  ${[...neighbours, ...(other ? [`the other permission -> ${other}`] : [])].join('\n  ')}`);
    }
  }
}

// Exact grants (write, read or none) of several tokens in several namespaces, on several services:
// every token asks for every service in every namespace, on authorize and the leaf.
ruleTest('mesh.acl.neighbours', async (kit) => {
  kit.requireMesh('aclEnforced');
  const namespaces = await worldNamespaces(kit);
  const client = await clientOf(kit, serviceName('src'), namespaces[0]!);
  const grant = fc.constantFrom<Grant>('write', 'read', 'none');
  const world: fc.Arbitrary<{ ns: number; grants: Grant[] }[]> = fc.array(fc.record({ ns: fc.nat(namespaces.length - 1), grants: fc.array(grant, { minLength: 3, maxLength: 3 }) }), { minLength: 2, maxLength: 3 });
  await kit.property<{ ns: number; grants: Grant[] }[]>(
    world,
    async (drawn) => {
      // The second name extends the first: an exact grant on the first must not cover it.
      const base = serviceName('acln');
      const services = [base, `${base}-x`, serviceName('acln')];
      const tokens: { secret: string; model: TokenModel }[] = [];
      for (const t of drawn) {
        const namespace = namespaces[t.ns]!;
        const rules = rulesOf(services, t.grants);
        const made = await kit.meshFixtures.ruleToken(rules, meshNamespaces(kit) ? namespace : undefined);
        tokens.push({ secret: made.secret, model: { namespace, rules } });
      }
      const cells = tokens.flatMap((t, token) => namespaces.flatMap((ns) => services.map((service) => ({ token, ns, service, allowed: mayWriteService(t.model, ns, service) }))));
      await judgeGrid(kit, cells, tokens, client);
    },
    {
      numRuns: Math.min(kit.ctx.runs, 3),
      examples: [[{ ns: 0, grants: ['write', 'none', 'read'] }, { ns: namespaces.length - 1, grants: ['read', 'write', 'write'] }]],
    },
  );
});

/**
 * Where a generated policy applies (Consul's policy Datacenters): every datacenter (no field, or an
 * empty list), the agent's own, or datacenters that differ from the agent's by one step: a longer
 * name it starts, a shorter name that starts it, the same letters upper-cased, and a list naming
 * another beside the agent's.
 */
type Scope = 'all' | 'empty' | 'here' | 'longer' | 'shorter' | 'upper' | 'also';
const SCOPES: Scope[] = ['all', 'empty', 'here', 'longer', 'shorter', 'upper', 'also'];

function scopeDatacenters(scope: Scope, dc: string): string[] | undefined {
  const shorter = dc.length > 1 ? dc.slice(0, -1) : `${dc}${dc}`;
  return { all: undefined, empty: [], here: [dc], longer: [`${dc}x`], shorter: [shorter], upper: [dc.toUpperCase() === dc ? dc.toLowerCase() : dc.toUpperCase()], also: [`${dc}x`, dc] }[scope];
}

interface DrawnPolicy {
  rules: AclServiceRule[];
  scope: Scope;
}

const describePolicies = (policies: readonly { rules: readonly AclServiceRule[]; datacenters?: string[] }[]) =>
  policies.map((p, i) => `policy ${i + 1}${p.datacenters ? ` (Datacenters ${JSON.stringify(p.datacenters)})` : ''}: ${describeRules(p.rules)}`).join(' + ');

// The rule language: exact and prefix rules with write, read and deny on names that are prefixes of
// one another, so that each probe has a neighbour one character longer or shorter; spread over one
// to three policies of a token (Consul merges them: the same name and kind in two policies gets the
// strongest word, in either order), each scoped to a datacenter that is or is not the agent's.
ruleTest('mesh.upstream.acl-rule-precedence', async (kit) => {
  kit.requireMesh('aclEnforced');
  const client = await clientOf(kit, serviceName('src'), 'default');
  const datacenter = parseServiceUri(client.uri)?.datacenter;
  expect(datacenter, `the client leaf's ServiceURI ${client.uri} names the agent's datacenter`).toBeTruthy();
  const read = asksRead(kit);
  const ruleNames = ['', '-a', '-ab', '-b'];
  const probes = ['', '-a', '-ab', '-abc', '-b', '-c'];
  const access = fc.constantFrom<'read' | 'write' | 'deny'>('read', 'write', 'deny');
  const rule = fc.record({ name: fc.constantFrom(...ruleNames), prefix: fc.boolean(), access });
  const policy: fc.Arbitrary<DrawnPolicy> = fc.record({
    rules: fc.uniqueArray(rule, { minLength: 1, maxLength: 3, selector: (r) => `${r.prefix}${r.name}` }),
    // Mostly where the agent is, so that the merge is asked as often as the scope.
    scope: fc.oneof({ weight: 3, arbitrary: fc.constant<Scope>('all') }, { weight: 2, arbitrary: fc.constantFrom(...SCOPES) }),
  });
  const one = (rules: AclServiceRule[]): DrawnPolicy[] => [{ rules, scope: 'all' }];
  const exactR = (name: string, a: AclServiceRule['access']) => ({ name, prefix: false, access: a });
  const prefixR = (name: string, a: AclServiceRule['access']) => ({ name, prefix: true, access: a });
  await kit.property<DrawnPolicy[][]>(
    fc.array(fc.array(policy, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 2 }),
    async (drawn) => {
      const base = serviceName('aclp');
      const tokens: { secret: string; model: TokenModel; about: string }[] = [];
      for (const t of drawn) {
        const policies = t.map((p) => ({ rules: p.rules.map((r) => ({ ...r, name: `${base}${r.name}` })), ...(scopeDatacenters(p.scope, datacenter!) ? { datacenters: scopeDatacenters(p.scope, datacenter!) } : {}) }));
        const made = policies.length === 1 && !policies[0]!.datacenters ? await kit.meshFixtures.ruleToken(policies[0]!.rules) : await kit.meshFixtures.policiesToken(policies);
        tokens.push({ secret: made.secret, model: { namespace: 'default', rules: mergePolicies(policies, datacenter!) }, about: `${describePolicies(policies)}; the agent's datacenter ${datacenter}` });
      }
      const cells = tokens.flatMap((t, token) =>
        probes.map((p) => ({ token, ns: 'default', service: `${base}${p}`, allowed: mayWriteService(t.model, 'default', `${base}${p}`), ...(read ? { readable: mayReadService(t.model, 'default', `${base}${p}`) } : {}) })),
      );
      await judgeGrid(kit, cells, tokens, client);
    },
    {
      numRuns: Math.min(kit.ctx.runs, 3),
      examples: [
        [
          // An exact deny under a prefix allow, and the reverse.
          one([prefixR('', 'write'), exactR('-ab', 'deny')]),
          one([prefixR('', 'deny'), exactR('-ab', 'write')]),
        ],
        [
          // service and service_prefix with one name; the longest prefix, whichever way.
          one([exactR('-a', 'read'), prefixR('-a', 'write'), prefixR('-ab', 'deny')]),
          one([prefixR('', 'deny'), prefixR('-a', 'write'), exactR('-ab', 'read')]),
        ],
        [
          // Nested prefixes written longest first (the longest wins, not the last written); a lone
          // prefix and the names just outside it ('-c', '-a', and '-ab', which ends like '-b').
          one([prefixR('-ab', 'write'), prefixR('-a', 'read'), prefixR('', 'deny')]),
          one([prefixR('-b', 'write')]),
        ],
        [
          // Read and deny under a prefix of the other word, asked for read and for write.
          one([prefixR('', 'read'), exactR('-a', 'deny'), prefixR('-ab', 'write')]),
          one([prefixR('', 'write'), prefixR('-a', 'deny'), exactR('-b', 'read')]),
        ],
        [
          // Two policies giving one name and kind deny and write, in both orders: deny, for the
          // exact name and for the prefix; and an exact rule of one policy under a prefix of the other.
          [
            { rules: [exactR('-a', 'deny'), prefixR('-ab', 'deny')], scope: 'all' },
            { rules: [exactR('-a', 'write'), prefixR('-ab', 'write'), prefixR('', 'write')], scope: 'all' },
          ],
          [
            { rules: [exactR('-a', 'write'), prefixR('-ab', 'write'), exactR('-b', 'deny')], scope: 'all' },
            { rules: [exactR('-a', 'deny'), prefixR('-ab', 'deny'), prefixR('', 'write')], scope: 'all' },
          ],
        ],
        [
          // Read and write on one name and kind in two policies, both orders: write; read twice stays read.
          [
            { rules: [prefixR('-a', 'read'), exactR('-b', 'write'), exactR('', 'read')], scope: 'all' },
            { rules: [prefixR('-a', 'write'), exactR('-b', 'read'), exactR('', 'read')], scope: 'all' },
          ],
          [
            { rules: [prefixR('-a', 'write'), exactR('-b', 'read')], scope: 'empty' },
            { rules: [prefixR('-a', 'read'), exactR('-b', 'write')], scope: 'here' },
          ],
        ],
        [
          // Policies scoped elsewhere grant and deny nothing here; the agent's own, none and a list
          // naming it beside another apply.
          [
            { rules: [prefixR('', 'write')], scope: 'longer' },
            { rules: [exactR('-a', 'write')], scope: 'here' },
            { rules: [exactR('-b', 'write'), exactR('-c', 'write')], scope: 'shorter' },
          ],
          [
            { rules: [exactR('-a', 'deny'), prefixR('-ab', 'deny')], scope: 'upper' },
            { rules: [prefixR('', 'write')], scope: 'also' },
            { rules: [exactR('-b', 'deny')], scope: 'empty' },
          ],
        ],
      ],
    },
  );
  await judgeRuleKinds(kit, client);
});

/** The dialect's token header for another token than the run's. */
const tokenHeader = (kit: RuleKit, secret: string) => tokenHeaders(kit.mesh.dialect.mesh.token, secret);

/** One policy of the kinds world: key rules, and the `acl` and `operator` words. */
interface KindsPolicy {
  keys: KeyRule[];
  acl: Exclude<RuleWord, 'list'> | 'none';
  operator: Exclude<RuleWord, 'list'> | 'none';
}

function kindsHcl(p: KindsPolicy): string {
  return [
    ...p.keys.map((r) => `${r.prefix ? 'key_prefix' : 'key'} ${JSON.stringify(r.name)} { policy = "${r.access}" }`),
    ...(p.acl === 'none' ? [] : [`acl = "${p.acl}"`]),
    ...(p.operator === 'none' ? [] : [`operator = "${p.operator}"`]),
  ].join('\n');
}

const describeKinds = (ps: readonly KindsPolicy[]) => ps.map((p, i) => `policy ${i + 1}: ${kindsHcl(p).replace(/\n/g, '; ') || '(empty)'}`).join(' + ');

/**
 * A token of several policies made through Consul's ACL API with the run's token (the hashicorp
 * dialect serves it), named under the run prefix; `done` removes them (the sweep would otherwise).
 */
async function kindsToken(kit: RuleKit, policies: readonly KindsPolicy[], done: (() => Promise<unknown>)[]): Promise<string> {
  const ids: string[] = [];
  for (const p of policies) {
    const name = serviceName('aclk');
    const res = await kit.mesh.http.request({ method: 'PUT', path: '/v1/acl/policy', json: { Name: name, Description: 'stackproof run fixture', Rules: kindsHcl(p) } });
    expect(res.status, `create ACL policy ${kindsHcl(p)}: ${res.text.slice(0, 200)}`).toBe(200);
    const id = res.parse(z.object({ ID: z.string().min(1) }).passthrough()).ID;
    done.push(() => kit.mesh.http.request({ method: 'DELETE', path: `/v1/acl/policy/${id}` }));
    ids.push(id);
  }
  const res = await kit.mesh.http.request({ method: 'PUT', path: '/v1/acl/token', json: { Description: serviceName('aclk'), Policies: ids.map((ID) => ({ ID })) } });
  expect(res.status, `create an ACL token: ${res.text.slice(0, 200)}`).toBe(200);
  const t = res.parse(z.object({ AccessorID: z.string().min(1), SecretID: z.string().min(1) }).passthrough());
  kit.secret(t.SecretID);
  done.unshift(() => kit.mesh.http.request({ method: 'DELETE', path: `/v1/acl/token/${t.AccessorID}` }));
  return t.SecretID;
}

/** 403 is the ACL's refusal; any other answer passed the check (a missing key is 404 when readable). */
function passedAcl(res: HttpResponse, what: string): Decision {
  expect(res.status, `${what}: an answer, not a bound that ran out`).toBeGreaterThan(0);
  return res.status === 403 ? 'refused' : 'granted';
}

/**
 * A token of a service identity alone (Consul's API): its service and the sidecar proxy's are
 * writable, a neighbour whose name extends the service's is not, and every service is readable; the
 * same grid as the rules' tokens, judged against serviceIdentityRules.
 */
async function judgeServiceIdentity(kit: RuleKit, client: { uri: string; serial: string }): Promise<void> {
  const service = serviceName('sid');
  const res = await kit.mesh.http.request({ method: 'PUT', path: '/v1/acl/token', json: { Description: serviceName('aclk'), ServiceIdentities: [{ ServiceName: service }] } });
  expect(res.status, `create an ACL token of the service identity ${service}: ${res.text.slice(0, 200)}`).toBe(200);
  const t = res.parse(z.object({ AccessorID: z.string().min(1), SecretID: z.string().min(1) }).passthrough());
  kit.secret(t.SecretID);
  try {
    const model: TokenModel = { namespace: 'default', rules: serviceIdentityRules(service) };
    const cells = [service, `${service}-sidecar-proxy`, `${service}-x`, serviceName('sid')].map((name) => ({ token: 0, ns: 'default', service: name, allowed: mayWriteService(model, 'default', name), readable: mayReadService(model, 'default', name) }));
    await judgeGrid(kit, cells, [{ secret: t.SecretID, model }], client);
  } finally {
    await kit.mesh.http.request({ method: 'DELETE', path: `/v1/acl/token/${t.AccessorID}` });
  }
}

/**
 * A namespace's default policies (Consul Enterprise's ACLs.PolicyDefaults: "the list of default
 * policies that will be applied to all tokens created in this namespace"): a token of the namespace
 * whose own rules say nothing of a service gets the defaults' grant there; the same service asked
 * through a token of another namespace, and a service the defaults do not name, are refused.
 */
async function judgeNamespaceDefaults(kit: RuleKit): Promise<void> {
  if (!meshNamespaces(kit)) {
    kit.note('namespace default policies not asked: the target declares no namespaces');
    return;
  }
  const [granted, other, ns] = [serviceName('nsd'), serviceName('nsd'), serviceName('nsd')];
  const undo: (() => Promise<unknown>)[] = [];
  const call = async (method: 'PUT' | 'DELETE', path: string, json: unknown, what: string) => {
    const res = await kit.mesh.http.request({ method, path, json });
    expect(res.status, `${what}: ${res.text.slice(0, 200)}`).toBe(200);
    return res;
  };
  try {
    const policy = (await call('PUT', '/v1/acl/policy', { Name: serviceName('aclk'), Rules: serviceRulesHcl([{ name: granted, prefix: false, access: 'write' }]) }, 'create the default policy')).parse(z.object({ ID: z.string() }).passthrough()).ID;
    undo.unshift(() => kit.mesh.http.request({ method: 'DELETE', path: `/v1/acl/policy/${policy}` }));
    await call('PUT', '/v1/namespace', { Name: ns, ACLs: { PolicyDefaults: [{ ID: policy }] } }, `create the namespace ${ns} with a default policy`);
    undo.unshift(() => kit.mesh.http.request({ method: 'DELETE', path: `/v1/namespace/${ns}` }));
    // Each token's own policy names only `other`, in its own namespace.
    const tokenIn = async (namespace: string) => {
      const own = (await call('PUT', '/v1/acl/policy', { Name: serviceName('aclk'), Namespace: namespace, Rules: serviceRulesHcl([{ name: other, prefix: false, access: 'read' }]) }, `create a policy in ${namespace}`)).parse(z.object({ ID: z.string() }).passthrough()).ID;
      undo.unshift(() => kit.mesh.http.request({ method: 'DELETE', path: `/v1/acl/policy/${own}`, query: { ns: namespace } }));
      const t = (await call('PUT', '/v1/acl/token', { Description: serviceName('aclk'), Namespace: namespace, Policies: [{ ID: own }] }, `create a token in ${namespace}`)).parse(z.object({ AccessorID: z.string(), SecretID: z.string() }).passthrough());
      kit.secret(t.SecretID);
      undo.unshift(() => kit.mesh.http.request({ method: 'DELETE', path: `/v1/acl/token/${t.AccessorID}`, query: { ns: namespace } }));
      return t.SecretID;
    };
    const cells = [
      { token: await tokenIn(ns), ns, service: granted, want: 'granted', why: "the namespace's default policy gives write" },
      { token: (await tokenIn(ns)), ns, service: other, want: 'refused', why: "the token's own read decides, the defaults name another service" },
      { token: await tokenIn('default'), ns: 'default', service: granted, want: 'refused', why: "a token of default gets no other namespace's defaults" },
    ] as const;
    const got = [];
    for (const c of cells) got.push({ ...c, got: (await leafAnswer(kit, c.token, c.ns, c.service)).decision });
    const wrong = got.filter((c) => c.got !== c.want);
    if (wrong.length) expect.fail(`namespace ${ns} with the default policy service "${granted}" write:\n  ${got.map((c) => `leaf of ${c.ns}/${c.service === granted ? 'the granted service' : 'another service'} with a token of ${c.ns}: model ${c.want} (${c.why}), got ${c.got}`).join('\n  ')}`);
  } finally {
    for (const u of undo) await u();
  }
}

/**
 * The other kinds of rule (Consul's API only): key rules with list, read, write and deny on a key,
 * its prefix and a neighbour outside, and the acl and operator words spread over two policies of
 * one token, so that each answer has a neighbour with one word or one policy changed.
 */
async function judgeRuleKinds(kit: RuleKit, client: { uri: string; serial: string }): Promise<void> {
  if (kit.mesh.dialect.name !== 'hashicorp') {
    kit.note('key, acl and operator rules and service identities not asked: spec 001 names no key/value, ACL-management or operator endpoint and no service identity (the hashicorp dialect asks them through Consul\'s API)');
    return;
  }
  await judgeServiceIdentity(kit, client);
  await judgeNamespaceDefaults(kit);
  const word = fc.constantFrom<RuleWord>('read', 'list', 'write', 'deny');
  const scalar = fc.constantFrom<KindsPolicy['acl']>('none', 'read', 'write', 'deny');
  const keyRule = fc.record({ name: fc.constantFrom('', '/a', '/ab'), prefix: fc.boolean(), access: word });
  const policy: fc.Arbitrary<KindsPolicy> = fc.record({ keys: fc.uniqueArray(keyRule, { maxLength: 2, selector: (r) => `${r.prefix}${r.name}` }), acl: scalar, operator: scalar });
  await kit.property<KindsPolicy[]>(
    fc.array(policy, { minLength: 1, maxLength: 2 }),
    async (drawn) => {
      const base = serviceName('kv');
      const policies = drawn.map((p) => ({ ...p, keys: p.keys.map((r) => ({ ...r, name: `${base}${r.name}` })) }));
      const done: (() => Promise<unknown>)[] = [];
      try {
        const secret = await kindsToken(kit, policies, done);
        const keys = policies.flatMap((p) => p.keys);
        const acl = mergeWords(policies.map((p) => p.acl));
        const asked: { what: string; model: boolean; got: Decision }[] = [];
        for (const suffix of ['', '/a', '/ab', '/abc', '/b']) {
          const key = `${base}${suffix}`;
          const word = keyAccess(keys, key);
          const path = `/v1/kv/${key}`;
          const read = await kit.mesh.http.request({ method: 'GET', path, headers: tokenHeader(kit, secret), bare: true });
          asked.push({ what: `key:read on "${key}" (rule word ${word})`, model: wordGrants(word, 'read'), got: passedAcl(read, `GET ${path}`) });
          // Deleting a key that is not there changes nothing and needs key:write (KVS.Apply).
          const write = await kit.mesh.http.request({ method: 'DELETE', path, headers: tokenHeader(kit, secret), bare: true });
          asked.push({ what: `key:write on "${key}" (rule word ${word})`, model: wordGrants(word, 'write'), got: passedAcl(write, `DELETE ${path}`) });
        }
        const list = await kit.mesh.http.request({ method: 'GET', path: '/v1/acl/policies', headers: tokenHeader(kit, secret), bare: true });
        asked.push({ what: `acl:read (merged acl word ${acl})`, model: wordGrants(acl, 'read'), got: passedAcl(list, 'GET /v1/acl/policies') });
        // A policy without a Name: refused by the ACL before it is validated, so nothing is made.
        const create = await kit.mesh.http.request({ method: 'PUT', path: '/v1/acl/policy', json: {}, headers: tokenHeader(kit, secret), bare: true });
        asked.push({ what: `acl:write (merged acl word ${acl})`, model: wordGrants(acl, 'write'), got: passedAcl(create, 'PUT /v1/acl/policy {}') });
        const wrong = asked.filter((a) => (a.model ? 'granted' : 'refused') !== a.got);
        if (wrong.length) {
          const all = asked.map((a) => `${a.what}: model ${a.model ? 'granted' : 'refused'}, got ${a.got}`).join('\n  ');
          expect.fail(`a token of ${describeKinds(policies)}: ${wrong.map((a) => a.what).join('; ')} answered otherwise than the model. Every answer of this token (its neighbours):\n  ${all}`);
        }
      } finally {
        for (const d of done) await d();
      }
    },
    {
      numRuns: Math.min(kit.ctx.runs, 2),
      examples: [
        // list under a prefix, an exact deny inside it, write on the longer prefix; acl read and write over two policies.
        [
          { keys: [{ name: '', prefix: true, access: 'list' }, { name: '/a', prefix: false, access: 'deny' }], acl: 'read', operator: 'none' },
          { keys: [{ name: '/ab', prefix: true, access: 'write' }], acl: 'write', operator: 'none' },
        ],
        // acl write and deny over two policies; operator write grants no acl; an exact list key.
        [
          { keys: [{ name: '/a', prefix: false, access: 'list' }], acl: 'write', operator: 'write' },
          { keys: [{ name: '', prefix: true, access: 'read' }], acl: 'deny', operator: 'none' },
        ],
        // operator alone; acl read alone.
        [{ keys: [{ name: '/a', prefix: true, access: 'write' }], acl: 'none', operator: 'write' }],
        [{ keys: [], acl: 'read', operator: 'read' }],
      ],
    },
  );
}

type Endpoint = 'authorize' | 'leaf';
type Answer = Decision | LeafOutcome;

interface ChangeModel {
  token: TokenModel;
  /** The token as it was before the last change: its answers may linger for MESH_BOUNDS.aclChange. */
  before?: TokenModel;
  /** The serial of the leaf this token was last handed, by service. */
  held: Map<string, string>;
}

interface ChangeReal {
  kit: RuleKit;
  token: MeshRuleToken;
  services: string[];
  client: { uri: string; serial: string };
}

/** What an endpoint may answer for a token as the model holds it. */
function allowedAnswers(endpoint: Endpoint, token: TokenModel, held: Map<string, string>, service: string): Answer[] {
  const allowed = mayWriteService(token, token.namespace, service);
  if (endpoint === 'authorize') return [allowed ? 'granted' : 'refused'];
  return leafOutcomes(allowed, held.has(service));
}

class Check implements fc.AsyncCommand<ChangeModel, ChangeReal> {
  constructor(
    readonly service: number,
    readonly endpoint: Endpoint,
  ) {}
  check = () => true;
  async run(m: ChangeModel, r: ChangeReal): Promise<void> {
    const service = r.services[this.service]!;
    const now = allowedAnswers(this.endpoint, m.token, m.held, service);
    const before = m.before ? allowedAnswers(this.endpoint, m.before, m.held, service) : [];
    const deadline = Date.now() + boundMs(r.kit.ctx, MESH_BOUNDS.aclChange);
    for (;;) {
      let answer: Answer;
      let serial: string | undefined;
      if (this.endpoint === 'authorize') answer = await authorizeDecision(r.kit, r.client, r.token.secret, m.token.namespace, service);
      else {
        const got = await leafAnswer(r.kit, r.token.secret, m.token.namespace, service);
        serial = got.serial;
        answer = got.decision === 'refused' ? 'refused' : got.serial === m.held.get(service) ? 'held' : 'issued';
      }
      if (now.includes(answer)) {
        if (serial) m.held.set(service, serial);
        return;
      }
      const what = `${this.endpoint} for ${service} with the token now holding ${m.token.deleted ? 'nothing (deleted)' : describeRules(m.token.rules)}`;
      if (!before.includes(answer) || Date.now() > deadline) {
        expect.fail(
          `${what}: answered ${answer}, the model allows ${now.join(' or ')}${before.includes(answer) ? ` (${answer} is what the token had before its last change, ${m.before!.deleted ? 'deleted' : describeRules(m.before!.rules)}, still answered after ${MESH_BOUNDS.aclChange.ms / 1000} s: ${MESH_BOUNDS.aclChange.why})` : ''}`,
        );
      }
      await new Promise((res) => setTimeout(res, KIT_MARGINS.changePoll.ms));
    }
  }
  toString = () => `check(${this.endpoint} service ${this.service})`;
}

class ChangeRules implements fc.AsyncCommand<ChangeModel, ChangeReal> {
  constructor(readonly grants: Grant[]) {}
  check = (m: Readonly<ChangeModel>) => !m.token.deleted;
  async run(m: ChangeModel, r: ChangeReal): Promise<void> {
    const rules = rulesOf(r.services, this.grants);
    m.before = m.token;
    m.token = { ...m.token, rules };
    await r.token.setRules(rules);
  }
  toString = () => `change policy to [${this.grants.join(', ')}]`;
}

class DeleteToken implements fc.AsyncCommand<ChangeModel, ChangeReal> {
  check = (m: Readonly<ChangeModel>) => !m.token.deleted;
  async run(m: ChangeModel, r: ChangeReal): Promise<void> {
    m.before = m.token;
    m.token = { ...m.token, deleted: true };
    await r.token.remove();
  }
  toString = () => 'delete token';
}

// A sequence: a token made, checked, its policy changed, checked again, deleted, checked again.
ruleTest('mesh.acl.policy-change', async (kit) => {
  kit.requireMesh('aclEnforced');
  const client = await clientOf(kit, serviceName('src'), 'default');
  const grant = fc.constantFrom<Grant>('write', 'read', 'none');
  const grants = fc.array(grant, { minLength: 2, maxLength: 2 });
  const commands = fc.commands(
    [
      fc.tuple(fc.nat(1), fc.constantFrom<Endpoint>('authorize', 'leaf')).map(([s, e]) => new Check(s, e)),
      grants.map((g) => new ChangeRules(g)),
      fc.constant(new DeleteToken()),
    ],
    { maxCommands: 10 },
  );
  const checks = [new Check(0, 'authorize'), new Check(0, 'leaf'), new Check(1, 'authorize'), new Check(1, 'leaf')];
  // No shrinking: a failing case has waited out MESH_BOUNDS.aclChange, and its commands are few.
  await kit.property<{ initial: Grant[]; commands: Iterable<fc.AsyncCommand<ChangeModel, ChangeReal>> }>(
    fc.noShrink(fc.record({ initial: grants, commands })),
    async ({ initial, commands }) => {
      const services = [serviceName('aclc'), serviceName('aclc')];
      const rules = rulesOf(services, initial);
      const token = await kit.meshFixtures.ruleToken(rules);
      const model: ChangeModel = { token: { namespace: 'default', rules }, held: new Map() };
      // Every sequence ends by asking every decision again, so a change is always seen.
      await fc.asyncModelRun(() => ({ model, real: { kit, token, services, client } }), [...commands, ...checks]);
    },
    {
      numRuns: Math.min(kit.ctx.runs, 3),
      examples: [
        // Write revoked (a leaf held before may come again from the cache, a new one never), read granted,
        // then everything given, then the token deleted.
        { initial: ['write', 'read'], commands: [...checks, new ChangeRules(['read', 'write']), ...checks, new ChangeRules(['write', 'write']), ...checks, new DeleteToken()] },
      ],
    },
  );
// A failing case waits out the bound twice: once found, once run again for its evidence.
}, { timeoutMs: MESH_BOUNDS.aclChange.ms * 2 + KIT_BOUNDS.ruleBeyond.ms });

/** An intention drawn by its indexes into the world's sources and destinations. */
interface Drawn {
  source: number;
  destination: number;
  action: 'allow' | 'deny';
}

// Exact intentions between services in several namespaces: every source asks every destination.
ruleTest('mesh.authorize.intention-neighbours', async (kit) => {
  const namespaces = await worldNamespaces(kit);
  const action = fc.constantFrom<'allow' | 'deny'>('allow', 'deny');
  // An intention by index into the grid of sources and destinations.
  const sides = 2 * namespaces.length;
  const intention: fc.Arbitrary<Drawn> = fc.record({ source: fc.nat(sides - 1), destination: fc.nat(sides - 1), action });
  await kit.property<Drawn[]>(
    fc.uniqueArray(intention, { minLength: 1, maxLength: 4, selector: (i) => `${i.source}>${i.destination}` }),
    async (drawn) => {
      const [a, b, x, y] = [serviceName('src'), serviceName('src'), serviceName('dst'), serviceName('dst')];
      const sources: ServiceRef[] = namespaces.flatMap((namespace) => [a, b].map((name) => ({ namespace, name })));
      const destinations: ServiceRef[] = namespaces.flatMap((namespace) => [x, y].map((name) => ({ namespace, name })));
      const world: IntentionModel[] = drawn.map((i) => ({ source: sources[i.source]!, destination: destinations[i.destination]!, action: i.action }));
      await judgeIntentions(kit, world, sources, destinations);
    },
    { numRuns: Math.min(kit.ctx.runs, 3), examples: [[{ source: 0, destination: 0, action: 'allow' }, { source: 1, destination: 1, action: 'deny' }, { source: sides - 1, destination: 0, action: 'deny' }]] },
  );
});

// Exact and wildcard intentions (* as source or as destination) of one precedence level or another;
// where the target has namespaces, the third source has the first one's name in another namespace,
// and a wildcard source may be that namespace's (its neighbour: the same wildcard in default).
ruleTest('mesh.upstream.intention-precedence', async (kit) => {
  const namespaces = await worldNamespaces(kit);
  const other = namespaces[namespaces.length - 1]!;
  const action = fc.constantFrom<'allow' | 'deny'>('allow', 'deny');
  // Sources 0-2 and the wildcards: '*' (3) and, with namespaces, '*' of the other namespace (4) and
  // '*' of every namespace (5); destinations 0-1 and '*' (2) and, with namespaces, '*' of every
  // namespace (3); never a wildcard on both sides, which would reach other rules' services.
  const withNs = other !== 'default';
  const star = (namespace: string): ServiceRef => ({ namespace, name: '*' });
  const sourceWildcards = withNs ? [star('default'), star(other), star('*')] : [star('default')];
  const destinationWildcards = withNs ? [star('default'), star('*')] : [star('default')];
  const intention: fc.Arbitrary<Drawn> = fc
    .record({ source: fc.nat(2 + sourceWildcards.length), destination: fc.nat(1 + destinationWildcards.length), action })
    .filter((i) => !(i.source >= 3 && i.destination >= 2));
  await kit.property<Drawn[]>(
    fc.uniqueArray(intention, { minLength: 1, maxLength: 5, selector: (i) => `${i.source}>${i.destination}` }),
    async (drawn) => {
      // The first two sources in byte order, so that intentions made in the drawn order may already be in list order.
      const [first, second] = [serviceName('src'), serviceName('src')].sort() as [string, string];
      const sources: ServiceRef[] = [{ namespace: 'default', name: first }, { namespace: 'default', name: second }, withNs ? { namespace: other, name: first } : { namespace: 'default', name: serviceName('src') }];
      const destinations: ServiceRef[] = [0, 1].map(() => ({ namespace: 'default', name: serviceName('dst') }));
      const world: IntentionModel[] = drawn.map((i) => ({ source: [...sources, ...sourceWildcards][i.source]!, destination: [...destinations, ...destinationWildcards][i.destination]!, action: i.action }));
      await judgeIntentions(kit, world, sources, destinations);
      await judgeIntentionList(kit, world, sources, destinations);
    },
    {
      numRuns: Math.min(kit.ctx.runs, 3),
      examples: [
        // exact allow over * -> d deny; * -> d deny over s -> * allow; s -> * alone decides s -> d1.
        [
          { source: 0, destination: 0, action: 'allow' },
          { source: 3, destination: 0, action: 'deny' },
          { source: 1, destination: 2, action: 'allow' },
        ],
        [
          { source: 3, destination: 1, action: 'allow' },
          { source: 0, destination: 2, action: 'deny' },
          { source: 2, destination: 1, action: 'deny' },
        ],
        // The other namespace's wildcard and an exact source of the same name there: neither reaches
        // default/s0; s0 of default falls to default's * -> d (without namespaces: 4 is default's *).
        [
          { source: withNs ? 4 : 3, destination: 0, action: 'allow' },
          { source: 2, destination: 1, action: 'allow' },
          { source: 3, destination: 1, action: 'deny' },
        ],
        // With namespaces: */* -> d0 covers every source but yields to a namespace's * -> d0; s1 -> */*
        // decides s1 -> d1; (without namespaces: * -> d0 and s1 -> *).
        [
          { source: withNs ? 5 : 3, destination: 0, action: 'deny' },
          { source: withNs ? 4 : 0, destination: 0, action: 'allow' },
          { source: 1, destination: withNs ? 3 : 2, action: 'allow' },
        ],
        // Two intentions of one precedence made in list order: the list keeps them so (a sort that
        // ignores the tie-break may turn them round).
        [
          { source: 0, destination: 0, action: 'allow' },
          { source: 1, destination: 0, action: 'deny' },
        ],
      ],
    },
  );
});

const listedIntentionSchema = z.array(z.object({ SourceNS: z.string(), SourceName: z.string(), DestinationNS: z.string(), DestinationName: z.string(), Precedence: z.number() }).passthrough());

/**
 * Consul's intention list (GET /v1/connect/intentions, hashicorp dialect only: spec 001 names no
 * listing) holds the world's intentions each with its precedence, in the model's listOrder; the run's
 * own are told from others' by their names (a wildcard is ours when its other side is).
 */
async function judgeIntentionList(kit: RuleKit, world: IntentionModel[], sources: ServiceRef[], destinations: ServiceRef[]): Promise<void> {
  if (kit.mesh.dialect.name !== 'hashicorp') {
    kit.note("the intention list's precedence and order not asked: spec 001 names no intention listing (the hashicorp dialect asks Consul's)");
    return;
  }
  // Every namespace's, where there are namespaces (Consul Enterprise lists the request's namespace by default, CE takes no ?ns).
  const res = await kit.mesh.http.request({ method: 'GET', path: '/v1/connect/intentions', query: nsQuery(kit, '*') });
  expect(res.status, `GET /v1/connect/intentions answers 200 (${res.text.slice(0, 120)})`).toBe(200);
  const ours = (name: string, names: ServiceRef[]) => names.some((r) => r.name === name);
  const listed = expectShape(res, listedIntentionSchema, 'intention list')
    .filter((i) => (ours(i.SourceName, sources) && (ours(i.DestinationName, destinations) || i.DestinationName === '*')) || (i.SourceName === '*' && ours(i.DestinationName, destinations)))
    .map((i) => `${i.SourceNS}/${i.SourceName} -> ${i.DestinationNS}/${i.DestinationName} (precedence ${i.Precedence})`);
  const expected = [...world].sort(listOrder).map((i) => `${i.source.namespace}/${i.source.name} -> ${i.destination.namespace}/${i.destination.name} (precedence ${precedence(i)})`);
  expect(listed, 'the intention list holds the world\'s intentions by precedence, highest first, then by source namespace, source, destination namespace and destination').toEqual(expected);
}

/**
 * Makes the intentions, learns the target's no-match answer from a connection between two fresh
 * services, then asks every source about every destination and compares with the model.
 */
async function judgeIntentions(kit: RuleKit, world: IntentionModel[], sources: ServiceRef[], destinations: ServiceRef[]): Promise<void> {
  for (const i of world) {
    await kit.meshFixtures.intention({
      source: i.source.name,
      destination: i.destination.name,
      action: i.action,
      ...(meshNamespaces(kit) ? { source_namespace: i.source.namespace, destination_namespace: i.destination.namespace } : {}),
    });
  }
  const ask = async (client: { uri: string; serial: string }, destination: ServiceRef) => {
    const res = await kit.mesh.authorize({ Target: destination.name, ClientCertURI: client.uri, ClientCertSerial: client.serial }, { query: nsQuery(kit, destination.namespace) });
    expect(res.status, `authorize -> ${destination.namespace}/${destination.name} answers 200 (${res.text.slice(0, 120)})`).toBe(200);
    return expectShape(res, authorizeSchema, 'authorize response');
  };
  const fresh = await ask(await clientOf(kit, serviceName('src'), sources[0]!.namespace), { namespace: destinations[0]!.namespace, name: serviceName('dst') });
  const noMatch = fresh.Authorized;
  const show = (s: ServiceRef) => `${s.namespace}/${s.name}`;
  const intentions = world.map((i) => `${show(i.source)} -> ${show(i.destination)} ${i.action}`).join('; ');
  const answers: { source: ServiceRef; destination: ServiceRef; got: boolean; allowed: boolean[] }[] = [];
  for (const source of sources) {
    const client = await clientOf(kit, source.name, source.namespace);
    for (const destination of destinations) {
      const body = await ask(client, destination);
      answers.push({ source, destination, got: body.Authorized, allowed: authorizeOutcome(world, source, destination, noMatch).authorized });
    }
  }
  for (const cell of answers) {
    if (cell.allowed.includes(cell.got)) continue;
    const matched = authorizeOutcome(world, cell.source, cell.destination, noMatch).matched;
    const differ = (c: typeof cell) => [show(c.source) !== show(cell.source), show(c.destination) !== show(cell.destination)].filter(Boolean).length === 1;
    const neighbours = answers.filter(differ).map((c) => `${show(c.source)} -> ${show(c.destination)}: model ${c.allowed.join(' or ')}, got ${c.got}`);
    expect.fail(
      `authorize ${show(cell.source)} -> ${show(cell.destination)}: Authorized ${cell.got}, the model allows ${cell.allowed.join(' or ')} (${matched ? `decided by ${show(matched.source)} -> ${show(matched.destination)} ${matched.action}` : `no intention covers it, so the target's no-match answer ${noMatch}`}). Intentions: ${intentions}. Neighbours:\n  ${neighbours.join('\n  ')}`,
    );
  }
}

// Leaves of several services in several namespaces: each names the service and namespace asked and
// no other, is its own certificate and key, and may serve both sides of a connection without being a CA.
ruleTest('mesh.leaf.identity-neighbours', async (kit) => {
  const namespaces = await worldNamespaces(kit);
  const withNs = meshNamespaces(kit);
  const services = [serviceName('id'), serviceName('id')];
  const cells = namespaces.flatMap((ns) => services.map((service) => ({ ns, service })));
  const leaves: { ns: string; service: string; leaf: LeafResponse }[] = [];
  for (const cell of cells) leaves.push({ ...cell, leaf: leafOf(kit, await kit.mesh.leaf(cell.service, { query: nsQuery(kit, cell.ns) }), `the leaf of ${cell.ns}/${cell.service}`) });
  // The same cells again, in reverse: each is answered with its own leaf, not a neighbour's.
  for (const cell of [...leaves].reverse()) {
    const again = leafOf(kit, await kit.mesh.leaf(cell.service, { query: nsQuery(kit, cell.ns) }), `the leaf of ${cell.ns}/${cell.service} again`);
    expect(again.ServiceURI, `the leaf of ${cell.ns}/${cell.service} asked again after its neighbours names the same service`).toBe(cell.leaf.ServiceURI);
  }
  const domains = new Set<string>();
  for (const { ns, service, leaf } of leaves) {
    const what = `the leaf of ${ns}/${service}`;
    const model = leafIdentity(ns, service, withNs);
    expect(leaf.Service, `${what}: Service`).toBe(model.Service);
    if (model.Namespace !== undefined) expect(leaf.Namespace, `${what}: Namespace`).toBe(model.Namespace);
    const uri = parseServiceUri(leaf.ServiceURI);
    expect(uri, `${what}: ServiceURI ${leaf.ServiceURI} is a service identifier`).toBeDefined();
    expect({ namespace: uri!.namespace, service: uri!.service }, `${what}: ServiceURI ${leaf.ServiceURI} names the namespace and service asked`).toEqual(model.uri);
    domains.add(`${uri!.trustDomain} dc ${uri!.datacenter}`);
    const cert = certOf(leaf);
    const uris = (cert.subjectAltName ?? '').split(/,\s*/).filter((n) => n.startsWith('URI:')).map((n) => n.slice(4));
    expect(uris, `${what}: the certificate's one URI SAN is ServiceURI`).toEqual([leaf.ServiceURI]);
    expect(cert.ca, `${what}: not a CA certificate (basicConstraints)`).toBe(false);
    const constraints = new x509.X509Certificate(cert.raw).getExtension(x509.BasicConstraintsExtension);
    if (constraints) expect(constraints.ca, `${what}: basicConstraints says cA false`).toBe(false);
    const usages = new x509.X509Certificate(cert.raw).getExtension(x509.KeyUsagesExtension);
    if (usages) {
      expect(usages.usages & x509.KeyUsageFlags.digitalSignature, `${what}: may sign a TLS handshake (digitalSignature)`).not.toBe(0);
      expect(usages.usages & (x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign), `${what}: may sign no certificate or CRL (keyCertSign, cRLSign)`).toBe(0);
    }
  }
  expect(domains.size, `every leaf names one trust domain and datacenter: ${[...domains].join('; ')}`).toBe(1);
  const distinct = (f: (l: (typeof leaves)[number]) => string, what: string) => expect(new Set(leaves.map(f)).size, `each of ${leaves.length} leaves (${cells.map((c) => `${c.ns}/${c.service}`).join(', ')}) has its own ${what}`).toBe(leaves.length);
  distinct((l) => l.leaf.ServiceURI, 'ServiceURI');
  distinct((l) => l.leaf.CertPEM, 'certificate');
  distinct((l) => l.leaf.PrivateKeyPEM, 'private key');
  await judgeJoinedNames(kit, withNs);
});

/**
 * The characters a service or namespace name may hold between two parts, and none: a cache or
 * identity key that joins a namespace and a service (or two parts of a name) with one of them
 * makes (N, x<sep>S) and (N<sep>x, S) the same key. A namespace name is a DNS hostname label:
 * letters, digits and '-' (Consul Enterprise refuses others: "is not a valid DNS hostname label");
 * a service name also holds '_' and '.' (Consul 1.8.7 asked). Neither holds '/' (Consul 1.8.7
 * answers the leaf of "a/b" with 500: its SPIFFE ID does not parse), so a key joined with '/'
 * cannot collide for names a client can ask.
 */
const NAME_JOINS = ['-', '_', '.', ''] as const;
const NAMESPACE_JOINS = ['-', ''] as const;

/**
 * Leaves whose names collide when joined: where the target has namespaces, (N, x<sep>S) beside
 * (N<sep>x, S) for each separator a namespace may hold, and default/S asked with ?ns= empty beside
 * ?ns=default (the same namespace: spec 001, Namespace selection 5); everywhere, services whose
 * names are joins of one another (S, S<sep>x, x<sep>S). Each is asked twice, the second time in
 * reverse order after all its neighbours, and must name the namespace and service asked, with a
 * certificate of its own (one cell per distinct identity).
 */
async function judgeJoinedNames(kit: RuleKit, withNs: boolean): Promise<void> {
  if (!withNs) kit.note('joined names asked for services only: the target declares no namespaces, so (N, x-S) beside (N-x, S) was not asked');
  await kit.property<string>(
    fc.stringMatching(/^[a-z0-9]{1,3}$/),
    async (x) => {
      const service = serviceName('jn');
      const cells: { ns: string; service: string; query?: Record<string, string> }[] = [
        { ns: 'default', service },
        ...NAME_JOINS.flatMap((sep) => [`${service}${sep}${x}`, `${x}${sep}${service}`]).map((name) => ({ ns: 'default', service: name })),
      ];
      if (withNs) {
        const ns = serviceName('nsj');
        for (const name of [ns, ...NAMESPACE_JOINS.map((sep) => `${ns}${sep}${x}`)]) await kit.meshFixtures.namespace(name);
        cells.push({ ns, service });
        for (const sep of NAMESPACE_JOINS) cells.push({ ns, service: `${x}${sep}${service}` }, { ns: `${ns}${sep}${x}`, service });
        cells.push({ ns: 'default', service, query: { ns: '' } });
      }
      const ask = async (c: (typeof cells)[number], when: string) => {
        const what = `the leaf of ${c.ns}/${c.service}${c.query ? ' (?ns= empty)' : ''} ${when}`;
        const leaf = leafOf(kit, await kit.mesh.leaf(c.service, { query: c.query ?? nsQuery(kit, c.ns) }), what);
        const model = leafIdentity(c.ns, c.service, withNs);
        const uri = parseServiceUri(leaf.ServiceURI);
        const others = cells.filter((o) => o !== c).map((o) => `${o.ns}/${o.service}`).join(', ');
        const named = { Service: leaf.Service, ...(model.Namespace !== undefined ? { Namespace: leaf.Namespace } : {}), uri: uri && { namespace: uri.namespace, service: uri.service } };
        expect(named, `${what}: names the namespace and service asked (Service, Namespace, ServiceURI ${leaf.ServiceURI}), not one whose names join to the same string (${others})`).toEqual({ Service: model.Service, ...(model.Namespace !== undefined ? { Namespace: model.Namespace } : {}), uri: model.uri });
        return leaf;
      };
      const first = new Map<(typeof cells)[number], LeafResponse>();
      for (const c of cells) first.set(c, await ask(c, 'first asked'));
      for (const c of [...cells].reverse()) {
        const again = await ask(c, 'asked again after its neighbours');
        expect(again.ServiceURI, `the leaf of ${c.ns}/${c.service} asked again is still its own`).toBe(first.get(c)!.ServiceURI);
      }
      // One certificate per identity: ?ns= empty and ?ns=default are the same one, the others all differ.
      const byIdentity = new Map<string, Set<string>>();
      for (const [c, leaf] of first) byIdentity.set(`${c.ns}/${c.service}`, (byIdentity.get(`${c.ns}/${c.service}`) ?? new Set()).add(leaf.CertPEM));
      const certs = [...first.values()].map((l) => l.CertPEM);
      expect(new Set(certs).size, `each of ${byIdentity.size} identities (${[...byIdentity.keys()].join(', ')}) has a certificate of its own`).toBeGreaterThanOrEqual(byIdentity.size);
      for (const [identity, set] of byIdentity) for (const [other, otherSet] of byIdentity) if (identity !== other) for (const cert of set) expect(otherSet.has(cert), `the leaves of ${identity} and ${other} are different certificates`).toBe(false);
    },
    { numRuns: Math.min(kit.ctx.runs, 2), examples: ['x'] },
  );
}
