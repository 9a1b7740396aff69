import fc from 'fast-check';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { expect } from 'vitest';
import { authorizeResponseSchema, clientReadSchema, discoverySchema, jwksSchema, oauthErrorSchema, tokenResponseSchema, userinfoSchema } from '../../src/client/schemas/oidc.ts';
import { expectShape } from '../kit/expect-shape.ts';
import { authorize, codeFlow, codeOf, exchange, expectWritten, s256, setupOidc, uniqueName, verifyIdToken, type OidcSetup } from '../kit/oidc-fixture.ts';
import { SkipRule } from '../kit/rule-kit.ts';
import { concurrently, ruleTest } from '../kit/rule-test.ts';
import { SECRETS_MARGINS, TTL_SEPARATION_S } from '../kit/bounds/secrets.ts';
import { TargetError } from '../../src/client/target-error.ts';
import { expectNotSuccess } from '../kit/refusal.ts';

/** Refused: not 2xx (the spec shows no status per OIDC condition), and no code or token issued. */
function expectRefused(res: { status: number; text: string }, what: string): void {
  expectNotSuccess(res, `${what} is refused`);
  expect(/"(access_token|id_token|code)"\s*:/.test(res.text), `${what}: no code or token is issued`).toBe(false);
}

/** Near misses of a registered URI: each differs from it in one way a lax matcher would forgive. */
const NEAR_MISSES: [string, (u: URL) => string][] = [
  ['trailing slash', (u) => `${u.href}/`],
  ['upper-case path', (u) => u.href.replace(u.pathname, u.pathname.toUpperCase())],
  ['upper-case host', (u) => u.href.replace(u.hostname, u.hostname.toUpperCase())],
  ['extra query parameter', (u) => `${u.href}&extra=1`],
  ['reordered query', (u) => `${u.origin}${u.pathname}?${[...u.searchParams].reverse().map(([k, v]) => `${k}=${v}`).join('&')}`],
  ['other port', (u) => u.href.replace(`:${u.port}`, `:${Number(u.port) + 1}`)],
  ['no port', (u) => u.href.replace(`:${u.port}`, '')],
  ['path prefix', (u) => `${u.origin}${u.pathname.split('/').slice(0, -1).join('/')}${u.search}`],
  ['path extension', (u) => `${u.origin}${u.pathname}/more${u.search}`],
  ['path suffix', (u) => `${u.origin}${u.pathname}x${u.search}`],
  ['fragment', (u) => `${u.href}#frag`],
  ['other scheme', (u) => u.href.replace('https:', 'http:')],
  ['subdomain', (u) => u.href.replace(u.hostname, `evil.${u.hostname}`)],
];

/**
 * Near misses of a registered loopback URI (RFC 8252 native clients): the same exactness. The port
 * ones come last, so that everything else has been judged when they fail: Vault ignores the port
 * of a loopback redirect URI (hashicorp/vault vault/identity_store_oidc_provider_util.go validRedirect).
 */
const LOOPBACK_NEAR_MISSES: [string, (u: URL) => string][] = [
  ['loopback host, trailing slash', (u) => `${u.href}/`],
  ['loopback host, path suffix', (u) => `${u.origin}${u.pathname}x${u.search}`],
  ['loopback host, path prefix', (u) => `${u.origin}${u.pathname.split('/').slice(0, -1).join('/')}${u.search}`],
  ['loopback host, extra query parameter', (u) => `${u.href}&extra=1`],
  ['loopback host, fragment', (u) => `${u.href}#frag`],
  ['loopback host, other scheme', (u) => u.href.replace('http:', 'https:')],
  ['loopback host, other loopback name', (u) => u.href.replace(u.host, u.host.replace(u.hostname, u.hostname === '127.0.0.1' ? 'localhost' : '127.0.0.1'))],
  // A matcher that looks for the scheme anywhere, or strips brackets anywhere in the host, would take these for the loopback URI.
  ['loopback host, a character before the scheme', (u) => `.${u.href}`],
  ['loopback host, "[" inside the host name', (u) => u.href.replace(u.host, u.host.replace(u.hostname, insertMiddle(u.hostname, '[')))],
  ['loopback host, "]" inside the host name', (u) => u.href.replace(u.host, u.host.replace(u.hostname, insertMiddle(u.hostname, ']')))],
];

function insertMiddle(text: string, c: string): string {
  const i = Math.floor(text.length / 2);
  return `${text.slice(0, i)}${c}${text.slice(i)}`;
}
/** The port near misses of a loopback URI, asked last (Vault ignores the port there). */
const LOOPBACK_PORT_MISSES: [string, (u: URL) => string][] = [
  ['loopback host, other port', (u) => u.href.replace(`:${u.port}`, `:${Number(u.port) + 1}`)],
  ['loopback host, no port', (u) => u.href.replace(`:${u.port}`, '')],
];
/**
 * One registered URI per loopback host Vault names (localhost, 127.0.0.1, ::1: hashicorp/vault
 * vault/identity_store_oidc_provider_util.go validRedirect; RFC 8252 section 7.3), each path its own
 * so that no near miss of one is another registered value.
 */
const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];


/** A client TTL in one of the spec's forms, with the seconds it means: up to maxHours. */
const ttlArb = (maxHours: number) => fc.oneof(
  fc.integer({ min: 60, max: maxHours * 3600 }).map((s) => ({ given: s as number | string, seconds: s })),
  fc.tuple(fc.integer({ min: 0, max: maxHours - 1 }), fc.integer({ min: 0, max: 59 })).filter(([h, m]) => h * 60 + m >= 1).map(([h, m]) => ({ given: `${h ? `${h}h` : ''}${m ? `${m}m` : ''}` as number | string, seconds: h * 3600 + m * 60 })),
);

/** A PKCE verifier: 43 to 128 unreserved characters (RFC 7636). */
const verifierArb = fc.stringMatching(/^[A-Za-z0-9\-._~]{43,128}$/);

async function pkceCode(setup: OidcSetup, challenge: string, method?: 'plain' | 'S256'): Promise<string> {
  return codeOf(await authorize(setup, { code_challenge: challenge, code_challenge_method: method }));
}

// No "}}" in the JSON after an expression: Vault's and OpenBao's template parser splits the text
// after each "{{" on "}}" and refuses more than one (sdk/helper/identitytpl PopulateString,
// "unbalanced templating characters"), so the closing braces of nested objects are spaced.
const PROFILE_TEMPLATE = '{"username":{{identity.entity.name}},"contact":{"email":{{identity.entity.metadata.email}},"phone_number":{{identity.entity.metadata.phone_number}} } }';
const GROUPS_TEMPLATE = '{"groups":{{identity.entity.groups.names}}}';

type NoAuth = 'client_id only' | 'empty secret in the form' | 'empty secret in Basic' | 'wrong secret in the form' | 'wrong secret in Basic' | "another client's secret in the form" | "another client's secret in Basic";
const NO_AUTH: NoAuth[] = ['client_id only', 'empty secret in the form', 'empty secret in Basic', 'wrong secret in the form', 'wrong secret in Basic', "another client's secret in the form", "another client's secret in Basic"];

concurrently('side by side: each rule makes its own provider, client, scopes and entity', () => {
  ruleTest('secrets.oidc.access-token-expires', async (kit) => {
    // Short lifetimes keep the rule quick; a host too slow to use the token within one (a loaded
    // machine) gets a longer one, and only when the longest is too short too is there no verdict.
    const lifetimes = [2, 5, 10];
    const attemptWith = async (ttl: number) => {
      const setup = await setupOidc(kit, { accessTokenTtl: ttl });
      const started = performance.now();
      const { token } = await codeFlow(setup);
      expect(token.expires_in, `expires_in says the token lives ${ttl} s`).toBeLessThanOrEqual(ttl);
      const first = await setup.api.userinfo(setup.provider, token.access_token);
      return { ttl, setup, token, first, tookMs: performance.now() - started };
    };
    let attempt = await attemptWith(lifetimes[0]!);
    for (const longer of lifetimes.slice(1)) {
      if (attempt.first.status === 200 || attempt.tookMs < attempt.ttl * 1000) break;
      kit.note(`the code flow and the first userinfo call took ${Math.round(attempt.tookMs)} ms, longer than a ${attempt.ttl} s access_token_ttl: tried again with ${longer} s`);
      attempt = await attemptWith(longer);
    }
    if (attempt.first.status !== 200 && attempt.tookMs >= attempt.ttl * 1000) {
      throw new TargetError('timeout', `the code flow and the first userinfo call took ${Math.round(attempt.tookMs)} ms, longer than the ${attempt.ttl} s access_token_ttl the rule set last (${lifetimes.join(', ')} s tried): the token's refusal then is no verdict`);
    }
    const { ttl, setup, token, first } = attempt;
    expect(first.status, `userinfo takes the access token at once (${first.text.slice(0, 160)})`).toBe(200);
    const pastMs = ttl * 1000 + SECRETS_MARGINS.pastExpiry.ms;
    await new Promise((r) => setTimeout(r, pastMs));
    const late = await setup.api.userinfo(setup.provider, token.access_token);
    expectNotSuccess(late, `userinfo refuses the access token ${pastMs / 1000} s after it was issued with access_token_ttl ${ttl} s`);
    expect(/"sub"\s*:/.test(late.text), 'and returns no claims').toBe(false);
  });

  ruleTest('secrets.oidc.authorize-max-age', async (kit) => {
    const setup = await setupOidc(kit);
    const fresh = kit.fixtures.dynamic;
    // A fresh entity logged in moments ago: a max_age of a minute is well within.
    if (fresh) expect((await authorize(setup, { max_age: '60' })).status, 'max_age=60 moments after the login is met').toBe(200);
    await new Promise((r) => setTimeout(r, SECRETS_MARGINS.pastMaxAge.ms));
    expectRefused(await authorize(setup, { max_age: '1' }), 'authorize with max_age=1 more than 2 s after the login');
    // 1000 s is far more than the seconds since the login, and less than its milliseconds: a unit slip shows.
    if (fresh) expect((await authorize(setup, { max_age: '1000' })).status, 'max_age=1000 a few seconds after the login is met').toBe(200);
    else kit.note("the profile's entities were made beforehand: only the refusal of an exceeded max_age was checked");
  });

  ruleTest('secrets.oidc.discovery-fields', async (kit) => {
    const api = kit.oidc();
    const scope = uniqueName('scope');
    expectWritten(await api.write('scope', scope, { template: '{}' }), 'create a scope');
    const name = uniqueName('provider');
    expectWritten(await api.write('provider', name, { scopes_supported: [scope] }), 'create a provider');
    const doc = expectShape(await api.discovery(name), discoverySchema, 'OpenID configuration');
    for (const field of ['issuer', 'jwks_uri', 'authorization_endpoint', 'token_endpoint', 'userinfo_endpoint'] as const) {
      expect(URL.canParse(doc[field]), `${field} is a URL (${doc[field]})`).toBe(true);
    }
    expect(doc.authorization_endpoint, 'authorization_endpoint is the authorize page of this provider').toMatch(new RegExp(`${name}/authorize$`));
    expect(doc.request_parameter_supported, 'the discovery document says request objects are not supported (request_parameter_supported false)').toBe(false);
    expect(doc.request_uri_parameter_supported, 'the discovery document says request_uri is not supported (request_uri_parameter_supported false)').toBe(false);
    expect(doc.id_token_signing_alg_values_supported.slice().sort()).toEqual(['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'EdDSA'].sort());
    expect(doc.response_types_supported).toEqual(['code']);
    expect(doc.scopes_supported).toContain('openid');
    expect(doc.subject_types_supported).toEqual(['public']);
    expect(doc.grant_types_supported).toEqual(['authorization_code']);
    expect(doc.token_endpoint_auth_methods_supported.slice().sort()).toEqual(['client_secret_basic', 'client_secret_post', 'none']);
  });

  ruleTest('secrets.oidc.discovery-no-token', async (kit) => {
    const name = uniqueName('provider');
    expectWritten(await kit.oidc().write('provider', name, {}), 'create a provider');
    const doc = await kit.oidc().discovery(name, false);
    expect(doc.status, 'the well-known configuration answers 200 without a token').toBe(200);
    expect(doc.exchange.requestHeaders[kit.secrets.dialect.secrets.tokenHeader], 'no token was sent').toBeUndefined();
    const keys = await kit.oidc().keys(name, false);
    expect(keys.status, 'the key set answers 200 without a token').toBe(200);
  });

  ruleTest('secrets.oidc.jwks-fields', async (kit) => {
    // A client first: the key set may hold only the keys of the clients the provider allows, and
    // Vault makes the default key's material when the first client names it (hashicorp/vault
    // vault/identity_store_oidc_provider.go keyIDsReferencedByTargetClientIDs, lazyGenerateDefaultKey).
    const api = kit.oidc();
    const client = uniqueName('client');
    expectWritten(await api.write('client', client, { redirect_uris: [`https://${client}.example.com/cb`] }), 'create a client');
    const read = (await api.read('client', client)).parse(clientReadSchema).data;
    kit.secret(read.client_secret);
    const name = uniqueName('provider');
    expectWritten(await api.write('provider', name, { allowed_client_ids: [read.client_id] }), 'create a provider that allows the client');
    const jwks = expectShape(await api.keys(name), jwksSchema, 'key set');
    for (const key of jwks.keys) {
      expect(key.use, `key ${key.kid}: use is 'sig'`).toBe('sig');
      for (const f of ['n', 'e'] as const) expect(key[f], `key ${key.kid}: ${f} is base64url`).toMatch(/^[A-Za-z0-9_-]+$/);
    }
  });

  ruleTest('secrets.oidc.authorize-code-state', async (kit) => {
    const setup = await setupOidc(kit);
    for (const method of ['GET', 'POST'] as const) {
      const state = `state-${method}-${uniqueName('s')}`;
      const res = await authorize(setup, { state }, method);
      expect(res.status, `authorize by ${method} answers 200: ${res.text.slice(0, 200)}`).toBe(200);
      const body = expectShape(res, authorizeResponseSchema, `authorize by ${method}`);
      expect(body.state, `authorize by ${method} echoes the state`).toBe(state);
    }
  });

  ruleTest('secrets.oidc.authorize-scope-openid', async (kit) => {
    const setup = await setupOidc(kit, { scopes: [{ template: '{}' }] });
    for (const scope of [setup.scopes[0]!, '', 'profile email', 'openidx']) expectRefused(await authorize(setup, { scope }), `authorize with scope "${scope}"`);
    expect((await authorize(setup, { scope: `${setup.scopes[0]} openid` })).status, "with 'openid' anywhere in the list it succeeds").toBe(200);
  });

  ruleTest('secrets.oidc.authorize-response-type-code', async (kit) => {
    const setup = await setupOidc(kit);
    for (const responseType of ['token', 'id_token', 'code id_token', 'CODE']) expectRefused(await authorize(setup, { response_type: responseType }), `authorize with response_type "${responseType}"`);
  });

  ruleTest('secrets.oidc.authorize-unknown-client', async (kit) => {
    const setup = await setupOidc(kit);
    await kit.property(
      fc.stringMatching(/^[A-Za-z0-9]{1,40}$/).filter((id) => id !== setup.client.id),
      async (clientId) => expectRefused(await authorize(setup, { client_id: clientId }), `authorize with the unknown client_id ${clientId}`),
      { numRuns: Math.min(kit.ctx.runs, 10) },
    );
  });

  ruleTest('secrets.oidc.redirect-uri-exact', async (kit) => {
    const registered = `https://app-${uniqueName('r')}.example.com:8443/cb/path?a=1&b=2`;
    const setup = await setupOidc(kit, { redirectUris: [registered] });
    expect((await authorize(setup)).status, 'the registered URI itself is accepted').toBe(200);
    await kit.property(
      fc.constantFrom(...NEAR_MISSES),
      async ([what, miss]) => {
        const uri = miss(new URL(registered));
        expect(uri, `the ${what} near miss differs from the registered URI`).not.toBe(registered);
        expectRefused(await authorize(setup, { redirect_uri: uri }), `authorize with redirect_uri ${uri} (${what})`);
      },
      { numRuns: 0, examples: NEAR_MISSES },
    );
    // The token call must repeat the URI exactly too: a code issued for the registered URI is refused
    // with any near miss of it (each refused exchange may burn the code, so one code per near miss).
    for (const [what, miss] of NEAR_MISSES) {
      const uri = miss(new URL(registered));
      expectRefused(await exchange(setup, codeOf(await authorize(setup)), { redirectUri: uri }), `the token call with redirect_uri ${uri} (${what}) for a code issued for ${registered}`);
    }
    const loopbacks = LOOPBACK_HOSTS.map((host, i) => `http://${host}:8400/cb${i}/${uniqueName('l')}?a=1`);
    // First among the registered values one that is no URI (no scheme, no host; Vault's url.Parse takes
    // it as a path): a matcher that cannot read a registered value must pass over it, not fail.
    const local = await setupOidc(kit, { redirectUris: [`cb-${uniqueName('no-scheme')}`, ...loopbacks] });
    for (const loopback of loopbacks) {
      expect((await authorize(local, { redirect_uri: loopback })).status, `the registered loopback URI ${loopback} itself is accepted`).toBe(200);
      for (const [what, miss] of LOOPBACK_NEAR_MISSES) {
        const uri = miss(new URL(loopback));
        expect(uri, `the ${what} near miss differs from the registered URI`).not.toBe(loopback);
        expectRefused(await authorize(local, { redirect_uri: uri }), `authorize with redirect_uri ${uri} (${what})`);
      }
    }
    // The port near misses of every loopback host, all asked before judging: the spec refuses each.
    // A target that forgives the port for some loopback hosts and not others is not even doing what
    // Vault does (it forgives it for all three), so that fails with a message of its own.
    const portAnswers: { uri: string; what: string; res: { status: number; text: string } }[] = [];
    for (const loopback of loopbacks) {
      for (const [what, miss] of LOOPBACK_PORT_MISSES) {
        const uri = miss(new URL(loopback));
        portAnswers.push({ uri, what, res: await authorize(local, { redirect_uri: uri }) });
      }
    }
    const forgiven = portAnswers.filter((a) => a.res.status >= 200 && a.res.status < 300);
    if (forgiven.length > 0 && forgiven.length < portAnswers.length) {
      expect.fail(`the port of a loopback redirect URI is forgiven for ${forgiven.map((a) => `${a.uri} (${a.what})`).join(', ')} but not for ${portAnswers.filter((a) => !forgiven.includes(a)).map((a) => `${a.uri} (${a.what}, answered ${a.res.status})`).join(', ')}: the spec refuses every one`);
    }
    for (const a of portAnswers) expectRefused(a.res, `authorize with redirect_uri ${a.uri} (${a.what})`);
  });

  ruleTest('secrets.oidc.token-redirect-uri-repeat', async (kit) => {
    const first = `https://${uniqueName('a')}.example.com/cb`;
    const second = `https://${uniqueName('b')}.example.com/cb`;
    const setup = await setupOidc(kit, { redirectUris: [first, second] });
    const code = codeOf(await authorize(setup, { redirect_uri: first }));
    expectRefused(await exchange(setup, code, { redirectUri: second }), 'the token call with another registered redirect_uri');
    const again = codeOf(await authorize(setup, { redirect_uri: first }));
    expect((await exchange(setup, again, { redirectUri: first })).status, 'the token call repeating the redirect_uri succeeds').toBe(200);
  });

  ruleTest('secrets.oidc.token-response', async (kit) => {
    type Ttls = { access?: { given: number | string; seconds: number }; id: { given: number | string; seconds: number } };
    await kit.property(
      // id_token_ttl stays within a day: it may not exceed the default key's verification_ttl (24h in Vault).
      fc.record({ access: fc.option(ttlArb(48), { nil: undefined }), id: ttlArb(24) }).filter((t) => Math.abs((t.access?.seconds ?? 86_400) - t.id.seconds) > TTL_SEPARATION_S),
      async ({ access, id }: Ttls) => {
        const ttl = access?.seconds ?? 86_400;
        const setup = await setupOidc(kit, { accessTokenTtl: access?.given, idTokenTtl: id.given });
        const started = performance.now();
        const { response } = await codeFlow(setup);
        // The product may count expires_in from any moment of the flow: allow what it measurably took, whole seconds up.
        const slackS = Math.ceil((performance.now() - started) / 1000);
        if (slackS >= TTL_SEPARATION_S) throw new TargetError('timeout', `the code flow took ${slackS} s: expires_in can no longer tell access_token_ttl from id_token_ttl, generated ${TTL_SEPARATION_S} s apart`);
        const body = expectShape(response, tokenResponseSchema, 'token response');
        expect(body.token_type, "token_type is 'Bearer'").toBe('Bearer');
        expect(Number.isInteger(body.expires_in) && body.expires_in > 0, 'expires_in is a positive integer number of seconds').toBe(true);
        // expires_in is the access token's lifetime in seconds, and the client's access_token_ttl is that lifetime.
        const given = access === undefined ? 'the default access_token_ttl of 24h' : `access_token_ttl ${JSON.stringify(access.given)}`;
        expect(body.expires_in, `expires_in is ${given} (${ttl} s), not id_token_ttl ${JSON.stringify(id.given)}`).toBeLessThanOrEqual(ttl);
        expect(body.expires_in, `expires_in is ${given} (${ttl} s), less at most the ${slackS} s the flow took`).toBeGreaterThanOrEqual(ttl - slackS);
      },
      {
        numRuns: Math.min(kit.ctx.runs, 4),
        // The corners: a duration string shorter than id_token_ttl, and the 24h default beside a short id_token_ttl.
        examples: [
          { access: { given: '45m', seconds: 2700 }, id: { given: 7200, seconds: 7200 } },
          { access: undefined, id: { given: '30m', seconds: 1800 } },
        ],
      },
    );
  });

  ruleTest('secrets.oidc.id-token-verifies', async (kit) => {
    const setup = await setupOidc(kit);
    const { token } = await codeFlow(setup);
    const claims = await verifyIdToken(setup, token.id_token);
    expect(typeof claims.sub === 'string' && claims.sub.length > 0, 'sub is present').toBe(true);
    expect(typeof claims.iat, 'iat is present').toBe('number');
    expect(claims.exp! > claims.iat!, 'exp is after iat').toBe(true);
    expect(claims.aud, "aud is the client's client_id").toBe(setup.client.id);
  });

  ruleTest('secrets.oidc.id-token-nonce', async (kit) => {
    const setup = await setupOidc(kit);
    await kit.property(
      fc.stringMatching(/^[A-Za-z0-9._~-]{1,64}$/),
      async (nonce) => {
        const { token } = await codeFlow(setup, { nonce });
        expect((await verifyIdToken(setup, token.id_token)).nonce, 'the nonce comes back in the ID token').toBe(nonce);
      },
      { numRuns: Math.min(kit.ctx.runs, 5) },
    );
  });

  ruleTest('secrets.oidc.id-token-ttl', async (kit) => {
    for (const [given, seconds] of [
      ['30m', 1800],
      [600, 600],
    ] as const) {
      const setup = await setupOidc(kit, { idTokenTtl: given });
      const { token } = await codeFlow(setup);
      const claims = decodeJwt(token.id_token);
      expect(claims.exp! - claims.iat!, `id_token_ttl ${given} gives an ID token living ${seconds} s`).toBe(seconds);
    }
  });

  ruleTest('secrets.oidc.code-single-use', async (kit) => {
    const setup = await setupOidc(kit);
    const { code } = await codeFlow(setup);
    expectRefused(await exchange(setup, code), 'a second exchange of the same code');
  });

  ruleTest('secrets.oidc.client-secret-basic', async (kit) => {
    const setup = await setupOidc(kit);
    const res = await exchange(setup, codeOf(await authorize(setup)), { auth: 'basic' });
    expect(res.status, `client_secret_basic works: ${res.text.slice(0, 200)}`).toBe(200);
    expect(res.exchange.requestBody ?? '', 'the secret is not in the form').not.toMatch(/client_secret=/);
    expectRefused(await exchange(setup, codeOf(await authorize(setup)), { auth: 'basic', secret: `${setup.client.secret}x` }), 'client_secret_basic with a wrong secret');
  });

  ruleTest('secrets.oidc.client-secret-post', async (kit) => {
    const setup = await setupOidc(kit);
    const res = await exchange(setup, codeOf(await authorize(setup)), { auth: 'post' });
    expect(res.status, `client_secret_post works: ${res.text.slice(0, 200)}`).toBe(200);
    expect(res.exchange.requestHeaders.authorization, 'no Authorization header was needed').toBeUndefined();
    expectRefused(await exchange(setup, codeOf(await authorize(setup)), { auth: 'post', secret: 'wrong-secret-value' }), 'client_secret_post with a wrong secret');
  });

  ruleTest('secrets.oidc.public-client-none', async (kit) => {
    const setup = await setupOidc(kit, { clientType: 'public' });
    const verifier = `v${'x'.repeat(50)}${uniqueName('v').replace(/[^A-Za-z0-9]/g, '')}`;
    const code = codeOf(await authorize(setup, { code_challenge: s256(verifier), code_challenge_method: 'S256' }));
    const res = await exchange(setup, code, { auth: 'none', verifier });
    expect(res.status, `a public client exchanges with client_id and code_verifier only: ${res.text.slice(0, 200)}`).toBe(200);
    await verifyIdToken(setup, res.parse(tokenResponseSchema).id_token);
  });

  ruleTest('secrets.oidc.grant-type', async (kit) => {
    const setup = await setupOidc(kit);
    for (const grantType of ['client_credentials', 'refresh_token', 'password', 'implicit']) {
      expectRefused(await exchange(setup, codeOf(await authorize(setup)), { grantType }), `grant_type ${grantType}`);
    }
  });

  ruleTest('secrets.oidc.pkce-verifier', async (kit) => {
    const confidential = await setupOidc(kit);
    const pub = await setupOidc(kit, { clientType: 'public' });
    await kit.property(
      fc.record({ verifier: verifierArb, other: verifierArb, method: fc.constantFrom<'plain' | 'S256'>('plain', 'S256'), client: fc.constantFrom('confidential', 'public') }).filter((r) => r.verifier !== r.other),
      async ({ verifier, other, method, client }) => {
        const setup = client === 'public' ? pub : confidential;
        const challenge = method === 'S256' ? s256(verifier) : verifier;
        const good = await exchange(setup, await pkceCode(setup, challenge, method), { verifier });
        expect(good.status, `${method} (${client}): the right verifier succeeds: ${good.text.slice(0, 200)}`).toBe(200);
        expectRefused(await exchange(setup, await pkceCode(setup, challenge, method), { verifier: other }), `${method} (${client}): another verifier`);
        if (method === 'S256') expectRefused(await exchange(setup, await pkceCode(setup, challenge, method), { verifier: challenge }), `S256 (${client}): sending the challenge itself as verifier`);
      },
      { numRuns: Math.min(kit.ctx.runs, 12) },
    );
  });

  ruleTest('secrets.oidc.pkce-public-requires-challenge', async (kit) => {
    const setup = await setupOidc(kit, { clientType: 'public' });
    expectRefused(await authorize(setup), 'authorize for a public client without a code_challenge');
  });

  ruleTest('secrets.oidc.pkce-verifier-required', async (kit) => {
    const setup = await setupOidc(kit);
    const verifier = 'a'.repeat(43) + uniqueName('v').replace(/[^A-Za-z0-9]/g, '');
    expectRefused(await exchange(setup, await pkceCode(setup, s256(verifier), 'S256')), 'a PKCE code exchanged without code_verifier');
  });

  ruleTest('secrets.oidc.pkce-default-plain', async (kit) => {
    const setup = await setupOidc(kit);
    const verifier = 'p'.repeat(43) + uniqueName('v').replace(/[^A-Za-z0-9]/g, '');
    const res = await exchange(setup, await pkceCode(setup, verifier), { verifier });
    expect(res.status, `without code_challenge_method, the verifier equal to the challenge succeeds: ${res.text.slice(0, 200)}`).toBe(200);
  });

  ruleTest('secrets.oidc.userinfo-sub', async (kit) => {
    const setup = await setupOidc(kit);
    const { token } = await codeFlow(setup);
    const idClaims = await verifyIdToken(setup, token.id_token);
    const info = expectShape(await setup.api.userinfo(setup.provider, token.access_token), userinfoSchema, 'userinfo');
    expect(info.sub, "userinfo's sub is the ID token's sub").toBe(idClaims.sub);
  });

  ruleTest('secrets.oidc.userinfo-claims-by-scope', async (kit) => {
    const setup = await setupOidc(kit, {
      scopes: [{ template: PROFILE_TEMPLATE }, { template: GROUPS_TEMPLATE }],
      entity: { metadata: { email: 'claims@example.com', phone_number: '+1 555 0100' }, groups: [uniqueName('engineering'), uniqueName('oncall')] },
    });
    const [profile, groups] = setup.scopes as [string, string];
    const e = setup.entity;
    const both = (await codeFlow(setup, { scope: `openid ${profile} ${groups}` })).token;
    const info = expectShape(await setup.api.userinfo(setup.provider, both.access_token), userinfoSchema, 'userinfo');
    expect(info.username, 'username from the profile scope').toBe(e.name);
    expect(info.contact, 'contact from the profile scope').toEqual({ email: e.metadata.email ?? '', phone_number: e.metadata.phone_number ?? '' });
    expect((info.groups ?? []).slice().sort(), 'groups from the groups scope').toEqual(e.groups.map((g) => g.name).sort());
    const idClaims = await verifyIdToken(setup, both.id_token);
    expect(idClaims.username, 'the ID token carries the same claims').toBe(e.name);
    const only = (await codeFlow(setup, { scope: `openid ${profile}` })).token;
    const partial = expectShape(await setup.api.userinfo(setup.provider, only.access_token), userinfoSchema, 'userinfo');
    expect(partial.username, 'the requested scope gives its claims').toBe(e.name);
    expect(partial.groups, 'the scope not requested gives none').toBeUndefined();
    // An entity in no group: the groups claim names none (absent, null or empty: the spec leaves
    // absent vs null open; Vault renders a Go nil slice, null: hashicorp/vault sdk/helper/identitytpl).
    const lone = await setupOidc(kit, { scopes: [{ template: GROUPS_TEMPLATE }], entity: { groups: [] } });
    const none = (await codeFlow(lone, { scope: `openid ${lone.scopes[0]}` })).token;
    const ungrouped = expectShape(await lone.api.userinfo(lone.provider, none.access_token), userinfoSchema, 'userinfo of an entity in no group');
    expect((ungrouped.groups ?? []).slice().sort(), 'the groups claim of an entity in no group names none').toEqual(lone.entity.groups.map((g) => g.name).sort());
  });

  ruleTest('secrets.oidc.scope-not-supported-no-claims', async (kit) => {
    const setup = await setupOidc(kit, { scopes: [{ template: '{"on_provider":"yes"}' }] });
    const outside = uniqueName('scope');
    expectWritten(await setup.api.write('scope', outside, { template: '{"off_provider":"leaked"}' }), "create a scope the provider does not list");
    const res = await authorize(setup, { scope: `openid ${setup.scopes[0]} ${outside}` });
    if (res.status < 200 || res.status >= 300) return kit.note(`authorize refused the scope the provider does not list (${res.status}), as the spec allows`);
    const code = codeOf(res);
    const exchanged = await exchange(setup, code);
    if (exchanged.status < 200 || exchanged.status >= 300) return kit.note(`the token endpoint refused the scope the provider does not list (${exchanged.status}), as the spec allows`);
    const token = exchanged.parse(tokenResponseSchema);
    const idClaims = await verifyIdToken(setup, token.id_token);
    expect(idClaims.on_provider, "the provider's own scope gives its claim").toBe('yes');
    expect(idClaims.off_provider, 'the ID token has no claim of a scope the provider does not list').toBeUndefined();
    const info = (await setup.api.userinfo(setup.provider, token.access_token)).json() as Record<string, unknown>;
    expect(info.on_provider, "userinfo has the provider's own scope's claim").toBe('yes');
    expect(info.off_provider, 'userinfo has no claim of a scope the provider does not list').toBeUndefined();
  });

  ruleTest('secrets.oidc.userinfo-methods', async (kit) => {
    const setup = await setupOidc(kit);
    const { token } = await codeFlow(setup);
    const post = await setup.api.userinfo(setup.provider, token.access_token, 'POST');
    const get = await setup.api.userinfo(setup.provider, token.access_token, 'GET');
    expect(post.status, 'userinfo by POST answers 200').toBe(200);
    expect(get.status, 'userinfo by GET answers 200').toBe(200);
    expect(get.parse(userinfoSchema), 'both give the same claims').toEqual(post.parse(userinfoSchema));
  });

  ruleTest('secrets.oidc.userinfo-requires-access-token', async (kit) => {
    const setup = await setupOidc(kit);
    await codeFlow(setup);
    for (const [what, token] of [
      ['no token', undefined],
      ["the entity's client token", setup.entity.token],
      ['a made-up token', 'hvb.not-a-real-access-token'],
    ] as const) {
      const res = await setup.api.userinfo(setup.provider, token);
      expectNotSuccess(res, `userinfo with ${what} is refused`);
      expect(/"sub"\s*:/.test(res.text), `userinfo with ${what} returns no claims`).toBe(false);
    }
  });

  ruleTest('secrets.upstream.oidc-authorize-errors', async (kit) => {
    const setup = await setupOidc(kit);
    for (const [params, error] of [
      [{ redirect_uri: 'https://elsewhere.example.com/cb' }, 'invalid_redirect_uri'],
      // No URI at all (no scheme, no host): Vault's url.Parse takes it as a path, unregistered.
      [{ redirect_uri: 'cb-without-a-scheme' }, 'invalid_redirect_uri'],
      [{ scope: 'profile' }, 'invalid_request'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ client_id: 'nobody' }, 'invalid_client_id'],
    ] as const) {
      const res = await authorize(setup, params);
      expect(res.status, `${JSON.stringify(params)} answers 400`).toBe(400);
      expect(expectShape(res, oauthErrorSchema, 'authorize error').error, `${JSON.stringify(params)} is ${error}`).toBe(error);
    }
  });

  ruleTest('secrets.upstream.oidc-token-invalid-client', async (kit) => {
    const setup = await setupOidc(kit);
    const res = await exchange(setup, codeOf(await authorize(setup)), { auth: 'basic', secret: 'wrong' });
    expect(res.status).toBe(401);
    expect(expectShape(res, oauthErrorSchema, 'token error').error).toBe('invalid_client');
    expect(res.header('www-authenticate'), 'WWW-Authenticate is set').toBeTruthy();
  });

  ruleTest('secrets.upstream.oidc-token-invalid-grant', async (kit) => {
    const setup = await setupOidc(kit);
    const { code } = await codeFlow(setup);
    const res = await exchange(setup, code);
    expect(res.status).toBe(400);
    expect(expectShape(res, oauthErrorSchema, 'token error').error).toBe('invalid_grant');
  });

  ruleTest('secrets.upstream.oidc-token-no-store', async (kit) => {
    const setup = await setupOidc(kit);
    const { response } = await codeFlow(setup);
    expect(response.header('cache-control')).toMatch(/no-store/);
    expect(response.header('pragma')).toMatch(/no-cache/);
  });

  ruleTest('secrets.upstream.oidc-auth-time', async (kit) => {
    const started = performance.now();
    const setup = await setupOidc(kit, { scopes: [{ template: '{}' }] });
    // Ten years: met by any login the profile can have made beforehand.
    const maxAge = '315360000';
    // Alternating, so each code's grant differs from the one made just before it only in the auth time.
    const order: (string | undefined)[] = [undefined, maxAge, undefined, maxAge];
    const codes: string[] = [];
    for (const given of order) codes.push(codeOf(await authorize(setup, { max_age: given })));
    // Then pairs sent at once, so that two still arrive back to back while other rules use the
    // provider beside this one.
    for (let round = 0; round < 4; round++) {
      const pair = round % 2 ? [maxAge, undefined] : [undefined, maxAge];
      const answers = await Promise.all(pair.map((given) => authorize(setup, { max_age: given })));
      order.push(...pair);
      codes.push(...answers.map(codeOf));
    }
    const authTimes: number[] = [];
    for (const [i, code] of codes.entries()) {
      const res = await exchange(setup, code);
      expect(res.status, `the token exchange of code ${i + 1} succeeds: ${res.text.slice(0, 300)}`).toBe(200);
      const claims = await verifyIdToken(setup, res.parse(tokenResponseSchema).id_token);
      const what = `code ${i + 1} of ${order.length} (authorize ${order[i] ? `with max_age=${order[i]}` : 'without max_age'})`;
      if (order[i] === undefined) {
        expect(claims.auth_time, `${what}: its ID token has no auth_time`).toBeUndefined();
        continue;
      }
      expect(Number.isInteger(claims.auth_time), `${what}: auth_time is whole seconds (${JSON.stringify(claims.auth_time)})`).toBe(true);
      const authTime = claims.auth_time as number;
      expect(authTime, `${what}: auth_time is not after iat ${claims.iat}`).toBeLessThanOrEqual(claims.iat!);
      if (kit.fixtures.dynamic) {
        const sinceSetupS = Math.ceil((performance.now() - started) / 1000) + 1;
        expect(claims.iat! - authTime, `${what}: the entity logged in during this rule, ${sinceSetupS} s at most before iat`).toBeLessThanOrEqual(sinceSetupS);
      }
      authTimes.push(authTime);
    }
    expect(new Set(authTimes).size, `every code of one login carries the same auth_time (${[...new Set(authTimes)].join(', ')})`).toBe(1);
  });

  ruleTest('secrets.upstream.oidc-userinfo-invalid-token', async (kit) => {
    const setup = await setupOidc(kit);
    const { token } = await codeFlow(setup);
    const res = await setup.api.userinfo(setup.provider, undefined, 'POST', { [kit.secrets.dialect.secrets.tokenHeader]: token.access_token });
    expect(res.status).toBe(401);
    expect(expectShape(res, oauthErrorSchema, 'userinfo error').error).toBe('invalid_token');
  });

  ruleTest('secrets.upstream.oidc-access-token-reach', async (kit) => {
    const setup = await setupOidc(kit);
    const { token } = await codeFlow(setup);
    kit.secret(token.access_token);
    const d = kit.secrets.dialect.secrets;
    const as = { bare: true, headers: { [d.tokenHeader]: token.access_token, [d.requestHeader]: 'true' } };
    // A secret the run's own token wrote, beside its directory: each verb of the access token is asked where something is.
    const dir = `${kit.secretsTarget.kv.v1Mount}${uniqueName('oat')}`;
    const path = `${dir}/x`;
    expect((await kit.secrets.write(path, { v: '1' })).status, 'the run writes a secret to ask about').toBeLessThan(300);
    try {
      const asked: [string, () => Promise<{ status: number; text: string }>][] = [
        [`read ${path}`, () => kit.secrets.read(path, as)],
        [`list ${dir}/ (LIST)`, () => kit.secrets.list(`${dir}/`, 'verb', as)],
        [`list ${dir}/ (GET ?list=true)`, () => kit.secrets.list(`${dir}/`, 'query', as)],
        [`write ${path}`, () => kit.secrets.write(path, { v: '2' }, 'POST', as)],
        [`delete ${path}`, () => kit.secrets.delete(path, as)],
        [`read the provider ${setup.provider}`, () => kit.secrets.read(`identity/oidc/provider/${setup.provider}`, as)],
        [`list the OIDC clients`, () => kit.secrets.list('identity/oidc/client/', 'verb', as)],
        [`read auth/token/lookup-self`, () => kit.secrets.read('auth/token/lookup-self', as)],
      ];
      const wrong: string[] = [];
      for (const [what, call] of asked) {
        const res = await call();
        if (res.status !== 403) wrong.push(`${what} with the access token: got ${res.status} ${res.text.slice(0, 160)}`);
      }
      expect(wrong, `the access token reaches its provider's userinfo and nothing else (each refused 403):\n${wrong.join('\n')}`).toEqual([]);
      const kept = await kit.secrets.read(path);
      expect(kept.status === 200 && (kept.json() as { data?: { v?: string } }).data?.v, 'the secret is as the run wrote it').toBe('1');
      expect((await setup.api.userinfo(setup.provider, token.access_token)).status, 'the access token still reaches userinfo').toBe(200);
    } finally {
      await kit.secrets.delete(path);
    }
  });

  ruleTest('secrets.oidc.token-client-auth-required', async (kit) => {
    const setup = await setupOidc(kit);
    expect((await exchange(setup, codeOf(await authorize(setup)))).status, 'the client with its own secret exchanges a code').toBe(200);
    const other = uniqueName('client');
    expectWritten(await setup.api.write('client', other, { redirect_uris: [`https://${other}.example.com/cb`] }), 'create another confidential client');
    const otherSecret = (await setup.api.read('client', other)).parse(clientReadSchema).data.client_secret ?? '';
    kit.secret(otherSecret);
    expect(otherSecret.length, 'the other confidential client has a secret').toBeGreaterThan(0);
    await kit.property(
      fc.record({ how: fc.constantFrom(...NO_AUTH), wrong: fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/) }).filter(({ wrong }) => wrong !== setup.client.secret),
      async ({ how, wrong }) => {
        const code = codeOf(await authorize(setup));
        const secret = how.startsWith('empty') ? '' : how.startsWith('wrong') ? wrong : otherSecret;
        const res = how === 'client_id only' ? await exchange(setup, code, { auth: 'none' }) : await exchange(setup, code, { auth: how.endsWith('Basic') ? 'basic' : 'post', secret });
        expectRefused(res, `a confidential client's exchange with ${how}`);
      },
      { numRuns: Math.min(kit.ctx.runs, 10), examples: NO_AUTH.map((how) => ({ how, wrong: 'not-the-secret' })) },
    );
    // A public client authenticates with method none, which needs its client_id: without one nobody is identified.
    const pub = await setupOidc(kit, { clientType: 'public' });
    const verifier = `w${'y'.repeat(50)}${uniqueName('v').replace(/[^A-Za-z0-9]/g, '')}`;
    const code = codeOf(await authorize(pub, { code_challenge: s256(verifier), code_challenge_method: 'S256' }));
    const res = await pub.api.token(pub.provider, { grant_type: 'authorization_code', code, redirect_uri: pub.redirectUri, code_verifier: verifier });
    expectRefused(res, "a public client's exchange without client_id");
  });

  ruleTest('secrets.oidc.client-key-signs', async (kit) => {
    const alt = kit.secretsTarget.oidcAltKey;
    if (!alt) throw new SkipRule('the target profile names no second signing key (oidcAltKey): with one key every client signs alike');
    const kids: string[] = [];
    for (const key of ['default', alt]) {
      const setup = await setupOidc(kit, { key });
      const { token } = await codeFlow(setup);
      await verifyIdToken(setup, token.id_token);
      const kid = decodeProtectedHeader(token.id_token).kid;
      expect(typeof kid, `the ID token of the client with key ${key} names its kid`).toBe('string');
      const jwks = (await setup.api.keys(setup.provider)).parse(jwksSchema);
      expect(jwks.keys.map((k) => k.kid), `the kid of the client with key ${key} is in its provider's key set`).toContain(kid);
      kids.push(kid!);
    }
    expect(kids[1], `a client naming key ${alt} gets ID tokens signed by another key than a client naming 'default'`).not.toBe(kids[0]);
  });

  ruleTest('secrets.oidc.userinfo-other-provider', async (kit) => {
    const setup = await setupOidc(kit);
    const { token } = await codeFlow(setup);
    expect((await setup.api.userinfo(setup.provider, token.access_token)).status, "the access token works at its own provider's userinfo").toBe(200);
    for (const allowed of [[setup.client.id], ['*']]) {
      const other = uniqueName('provider');
      expectWritten(await setup.api.write('provider', other, { allowed_client_ids: allowed }), `create another provider allowing ${allowed[0] === '*' ? 'every client' : 'the same client'}`);
      const res = await setup.api.userinfo(other, token.access_token);
      expectNotSuccess(res, `userinfo of another provider (allowed_client_ids ${allowed[0] === '*' ? "'*'" : 'the client'}) refuses the access token`);
      expect(/"sub"\s*:/.test(res.text), 'and returns no claims').toBe(false);
    }
  });
});
