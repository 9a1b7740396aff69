import http from 'k6/http';
import { env, scenarioOptions } from './lib/env.ts';
import { answered, iteration } from './lib/iteration.ts';
import { summarize, type SummaryData } from './lib/summary.ts';
import { authHeaders } from './lib/token.ts';

// mesh-leaf (src/load/scenarios/catalog.ts): GET a cached leaf certificate, one request an iteration.
const url = `${env('MESH_URL')}/v1/agent/connect/ca/leaf/${env('SERVICE')}`;
const headers = authHeaders(env('MESH_TOKEN'));

export const options = scenarioOptions('leaf', 'mesh-leaf');

export const leaf = iteration(() => {
  answered('leaf', http.get(url, { headers }), 200);
});

export function handleSummary(data: SummaryData) {
  return summarize('mesh-leaf', 1, data);
}
