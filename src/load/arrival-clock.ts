import { setImmediate as nextLoopTurn } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';

/**
 * Waits until a given performance.now() time with sub-millisecond precision, for the open-model
 * runner's arrivals.
 *
 * Node's setTimeout works in whole milliseconds on a cached loop clock: it fires up to ~1 ms early
 * or late, so a request due less than a tick away would start at the wrong moment. Turning the
 * event loop (setImmediate) until each arrival is precise, but keeps a whole core busy for the
 * entire run, on a machine the target may share. So a worker thread keeps time: it sleeps in
 * Atomics.wait, whose timeout is sub-millisecond but ends ~0.1 ms late (Linux timer slack and the
 * thread's wake-up), so it wakes WORKER_SPIN_MS early and spins on the clock in its own thread for
 * the rest; it posts to the main thread MAIN_TURN_MS before the arrival (a post wakes the main
 * thread ~0.02-0.03 ms later), and the main thread turns its loop (setImmediate, so I/O keeps
 * flowing) for what is left. Measured on 2 cores against a bare node:http server: arrivals start
 * a few microseconds after they are due (median), at about a third of a core at 1,000/s, where
 * turning the loop for the whole wait costs a full core. At 5,000/s arrivals are 0.2 ms apart and
 * the worker spins most of each gap: close to a core, like turning the loop, but off the loop that
 * reads the answers.
 */
export interface ArrivalClock {
  /** Resolves once performance.now() has reached `t` (as soon after as the event loop allows). */
  until(t: number): Promise<void>;
  /** Ends the worker; the clock must not be used afterwards. */
  close(): void;
}

/** The worker sleeps until this long before an arrival and spins for the rest (covers Atomics.wait ending late). */
const WORKER_SPIN_MS = 0.1;
/** A remainder this short is not worth a round trip to the worker (the main thread's wake-up takes about as long). */
const MAIN_TURN_MS = 0.03;
/** Used only if the worker is gone: setTimeout may fire this much late, so it aims this much early. */
const TIMER_SLACK_MS = 2;

/**
 * Plain JavaScript, evaluated in the worker (no loader or file path to resolve, whatever runs the
 * CLI); exported for the test of its hand-over. workerData is { sab, origin }: in the shared buffer
 * ctl[0] (Int32, offset 0) is the request generation, ctl[1] is 1 once closed, due[0] (Float64,
 * offset 8) is when to post the generation back, in the main thread's performance.now() terms
 * (origin is the main thread's timeOrigin; the threads' timeOrigin + now() agree to a microsecond).
 */
export const ARRIVAL_WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const ctl = new Int32Array(workerData.sab, 0, 2);
const due = new Float64Array(workerData.sab, 8, 1);
const shift = performance.timeOrigin - workerData.origin;
const SPIN = ${WORKER_SPIN_MS};
let seen = 0;
for (;;) {
  Atomics.wait(ctl, 0, seen);
  if (Atomics.load(ctl, 1) === 1) break;
  seen = Atomics.load(ctl, 0);
  for (;;) {
    const remaining = due[0] - (performance.now() + shift);
    if (remaining <= 0) { parentPort.postMessage(seen); break; }
    if (remaining <= SPIN) {
      if (Atomics.load(ctl, 0) !== seen) break;
      continue;
    }
    Atomics.wait(ctl, 0, seen, remaining - SPIN);
    // A newer request (or close) replaced this one: the outer loop takes it. Being woken is not
    // enough to tell: the notify that announced this very request can arrive after the worker
    // already read it, and would otherwise leave it unanswered.
    if (Atomics.load(ctl, 0) !== seen) break;
  }
}
`;

export interface ArrivalClockOptions {
  /** false: setTimeout for the bulk of a wait, then turns of the main loop (the fallback should the worker fail; for tests). */
  worker?: boolean;
}

export async function openArrivalClock(options: ArrivalClockOptions = {}): Promise<ArrivalClock> {
  const sab = new SharedArrayBuffer(16);
  const ctl = new Int32Array(sab, 0, 2);
  const due = new Float64Array(sab, 8, 1);
  let generation = 0;
  let waiting: { generation: number; resolve: () => void } | undefined;
  let workerGone = true;
  const wakeWaiter = () => {
    const w = waiting;
    waiting = undefined;
    w?.resolve();
  };
  // Should the worker fail, the clock falls back to timers plus turns of the loop rather than hang the run.
  const gone = () => {
    workerGone = true;
    wakeWaiter();
  };
  let worker: Worker | undefined;
  if (options.worker !== false) {
    // Plain JavaScript needs none of the parent's flags (loaders, inspector).
    const w = (worker = new Worker(ARRIVAL_WORKER_SOURCE, { eval: true, execArgv: [], workerData: { sab, origin: performance.timeOrigin } }));
    w.on('message', (g: number) => {
      if (waiting && g === waiting.generation) wakeWaiter();
    });
    w.on('error', gone);
    w.on('exit', gone);
    // Booted before the run's clock starts, so the first arrivals do not wait for the thread.
    workerGone = !(await new Promise<boolean>((resolve) => {
      w.once('online', () => resolve(true));
      w.once('error', () => resolve(false));
      w.once('exit', () => resolve(false));
    }));
  }

  return {
    async until(t) {
      for (;;) {
        const remaining = t - performance.now();
        if (remaining <= 0) return;
        if (remaining <= MAIN_TURN_MS || (workerGone && remaining <= TIMER_SLACK_MS)) await nextLoopTurn();
        else if (workerGone) await new Promise((r) => setTimeout(r, remaining - TIMER_SLACK_MS));
        else {
          generation += 1;
          due[0] = t - MAIN_TURN_MS;
          await new Promise<void>((resolve) => {
            waiting = { generation, resolve };
            Atomics.store(ctl, 0, generation);
            Atomics.notify(ctl, 0);
          });
        }
      }
    },
    close() {
      if (!worker) return;
      worker.off('exit', gone);
      Atomics.store(ctl, 1, 1);
      Atomics.add(ctl, 0, 1);
      Atomics.notify(ctl, 0);
      worker.unref();
    },
  };
}
