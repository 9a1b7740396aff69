import { check } from 'k6';
import encoding from 'k6/encoding';
import crypto from 'k6/crypto';
import http from 'k6/http';
import { arrivalRate, env, RATE } from './lib/env.ts';
import { recordLatency, summaryToResults } from './lib/latency-buckets.ts';

const base = `${env('SECRETS_URL')}/v1/identity/oidc/provider/${env('PROVIDER')}`;
const basic = `Basic ${encoding.b64encode(`${env('CLIENT_ID')}:${env('CLIENT_SECRET')}`)}`;

export const options = {
  scenarios: { codeFlow: arrivalRate('codeFlow') },
  thresholds: { checks: ['rate>0.99'], http_req_duration: [`p(99)<${env('P99_MS', '500')}`], dropped_iterations: ['count<10'] },
};

/** authorize, then the token exchange with PKCE (S256), then userinfo. */
export function codeFlow(): void {
  const verifier = encoding.b64encode(crypto.randomBytes(32), 'rawurl');
  const challenge = crypto.sha256(verifier, 'base64rawurl');
  const redirect = env('REDIRECT_URI');
  const query = `client_id=${env('CLIENT_ID')}&redirect_uri=${encodeURIComponent(redirect)}&response_type=code&scope=openid&state=k6&code_challenge=${challenge}&code_challenge_method=S256`;
  const a = http.get(`${base}/authorize?${query}`, { headers: { [env('TOKEN_HEADER', 'X-Service-Token')]: env('ENTITY_TOKEN') } });
  recordLatency(a.timings.duration);
  if (!check(a, { 'authorize 200': (r) => r.status === 200 })) return;
  const code = (a.json() as { code: string }).code;
  const t = http.post(`${base}/token`, { grant_type: 'authorization_code', code, redirect_uri: redirect, code_verifier: verifier }, { headers: { Authorization: basic } });
  recordLatency(t.timings.duration);
  if (!check(t, { 'token 200': (r) => r.status === 200 })) return;
  const u = http.post(`${base}/userinfo`, '{}', { headers: { Authorization: `Bearer ${(t.json() as { access_token: string }).access_token}` } });
  recordLatency(u.timings.duration);
  check(u, { 'userinfo 200': (r) => r.status === 200 });
}

export function handleSummary(data: Parameters<typeof summaryToResults>[1]) {
  return { [env('RESULTS', 'results.k6.oidc.json')]: summaryToResults('oidc-code-flow', data, RATE) };
}
