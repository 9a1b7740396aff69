import fc from 'fast-check';
import { expect } from 'vitest';
import { authorizeSchema } from '../../src/client/mesh-api.ts';
import { expectShape } from '../kit/expect-shape.ts';
import type { HttpResponse } from '../../src/client/http-client.ts';
import { expectRefused, leafOf, meshNamespaces, readTokenFor, serviceName, tokenFor } from '../kit/mesh-helpers.ts';
import type { RuleKit } from '../kit/rule-kit.ts';
import { ruleTest } from '../kit/rule-test.ts';
import { MESH_BOUNDS, MESH_MARGINS } from '../kit/bounds/mesh.ts';
import { boundMs } from '../kit/bounds/bound.ts';

/** The client identity a proxy would present: the source service's leaf URI and serial. */
async function clientOf(kit: RuleKit, service: string, ns?: string): Promise<{ uri: string; serial: string }> {
  const leaf = leafOf(kit, await kit.mesh.leaf(service, ns ? { query: { ns } } : {}), `leaf of ${service}`);
  return { uri: leaf.ServiceURI, serial: leaf.SerialNumber };
}

type Kind = 'none' | 'allow' | 'deny' | 'allow+permissions' | 'deny+permissions';

ruleTest('mesh.authorize.intentions', async (kit) => {
  const control = kit.meshFixtures;
  // A version without L7 permissions (Consul before 1.9) cannot make the intentions with
  // Permissions: the property draws from the kinds it can make, and the run says what was left out.
  const l7 = kit.meshAllows('l7Permissions');
  if (!l7) kit.note(`intentions with Permissions not generated: ${kit.ctx.provisioned?.mesh?.missing.l7Permissions}`);
  const kinds: Kind[] = l7 ? ['none', 'allow', 'deny', 'allow+permissions', 'deny+permissions'] : ['none', 'allow', 'deny'];
  await kit.property(
    fc.array(fc.constantFrom<Kind>(...kinds), { minLength: 4, maxLength: 4 }),
    async (kinds) => {
      const sources = [serviceName('src'), serviceName('src')];
      const targets = [serviceName('dst'), serviceName('dst')];
      const pairs = sources.flatMap((s) => targets.map((t) => [s, t] as const));
      for (const [i, [source, destination]] of pairs.entries()) {
        const kind = kinds[i]!;
        if (kind === 'none') continue;
        await control.intention({ source, destination, action: kind.startsWith('allow') ? 'allow' : 'deny', permissions: kind.endsWith('permissions') ? [{ Action: 'allow', HTTP: { PathPrefix: '/' } }] : undefined });
      }
      for (const [i, [source, destination]] of pairs.entries()) {
        const kind = kinds[i]!;
        if (kind === 'none') continue;
        const client = await clientOf(kit, source);
        const res = await kit.mesh.authorize({ Target: destination, ClientCertURI: client.uri, ClientCertSerial: client.serial });
        expect(res.status, `authorize ${source} -> ${destination} answers 200`).toBe(200);
        const body = expectShape(res, authorizeSchema, 'authorize response');
        // The model: an intention decides by its action, and one with Permissions always denies.
        const expected = kind === 'allow';
        expect(body.Authorized, `${source} -> ${destination} with a ${kind} intention: Authorized ${expected}`).toBe(expected);
      }
    },
    { numRuns: Math.min(kit.ctx.runs, 10), examples: [l7 ? ['allow', 'deny', 'allow+permissions', 'deny+permissions'] : ['allow', 'deny', 'deny', 'allow']] },
  );
});

ruleTest('mesh.authorize.permissions-deny', async (kit) => {
  kit.requireMesh('l7Permissions');
  const source = serviceName('src');
  const destination = serviceName('dst');
  await kit.meshFixtures.intention({ source, destination, action: 'allow', permissions: [{ Action: 'allow', HTTP: { PathExact: '/healthz' } }] });
  const client = await clientOf(kit, source);
  const body = expectShape(await kit.mesh.authorize({ Target: destination, ClientCertURI: client.uri, ClientCertSerial: client.serial }), authorizeSchema, 'authorize response');
  expect(body.Authorized, 'an allow intention with Permissions is treated as deny').toBe(false);
});

/** The action as a word of the Reason, any case: Consul writes it upper-case ("Action: DENY"). */
const namesAction = (reason: string, action: string) => new RegExp(`(^|[^A-Za-z0-9])${action}([^A-Za-z0-9]|$)`, 'i').test(reason);

ruleTest('mesh.authorize.reason', async (kit) => {
  for (const action of ['allow', 'deny'] as const) {
    const source = serviceName('src');
    const destination = serviceName('dst');
    await kit.meshFixtures.intention({ source, destination, action });
    const client = await clientOf(kit, source);
    const body = expectShape(await kit.mesh.authorize({ Target: destination, ClientCertURI: client.uri, ClientCertSerial: client.serial }), authorizeSchema, 'authorize response');
    expect(body.Authorized, `with a matching ${action} intention, Authorized is ${action === 'allow'}`).toBe(action === 'allow');
    expect(body.Reason, `the Reason of the ${action} decision names the matched intention: its source`).toContain(source);
    expect(body.Reason, `the Reason of the ${action} decision names its destination`).toContain(destination);
    expect(namesAction(body.Reason, action), `the Reason "${body.Reason}" names the intention's action "${action}"`).toBe(true);
  }
});

// A SHOULD rule: the request table marks Target and ClientCertURI required but the spec states no
// refusal. ClientCertSerial is judged apart (mesh.authorize.serial-format): Consul never reads it.
ruleTest('mesh.authorize.request-validation', async (kit) => {
  const target = serviceName('dst');
  const client = await clientOf(kit, serviceName('src'));
  const good = { Target: target, ClientCertURI: client.uri, ClientCertSerial: client.serial };
  expect((await kit.mesh.authorize(good)).status, 'a complete request is answered').toBe(200);
  const trustDomain = /^spiffe:\/\/([^/]+)\//.exec(client.uri)?.[1] ?? 'example.consul';
  for (const [what, body] of [
    ['without Target', { ClientCertURI: client.uri, ClientCertSerial: client.serial }],
    ['without ClientCertURI', { Target: target, ClientCertSerial: client.serial }],
    ['with an agent identifier as ClientCertURI', { ...good, ClientCertURI: `spiffe://${trustDomain}/agent/client/dc/dc1/id/abc` }],
    ['with a ClientCertURI that is not a URI', { ...good, ClientCertURI: 'not a uri' }],
    ['with a non-string Target', { ...good, Target: 42 }],
  ] as const) {
    expectRefused(await kit.mesh.authorize(body), `authorize ${what}`);
  }
});

// A SHOULD rule: ClientCertSerial is marked required and colon-hex, but the spec states no refusal.
ruleTest('mesh.authorize.serial-format', async (kit) => {
  const client = await clientOf(kit, serviceName('src'));
  // Colon-hex serials of one octet, of several, and of a 160-bit serial (RFC 5280 allows 20 octets), in either case, are answered.
  for (const serial of ['0a', '0a:1B:2c', '01:23:45:67:89:ab:cd:ef', Array.from({ length: 20 }, (_, i) => ((i * 13 + 16) % 256).toString(16).padStart(2, '0')).join(':')]) {
    const res = await kit.mesh.authorize({ Target: serviceName('dst'), ClientCertURI: client.uri, ClientCertSerial: serial });
    expect(res.status, `authorize with the colon-hex ClientCertSerial ${serial} is answered (got ${res.status}: ${res.text.slice(0, 120)})`).toBe(200);
  }
  expectRefused(await kit.mesh.authorize({ Target: serviceName('dst'), ClientCertURI: client.uri }), 'authorize without ClientCertSerial');
  await kit.property(
    fc.oneof(fc.constantFrom('zz:11', 'xyz', '1:2:3', '0a-0b', '0a:0b:', ':0a'), fc.stringMatching(/^[g-z]{2,8}$/)),
    async (serial) => {
      expectRefused(await kit.mesh.authorize({ Target: serviceName('dst'), ClientCertURI: client.uri, ClientCertSerial: serial }), `authorize with ClientCertSerial ${JSON.stringify(serial)}`);
    },
    { numRuns: Math.min(kit.ctx.runs, 10) },
  );
});

// The hard sides of the check (issue 37): a name the token's exact grant is a prefix of, service:read
// where write is needed, service:write on the source rather than the Target, and (with namespaces)
// the Target in a namespace other than the token's. Each has a fault in the catalog.
ruleTest('mesh.acl.authorize', async (kit) => {
  kit.requireMesh('aclEnforced');
  const target = serviceName('dst');
  const other = serviceName('dst');
  const source = serviceName('src');
  const client = await clientOf(kit, source);
  const body = (t: string) => ({ Target: t, ClientCertURI: client.uri, ClientCertSerial: client.serial });
  const token = await tokenFor(kit, [target]);
  const sourceOnly = await tokenFor(kit, [source]);
  const readOnly = await readTokenFor(kit, [target]);
  expect((await kit.mesh.authorize(body(target), { token })).status, 'a token with service:write on the Target is answered').toBe(200);
  const refusals: [string, HttpResponse][] = [
    ['without a token', await kit.mesh.authorize(body(target), { token: null })],
    ['with a token lacking service:write on the Target', await kit.mesh.authorize(body(other), { token })],
    ['with an unknown token', await kit.mesh.authorize(body(target), { token: 'not-a-token-0000' })],
    [`for Target ${target}-x with a token whose service:write is on ${target} exactly (a prefix of the Target, not a prefix grant)`, await kit.mesh.authorize(body(`${target}-x`), { token })],
    ['with a token holding service:read, not write, on the Target', await kit.mesh.authorize(body(target), { token: readOnly })],
    ["with a token holding service:write on the client's (source) service only", await kit.mesh.authorize(body(target), { token: sourceOnly })],
  ];
  if (meshNamespaces(kit)) {
    const [mine, theirs] = [`${serviceName('ns')}-a`, `${serviceName('ns')}-b`];
    for (const ns of [mine, theirs]) await kit.meshFixtures.namespace(ns);
    const nsToken = await tokenFor(kit, [target], mine);
    refusals.push([`for the Target in namespace ${theirs} with a token of namespace ${mine} holding service:write on that name`, await kit.mesh.authorize(body(target), { token: nsToken, query: { ns: theirs } })]);
  }
  for (const [what, res] of refusals) {
    expectRefused(res, `authorize ${what}`);
    expect(res.text.includes('"Authorized"'), `authorize ${what}: no decision is given`).toBe(false);
  }
  // Generated Targets that start with the granted name: an exact grant covers none of them.
  await kit.property(
    fc.stringMatching(/^[a-z0-9_.-]{1,12}$/),
    async (suffix) => {
      const res = await kit.mesh.authorize(body(`${target}${suffix}`), { token });
      expectRefused(res, `authorize for Target ${target}${suffix} with a token whose service:write is on ${target} exactly`);
    },
    { numRuns: Math.min(kit.ctx.runs, 10), examples: ['-x', '0'] },
  );
});

ruleTest('mesh.acl.leaf', async (kit) => {
  kit.requireMesh('aclEnforced');
  const service = serviceName('acl');
  const token = await tokenFor(kit, [service]);
  leafOf(kit, await kit.mesh.leaf(service, { token }), 'a leaf with service:write on the service');
  const held = leafOf(kit, await kit.mesh.leaf(service, { token }), 'the leaf again');
  // A blocking query for a leaf the agent already holds must be checked as well, not answered from its cache.
  const blocking = { query: { index: String(held.ModifyIndex), wait: `${MESH_MARGINS.timedOutWait.ms / 1000}s` }, timeoutMs: MESH_MARGINS.timedOutWait.ms + boundMs(kit.ctx, MESH_BOUNDS.afterWait) + boundMs(kit.ctx, MESH_BOUNDS.requestBeyond) };
  // The leaf no one holds first: Consul 1.16 and later hands a held leaf to any caller (a listed
  // deviation), and a refusal checked after that failure would go unseen on such a target.
  // The hard sides (issue 37), each on a leaf no one holds yet: a name the exact grant is a prefix
  // of, service:read where write is needed, and (with namespaces) another namespace than the token's.
  const unheld = serviceName('acl');
  const readOnly = await readTokenFor(kit, [unheld]);
  const refusals: [string, HttpResponse][] = [
    ['with a token lacking service:write on the service', await kit.mesh.leaf(serviceName('other'), { token })],
    [`${service}-x with a token whose service:write is on ${service} exactly (a prefix of the name, not a prefix grant)`, await kit.mesh.leaf(`${service}-x`, { token })],
    ['with a token holding service:read, not write, on the service', await kit.mesh.leaf(unheld, { token: readOnly })],
    ['without a token', await kit.mesh.leaf(service, { token: null })],
    ['with an unknown token', await kit.mesh.leaf(service, { token: 'not-a-token-0000' })],
    ['in a blocking query without a token', await kit.mesh.leaf(service, { token: null, ...blocking })],
  ];
  if (meshNamespaces(kit)) {
    const [mine, theirs] = [`${serviceName('ns')}-a`, `${serviceName('ns')}-b`];
    for (const ns of [mine, theirs]) await kit.meshFixtures.namespace(ns);
    const named = serviceName('acl');
    const nsToken = await tokenFor(kit, [named], mine);
    refusals.unshift([`in namespace ${theirs} with a token of namespace ${mine} holding service:write on that name`, await kit.mesh.leaf(named, { token: nsToken, query: { ns: theirs } })]);
    leafOf(kit, await kit.mesh.leaf(named, { token: nsToken, query: { ns: mine } }), `the leaf in the token's own namespace ${mine}`);
  }
  for (const [what, res] of refusals) {
    expectRefused(res, `a leaf ${what}`);
    expect(res.text.includes('PRIVATE KEY'), `a leaf ${what}: no key is handed out`).toBe(false);
  }
  // Generated names that start with the granted one: an exact grant covers none of them.
  await kit.property(
    fc.stringMatching(/^[a-z0-9_.-]{1,12}$/),
    async (suffix) => {
      const res = await kit.mesh.leaf(`${service}${suffix}`, { token });
      expectRefused(res, `the leaf of ${service}${suffix} with a token whose service:write is on ${service} exactly`);
    },
    { numRuns: Math.min(kit.ctx.runs, 10), examples: ['-x', '0'] },
  );
});

const SOURCES = ['query', 'header', 'token'] as const;

// Upstream (Consul Enterprise) namespaces must exist, and a token made in namespace T has no
// service:write in another namespace: the fixtures make every namespace named here, and where ?ns or
// the header outranks the token's namespace a refusal is as right as a leaf in the outranking one.
// A leaf in the token's namespace there is always wrong.
ruleTest('mesh.ns.leaf-precedence', async (kit) => {
  const control = kit.meshFixtures;
  const values = { query: `${serviceName('ns')}-q`, header: `${serviceName('ns')}-h`, token: `${serviceName('ns')}-t` };
  for (const ns of Object.values(values)) await control.namespace(ns);
  const nsToken = await tokenFor(kit, ['*'], values.token);
  await kit.property(
    fc.subarray([...SOURCES]),
    async (present) => {
      const query = present.includes('query') ? { ns: values.query } : undefined;
      const headers = present.includes('header') ? kit.mesh.namespaceHeader(values.header) : undefined;
      const token = present.includes('token') ? nsToken : undefined;
      const winner = SOURCES.find((s) => present.includes(s));
      const expected = winner ? values[winner] : 'default';
      const given = present.join(', ') || 'no namespace source';
      const res = await kit.mesh.leaf(serviceName('nsleaf'), { query, headers, token });
      if (present.includes('token') && winner !== 'token' && res.status !== 200) {
        expectRefused(res, `a leaf in ${expected} with a token of namespace ${values.token} (${given})`);
        expect(res.text.includes('PRIVATE KEY'), 'no key is handed out').toBe(false);
        return;
      }
      const leaf = leafOf(kit, res, `leaf with ${given}`);
      expect(leaf.Namespace, `with ${given} given, the namespace is ${expected}`).toBe(expected);
      expect(leaf.ServiceURI, 'and the service identifier is in it').toContain(`/ns/${expected}/`);
    },
    { numRuns: 8, examples: [[], ['query', 'header', 'token'], ['query', 'header'], ['header', 'token'], ['token']] },
  );
});

ruleTest('mesh.ns.authorize-body-precedence', async (kit) => {
  const source = serviceName('src');
  const target = serviceName('dst');
  const client = await clientOf(kit, source);
  const [bodyNs, queryNs, headerNs] = [`${serviceName('ns')}-b`, `${serviceName('ns')}-q`, `${serviceName('ns')}-h`];
  const control = kit.meshFixtures;
  // Upstream (Consul Enterprise) namespaces must exist before intentions name them.
  for (const ns of [bodyNs, queryNs, headerNs]) await control.namespace(ns);
  await control.intention({ source, destination: target, action: 'allow', destination_namespace: bodyNs });
  await control.intention({ source, destination: target, action: 'deny', destination_namespace: queryNs });
  await control.intention({ source, destination: target, action: 'deny', destination_namespace: headerNs });
  const ask = (body: Record<string, unknown>, query?: Record<string, string>, headers?: Record<string, string>) =>
    kit.mesh.authorize({ Target: target, ClientCertURI: client.uri, ClientCertSerial: client.serial, ...body }, { query, headers });
  // A well-formed request is answered with a decision: a refusal of it is a verdict, not a body the rule cannot read.
  const answered = (res: HttpResponse, what: string) => {
    expect(res.status, `${what} is answered 200 with a decision (${res.text.slice(0, 160)})`).toBe(200);
    return expectShape(res, authorizeSchema, 'authorize');
  };
  const all = answered(await ask({ Namespace: bodyNs }, { ns: queryNs }, kit.mesh.namespaceHeader(headerNs)), 'authorize with Namespace in the body, ?ns and the header');
  expect(all.Authorized, 'the body Namespace wins over ?ns and the header (its intention allows)').toBe(true);
  const q = answered(await ask({}, { ns: queryNs }, kit.mesh.namespaceHeader(bodyNs)), 'authorize with ?ns and the header');
  expect(q.Authorized, '?ns wins over the header (its intention denies)').toBe(false);
});

/** Consul's texts for a decision no intention made (agent/agent_endpoint.go AgentConnectAuthorize; agent/connect_auth.go before 1.10). */
const DEFAULT_REASONS = ['Default behavior configured by ACLs', 'Default intention policy', 'ACLs disabled, access is allowed by default'];

ruleTest('mesh.upstream.default-reason', async (kit) => {
  const client = await clientOf(kit, serviceName('src'));
  const body = expectShape(await kit.mesh.authorize({ Target: serviceName('dst'), ClientCertURI: client.uri, ClientCertSerial: client.serial }), authorizeSchema, 'authorize');
  expect(DEFAULT_REASONS, `with no matching intention the Reason "${body.Reason}" is one of Consul's default texts`).toContain(body.Reason);
});

/**
 * Consul's refusal of an authorize body (hashicorp/consul agent/agent_endpoint.go
 * AgentConnectAuthorize, agent/connect_auth.go Agent.ConnectAuthorize at v1.8.7, agent/http.go
 * decodeBody): 400 with the reason, after "Bad request: " where the reason is a BadRequestError
 * (Consul before its HTTPError). `undefined` as text: the decoder's own syntax error, whose words
 * are Go's (the reference's are JavaScript's): only the prefix is asked.
 */
interface RefusalCase {
  what: string;
  /** The body as sent: an object as JSON, a string as is. */
  body: Record<string, unknown> | string;
  /** Consul's reason (hashicorp dialect); the prefix alone where it ends in '…'. */
  text: string;
  /** The word any dialect's refusal names (the field). */
  names: string;
  /** Only where the target's decoder refuses what the spec leaves open (Consul's unknown field, JSON null). */
  consulOnly?: true;
}

const DECODE = 'Request decode failed: ';
const unmarshal = (type: string, field: string) => `${DECODE}json: cannot unmarshal ${type} into Go struct field ConnectAuthorizeRequest.${field} of type string`;
const unmarshalBody = (type: string) => `${DECODE}json: cannot unmarshal ${type} into Go value of type structs.ConnectAuthorizeRequest`;

/** The reason of a 400 answer, without the "Bad request: " of a BadRequestError (Consul before 1.10). */
const reasonOf = (res: HttpResponse) => res.text.trim().replace(/^Bad request: /, '');

ruleTest('mesh.upstream.authorize-refusals', async (kit) => {
  const control = kit.meshFixtures;
  const source = serviceName('src');
  const target = serviceName('dst');
  const client = await clientOf(kit, source);
  const parts = /^spiffe:\/\/([^/]+)(\/ns\/([^/]+)\/dc\/([^/]+)\/svc\/)([^/]+)$/.exec(client.uri);
  expect(parts, `the leaf's ServiceURI ${client.uri} is a SPIFFE service identifier`).not.toBeNull();
  const [, trustDomain, , ns, dc] = parts!;
  const path = `/ns/${ns}/dc/${dc}/svc/${source}`;
  const good = { Target: target, ClientCertURI: client.uri, ClientCertSerial: client.serial };
  const consul = kit.mesh.dialect.name === 'hashicorp';
  if (!consul) kit.note("Consul's texts not asked: the target speaks another dialect; each refusal is asked to be a 400 that names the field");
  const uriCases: [string, string, string][] = [
    ['spiffe URI of no known form', `spiffe://${trustDomain}/foo`, 'Connect'],
    ['service identifier with a character before the scheme', `x${client.uri}`, 'Connect'],
    ['service identifier after a digit', `1${client.uri}`, 'Connect'],
    ['service identifier after a space', ` ${client.uri}`, 'Connect'],
    ['service path after an empty segment', `spiffe://${trustDomain}/${path}`, 'Connect'],
    ['host with no path or dot', 'spiffe://x', 'Connect'],
    ["the trust domain and an empty path", `spiffe://${trustDomain}/`, 'Connect'],
    ['agent identifier with a trailing slash', `spiffe://${trustDomain}/agent/client/dc/${dc}/id/abc/`, 'Connect'],
    ['agent identifier under another segment', `spiffe://${trustDomain}/x/agent/client/dc/${dc}/id/abc`, 'Connect'],
    ['service identifier with a bad escape in the user info', `spiffe://u%zz@x${path}`, 'Connect'],
    ['service identifier with a segment after the service', `${client.uri}/x`, 'Connect'],
    ['service path under another scheme', `http://${trustDomain}${path}`, 'Connect'],
    ['service identifier with a control character', `${client.uri}\u0001`, 'Connect'],
    ['service identifier with a bad escape in the fragment', `${client.uri}#%zz`, 'Connect'],
    ['service identifier with a bad escape at the end of the path', `${client.uri}%`, 'Connect'],
    ['service identifier with an escape of one hex digit', `${client.uri}%4z`, 'Connect'],
    ['service identifier whose host escapes an ASCII letter', `spiffe://x%41${path}`, 'Connect'],
    ['service identifier with a port that is not a number', `spiffe://x:8a${path}`, 'Connect'],
    ['service identifier with an unclosed IP literal', `spiffe://[::1${path}`, 'Connect'],
    ['service identifier with a host character URLs refuse', `spiffe://x^${path}`, 'Connect'],
    ['service identifier with user info URLs refuse', `spiffe://u^@x${path}`, 'Connect'],
    ['opaque spiffe URI', `spiffe:${trustDomain}`, 'Connect'],
    ['spiffe URI whose host starts with a dot', 'spiffe://.consul', 'Connect'],
    ['agent identifier', `spiffe://${trustDomain}/agent/client/dc/${dc}/id/abc`, 'Service'],
    ["the trust domain's signing identifier", `spiffe://${trustDomain}`, 'Service'],
    ['signing identifier with a port and a query', `spiffe://${trustDomain}:8080?q`, 'Service'],
  ];
  const cases: RefusalCase[] = [
    { what: 'an empty body', body: '', text: `${DECODE}EOF`, names: 'EOF', consulOnly: true },
    { what: 'a blank body', body: ' \n', text: `${DECODE}EOF`, names: 'EOF', consulOnly: true },
    { what: 'a body cut short', body: '{"Target":', text: `${DECODE}…`, names: '' },
    { what: 'a JSON null body', body: 'null', text: 'Target service must be specified', names: 'Target', consulOnly: true },
    { what: 'a JSON array body', body: '[]', text: unmarshalBody('array'), names: 'array', consulOnly: true },
    { what: 'a JSON string body', body: '"x"', text: unmarshalBody('string'), names: 'string', consulOnly: true },
    { what: 'a JSON number body', body: '12', text: unmarshalBody('number'), names: 'number', consulOnly: true },
    { what: 'a JSON boolean body', body: 'true', text: unmarshalBody('bool'), names: 'bool', consulOnly: true },
    { what: 'a number as Target', body: { ...good, Target: 1 }, text: unmarshal('number', 'Target'), names: 'Target' },
    { what: 'a boolean as Target', body: { ...good, Target: true }, text: unmarshal('bool', 'Target'), names: 'Target' },
    { what: 'an array as Target', body: { ...good, Target: [target] }, text: unmarshal('array', 'Target'), names: 'Target' },
    { what: 'an object as Target', body: { ...good, Target: {} }, text: unmarshal('object', 'Target'), names: 'Target' },
    { what: 'a number as ClientCertURI', body: { ...good, ClientCertURI: 5 }, text: unmarshal('number', 'ClientCertURI'), names: 'ClientCertURI' },
    { what: 'a number as ClientCertSerial', body: { ...good, ClientCertSerial: 5 }, text: unmarshal('number', 'ClientCertSerial'), names: 'ClientCertSerial' },
    { what: 'a number as Target, named in lower case', body: { target: 1, ClientCertURI: client.uri }, text: unmarshal('number', 'Target'), names: 'Target', consulOnly: true },
    { what: 'an unknown field', body: { ...good, Bogus: 1 }, text: `${DECODE}json: unknown field "Bogus"`, names: 'Bogus', consulOnly: true },
    { what: 'null as Target', body: { ...good, Target: null }, text: 'Target service must be specified', names: 'Target', consulOnly: true },
    { what: 'no Target', body: { ClientCertURI: client.uri, ClientCertSerial: client.serial }, text: 'Target service must be specified', names: 'Target' },
    { what: 'an empty Target', body: { ...good, Target: '' }, text: 'Target service must be specified', names: 'Target' },
    { what: 'no ClientCertURI', body: { Target: target, ClientCertSerial: client.serial }, text: 'ClientCertURI not a valid Connect identifier', names: 'ClientCertURI' },
    ...uriCases.map(([what, uri, kind]): RefusalCase => ({ what: `a ClientCertURI that is a ${what} (${JSON.stringify(uri)})`, body: { ...good, ClientCertURI: uri }, text: `ClientCertURI not a valid ${kind} identifier`, names: 'ClientCertURI' })),
  ];
  for (const c of cases) {
    if (c.consulOnly && !consul) continue;
    const res = typeof c.body === 'string'
      ? await kit.mesh.http.request({ method: 'POST', path: '/v1/agent/connect/authorize', body: c.body, headers: { 'content-type': 'application/json' } })
      : await kit.mesh.authorize(c.body);
    expect(res.status, `authorize with ${c.what} is refused with 400 (got ${res.status}: ${res.text.slice(0, 160)})`).toBe(400);
    if (!consul) expect(res.text, `the refusal of authorize with ${c.what} names ${c.names}`).toContain(c.names);
    else if (c.text.endsWith('…')) {
      expect(reasonOf(res), `the refusal of authorize with ${c.what}`).toMatch(new RegExp(`^${c.text.slice(0, -1)}\\S`));
      expect(reasonOf(res), `the refusal of authorize with ${c.what} is a syntax error, not a decoded value's`).not.toMatch(/json: (cannot unmarshal|unknown field)/);
    }
    else expect(reasonOf(res), `the refusal of authorize with ${c.what} is Consul's`).toBe(c.text);
  }
  // What Consul's URL parsing accepts as the same service: field names in any case, the scheme in
  // any case, a query and a fragment, no host, user info and a port, and the service's name and
  // namespace %-escaped. The source is known by the decision: an intention gives the connection the
  // answer no uncovered connection gets.
  const fresh = await clientOf(kit, serviceName('src'));
  const noMatch = expectShape(await kit.mesh.authorize({ ...good, ClientCertURI: fresh.uri }), authorizeSchema, 'authorize of an uncovered connection').Authorized;
  await control.intention({ source, destination: target, action: noMatch ? 'deny' : 'allow' });
  // A source whose name ends in a non-ASCII letter: its UTF-8 bytes %-escaped, or written as they are.
  const accented = `${source}-é`;
  await control.intention({ source: accented, destination: target, action: noMatch ? 'deny' : 'allow' });
  const escaped = (s: string) => `${s.slice(0, -1)}%${s.charCodeAt(s.length - 1).toString(16)}`;
  const accepted: [string, Record<string, unknown>][] = [
    ['the scheme in upper case, a query and a fragment', { ...good, ClientCertURI: `SPIFFE://${trustDomain}${path}?a=b#f` }],
    ['no host', { ...good, ClientCertURI: `spiffe:${path}` }],
    ['user info, an IP literal host and a port', { ...good, ClientCertURI: `spiffe://u:p@[::1]:80${path}` }],
    ['an IP literal host', { ...good, ClientCertURI: `spiffe://[::1]${path}` }],
    ['a host with an escaped "%" and an escaped non-ASCII byte', { ...good, ClientCertURI: `spiffe://x%25%C3${path}` }],
    ['a bad escape in the query', { ...good, ClientCertURI: `${client.uri}?%zz` }],
    ['a query ending in "%" before a fragment', { ...good, ClientCertURI: `${client.uri}?a%#f` }],
    ['a fragment alone', { ...good, ClientCertURI: `${client.uri}#f` }],
    ["a service name's non-ASCII letter as %-escaped UTF-8", { ...good, ClientCertURI: `spiffe://${trustDomain}/ns/${ns}/dc/${dc}/svc/${source}-%C3%A9` }],
    ["a service name's non-ASCII letter as written", { ...good, ClientCertURI: `spiffe://${trustDomain}/ns/${ns}/dc/${dc}/svc/${accented}` }],
    ["the service's and namespace's last letters %-escaped", { ...good, ClientCertURI: `spiffe://${trustDomain}/ns/${escaped(ns!)}/dc/${dc}/svc/${escaped(source)}` }],
  ];
  if (consul) accepted.unshift(['the fields named in lower case', { target, clientcerturi: client.uri, clientcertserial: client.serial }]);
  for (const [what, body] of accepted) {
    const res = await kit.mesh.authorize(body);
    expect(res.status, `authorize with ${what} is answered (got ${res.status}: ${res.text.slice(0, 160)})`).toBe(200);
    const decided = expectShape(res, authorizeSchema, `authorize with ${what}`);
    expect(decided.Authorized, `authorize with ${what} is decided by the ${noMatch ? 'deny' : 'allow'} intention from ${source} (Reason: ${decided.Reason})`).toBe(!noMatch);
  }
});
