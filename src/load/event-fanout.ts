import { setMaxListeners } from 'node:events';
import { Agent, request } from 'undici';
import { dialectFor, tokenHeaders } from '../config/dialects.ts';
import type { SchedulerTarget } from '../config/schema.ts';
import { HttpClient } from '../client/http-client.ts';
import { JsonValueStream } from '../client/json-value-stream.ts';
import { Redactor } from '../client/redact.ts';
import { SchedulerControlApi } from '../client/scheduler-api.ts';
import type { LoadScenarioResult } from '../report/results-model.ts';
import { encodeHistogram, newLatencyHistogram, percentilesMs } from './latency-histogram.ts';

export interface FanoutOptions {
  subscribers: number;
  /** Events per second the scheduler produces. */
  rate: number;
  durationMs: number;
}

export interface FanoutResult extends LoadScenarioResult {
  subscribers: number;
  published: number;
  /** Events some subscriber never got, summed over subscribers. */
  missed: number;
  /** Events a subscriber got more than once, summed over subscribers. */
  duplicates: number;
}

const LOAD_KEY = /^load-(\d+)$/;

/**
 * Event-stream fan-out: N subscribers on the Job topic while the scheduler publishes events at a
 * set rate (through the reference's control interface). Delivery latency runs from each event's
 * creation time in its payload to its receipt; every subscriber must see every event exactly once.
 */
export async function runEventFanout(target: SchedulerTarget, options: FanoutOptions): Promise<FanoutResult> {
  if (!target.fixtures) throw new Error('the event fan-out needs the scheduler fixtures (a control interface that drives an event rate)');
  const control = new SchedulerControlApi(new HttpClient({ baseUrl: target.fixtures.controlUrl, defaultHeaders: { authorization: `Bearer ${target.fixtures.controlToken}` }, timeoutMs: 10_000, redactor: new Redactor() }));
  const marker = await control.publish([{ Topic: 'Node', Type: 'NodeEvent', Key: 'fanout-marker', Namespace: '', Payload: {} }]);
  const headers = tokenHeaders(dialectFor(target.dialect).scheduler.token, target.token);
  const agent = new Agent({ connections: options.subscribers + 4, bodyTimeout: 0, headersTimeout: 10_000 });
  const histogram = newLatencyHistogram();
  const perSecond = new Map<number, { requests: number; h: ReturnType<typeof newLatencyHistogram> }>();
  const seen = Array.from({ length: options.subscribers }, () => new Map<number, number>());
  const abort = new AbortController();
  setMaxListeners(0, abort.signal);
  const started = performance.now();
  const nowMicros = () => (performance.timeOrigin + performance.now()) * 1000;

  const subscriber = async (i: number) => {
    const res = await request(`${target.url}/v1/event/stream?topic=Job&index=${marker + 1}`, { headers, dispatcher: agent, signal: abort.signal });
    if (res.statusCode !== 200) throw new Error(`subscriber ${i}: the stream answered ${res.statusCode}`);
    // Frames are read as a stream of JSON values, whatever their delimiting (JsonValueStream).
    const reader = new JsonValueStream({ retain: false });
    try {
      for await (const chunk of res.body) {
        for (const value of reader.push(chunk as Buffer)) {
          const frame = value as { Events?: { Key: string; Payload: { Job?: { CreatedAtMicros?: number } } }[] };
          if (!Array.isArray(frame.Events)) continue;
          for (const e of frame.Events) {
            const m = LOAD_KEY.exec(e.Key);
            if (!m) continue;
            const seq = Number(m[1]);
            seen[i]!.set(seq, (seen[i]!.get(seq) ?? 0) + 1);
            const created = e.Payload.Job?.CreatedAtMicros;
            if (created) {
              const latency = Math.max(1, Math.round(nowMicros() - created));
              histogram.recordValue(latency);
              const sec = Math.floor((performance.now() - started) / 1000);
              let b = perSecond.get(sec);
              if (!b) perSecond.set(sec, (b = { requests: 0, h: newLatencyHistogram() }));
              b.requests += 1;
              b.h.recordValue(latency);
            }
          }
        }
      }
    } catch (err) {
      if (!abort.signal.aborted) throw err;
    }
  };

  const running = Array.from({ length: options.subscribers }, (_, i) => subscriber(i).catch((err: Error) => err));
  await new Promise((r) => setTimeout(r, 300));
  await control.eventRate(options.rate, options.durationMs);
  await new Promise((r) => setTimeout(r, options.durationMs + 1_000));
  abort.abort();
  const errors = (await Promise.all(running)).filter((r): r is Error => r instanceof Error);
  await agent.destroy();
  const elapsed = performance.now() - started;
  let published = 0;
  for (const m of seen) for (const seq of m.keys()) if (seq > published) published = seq;
  let missed = 0;
  let duplicates = 0;
  let delivered = 0;
  for (const m of seen) {
    for (let s = 1; s <= published; s++) if (!m.has(s)) missed += 1;
    for (const count of m.values()) {
      delivered += count;
      if (count > 1) duplicates += count - 1;
    }
  }
  return {
    scenario: 'scheduler-event-fanout',
    engine: 'stream-subscribers',
    model: 'open',
    targetRate: options.rate,
    durationMs: Math.round(elapsed),
    requests: delivered,
    errors: errors.length,
    dropped: missed,
    throughput: Math.round((delivered / (options.durationMs / 1000)) * 10) / 10,
    latencyMs: percentilesMs(histogram),
    histogram: encodeHistogram(histogram),
    timeline: [...perSecond.entries()].sort((a, b) => a[0] - b[0]).map(([t, b]) => ({ t, requests: b.requests, errors: 0, p50: percentilesMs(b.h).p50, p99: percentilesMs(b.h).p99 })),
    thresholds: [],
    subscribers: options.subscribers,
    published,
    missed,
    duplicates,
  };
}
