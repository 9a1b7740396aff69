import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type ReferenceWithControl } from '../src/reference/reference.ts';
import { basicCredentials } from '../src/reference/secrets/oidc/flows.ts';
import type { DialectName } from '../src/config/dialects.ts';

/**
 * client_secret_basic at the token endpoint, as OpenBao 2.6.2 answered each header (and as its
 * source reads it: vault/identity/store_oidc_provider.go basicAuth, net/http Request.BasicAuth):
 * the ID and secret are compared as they come, never URL-decoded, as the spec's
 * `Basic <base64(client_id:client_secret)>` says. A client that form-urlencodes them first (RFC 6749
 * 2.3.1; openid-client v6 does, so a secret's `_` becomes `%5F`) is refused 401 invalid_client.
 * A header that is no Basic credentials is passed over and the form is read instead.
 */
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('basicCredentials (net/http Request.BasicAuth)', () => {
  it('reads "Basic " in any case and standard base64 with its padding, split at the first colon', () => {
    expect(basicCredentials(`Basic ${b64('id:se:cret')}`)).toEqual(['id', 'se:cret']);
    expect(basicCredentials(`bAsIc ${b64('id:')}`)).toEqual(['id', '']);
    expect(basicCredentials(`Basic ${b64('a%5Fb:c%5Fd')}`), 'percent signs are data').toEqual(['a%5Fb', 'c%5Fd']);
  });

  it('passes over what Go passes over: no colon, padding left out, two spaces, another scheme', () => {
    for (const header of [`Basic ${b64('nocolon')}`, `Basic ${b64('ab:c').replace(/=+$/, '')}`, `Basic  ${b64('a:b')}`, `Bearer ${b64('a:b')}`, 'Basic', undefined]) expect(basicCredentials(header), String(header)).toBeUndefined();
  });
});

for (const dialect of ['hashicorp', 'spec'] as DialectName[]) {
  describe(`the token endpoint authenticates client_secret_basic as written (${dialect} dialect)`, () => {
    let ref: ReferenceWithControl;
    let id = '';
    let secret = '';
    const tokenHeader = dialect === 'hashicorp' ? 'X-Vault-Token' : 'X-Service-Token';
    const admin = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${ref.secrets.url}/v1/${path}`, { method, headers: { [tokenHeader]: ref.secrets.token, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      return res.status === 204 ? undefined : ((await res.json()) as { data: Record<string, string> });
    };
    const exchange = async (authorization: string) => {
      const res = await fetch(`${ref.secrets.url}/v1/identity/oidc/provider/default/token`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: 'not-a-code', redirect_uri: 'https://app.example.com/cb' }),
      });
      return { status: res.status, body: (await res.json()) as { error: string; error_description: string } };
    };
    beforeAll(async () => {
      ref = await startReference({ dialect });
      await admin('POST', 'identity/oidc/client/basic', { redirect_uris: ['https://app.example.com/cb'], assignments: ['allow_all'] });
      ({ client_id: id, client_secret: secret } = (await admin('GET', 'identity/oidc/client/basic'))!.data as { client_id: string; client_secret: string });
    });
    afterAll(async () => ref.stop());

    it('takes the ID and secret as written: the code is what is wrong then (400 invalid_grant)', async () => {
      expect(await exchange(`Basic ${b64(`${id}:${secret}`)}`)).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'authorization grant is invalid or expired' } });
      expect((await exchange(`basic ${b64(`${id}:${secret}`)}`)).status).toBe(400);
    });

    it('refuses them form-urlencoded first, as openid-client v6 sends them (401 invalid_client)', async () => {
      expect(secret, 'the secret has a character form-urlencoding changes').toMatch(/_/);
      const encode = (s: string) => encodeURIComponent(s).replace(/_/g, '%5F');
      expect(await exchange(`Basic ${b64(`${encode(id)}:${encode(secret)}`)}`)).toEqual({ status: 401, body: { error: 'invalid_client', error_description: 'client failed to authenticate' } });
    });

    it('reads the form instead of a header that is no Basic credentials (400 client_id parameter is required)', async () => {
      for (const header of [`Basic ${b64(id)}`, `Basic  ${b64(`${id}:${secret}`)}`]) {
        expect(await exchange(header), header).toEqual({ status: 400, body: { error: 'invalid_request', error_description: 'client_id parameter is required' } });
      }
    });
  });
}
