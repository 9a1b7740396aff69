import crypto from 'k6/crypto';
import encoding from 'k6/encoding';
import http from 'k6/http';
import { env, scenarioOptions } from './lib/env.ts';
import { answered, iteration } from './lib/iteration.ts';
import { summarize, type SummaryData } from './lib/summary.ts';

// oidc-code-flow (src/load/scenarios/catalog.ts): authorize, the token exchange with PKCE (S256) and
// client_secret_basic, then userinfo: three requests an iteration, each timed on its own.
const base = `${env('SECRETS_URL')}/v1/identity/oidc/provider/${env('PROVIDER')}`;
const clientId = env('CLIENT_ID');
const basic = `Basic ${encoding.b64encode(`${clientId}:${env('CLIENT_SECRET')}`)}`;
const redirect = env('REDIRECT_URI');
const entityHeaders = { [env('TOKEN_HEADER', 'X-Service-Token')]: env('ENTITY_TOKEN') };

export const options = scenarioOptions('codeFlow', 'oidc-code-flow');

export const codeFlow = iteration(() => {
  const verifier = encoding.b64encode(crypto.randomBytes(32), 'rawurl');
  const challenge = crypto.sha256(verifier, 'base64rawurl');
  const query = `client_id=${encodeURIComponent(clientId)}&redirect_uri=${encodeURIComponent(redirect)}&response_type=code&scope=openid&state=k6&code_challenge=${challenge}&code_challenge_method=S256`;
  const a = http.get(`${base}/authorize?${query}`, { headers: entityHeaders });
  if (!answered('authorize', a, 200)) return;
  const code = (a.json() as { code: string }).code;
  const t = http.post(`${base}/token`, { grant_type: 'authorization_code', code, redirect_uri: redirect, code_verifier: verifier }, { headers: { Authorization: basic } });
  if (!answered('token', t, 200)) return;
  const access = (t.json() as { access_token: string }).access_token;
  answered('userinfo', http.post(`${base}/userinfo`, '{}', { headers: { Authorization: `Bearer ${access}` } }), 200);
});

export function handleSummary(data: SummaryData) {
  return summarize('oidc-code-flow', 3, data);
}
