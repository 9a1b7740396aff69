import fc from 'fast-check';
import type { DiffEndpoint, Prepare, RequestTemplate, SymbolicRequest, TokenChoice } from '../request-template.ts';
import { fixed, fixtureToken, generated, MANAGEMENT, NO_TOKEN, notAString, tokenClasses, unknownField, unknownName, WRONG_TOKEN } from './catalog-kit.ts';

/**
 * The endpoints of spec 000 (core conventions, key-value engine, OIDC provider, cloud-identity auth
 * method) that the hashicorp dialect serves, and the requests the diff sends to each. Fixture
 * symbols (src/diff/fixtures/secrets.ts): `kv1`, `kv2` (the run's key-value mounts) with key `key`;
 * `scope`, `assignment`, `client` (its `clientId`, and `basic`, its Basic credentials), `provider`;
 * `redirectUri`; `cloudauth` and `role` (a cloud-identity mount of the run, where the target has the
 * plugin). Token: `tokEntity`, an identity entity's own token. Generated names of things a request
 * creates carry the run prefix, so the sweep removes them.
 */

const req = (method: string, path: string, extra: Partial<SymbolicRequest> = {}): SymbolicRequest => ({ method, path, token: MANAGEMENT, ...extra });
/** A name for something a request makes: under the run prefix. */
const newName = unknownName.map((n) => `@{prefix}-${n}`);

/** The OIDC configuration resources: what a write takes, and a wrong-typed field of it. */
const RESOURCES = {
  provider: { body: { allowed_client_ids: ['@{clientId}'], scopes_supported: ['@{scope}'] }, wrongTyped: 'scopes_supported', statements: ['secrets.oidc.configured-by-four-resources'] },
  scope: { body: { template: '{"username":{{identity.entity.name}}}', description: 'stackproof diff' }, wrongTyped: 'template', statements: ['secrets.oidc.configured-by-four-resources'] },
  client: { body: { key: 'default', redirect_uris: ['@{redirectUri}'], assignments: ['@{assignment}'], id_token_ttl: '30m', access_token_ttl: '1h' }, wrongTyped: 'redirect_uris', statements: ['secrets.oidc.configured-by-four-resources'] },
  assignment: { body: { entity_ids: ['@{entityId}'], group_ids: [] }, wrongTyped: 'entity_ids', statements: ['secrets.oidc.configured-by-four-resources'] },
} as const;

type Resource = keyof typeof RESOURCES;

/** Write, read, list and delete of one OIDC configuration resource. */
function oidcResource(kind: Resource): DiffEndpoint[] {
  const r = RESOURCES[kind];
  const base = `/v1/identity/oidc/${kind}`;
  const existing = `${base}/@{${kind}}`;
  const wrong = fc.oneof(fc.integer(), fc.constant({ a: 1 }), fc.boolean());
  const write: RequestTemplate<any>[] = [
    generated('ok', `a new ${kind}`, newName, (n) => req('POST', `${base}/${n}`, { json: r.body })),
    generated('unknown-field', 'a field the write does not take', unknownField, (f) => req('POST', `${base}/@{prefix}-uf`, { json: { ...r.body, [f]: 'x' } })),
    generated('wrong-type', `${r.wrongTyped} of the wrong type`, wrong, (v) => req('POST', `${base}/@{prefix}-wt`, { json: { ...r.body, [r.wrongTyped]: v } })),
    fixed('wrong-type', 'a body that is not JSON', req('POST', `${base}/@{prefix}-nj`, { body: `{"${r.wrongTyped}":`, headers: { 'content-type': 'application/json' } })),
    fixed('bad-value', 'a name ending in a period', req('POST', `${base}/@{prefix}-dot.`, { json: r.body }), { stated: { status: [404], statement: 'secrets.core.trailing-period' } }),
    ...tokenClasses(req('POST', `${base}/@{prefix}-tok`, { json: r.body }), { symbol: 'tokEntity', what: "an entity's token with the default policy" }),
  ];
  if (kind === 'provider') write.push(fixed('bad-value', 'a scope that does not exist', req('POST', `${base}/@{prefix}-bs`, { json: { ...r.body, scopes_supported: ['@{prefix}-nosuch'] } })));
  if (kind === 'client') {
    write.push(fixed('bad-value', 'a key that does not exist', req('POST', `${base}/@{prefix}-bk`, { json: { ...r.body, key: '@{prefix}-nokey' } })));
    write.push(fixed('bad-value', 'a client_type neither confidential nor public', req('POST', `${base}/@{prefix}-bt`, { json: { ...r.body, client_type: 'secret' } })));
  }
  if (kind === 'scope') write.push(fixed('bad-value', "the reserved name 'openid'", req('POST', `${base}/openid`, { json: r.body })));
  return [
    { system: 'secrets', method: 'POST', path: `/v1/identity/oidc/${kind}/:name`, statements: [...r.statements, 'secrets.core.success-status'], requests: write },
    {
      system: 'secrets',
      method: 'GET',
      path: `/v1/identity/oidc/${kind}/:name`,
      statements: [...r.statements],
      requests: [
        fixed('ok', `the run's ${kind}`, req('GET', existing)),
        generated('unknown-name', `a ${kind} that does not exist`, unknownName, (n) => req('GET', `${base}/${n}`)),
        fixed('bad-value', 'its name with a period at the end', req('GET', `${existing}.`), { stated: { status: [404], statement: 'secrets.core.trailing-period' } }),
        ...tokenClasses(req('GET', existing), { symbol: 'tokEntity', what: "an entity's token with the default policy" }),
        fixed('wrong-method', 'PATCH', req('PATCH', existing, { json: {} })),
      ],
    },
    {
      system: 'secrets',
      method: 'LIST',
      path: `/v1/identity/oidc/${kind}`,
      statements: ['secrets.core.list-result', 'secrets.core.list-route'],
      requests: [
        fixed('ok', 'the LIST method', req('LIST', base)),
        fixed('ok', 'GET with list=true', req('GET', base, { query: { list: 'true' } })),
        ...tokenClasses(req('LIST', base), { symbol: 'tokEntity', what: "an entity's token with the default policy" }),
      ],
    },
    {
      system: 'secrets',
      method: 'DELETE',
      path: `/v1/identity/oidc/${kind}/:name`,
      statements: ['secrets.core.success-status'],
      requests: [
        generated('ok', `a ${kind} that does not exist`, unknownName, (n) => req('DELETE', `${base}/@{prefix}-${n}`)),
        ...tokenClasses(req('DELETE', `${base}/@{prefix}-gone`), { symbol: 'tokEntity', what: "an entity's token with the default policy" }),
      ],
    },
  ];
}

const authorizeQuery = { client_id: '@{clientId}', scope: 'openid @{scope}', response_type: 'code', redirect_uri: '@{redirectUri}', state: 'st-diff', nonce: 'n-diff' };
const authorize = (query: Record<string, string>, token: TokenChoice = fixtureToken('tokEntity')): SymbolicRequest => ({ method: 'GET', path: '/v1/identity/oidc/provider/@{provider}/authorize', query, token });
const without = (o: Record<string, string>, k: string) => Object.fromEntries(Object.entries(o).filter(([x]) => x !== k));

/** A fresh authorization code of this target (each is good once), as `code`. */
const freshCode: Prepare = async ({ send }) => {
  const res = await send(authorize(authorizeQuery));
  const code = (JSON.parse(res.text) as { code?: string }).code;
  if (res.status !== 200 || !code) throw new Error(`authorize answered ${res.status} ${res.text.slice(0, 200)}`);
  return { code };
};

/** A fresh access token of this target, as `accessToken`. */
const freshAccessToken: Prepare = async (ctx) => {
  const { code } = await freshCode(ctx);
  const res = await ctx.send(tokenRequest({ code: code!, grant_type: 'authorization_code', redirect_uri: '@{redirectUri}' }));
  const accessToken = (JSON.parse(res.text) as { access_token?: string }).access_token;
  if (res.status !== 200 || !accessToken) throw new Error(`token answered ${res.status} ${res.text.slice(0, 200)}`);
  return { accessToken };
};

/** A token request; `basic` null sends no Authorization header at all. */
const tokenRequest = (form: Record<string, string>, basic: string | null = 'Basic @{basic}'): SymbolicRequest => ({
  method: 'POST',
  path: '/v1/identity/oidc/provider/@{provider}/token',
  form,
  ...(basic ? { headers: { authorization: basic } } : {}),
  token: NO_TOKEN,
});
const goodForm = { code: '@{code}', grant_type: 'authorization_code', redirect_uri: '@{redirectUri}' };

const OIDC_FLOW: DiffEndpoint[] = [
  {
    system: 'secrets',
    method: 'GET',
    path: '/v1/identity/oidc/provider/:name/.well-known/openid-configuration',
    statements: ['secrets.oidc.issues-tokens-by-code-flow'],
    requests: [
      fixed('ok', "the run's provider, without a token", req('GET', '/v1/identity/oidc/provider/@{provider}/.well-known/openid-configuration', { token: NO_TOKEN })),
      generated('unknown-name', 'a provider that does not exist', unknownName, (n) => req('GET', `/v1/identity/oidc/provider/${n}/.well-known/openid-configuration`, { token: NO_TOKEN })),
      fixed('bad-value', 'its name with a period at the end', req('GET', '/v1/identity/oidc/provider/@{provider}./.well-known/openid-configuration', { token: NO_TOKEN }), { stated: { status: [404], statement: 'secrets.core.trailing-period' } }),
      fixed('wrong-token', 'a token the target never issued', req('GET', '/v1/identity/oidc/provider/@{provider}/.well-known/openid-configuration', { token: WRONG_TOKEN })),
    ],
  },
  {
    system: 'secrets',
    method: 'GET',
    path: '/v1/identity/oidc/provider/:name/.well-known/keys',
    statements: ['secrets.oidc.issues-tokens-by-code-flow'],
    requests: [
      fixed('ok', "the run's provider, without a token", req('GET', '/v1/identity/oidc/provider/@{provider}/.well-known/keys', { token: NO_TOKEN })),
      generated('unknown-name', 'a provider that does not exist', unknownName, (n) => req('GET', `/v1/identity/oidc/provider/${n}/.well-known/keys`, { token: NO_TOKEN })),
    ],
  },
  {
    system: 'secrets',
    method: 'GET',
    path: '/v1/identity/oidc/provider/:name/authorize',
    statements: ['secrets.oidc.authorize-with-client-token'],
    requests: [
      fixed('ok', "the entity's token asks for a code", authorize(authorizeQuery)),
      fixed('ok', 'POST with a form', { method: 'POST', path: '/v1/identity/oidc/provider/@{provider}/authorize', json: authorizeQuery, token: fixtureToken('tokEntity') }),
      ...(['scope', 'response_type', 'client_id', 'redirect_uri'] as const).map((k) => fixed('missing-field', `no ${k}`, authorize(without(authorizeQuery, k)))),
      fixed('bad-value', "a scope without 'openid'", authorize({ ...authorizeQuery, scope: '@{scope}' })),
      fixed('bad-value', "a response_type other than 'code'", authorize({ ...authorizeQuery, response_type: 'token' })),
      fixed('bad-value', 'a redirect_uri the client does not have', authorize({ ...authorizeQuery, redirect_uri: 'https://elsewhere.example.com/cb' })),
      fixed('bad-value', 'a code_challenge_method neither plain nor S256', authorize({ ...authorizeQuery, code_challenge: 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG', code_challenge_method: 'S512' })),
      fixed('wrong-type', 'a max_age that is not an integer', authorize({ ...authorizeQuery, max_age: 'soon' })),
      generated('unknown-name', 'a client_id no client has', unknownName, (n) => authorize({ ...authorizeQuery, client_id: n })),
      generated('unknown-name', 'a provider that does not exist', unknownName, (n) => ({ ...authorize(authorizeQuery), path: `/v1/identity/oidc/provider/${n}/authorize` })),
      fixed('forbidden', 'the management token (it has no identity entity)', authorize(authorizeQuery, MANAGEMENT)),
      fixed('no-token', 'no token', authorize(authorizeQuery, NO_TOKEN)),
      fixed('wrong-token', 'a token the target never issued', authorize(authorizeQuery, WRONG_TOKEN)),
    ],
  },
  {
    system: 'secrets',
    method: 'POST',
    path: '/v1/identity/oidc/provider/:name/token',
    statements: ['secrets.oidc.token-endpoint-authenticates-client'],
    requests: [
      fixed('ok', 'a fresh code, client_secret_basic', tokenRequest(goodForm), { prepare: freshCode }),
      ...(['code', 'grant_type', 'redirect_uri'] as const).map((k) => fixed('missing-field', `no ${k}`, tokenRequest(without(goodForm, k)), { prepare: freshCode })),
      generated('bad-value', 'a code the target never issued', unknownName, (c) => tokenRequest({ ...goodForm, code: c })),
      fixed('bad-value', "a grant_type other than 'authorization_code'", tokenRequest({ ...goodForm, grant_type: 'client_credentials' }), { prepare: freshCode }),
      fixed('bad-value', 'a redirect_uri other than the one the code was issued for', tokenRequest({ ...goodForm, redirect_uri: 'https://elsewhere.example.com/cb' }), { prepare: freshCode }),
      fixed('no-token', 'no client authentication', tokenRequest(goodForm, null), { prepare: freshCode }),
      fixed('wrong-token', 'a wrong client secret', tokenRequest(goodForm, 'Basic @{wrongBasic}'), {
        prepare: async (ctx) => ({ ...(await freshCode(ctx)), wrongBasic: Buffer.from(`${ctx.symbols.clientId}:not-the-secret`).toString('base64') }),
      }),
      fixed('wrong-method', 'GET', { method: 'GET', path: '/v1/identity/oidc/provider/@{provider}/token', token: NO_TOKEN }),
    ],
  },
  {
    system: 'secrets',
    method: 'POST',
    path: '/v1/identity/oidc/provider/:name/userinfo',
    statements: ['secrets.oidc.userinfo-needs-access-token'],
    requests: [
      fixed('ok', 'the access token', { method: 'POST', path: '/v1/identity/oidc/provider/@{provider}/userinfo', headers: { authorization: 'Bearer @{accessToken}' }, token: NO_TOKEN }, { prepare: freshAccessToken }),
      fixed('ok', 'the access token, with GET', { method: 'GET', path: '/v1/identity/oidc/provider/@{provider}/userinfo', headers: { authorization: 'Bearer @{accessToken}' }, token: NO_TOKEN }, { prepare: freshAccessToken }),
      fixed('no-token', 'no token', { method: 'POST', path: '/v1/identity/oidc/provider/@{provider}/userinfo', token: NO_TOKEN }),
      fixed('wrong-token', 'a made-up bearer token', { method: 'POST', path: '/v1/identity/oidc/provider/@{provider}/userinfo', headers: { authorization: 'Bearer not.a.token' }, token: NO_TOKEN }),
      fixed('forbidden', "the entity's client token, not an access token", { method: 'POST', path: '/v1/identity/oidc/provider/@{provider}/userinfo', token: fixtureToken('tokEntity') }),
    ],
  },
];

const KV: DiffEndpoint[] = [
  {
    system: 'secrets',
    method: 'GET',
    path: '/v1/secret/<key>',
    statements: ['secrets.kv.v1-read', 'secrets.core.kv-at-secret', 'secrets.ns.relative-to-header', 'secrets.ns.effective-path'],
    requests: [
      fixed('ok', "a version 1 key of the run's mount", req('GET', '/v1/@{kv1}/@{key}')),
      generated('unknown-name', 'a key that does not exist', unknownName, (n) => req('GET', `/v1/@{kv1}/${n}`)),
      ...tokenClasses(req('GET', '/v1/@{kv1}/@{key}'), { symbol: 'tokEntity', what: "an entity's token with the default policy" }),
      fixed('ok', 'a version 2 key', req('GET', '/v1/@{kv2}/data/@{key}')),
      generated('unknown-name', 'a version 2 key that does not exist', unknownName, (n) => req('GET', `/v1/@{kv2}/data/${n}`)),
      fixed('bad-value', 'a version 2 key read at its bare path', req('GET', '/v1/@{kv2}/@{key}')),
      fixed('ok', 'a key in the namespace named by the namespace header', req('GET', '/v1/@{kv1}/@{key}', { headers: { 'X-Vault-Namespace': '@{ns}' } }), { needs: ['ns'] }),
      fixed('ok', 'the same key by its full path, no header', req('GET', '/v1/@{ns}@{kv1}/@{key}'), { needs: ['ns'] }),
      fixed('unknown-name', 'a namespace that does not exist', req('GET', '/v1/@{kv1}/@{key}', { headers: { 'X-Vault-Namespace': '@{prefix}-nons/' } }), { needs: ['ns'] }),
      // Vault's storage refuses a key holding '..' (sdk/logical/storage_view.go SanityCheck); a URL's own '..' segments a client collapses.
      fixed('path-escape', "a version 1 key holding '..'", req('GET', '/v1/@{kv1}/@{prefix}-a..b')),
      fixed('path-escape', "a version 2 key holding '..'", req('GET', '/v1/@{kv2}/data/@{prefix}-a..b')),
    ],
  },
  {
    system: 'secrets',
    method: 'POST',
    path: '/v1/secret/<key>',
    statements: ['secrets.kv.v2-data-path', 'secrets.core.verbs', 'secrets.core.write-route', 'secrets.core.success-status'],
    requests: [
      generated('ok', 'a version 1 key', newName, (n) => req('POST', `/v1/@{kv1}/${n}`, { json: { value: 'x' } })),
      generated('ok', 'a version 1 key with PUT', newName, (n) => req('PUT', `/v1/@{kv1}/${n}`, { json: { value: 'x' } })),
      fixed('wrong-type', 'a version 1 body that is a JSON array', req('POST', '/v1/@{kv1}/@{prefix}-arr', { json: ['x'] })),
      fixed('wrong-type', 'a body that is not JSON', req('POST', '/v1/@{kv1}/@{prefix}-nj', { body: '{"value":', headers: { 'content-type': 'application/json' } })),
      generated('ok', 'a version 2 key', newName, (n) => req('POST', `/v1/@{kv2}/data/${n}`, { json: { data: { value: 'x' } } })),
      fixed('missing-field', 'a version 2 write without data', req('POST', '/v1/@{kv2}/data/@{prefix}-nd', { json: { value: 'x' } })),
      generated('wrong-type', 'version 2 data that is not an object', notAString.filter((v) => !Array.isArray(v) && typeof v !== 'object'), (v) => req('POST', '/v1/@{kv2}/data/@{prefix}-wt', { json: { data: v } })),
      fixed('bad-value', 'a check-and-set version that is not the current one', req('POST', '/v1/@{kv2}/data/@{key}', { json: { data: { value: 'y' }, options: { cas: 99 } } })),
      fixed('path-escape', "a version 1 key holding '..'", req('POST', '/v1/@{kv1}/@{prefix}-a..b', { json: { value: 'x' } })),
      ...tokenClasses(req('POST', '/v1/@{kv1}/@{prefix}-tok', { json: { value: 'x' } }), { symbol: 'tokEntity', what: "an entity's token with the default policy" }),
    ],
  },
  {
    system: 'secrets',
    method: 'LIST',
    path: '/v1/secret/<dir>/',
    statements: ['secrets.kv.v1-list-directories', 'secrets.core.list-result', 'secrets.core.list-route'],
    requests: [
      fixed('ok', "the run's version 1 mount", req('LIST', '/v1/@{kv1}/')),
      fixed('ok', 'GET with list=true', req('GET', '/v1/@{kv1}/', { query: { list: 'true' } })),
      generated('unknown-name', 'a directory that does not exist (an empty list)', unknownName, (n) => req('LIST', `/v1/@{kv1}/${n}/`)),
      fixed('ok', "the version 2 mount's metadata", req('LIST', '/v1/@{kv2}/metadata/')),
      fixed('path-escape', "a version 1 directory holding '..'", req('LIST', '/v1/@{kv1}/@{prefix}-a..b/')),
      ...tokenClasses(req('LIST', '/v1/@{kv1}/'), { symbol: 'tokEntity', what: "an entity's token with the default policy" }),
    ],
  },
  {
    system: 'secrets',
    method: 'DELETE',
    path: '/v1/secret/<key>',
    statements: ['secrets.core.verbs', 'secrets.core.success-status'],
    requests: [
      generated('ok', 'a version 1 key that does not exist', unknownName, (n) => req('DELETE', `/v1/@{kv1}/@{prefix}-${n}`)),
      fixed('path-escape', "a version 1 key holding '..'", req('DELETE', '/v1/@{kv1}/@{prefix}-a..b')),
      ...tokenClasses(req('DELETE', '/v1/@{kv1}/@{prefix}-gone'), { symbol: 'tokEntity', what: "an entity's token with the default policy" }),
    ],
  },
  {
    system: 'secrets',
    method: 'GET',
    path: '/v1/<any path>?help=1',
    statements: ['secrets.core.help', 'secrets.core.help-route'],
    requests: [
      fixed('ok', "the run's version 1 mount", req('GET', '/v1/@{kv1}/@{key}', { query: { help: '1' } })),
      fixed('ok', 'an OIDC provider', req('GET', '/v1/identity/oidc/provider/@{provider}', { query: { help: '1' } })),
      fixed('no-token', 'no token', req('GET', '/v1/@{kv1}/@{key}', { query: { help: '1' }, token: NO_TOKEN })),
      fixed('forbidden', "an entity's token with the default policy", req('GET', '/v1/@{kv1}/@{key}', { query: { help: '1' }, token: fixtureToken('tokEntity') })),
      generated('unknown-name', 'a path no mount serves', unknownName, (n) => req('GET', `/v1/${n}/x`, { query: { help: '1' } })),
    ],
  },
];

const cloud = (method: string, path: string, extra: Partial<SymbolicRequest> = {}) => req(method, `/v1/auth/@{cloudauth}${path}`, extra);
const roleBody = { bound_subscription_ids: ['sub-1'], bound_resource_groups: ['rg-1'], token_policies: ['default'], token_ttl: '1h' };

const CLOUD: DiffEndpoint[] = [
  {
    system: 'secrets',
    method: 'POST',
    path: '/v1/auth/cloudauth/config',
    needs: ['cloudauth'],
    statements: ['secrets.cloudauth.config-write', 'secrets.cloudauth.config-tenant-id', 'secrets.cloudauth.config-resource', 'secrets.cloudauth.config-environment-allowed'],
    requests: [
      fixed('ok', 'a tenant and a resource', cloud('POST', '/config', { json: { tenant_id: '11111111-2222-3333-4444-555555555555', resource: 'https://management.example.com/' } })),
      fixed('bad-value', 'an environment that is not one of the four', cloud('POST', '/config', { json: { tenant_id: '11111111-2222-3333-4444-555555555555', resource: 'https://management.example.com/', environment: 'CloudMars' } })),
      generated('wrong-type', 'tenant_id not a string', fc.constantFrom<unknown>({ a: 1 }, [1, 2], true), (v) => cloud('POST', '/config', { json: { tenant_id: v, resource: 'https://management.example.com/' } })),
      generated('unknown-field', 'a field the config does not take', unknownField, (f) => cloud('POST', '/config', { json: { tenant_id: '11111111-2222-3333-4444-555555555555', resource: 'https://management.example.com/', [f]: 'x' } })),
      ...tokenClasses(cloud('POST', '/config', { json: { tenant_id: 't', resource: 'r' } }), { symbol: 'tokEntity', what: "an entity's token with the default policy" }),
    ],
  },
  {
    system: 'secrets',
    method: 'GET',
    path: '/v1/auth/cloudauth/config',
    needs: ['cloudauth'],
    statements: ['secrets.cloudauth.config-read'],
    requests: [fixed('ok', 'the config', cloud('GET', '/config')), ...tokenClasses(cloud('GET', '/config'), { symbol: 'tokEntity', what: "an entity's token with the default policy" })],
  },
  {
    system: 'secrets',
    method: 'POST',
    path: '/v1/auth/cloudauth/role/:name',
    needs: ['cloudauth'],
    statements: ['secrets.cloudauth.role-write', 'secrets.cloudauth.role-token-ttl', 'secrets.cloudauth.role-token-type', 'secrets.cloudauth.role-token-policies'],
    requests: [
      generated('ok', 'a new role', newName, (n) => cloud('POST', `/role/${n}`, { json: roleBody })),
      generated('wrong-type', 'a token_ttl that is not a duration', fc.constantFrom<unknown>('soon', { a: 1 }, [1]), (v) => cloud('POST', '/role/@{prefix}-wt', { json: { ...roleBody, token_ttl: v } })),
      fixed('bad-value', "a token_type that is not 'service', 'batch' or 'default'", cloud('POST', '/role/@{prefix}-bt', { json: { ...roleBody, token_type: 'forever' } })),
      fixed('bad-value', 'a role bound to nothing', cloud('POST', '/role/@{prefix}-nb', { json: { token_policies: ['default'] } })),
      fixed('bad-value', 'a name ending in a period', cloud('POST', '/role/@{prefix}-dot.', { json: roleBody }), { stated: { status: [404], statement: 'secrets.core.trailing-period' } }),
      generated('unknown-field', 'a field the role does not take', unknownField, (f) => cloud('POST', '/role/@{prefix}-uf', { json: { ...roleBody, [f]: 'x' } })),
      ...tokenClasses(cloud('POST', '/role/@{prefix}-tok', { json: roleBody }), { symbol: 'tokEntity', what: "an entity's token with the default policy" }),
    ],
  },
  {
    system: 'secrets',
    method: 'GET',
    path: '/v1/auth/cloudauth/role/:name',
    needs: ['cloudauth'],
    statements: ['secrets.cloudauth.role-read'],
    requests: [
      fixed('ok', "the run's role", cloud('GET', '/role/@{role}')),
      generated('unknown-name', 'a role that does not exist', unknownName, (n) => cloud('GET', `/role/${n}`)),
      fixed('ok', 'the roles, listed', cloud('LIST', '/role')),
      ...tokenClasses(cloud('GET', '/role/@{role}'), { symbol: 'tokEntity', what: "an entity's token with the default policy" }),
    ],
  },
  {
    system: 'secrets',
    method: 'POST',
    path: '/v1/auth/cloudauth/login',
    needs: ['cloudauth'],
    statements: ['secrets.cloudauth.login', 'secrets.cloudauth.login-role-field', 'secrets.cloudauth.login-jwt-field', 'secrets.cloudauth.login-no-token'],
    // Only refusals a server decides without asking the cloud: a JWT's signature is checked
    // against the cloud's keys, which a real server here cannot reach.
    requests: [
      fixed('missing-field', 'no role', cloud('POST', '/login', { json: { jwt: 'e30.e30.sig', subscription_id: 'sub-1', resource_group_name: 'rg-1' }, token: NO_TOKEN })),
      fixed('missing-field', 'no jwt', cloud('POST', '/login', { json: { role: '@{role}', subscription_id: 'sub-1', resource_group_name: 'rg-1' }, token: NO_TOKEN })),
      generated('unknown-name', 'a role that does not exist', unknownName, (n) => cloud('POST', '/login', { json: { role: n, jwt: 'e30.e30.sig', subscription_id: 'sub-1', resource_group_name: 'rg-1' }, token: NO_TOKEN })),
      fixed('wrong-type', 'a role that is not a string', cloud('POST', '/login', { json: { role: { a: 1 }, jwt: 'e30.e30.sig' }, token: NO_TOKEN })),
    ],
  },
];

export const SECRETS_ENDPOINTS: DiffEndpoint[] = [...KV, ...(['scope', 'assignment', 'client', 'provider'] as const).flatMap(oidcResource), ...OIDC_FLOW, ...CLOUD];
