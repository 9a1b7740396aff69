import { setMaxListeners } from 'node:events';
import { Agent, request } from 'undici';
import { dialectFor, tokenHeaders } from '../config/dialects.ts';
import type { SchedulerTarget } from '../config/schema.ts';
import { JsonValueStream } from '../client/json-value-stream.ts';
import type { SchedulerFixtures } from '../provision/scheduler-fixtures.ts';
import type { LoadScenarioResult } from '../report/results-model.ts';
import { encodeHistogram, newLatencyHistogram, percentilesMs, recordLatencyMs } from './latency-histogram.ts';

export interface FanoutOptions {
  subscribers: number;
  /** Actions (job registrations, each a Job event) per second. */
  rate: number;
  durationMs: number;
  /** Every job the fan-out registers is named under this (the run prefix and a dash). */
  runPrefix: string;
}

/** The fixtures the fan-out acts through: it registers event jobs and purges them at the end. */
export type FanoutFixtures = Pick<SchedulerFixtures, 'registerJob'> & { purgeJob(jobId: string): Promise<unknown> };

export interface FanoutResult extends LoadScenarioResult {
  subscribers: number;
  /** Registrations the scheduler accepted, each one Job event every subscriber must get. */
  published: number;
  /** Events some subscriber never got, summed over subscribers. */
  missed: number;
  /** Events a subscriber got more than once, summed over subscribers. */
  duplicates: number;
  /** Events each subscriber got, in subscriber order. */
  deliveredPerSubscriber: number[];
  /** Why registrations failed (the first few), for the log. */
  problems: string[];
}

/** The job meta key that carries an action's sequence number into its Job event's payload. */
export const SEQUENCE_META = 'stackproof_seq';
/** A handful of jobs take the registrations in turn: each registration changes its job's meta, so each is an event. */
const JOBS = 5;
/** Registrations in flight at once; beyond it the scheduler is slower than the rate and the shortfall shows. */
const MAX_IN_FLIGHT = 64;
/** How long the subscribers may take to get the last events after the last registration answered. */
const DRAIN_MS = 5_000;

type JobFrame = { Events?: { Topic?: string; Key?: string; Payload?: { Job?: { Meta?: Record<string, string> | null } } }[] };

/**
 * Event-stream fan-out driven by real actions, so it runs on a real Nomad as on the reference: N
 * subscribers on the Job topic while the run re-registers a few unplaceable jobs at a set rate,
 * each registration with its sequence number in the job's meta. Delivery latency runs from the
 * moment a registration was sent to the moment a subscriber read its event; every subscriber must
 * see every accepted registration exactly once. The jobs are purged at the end, also after a failure.
 */
export async function runEventFanout(target: SchedulerTarget, fixtures: FanoutFixtures, options: FanoutOptions): Promise<FanoutResult> {
  const jobs = Array.from({ length: JOBS }, (_, i) => `${options.runPrefix}-fanout-${i}`);
  const ours = new Set(jobs);
  try {
    // The jobs exist before anyone subscribes: the stream starts after their first events.
    let marker = 0;
    for (const id of jobs) marker = Math.max(marker, (await fixtures.registerJob(id)).index);
    return await fanOut(target, fixtures, options, jobs, ours, marker);
  } finally {
    for (const id of jobs) await fixtures.purgeJob(id).catch(() => undefined);
  }
}

async function fanOut(target: SchedulerTarget, fixtures: FanoutFixtures, options: FanoutOptions, jobs: string[], ours: Set<string>, marker: number): Promise<FanoutResult> {
  const headers = tokenHeaders(dialectFor(target.dialect).scheduler.token, target.token);
  const agent = new Agent({ connections: options.subscribers + 4, bodyTimeout: 0, headersTimeout: 10_000 });
  const histogram = newLatencyHistogram();
  const perSecond = new Map<number, { requests: number; h: ReturnType<typeof newLatencyHistogram> }>();
  const seen = Array.from({ length: options.subscribers }, () => new Map<number, number>());
  const sentAt = new Map<number, number>();
  const abort = new AbortController();
  setMaxListeners(0, abort.signal);
  const started = performance.now();
  const topics = jobs.map((id) => `topic=${encodeURIComponent(`Job:${id}`)}`).join('&');
  let connected = 0;

  const subscriber = async (i: number) => {
    const res = await request(`${target.url}/v1/event/stream?${topics}&index=${marker + 1}`, { headers, dispatcher: agent, signal: abort.signal });
    if (res.statusCode !== 200) throw new Error(`subscriber ${i}: the stream answered ${res.statusCode}`);
    connected += 1;
    // Frames are read as a stream of JSON values, whatever their delimiting (JsonValueStream).
    const reader = new JsonValueStream({ retain: false });
    try {
      for await (const chunk of res.body) {
        const now = performance.now();
        for (const value of reader.push(chunk as Buffer)) {
          const frame = value as JobFrame;
          if (!Array.isArray(frame.Events)) continue;
          for (const e of frame.Events) {
            if (e.Topic !== 'Job' || !ours.has(e.Key ?? '')) continue;
            const seq = Number(e.Payload?.Job?.Meta?.[SEQUENCE_META]);
            if (!Number.isSafeInteger(seq) || seq <= 0) continue;
            seen[i]!.set(seq, (seen[i]!.get(seq) ?? 0) + 1);
            const sent = sentAt.get(seq);
            if (sent === undefined) continue;
            recordLatencyMs(histogram, now - sent);
            const sec = Math.floor((now - started) / 1000);
            let b = perSecond.get(sec);
            if (!b) perSecond.set(sec, (b = { requests: 0, h: newLatencyHistogram() }));
            b.requests += 1;
            recordLatencyMs(b.h, now - sent);
          }
        }
      }
    } catch (err) {
      if (!abort.signal.aborted) throw err;
    }
  };

  const running = Array.from({ length: options.subscribers }, (_, i) => subscriber(i).catch((err: Error) => err));
  const connectDeadline = performance.now() + 10_000;
  while (connected < options.subscribers && performance.now() < connectDeadline) await new Promise((r) => setTimeout(r, 20));

  // Open model: registration n is due at n/rate seconds, whether or not the earlier ones answered.
  const accepted = new Set<number>();
  const failures: string[] = [];
  const total = Math.max(1, Math.floor((options.rate * options.durationMs) / 1000));
  const inFlight = new Set<Promise<void>>();
  const publishStart = performance.now();
  let skipped = 0;
  for (let seq = 1; seq <= total; seq++) {
    const due = publishStart + ((seq - 1) * 1000) / options.rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (inFlight.size >= MAX_IN_FLIGHT) {
      skipped += 1;
      continue;
    }
    sentAt.set(seq, performance.now());
    const p = fixtures
      .registerJob(jobs[seq % jobs.length]!, 'default', { [SEQUENCE_META]: String(seq) })
      .then(() => void accepted.add(seq))
      .catch((err: Error) => void failures.push(err.message))
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.all(inFlight);
  const drainDeadline = performance.now() + DRAIN_MS;
  const complete = () => seen.every((m) => [...accepted].every((s) => m.has(s)));
  while (!complete() && performance.now() < drainDeadline) await new Promise((r) => setTimeout(r, 50));
  abort.abort();
  const errors = (await Promise.all(running)).filter((r): r is Error => r instanceof Error);
  await agent.destroy();
  const elapsed = performance.now() - started;
  let missed = 0;
  let duplicates = 0;
  let delivered = 0;
  const deliveredPerSubscriber = seen.map((m) => {
    let count = 0;
    for (const s of accepted) if (!m.has(s)) missed += 1;
    for (const [s, c] of m) {
      if (!accepted.has(s)) continue;
      count += c;
      if (c > 1) duplicates += c - 1;
    }
    delivered += count;
    return count;
  });
  return {
    scenario: 'scheduler-event-fanout',
    engine: 'stream-subscribers',
    model: 'open',
    targetRate: options.rate,
    durationMs: Math.round(elapsed),
    requests: delivered,
    errors: errors.length + failures.length,
    dropped: missed + skipped,
    throughput: Math.round((delivered / (options.durationMs / 1000)) * 10) / 10,
    latencyMs: percentilesMs(histogram),
    histogram: encodeHistogram(histogram),
    timeline: [...perSecond.entries()].sort((a, b) => a[0] - b[0]).map(([t, b]) => ({ t, requests: b.requests, errors: 0, p50: percentilesMs(b.h).p50, p99: percentilesMs(b.h).p99 })),
    thresholds: [],
    // A subscriber that could not read the stream leaves the row without figures worth judging.
    ...(errors.length ? { error: errors.slice(0, 3).map((e) => e.message).join('; ') } : {}),
    problems: failures.slice(0, 5),
    subscribers: options.subscribers,
    published: accepted.size,
    missed,
    duplicates,
    deliveredPerSubscriber,
  };
}
