import { Worker } from 'node:worker_threads';
import { dialectFor, tokenHeaders } from '../config/dialects.ts';
import type { SchedulerTarget } from '../config/schema.ts';
import type { SchedulerFixtures } from '../provision/scheduler-fixtures.ts';
import type { LoadScenarioResult } from '../report/results-model.ts';
import { epochNow, STREAM_END_WORDS, SubscriberSet, type StreamEnding, type SubscriberSetConfig, type SubscriberSetResult } from './fanout-subscribers.ts';
import { encodeHistogram, mergeHistograms, timelinePercentilesMs } from './latency-histogram.ts';
import { rowPercentilesMs } from './percentile-row.ts';
import { groupEndings } from './stream-endings.ts';

export interface FanoutOptions {
  subscribers: number;
  /** Actions (job registrations, each a Job event) per second. */
  rate: number;
  durationMs: number;
  /** Every job the fan-out registers is named under this (the run prefix and a dash). */
  runPrefix: string;
  /** Worker threads to spread the subscribers over (0, the default: all on this thread, beside the publisher). */
  workers?: number;
  /** The target's event buffer in events, where it says (Nomad's event_buffer_size): a stream that ends early is judged against it. */
  eventBufferSize?: number;
  /** Stops the publishing early (Ctrl-C): what was published is still delivered and counted. */
  signal?: AbortSignal;
  /** Called with the OS thread ids of the subscriber workers once they run, to name them in the CPU figures. */
  onWorkerThreads?: (tids: Map<number, string>) => void;
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
  /** Worker threads the subscribers ran on (0: the publisher's thread). */
  workers: number;
  /** Registrations not sent because MAX_IN_FLIGHT were unanswered: the scheduler was slower than the rate. */
  skipped: number;
  /** CPU time of this process (all its threads) from the first registration to the end of the drain, in µs. */
  cpuMicros: number;
  /** Bytes of stream body the subscribers read, summed over them. */
  bytesReceived: number;
  /** The streams that ended early (or were stopped short at the drain deadline), each with why and where. */
  endings: StreamEnding[];
  streams: NonNullable<LoadScenarioResult['streams']>;
  /** When the first stream that ended early ended (epoch ms), for the CPU figures of the moments that lost it. */
  firstEndingAt?: number;
}

/** The job meta key that carries an action's sequence number into its Job event's payload. */
export const SEQUENCE_META = 'stackproof_seq';
/** A handful of jobs take the registrations in turn: each registration changes its job's meta, so each is an event. */
const JOBS = 5;
/** Registrations in flight at once; beyond it the scheduler is slower than the rate and the shortfall shows. */
const MAX_IN_FLIGHT = 64;
/** How long the subscribers may take to get the last events after the last registration answered. */
const DRAIN_MS = 5_000;

/**
 * Event-stream fan-out driven by real actions, so it runs on a real Nomad as on the reference: N
 * subscribers on the Job topic while the run re-registers a few unplaceable jobs at a set rate,
 * each registration with its sequence number in the job's meta. Delivery latency runs from the
 * moment a registration was sent to the moment a subscriber read its event; every subscriber must
 * see every accepted registration exactly once. The jobs are purged at the end, also after a failure.
 */
export async function runEventFanout(target: SchedulerTarget, fixtures: FanoutFixtures, options: FanoutOptions): Promise<FanoutResult> {
  const jobs = Array.from({ length: JOBS }, (_, i) => `${options.runPrefix}-fanout-${i}`);
  try {
    // The jobs exist before anyone subscribes: the stream starts after their first events.
    let marker = 0;
    for (const id of jobs) marker = Math.max(marker, (await fixtures.registerJob(id)).index);
    return await fanOut(target, fixtures, options, jobs, marker);
  } finally {
    for (const id of jobs) await fixtures.purgeJob(id).catch(() => undefined);
  }
}

async function fanOut(target: SchedulerTarget, fixtures: FanoutFixtures, options: FanoutOptions, jobs: string[], marker: number): Promise<FanoutResult> {
  const headers = tokenHeaders(dialectFor(target.dialect).scheduler.token, target.token);
  const total = Math.max(1, Math.floor((options.rate * options.durationMs) / 1000));
  const topics = jobs.map((id) => `topic=${encodeURIComponent(`Job:${id}`)}`).join('&');
  const workers = Math.max(0, Math.min(options.workers ?? 0, options.subscribers));
  const sets = Math.max(1, workers);
  const sentAtBuffer = new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT * (total + 1));
  const sentAt = new Float64Array(sentAtBuffer);
  const progress = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT * sets));
  // How many registrations were accepted, and the highest index: a stream that ends early says how far behind it was.
  const newestBuffer = new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT * 2);
  const newest = new Float64Array(newestBuffer);
  const started = epochNow();
  const configs: SubscriberSetConfig[] = [];
  for (let w = 0, first = 0; w < sets; w++) {
    const count = Math.floor(options.subscribers / sets) + (w < options.subscribers % sets ? 1 : 0);
    configs.push({ url: `${target.url}/v1/event/stream?${topics}&index=${marker + 1}`, headers, count, first, jobs, metaKey: SEQUENCE_META, total, startedAt: started, sentAt: sentAtBuffer, progress: progress.buffer as SharedArrayBuffer, progressSlot: w, newest: newestBuffer });
    first += count;
  }
  const group = workers > 0 ? await WorkerSubscribers.start(configs) : await InlineSubscribers.start(configs[0]!);
  if (group instanceof WorkerSubscribers) options.onWorkerThreads?.(group.threadNames);

  // Open model: registration n is due at n/rate seconds, whether or not the earlier ones answered.
  const accepted = new Set<number>();
  const failures: string[] = [];
  const inFlight = new Set<Promise<void>>();
  const publishStart = performance.now();
  const cpuAtStart = process.cpuUsage();
  let skipped = 0;
  for (let seq = 1; seq <= total; seq++) {
    if (options.signal?.aborted) break;
    const due = publishStart + ((seq - 1) * 1000) / options.rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (inFlight.size >= MAX_IN_FLIGHT) {
      skipped += 1;
      continue;
    }
    sentAt[seq] = epochNow();
    const p = fixtures
      .registerJob(jobs[seq % jobs.length]!, 'default', { [SEQUENCE_META]: String(seq) })
      .then(({ index }) => {
        accepted.add(seq);
        newest[0] = accepted.size;
        if (index > newest[1]!) newest[1] = index;
      })
      .catch((err: Error) => void failures.push(err.message))
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.all(inFlight);
  const drainDeadline = performance.now() + DRAIN_MS;
  // Every set publishes the fewest distinct registrations any of its subscribers got.
  const complete = () => (group.reportProgress(), Array.from(progress).every((n) => n >= accepted.size));
  while (!complete() && performance.now() < drainDeadline && !options.signal?.aborted) await new Promise((r) => setTimeout(r, 50));
  const cpu = process.cpuUsage(cpuAtStart);
  const results = await group.stop([...accepted], DRAIN_MS);
  const elapsed = epochNow() - started;
  const endings = results.flatMap((r) => r.endings).sort((a, b) => a.subscriber - b.subscriber);
  const groups = groupEndings(endings, options.eventBufferSize);
  const endedEarly = endings.filter((e) => e.cause !== 'deadline').length;
  const missed = results.reduce((n, r) => n + r.missed, 0);
  const duplicates = results.reduce((n, r) => n + r.duplicates, 0);
  const deliveredPerSubscriber = results.flatMap((r) => r.deliveredPerSubscriber);
  const delivered = deliveredPerSubscriber.reduce((n, d) => n + d, 0);
  const histogram = mergeHistograms(results.map((r) => r.histogram));
  const seconds = new Map<number, { requests: number; histograms: string[] }>();
  for (const b of results.flatMap((r) => r.perSecond)) {
    const s = seconds.get(b.t) ?? { requests: 0, histograms: [] };
    s.requests += b.requests;
    s.histograms.push(b.histogram);
    seconds.set(b.t, s);
  }
  return {
    scenario: 'scheduler-event-fanout',
    engine: 'stream-subscribers',
    model: 'open',
    targetRate: options.rate,
    durationMs: Math.round(elapsed),
    requests: delivered,
    errors: endedEarly + failures.length,
    dropped: missed + skipped,
    throughput: Math.round((delivered / (options.durationMs / 1000)) * 10) / 10,
    latencyMs: rowPercentilesMs(histogram),
    histogram: encodeHistogram(histogram),
    timeline: [...seconds.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([t, b]) => {
        // Held at each second's max, as every engine's timeline is.
        return { t, requests: b.requests, errors: 0, ...timelinePercentilesMs(mergeHistograms(b.histograms)) };
      }),
    thresholds: [],
    // Streams that ended early with nothing delivered leave the row without figures; where events
    // were delivered, their latencies stand, and the ended streams fail the run as errors and missed
    // deliveries, each cause in `streams`.
    ...(endedEarly && delivered === 0 ? { error: `${endedEarly} of ${options.subscribers} streams ended early: ${groups.filter((g) => g.cause !== 'deadline').map((g) => `${g.count} ${STREAM_END_WORDS[g.cause]} (${g.detail})`).join('; ')}` } : {}),
    problems: failures.slice(0, 5),
    subscribers: options.subscribers,
    published: accepted.size,
    missed,
    duplicates,
    deliveredPerSubscriber,
    workers,
    skipped,
    cpuMicros: cpu.user + cpu.system,
    bytesReceived: results.reduce((n, r) => n + r.bytes, 0),
    endings,
    ...(endedEarly ? { firstEndingAt: started + Math.min(...endings.filter((e) => e.cause !== 'deadline').map((e) => e.atMs)) } : {}),
    streams: {
      subscribers: options.subscribers,
      published: accepted.size,
      missed,
      duplicates,
      notStarted: skipped,
      delivered: deliveredPerSubscriber.length ? { min: Math.min(...deliveredPerSubscriber), max: Math.max(...deliveredPerSubscriber) } : { min: 0, max: 0 },
      ...(options.eventBufferSize !== undefined ? { eventBufferSize: options.eventBufferSize } : {}),
      endedEarly,
      endings: groups,
    },
  };
}

interface Subscribers {
  reportProgress(): void;
  stop(accepted: number[], drainDeadlineMs: number): Promise<SubscriberSetResult[]>;
}

/** The subscribers on this thread's event loop, beside the publisher. */
class InlineSubscribers implements Subscribers {
  private constructor(private readonly set: SubscriberSet) {}

  static async start(config: SubscriberSetConfig): Promise<InlineSubscribers> {
    const set = new SubscriberSet(config);
    await set.start();
    return new InlineSubscribers(set);
  }

  reportProgress(): void {
    this.set.reportProgress();
  }

  async stop(accepted: number[], drainDeadlineMs: number): Promise<SubscriberSetResult[]> {
    return [await this.set.stop(accepted, drainDeadlineMs)];
  }
}

/** The subscribers spread over worker threads, one SubscriberSet each; the publisher keeps this thread. */
class WorkerSubscribers implements Subscribers {
  private constructor(
    private readonly workers: Worker[],
    /** Each worker's OS thread, named for the CPU figures. */
    readonly threadNames: Map<number, string>,
  ) {}

  static async start(configs: SubscriberSetConfig[]): Promise<WorkerSubscribers> {
    const workers = configs.map((config) => new Worker(WORKER_ENTRY, { workerData: config }));
    const names = new Map<number, string>();
    try {
      await Promise.all(workers.map(async (w, i) => {
        const { tid } = (await reply(w, 'started', true)) as { tid?: number };
        if (tid !== undefined) names.set(tid, `fan-out worker ${i + 1}`);
      }));
    } catch (err) {
      await Promise.all(workers.map((w) => w.terminate()));
      throw err;
    }
    return new WorkerSubscribers(workers, names);
  }

  reportProgress(): void {
    // Each worker publishes its own progress on a timer.
  }

  async stop(accepted: number[], drainDeadlineMs: number): Promise<SubscriberSetResult[]> {
    const results = this.workers.map((w) => reply(w, 'result'));
    for (const w of this.workers) w.postMessage({ stop: true, accepted, drainDeadlineMs });
    try {
      return (await Promise.all(results)) as SubscriberSetResult[];
    } finally {
      await Promise.all(this.workers.map((w) => w.terminate()));
    }
  }
}

const WORKER_ENTRY = new URL('./fanout-worker.mjs', import.meta.url);

/** The worker's next message carrying `field` (or, with `whole`, that message); a worker that fails or exits first rejects. */
function reply(w: Worker, field: 'started' | 'result', whole = false): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const onMessage = (msg: Record<string, unknown>) => {
      if (!(field in msg)) return;
      cleanup();
      resolve(whole ? msg : msg[field]);
    };
    const onError = (err: Error) => (cleanup(), reject(err));
    const onExit = (code: number) => (cleanup(), reject(new Error(`a fan-out worker exited (code ${code}) before its ${field} message`)));
    const cleanup = () => {
      w.off('message', onMessage);
      w.off('error', onError);
      w.off('exit', onExit);
    };
    w.on('message', onMessage);
    w.on('error', onError);
    w.on('exit', onExit);
  });
}
