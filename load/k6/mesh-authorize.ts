import http from 'k6/http';
import { env, scenarioOptions } from './lib/env.ts';
import { answered, iteration } from './lib/iteration.ts';
import { summarize, type SummaryData } from './lib/summary.ts';
import { authHeaders } from './lib/token.ts';

// mesh-authorize (src/load/scenarios/catalog.ts): POST authorize against an allow intention, one request an iteration.
const url = `${env('MESH_URL')}/v1/agent/connect/authorize`;
const body = env('AUTHORIZE_BODY');
const headers = { ...authHeaders(env('MESH_TOKEN')), 'Content-Type': 'application/json' };

export const options = scenarioOptions('authorize', 'mesh-authorize');

export const authorize = iteration(() => {
  answered('authorize', http.post(url, body, { headers }), 200, { authorized: (r) => (r.json() as { Authorized?: boolean }).Authorized === true });
});

export function handleSummary(data: SummaryData) {
  return summarize('mesh-authorize', 1, data);
}
