import http from 'k6/http';
import { env, scenarioOptions } from './lib/env.ts';
import { answered, iteration } from './lib/iteration.ts';
import { isSchedulerLogsBody } from './lib/scheduler-logs-body.ts';
import { summarize, type SummaryData } from './lib/summary.ts';
import { authHeaders } from './lib/token.ts';

// scheduler-logs (src/load/scenarios/catalog.ts): GET an allocation's stdout (plain), one request an
// iteration and nothing else, so the latency is the logs request's. The event stream is loaded by its
// own runner (src/load/event-fanout.ts): k6's http reads whole bodies and cannot time a stream's events.
const url = `${env('SCHEDULER_URL')}/v1/client/fs/logs/${env('ALLOC_ID')}?task=load&type=stdout&plain=true`;
const headers = authHeaders(env('SCHEDULER_TOKEN'));

export const options = scenarioOptions('logs', 'scheduler-logs');

export const logs = iteration(() => {
  // The whole stdout the fixture wrote, byte for byte: the same check as the open model's and autocannon's.
  answered('logs', http.get(url, { headers }), 200, { 'logs body': (r) => isSchedulerLogsBody(r.body) });
});

export function handleSummary(data: SummaryData) {
  return summarize('scheduler-logs', 1, data);
}
