import { check } from 'k6';
import http from 'k6/http';
import { arrivalRate, env, RATE } from './lib/env.ts';
import { recordLatency, summaryToResults } from './lib/latency-buckets.ts';

const base = env('MESH_URL');
const headers = { Authorization: `Bearer ${env('MESH_TOKEN')}` };

export const options = {
  scenarios: { authorize: arrivalRate('authorize'), leaf: arrivalRate('leaf'), roots: arrivalRate('roots') },
  thresholds: { http_req_failed: ['rate<0.01'], http_req_duration: [`p(99)<${env('P99_MS', '250')}`], dropped_iterations: ['count<10'] },
};

export function authorize(): void {
  const res = http.post(`${base}/v1/agent/connect/authorize`, env('AUTHORIZE_BODY'), { headers: { ...headers, 'Content-Type': 'application/json' } });
  recordLatency(res.timings.duration);
  check(res, { 'authorize 200': (r) => r.status === 200, authorized: (r) => (r.json() as { Authorized?: boolean }).Authorized === true });
}

export function leaf(): void {
  const res = http.get(`${base}/v1/agent/connect/ca/leaf/${env('SERVICE')}`, { headers });
  recordLatency(res.timings.duration);
  check(res, { 'leaf 200': (r) => r.status === 200 });
}

export function roots(): void {
  const res = http.get(`${base}/v1/agent/connect/ca/roots`);
  recordLatency(res.timings.duration);
  check(res, { 'roots 200': (r) => r.status === 200 });
}

export function handleSummary(data: Parameters<typeof summaryToResults>[1]) {
  return { [env('RESULTS', 'results.k6.mesh.json')]: summaryToResults('mesh', data, RATE) };
}
