import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  authorizeDecision,
  claimScopes,
  EITHER,
  grantOf,
  GRANT,
  REFUSE,
  tokenDecision,
  userinfoDecision,
  type AuthorizeRequest,
  type OidcWorld,
  type TokenRequest,
} from '../suites/models/oidc-access.ts';

const s256 = (v: string) => createHash('sha256').update(v).digest('base64url');

const world = (): OidcWorld => ({
  providers: [
    { name: 'pa', allowedClientIds: ['ida', 'idp'], scopesSupported: ['sa'] },
    { name: 'pb', allowedClientIds: ['*'], scopesSupported: ['sb'] },
    { name: 'pn', allowedClientIds: [], scopesSupported: [] },
  ],
  clients: [
    { name: 'a', clientId: 'ida', type: 'confidential', secret: 'secret-a', redirectUris: ['https://a.example.com:8443/cb', 'https://shared.example.com/cb'], assignments: ['by-entity', 'by-group'] },
    { name: 'b', clientId: 'idb', type: 'confidential', secret: 'secret-b', redirectUris: ['https://shared.example.com/cb'], assignments: ['by-group'] },
    { name: 'p', clientId: 'idp', type: 'public', redirectUris: ['https://shared.example.com/cb'], assignments: ['allow_all'] },
    { name: 'n', clientId: 'idn', type: 'confidential', secret: 'secret-n', redirectUris: ['https://shared.example.com/cb'], assignments: [] },
  ],
  assignments: { 'by-entity': { entityIds: ['e1'], groupIds: [] }, 'by-group': { entityIds: [], groupIds: ['g1'] } },
  entities: [
    { id: 'e1', groupIds: [] },
    { id: 'e2', groupIds: ['g1'] },
    { id: 'e3', groupIds: ['g2'] },
  ],
});

const auth = (over: Partial<AuthorizeRequest> = {}): AuthorizeRequest => ({ provider: 'pa', clientId: 'ida', redirectUri: 'https://a.example.com:8443/cb', scope: 'openid sa', responseType: 'code', entityId: 'e1', ...over });

const token = (w: OidcWorld, a: AuthorizeRequest, over: Partial<TokenRequest> = {}): TokenRequest => {
  const client = w.clients.find((c) => c.clientId === a.clientId)!;
  return {
    provider: a.provider,
    grantType: 'authorization_code',
    code: { kind: 'code', grant: grantOf(a), earlier: 'none' },
    redirectUri: a.redirectUri,
    auth: client.type === 'public' ? { method: 'none', clientId: client.clientId } : { method: 'basic', clientId: client.clientId, secret: client.secret },
    s256,
    ...over,
  };
};

describe('authorize, from the spec text', () => {
  const w = world();
  it('the granted request, and each neighbour of it', () => {
    expect(authorizeDecision(w, auth())).toBe(GRANT);
    expect(authorizeDecision(w, auth({ clientId: 'nobody' })), 'a client_id the service did not issue').toBe(REFUSE);
    expect(authorizeDecision(w, auth({ provider: 'pn' })), 'Empty list: no client allowed').toBe(REFUSE);
    expect(authorizeDecision(w, auth({ provider: 'pb', scope: 'openid' })), "Value '*': all clients allowed").toBe(GRANT);
    expect(authorizeDecision(w, auth({ provider: 'nowhere' })), 'a provider that does not exist').toBe(REFUSE);
    expect(authorizeDecision(w, auth({ clientId: 'idb', redirectUri: 'https://shared.example.com/cb' })), 'another client, not in allowed_client_ids').toBe(REFUSE);
  });
  it('redirect_uri must exactly equal a registered one', () => {
    for (const uri of ['https://a.example.com:8443/cb?x=1', 'https://a.example.com:8443/cb/', 'https://a.example.com:8444/cb', 'https://A.example.com:8443/cb', 'https://a.example.com:8443/', 'https://a.example.com:8443/cb#f', 'http://a.example.com:8443/cb']) {
      expect(authorizeDecision(w, auth({ redirectUri: uri })), uri).toBe(REFUSE);
    }
    expect(authorizeDecision(w, auth({ redirectUri: 'https://shared.example.com/cb' })), 'the other registered URI').toBe(GRANT);
  });
  it('scope must include openid; scopes the provider does not support may be refused or ignored', () => {
    expect(authorizeDecision(w, auth({ scope: 'sa' }))).toBe(REFUSE);
    expect(authorizeDecision(w, auth({ scope: 'openidx sa' }))).toBe(REFUSE);
    expect(authorizeDecision(w, auth({ scope: 'sa openid' }))).toBe(GRANT);
    expect(authorizeDecision(w, auth({ scope: 'openid sb' })), "a scope only another provider supports").toBe(EITHER);
    expect(authorizeDecision(w, auth({ responseType: 'token' }))).toBe(REFUSE);
  });
  it('assignments: named entity, entity in a named group, allow_all, none', () => {
    expect(authorizeDecision(w, auth({ entityId: 'e2' })), 'e2 is in g1, which by-group names').toBe(GRANT);
    expect(authorizeDecision(w, auth({ entityId: 'e3' })), 'e3 is in g2, which no assignment names').toBe(REFUSE);
    const viaB = auth({ provider: 'pb', clientId: 'idb', redirectUri: 'https://shared.example.com/cb', scope: 'openid' });
    expect(authorizeDecision(w, { ...viaB, entityId: 'e2' })).toBe(GRANT);
    expect(authorizeDecision(w, { ...viaB, entityId: 'e1' }), "e1 is assigned on client a, not on b").toBe(REFUSE);
    const viaN = { ...viaB, clientId: 'idn' };
    expect(authorizeDecision(w, viaN), 'By default no entities are allowed').toBe(REFUSE);
    const viaP = { ...viaB, clientId: 'idp', entityId: 'e3', codeChallenge: 'c'.repeat(43) };
    expect(authorizeDecision(w, viaP), 'allow_all allows all entities').toBe(GRANT);
    expect(authorizeDecision(w, { ...viaP, codeChallenge: undefined }), 'public clients must use PKCE').toBe(REFUSE);
  });
});

describe('token, from the spec text', () => {
  const w = world();
  const a = auth();
  it('the code with its own client, provider and redirect URI', () => {
    expect(tokenDecision(w, token(w, a))).toBe(GRANT);
    expect(tokenDecision(w, token(w, a, { auth: { method: 'post', clientId: 'ida', secret: 'secret-a' } }))).toBe(GRANT);
  });
  it('the secret compared whole', () => {
    for (const secret of ['secret-', 'secret-ax', 'secret-b', 'secret-A', '', undefined]) {
      for (const method of ['basic', 'post'] as const) expect(tokenDecision(w, token(w, a, { auth: { method, clientId: 'ida', secret } })), `${method} ${secret}`).toBe(REFUSE);
    }
    expect(tokenDecision(w, token(w, a, { auth: { method: 'none', clientId: 'ida' } })), 'a confidential client with method none').toBe(REFUSE);
  });
  it('another client, another provider, another endpoint', () => {
    const other = w.clients[1]!;
    expect(tokenDecision(w, token(w, a, { provider: 'pb', auth: { method: 'basic', clientId: other.clientId, secret: other.secret } })), "another client's own credentials").toBe(REFUSE);
    expect(tokenDecision(w, token(w, a, { provider: 'pb' })), "another provider's token endpoint, which allows the client").toBe(REFUSE);
    for (const code of [{ kind: 'id-token' }, { kind: 'access-token', provider: 'pa', clientId: 'ida', entityId: 'e1' }, { kind: 'client-token' }] as const) {
      expect(tokenDecision(w, token(w, a, { code })), `a ${code.kind} as the code`).toBe(REFUSE);
    }
  });
  it('Basic credentials and form fields of two clients: never a client no method authenticated', () => {
    // Client B's code at pb (which allows every client; e2 is in B's group).
    const b = auth({ provider: 'pb', clientId: 'idb', redirectUri: 'https://shared.example.com/cb', scope: 'openid', entityId: 'e2' });
    const basicA = (form: { clientId?: string; secret?: string }) => token(w, b, { auth: { method: 'basic', clientId: 'ida', secret: 'secret-a', form } });
    expect(tokenDecision(w, basicA({ clientId: 'idb' })), "Basic A, form client_id of the code's client").toBe(REFUSE);
    expect(tokenDecision(w, basicA({ secret: 'secret-b' })), "Basic A, form client_secret of the code's client").toBe(REFUSE);
    expect(tokenDecision(w, basicA({ clientId: 'idb', secret: 'secret-c' })), "Basic A, form client_id of the code's client, wrong secret").toBe(REFUSE);
    expect(tokenDecision(w, basicA({ clientId: 'idb', secret: 'secret-b' })), 'both methods authenticate a client: either may be taken').toBe(EITHER);
    expect(tokenDecision(w, token(w, b, { auth: { method: 'basic', clientId: 'idb', secret: 'secret-bx', form: { clientId: 'ida', secret: 'secret-a' } } })), 'the other way round: the Basic secret wrong, the form another client').toBe(REFUSE);
    expect(tokenDecision(w, token(w, b, { auth: { method: 'basic', clientId: 'idb', secret: 'secret-b', form: { clientId: 'ida' } } })), "the code's client by Basic, another client_id in the form").toBe(EITHER);
  });
  it('the redirect URI repeated exactly, the code once, the grant type', () => {
    expect(tokenDecision(w, token(w, a, { redirectUri: `${a.redirectUri}?x=1` }))).toBe(REFUSE);
    expect(tokenDecision(w, token(w, a, { redirectUri: 'https://shared.example.com/cb' })), 'another registered one').toBe(REFUSE);
    expect(tokenDecision(w, token(w, a, { code: { kind: 'code', grant: grantOf(a), earlier: 'granted' } }))).toBe(REFUSE);
    expect(tokenDecision(w, token(w, a, { code: { kind: 'code', grant: grantOf(a), earlier: 'refused' } })), 'after a refused call: not shown').toBe(EITHER);
    expect(tokenDecision(w, token(w, a, { grantType: 'refresh_token' }))).toBe(REFUSE);
  });
  it('a change of the client or provider after the code was issued', () => {
    const changed = world();
    changed.clients[0]!.assignments = ['by-group'];
    expect(tokenDecision(changed, token(w, a)), 'the entity no longer assigned').toBe(REFUSE);
    const deleted = world();
    deleted.clients.splice(0, 1);
    expect(tokenDecision(deleted, token(w, a)), 'the client deleted').toBe(REFUSE);
    const disallowed = world();
    disallowed.providers[0]!.allowedClientIds = ['idp'];
    expect(tokenDecision(disallowed, token(w, a)), 'the provider no longer allows the client').toBe(REFUSE);
  });
  it('PKCE', () => {
    const verifier = 'v'.repeat(50);
    const pub = auth({ provider: 'pb', clientId: 'idp', redirectUri: 'https://shared.example.com/cb', scope: 'openid', codeChallenge: s256(verifier), codeChallengeMethod: 'S256' });
    expect(tokenDecision(w, token(w, pub, { codeVerifier: verifier }))).toBe(GRANT);
    expect(tokenDecision(w, token(w, pub, { codeVerifier: `${verifier}x` }))).toBe(REFUSE);
    expect(tokenDecision(w, token(w, pub, { codeVerifier: s256(verifier) })), 'the challenge as verifier').toBe(REFUSE);
    expect(tokenDecision(w, token(w, pub)), 'no verifier').toBe(REFUSE);
    expect(tokenDecision(w, token(w, pub, { codeVerifier: verifier, auth: { method: 'none' } })), 'no client_id').toBe(REFUSE);
  });
});

describe('userinfo, from the spec text', () => {
  const w = world();
  it('only an access token of this provider', () => {
    const at = { kind: 'access-token', provider: 'pa', clientId: 'ida', entityId: 'e1' } as const;
    expect(userinfoDecision(w, { provider: 'pa', bearer: at })).toBe(GRANT);
    expect(userinfoDecision(w, { provider: 'pb', bearer: at }), 'another provider').toBe(REFUSE);
    expect(userinfoDecision(w, { provider: 'pa', bearer: { kind: 'code', grant: grantOf(auth()), earlier: 'none' } })).toBe(REFUSE);
    expect(userinfoDecision(w, { provider: 'pa', bearer: { kind: 'id-token' } })).toBe(REFUSE);
    expect(userinfoDecision(w, { provider: 'pa', bearer: { kind: 'client-token' } })).toBe(REFUSE);
    const deleted = world();
    deleted.clients.splice(0, 1);
    expect(userinfoDecision(deleted, { provider: 'pa', bearer: at }), 'after its client is deleted: not shown').toBe(EITHER);
  });
  it('after the provider stopped allowing the client: not shown, refused under the strict profile (upstream)', () => {
    const w2 = world();
    w2.providers[0]!.allowedClientIds = [];
    const at = { kind: 'access-token', provider: 'pa', clientId: 'ida', entityId: 'e1' } as const;
    expect(userinfoDecision(w2, { provider: 'pa', bearer: at })).toBe(EITHER);
    expect(userinfoDecision(w2, { provider: 'pa', bearer: at }, true)).toBe(REFUSE);
    expect(userinfoDecision(world(), { provider: 'pa', bearer: at }, true), 'unchanged: granted').toBe(GRANT);
  });
  it('claims only of the scopes the provider supports', () => {
    expect(claimScopes(w.providers[0]!, ['openid', 'sa', 'sb'])).toEqual(['sa']);
  });
});

describe('properties of the model', () => {
  const ids = ['ida', 'idb', 'idp', 'idn', '*', 'id', 'idax'];
  const worldArb = fc.record({
    allowed: fc.subarray(ids),
    assignments: fc.subarray(['by-entity', 'by-group', 'allow_all', 'missing']),
    entity: fc.constantFrom('e1', 'e2', 'e3'),
    client: fc.constantFrom('ida', 'idb', 'idp', 'idn'),
  });
  const build = (allowed: string[], assignments: string[]) => {
    const w = world();
    w.providers[0]!.allowedClientIds = allowed;
    for (const c of w.clients) c.assignments = assignments;
    return w;
  };
  const req = (client: string, entity: string) => auth({ clientId: client, entityId: entity, redirectUri: 'https://shared.example.com/cb', codeChallenge: 'c'.repeat(43) });

  it('adding a client_id to allowed_client_ids or an assignment to a client never refuses what was granted', () => {
    fc.assert(
      fc.property(worldArb, fc.constantFrom(...ids), fc.constantFrom('by-entity', 'by-group', 'allow_all'), ({ allowed, assignments, entity, client }, moreId, moreAssignment) => {
        const before = authorizeDecision(build(allowed, assignments), req(client, entity));
        if (!before.has('grant') || before.size > 1) return;
        expect(authorizeDecision(build([...allowed, moreId], assignments), req(client, entity))).toBe(GRANT);
        expect(authorizeDecision(build(allowed, [...assignments, moreAssignment]), req(client, entity))).toBe(GRANT);
      }),
    );
  });

  it('allowed_client_ids grants exactly the listed client_ids or all with *', () => {
    fc.assert(
      fc.property(worldArb, ({ allowed, entity, client }) => {
        const d = authorizeDecision(build(allowed, ['allow_all']), req(client, entity));
        expect(d.has('grant')).toBe(allowed.includes('*') || allowed.includes(client));
      }),
    );
  });

  it('a redirect URI that differs from every registered one in any character is refused', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 3 }), fc.nat(30), (extra, at) => {
        const base = 'https://a.example.com:8443/cb';
        const uri = base.slice(0, at % base.length) + extra + base.slice(at % base.length);
        fc.pre(uri !== base && uri !== 'https://shared.example.com/cb');
        expect(authorizeDecision(world(), auth({ redirectUri: uri }))).toBe(REFUSE);
      }),
    );
  });

  it('a code is granted only to its own client at its own provider, with its redirect URI and a secret equal to the whole', () => {
    const w = world();
    fc.assert(
      fc.property(fc.constantFrom('pa', 'pb', 'pn'), fc.constantFrom('ida', 'idb', 'idp', 'idn'), fc.string({ maxLength: 10 }), fc.boolean(), (provider, clientId, secret, sameRedirect) => {
        const a = auth();
        const d = tokenDecision(w, token(w, a, { provider, auth: { method: 'post', clientId, secret }, redirectUri: sameRedirect ? a.redirectUri : `${a.redirectUri}/` }));
        const legit = provider === 'pa' && clientId === 'ida' && secret === 'secret-a' && sameRedirect;
        expect(d).toBe(legit ? GRANT : REFUSE);
      }),
    );
  });
});
