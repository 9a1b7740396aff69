import { Worker } from 'node:worker_threads';

/**
 * The open-model runner's arrivals: calls `due()` on the main thread when arrivals of a fixed
 * schedule (start + i * interval, i < count) fall due, with sub-millisecond precision and as few
 * wake-ups as that allows. `due()` starts every arrival due by then; one call may cover several.
 *
 * Why a worker that knows the whole schedule: Node's timers work in whole milliseconds, so a worker
 * thread keeps time in Atomics.wait (sub-millisecond) and posts to the main thread at each arrival.
 * Wake-ups are what the generator's CPU goes to: on the 2-core VMs measured, a timed sleep costs
 * 25-40 µs of CPU each (arming and taking the timer), a futex wake without a timer ~6 µs, and
 * spinning a full core. The clock this replaced (an until(t) the runner awaited) cost, per arrival, a
 * notify from the main thread, a timed wait and then a 0.1 ms spin in the worker, and a post back:
 * over 100 µs of CPU an arrival at 1,000/s. Knowing the schedule, this worker needs no word from the
 * main thread: one timed wait and one post per arrival up to 5,000/s, and above that one every
 * MIN_POST_GAP_MS (FAST_POST_GAP_MS above 20,000/s), each covering every arrival due by then.
 *
 * Atomics.wait ends late by Linux's timer slack (50 µs) plus the thread's wake-up, 65-100 µs on the
 * machines measured. The worker aims early by a running estimate of that lateness's 30th
 * percentile: most waits end a little after the arrival is due (and it is posted at once), the rest
 * a little before (the worker spins the remainder, a few microseconds). Aiming at the 90th
 * percentile spun ~20 µs an arrival; sleeping without aiming early made every start ~80 µs late.
 */
export interface ArrivalSchedule {
  /**
   * Starts the schedule: `due` is called on the main thread when arrivals start + i * intervalMs
   * (i < count) fall due, at or after their time, never before; one call may cover several, up to
   * arrival `last`; each call's `last` is past the previous call's, so the last arrival is announced once.
   */
  run(start: number, intervalMs: number, count: number, due: (last: number) => void): void;
  /** Stops the calls and ends the worker; the schedule must not be used afterwards. */
  close(): void;
}

export interface ArrivalScheduleOptions {
  /** false: timers and turns of the loop instead of the worker (the fallback should it fail; for tests). */
  worker?: boolean;
  /**
   * 'coarse': no worker and no spinning; Node's millisecond timers wake the main thread, which starts
   * every arrival due by then. Arrivals start up to ~1-2 ms late (still measured from when they were
   * due), but each one costs no wake of a thread of its own: see COARSE in open-model-runner.ts.
   */
  precision?: 'fine' | 'coarse';
}

/** The worker spins, rather than sleeps, for a remainder this short (a sleep would end far later). */
const WORKER_SPIN_MS = 0.02;
const LATENESS_QUANTILE = 0.3;
const LATENESS_STEP_MS = 0.002;
const INITIAL_MARGIN_MS = 0.07;
const MAX_MARGIN_MS = 0.3;
/**
 * Announcements are at least this far apart: above 5,000/s one covers every arrival due by then, a
 * batch, rather than one wake-up of each thread per arrival. An arrival then starts up to this much
 * after it is due, and its latency is still measured from when it was due.
 */
const MIN_POST_GAP_MS = 0.2;
/**
 * Above 20,000/s (arrivals closer than FAST_INTERVAL_MS) announcements are further apart still: the
 * main thread is then busy reading answers and starts due arrivals itself as it reads each one, so
 * the announcements matter only when it falls idle. Measured pinned to one core against the
 * fixed-response server: 0.2 ms apart held 30,000/s at ~28 µs of CPU a request and dropped 4% at
 * 40,000/s; 0.5 ms apart held 36,000/s at ~21 µs a request, start lag p50 still ~0.06 ms.
 */
const FAST_INTERVAL_MS = 0.05;
const FAST_POST_GAP_MS = 0.5;
/** Used when the worker is gone: setTimeout may fire this much late, so it aims this much early and turns the loop for the rest. */
const TIMER_SLACK_MS = 2;

/**
 * Plain JavaScript, evaluated in the worker. workerData is { sab, origin }: ctl[0] (Int32) is 0
 * until the schedule is set, 1 once it runs, 2 once closed; sched (Float64 from byte 8) holds start,
 * interval and count, start in the main thread's performance.now() terms (origin is the main
 * thread's timeOrigin; the threads' timeOrigin + now() agree to a microsecond).
 */
export const ARRIVAL_SCHEDULE_WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const ctl = new Int32Array(workerData.sab, 0, 1);
const sched = new Float64Array(workerData.sab, 8, 3);
const shift = performance.timeOrigin - workerData.origin;
const now = () => performance.now() + shift;
while (Atomics.load(ctl, 0) === 0) Atomics.wait(ctl, 0, 0);
const start = sched[0], interval = sched[1], count = sched[2];
let margin = ${INITIAL_MARGIN_MS};
let i = 0;
let posted = -Infinity;
while (i < count && Atomics.load(ctl, 0) === 1) {
  const remaining = Math.max(start + i * interval, posted + (interval < ${FAST_INTERVAL_MS} ? ${FAST_POST_GAP_MS} : ${MIN_POST_GAP_MS})) - now();
  if (remaining > 0) {
    if (remaining <= ${WORKER_SPIN_MS}) continue;
    // A wait shorter than the margin still ends about a margin later: slightly late beats spinning that long.
    const asked = Math.max(0.001, remaining - margin);
    const t0 = performance.now();
    if (Atomics.wait(ctl, 0, 1, asked) === 'timed-out') {
      // A stochastic estimate of the lateness's quantile: it settles where that share of waits end early.
      margin += performance.now() - t0 - asked > margin ? ${LATENESS_STEP_MS * LATENESS_QUANTILE} : -${LATENESS_STEP_MS * (1 - LATENESS_QUANTILE)};
      margin = Math.min(${MAX_MARGIN_MS}, Math.max(0, margin));
    }
    continue;
  }
  // One post for every arrival due by now; the next wait is for the first one not yet due.
  const t = now();
  // Never past the last arrival: a worker that wakes late (a busy machine) would otherwise announce one beyond it.
  let k = Math.min(count - 1, Math.max(i, Math.floor((t - start) / interval)));
  while (k + 1 < count && start + (k + 1) * interval <= t) k++;
  while (k > i && start + k * interval > t) k--;
  i = k + 1;
  posted = t;
  parentPort.postMessage(k);
}
`;

/**
 * Boots the worker (before the run's clock starts, so the first arrivals do not wait for it). Should
 * it fail, the schedule falls back to timers plus turns of the loop rather than hang the run.
 */
export async function openArrivalSchedule(options: ArrivalScheduleOptions = {}): Promise<ArrivalSchedule> {
  const sab = new SharedArrayBuffer(32);
  const ctl = new Int32Array(sab, 0, 1);
  const sched = new Float64Array(sab, 8, 3);
  let worker: Worker | undefined;
  let due: ((last: number) => void) | undefined;
  let closed = false;
  let plan: { start: number; intervalMs: number; count: number } | undefined;
  let fallback: NodeJS.Timeout | NodeJS.Immediate | undefined;

  // Timers and turns of the loop: the same schedule on the main thread, from the first arrival not yet announced.
  let next = 0;
  const coarse = options.precision === 'coarse';
  const tick = () => {
    fallback = undefined;
    if (closed || !plan || !due) return;
    const { start, intervalMs, count } = plan;
    const now = performance.now();
    if (next < count && start + next * intervalMs <= now) {
      while (next < count && start + next * intervalMs <= now) next += 1;
      due(next - 1);
    }
    if (next >= count || closed) return;
    const remaining = start + next * intervalMs - performance.now();
    if (coarse) {
      // Node's timers count whole milliseconds and may fire a fraction of one early: tick checks and re-arms.
      fallback = setTimeout(tick, Math.max(1, Math.ceil(remaining)));
      return;
    }
    fallback = remaining > TIMER_SLACK_MS ? setTimeout(tick, remaining - TIMER_SLACK_MS) : setImmediate(tick);
  };
  // The last arrival the worker announced: Node delivers a worker's pending messages before its
  // 'exit', so once it has announced the last one its exit is the schedule's end, not a failure.
  let announced = -1;
  const workerFailed = () => {
    if (closed || !worker) return;
    worker = undefined;
    next = announced + 1;
    if (plan && next < plan.count) tick();
  };

  if (options.worker !== false && !coarse) {
    // Plain JavaScript needs none of the parent's flags (loaders, inspector).
    const w = new Worker(ARRIVAL_SCHEDULE_WORKER_SOURCE, { eval: true, execArgv: [], workerData: { sab, origin: performance.timeOrigin } });
    w.on('message', (last: number) => {
      announced = last;
      due?.(last);
    });
    w.on('error', workerFailed);
    w.on('exit', workerFailed);
    const online = await new Promise<boolean>((resolve) => {
      w.once('online', () => resolve(true));
      w.once('error', () => resolve(false));
      w.once('exit', () => resolve(false));
    });
    if (online) worker = w;
  }

  return {
    run(start, intervalMs, count, onDue) {
      if (plan) throw new Error('the arrival schedule already runs');
      plan = { start, intervalMs, count };
      due = onDue;
      if (!worker) return tick();
      sched[0] = start;
      sched[1] = intervalMs;
      sched[2] = count;
      Atomics.store(ctl, 0, 1);
      Atomics.notify(ctl, 0);
    },
    close() {
      closed = true;
      due = undefined;
      if (fallback) {
        clearTimeout(fallback as NodeJS.Timeout);
        clearImmediate(fallback as NodeJS.Immediate);
      }
      const w = worker;
      worker = undefined;
      if (!w) return;
      w.off('exit', workerFailed);
      w.off('error', workerFailed);
      Atomics.store(ctl, 0, 2);
      Atomics.notify(ctl, 0);
      w.unref();
    },
  };
}
