import http from 'k6/http';
import { env, scenarioOptions } from './lib/env.ts';
import { answered, iteration } from './lib/iteration.ts';
import { summarize, type SummaryData } from './lib/summary.ts';
import { authHeaders } from './lib/token.ts';

// mesh-leaf-blocking (src/load/scenarios/catalog.ts): the leaf as a blocking query at the current
// index with a 200 ms wait, so each answer comes when the wait ends (or the leaf changes).
const url = `${env('MESH_URL')}/v1/agent/connect/ca/leaf/${env('SERVICE')}?index=${env('INDEX')}&wait=200ms`;
const headers = authHeaders(env('MESH_TOKEN'));

export const options = scenarioOptions('leafBlocking', 'mesh-leaf-blocking');

export const leafBlocking = iteration(() => {
  answered('leaf blocking', http.get(url, { headers }), 200);
});

export function handleSummary(data: SummaryData) {
  return summarize('mesh-leaf-blocking', 1, data);
}
