import http from 'k6/http';
import { env, scenarioOptions } from './lib/env.ts';
import { answered, iteration } from './lib/iteration.ts';
import { summarize, type SummaryData } from './lib/summary.ts';
import { authHeaders } from './lib/token.ts';

// mesh-roots (src/load/scenarios/catalog.ts): GET the CA roots, one request an iteration.
const base = env('MESH_URL');
const headers = authHeaders(env('MESH_TOKEN'));

export const options = scenarioOptions('roots', 'mesh-roots');

export const roots = iteration(() => {
  answered('roots', http.get(`${base}/v1/agent/connect/ca/roots`, { headers }), 200);
});

export function handleSummary(data: SummaryData) {
  return summarize('mesh-roots', 1, data);
}
