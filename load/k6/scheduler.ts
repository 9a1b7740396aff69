import { check } from 'k6';
import http from 'k6/http';
import { arrivalRate, env, RATE } from './lib/env.ts';
import { recordLatency, summaryToResults } from './lib/latency-buckets.ts';

const base = env('SCHEDULER_URL');
const headers = { Authorization: `Bearer ${env('SCHEDULER_TOKEN')}` };

export const options = {
  scenarios: { logs: arrivalRate('logs'), events: { ...arrivalRate('events'), rate: Math.max(1, Math.floor(RATE / 10)) } },
  thresholds: { checks: ['rate>0.99'], dropped_iterations: ['count<10'] },
};

export function logs(): void {
  const res = http.get(`${base}/v1/client/fs/logs/${env('ALLOC_ID')}?task=load&type=stdout&plain=true`, { headers });
  recordLatency(res.timings.duration);
  check(res, { 'logs 200': (r) => r.status === 200 });
}

/**
 * k6's http reads a whole response, so a stream must be bounded: each iteration reads the Job
 * topic for one second (the server ends nothing; the request timeout does) and checks frames came.
 */
export function events(): void {
  const res = http.get(`${base}/v1/event/stream?topic=Job`, { headers, timeout: '1s' });
  check(res, { 'stream delivered frames': (r) => typeof r.body === 'string' && r.body.indexOf('{') >= 0 });
}

export function handleSummary(data: Parameters<typeof summaryToResults>[1]) {
  return { [env('RESULTS', 'results.k6.scheduler.json')]: summaryToResults('scheduler', data, RATE) };
}
