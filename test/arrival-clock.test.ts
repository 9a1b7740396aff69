import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { ARRIVAL_WORKER_SOURCE, openArrivalClock } from '../src/load/arrival-clock.ts';

describe('arrival clock', () => {
  // The worker thread keeps time; the fallback (timers and turns of the loop) is what runs should
  // the worker fail. Neither may ever resolve before the time asked for.
  for (const worker of [true, false]) {
    it(`never resolves before the time asked for, and always resolves (${worker ? 'worker thread' : 'timer fallback'})`, async () => {
      const clock = await openArrivalClock({ worker });
      try {
        // Waits from the past to 3 ms ahead, most of them shorter than a timer tick, back to back:
        // the pattern of an open-model run at a few thousand requests a second.
        let early = 0;
        for (let k = 0; k < 3_000; k++) {
          const t = performance.now() + (k % 10 === 0 ? 3 : k % 3 === 0 ? -0.1 : Math.random() * 0.4);
          await clock.until(t);
          if (performance.now() < t) early += 1;
        }
        expect(early).toBe(0);
      } finally {
        clock.close();
      }
    }, 30_000);
  }


  it('answers a request even when the notify announcing it arrives after the worker has taken it', async () => {
    // The main thread stores a new generation, then notifies. A worker already awake reads the
    // generation before the notify, which then lands in its timed wait for that very request. A
    // worker that took any wake-up for "replaced" went back to sleep on the generation it held and
    // never answered: under CPU contention a run hung. Here the late notify is sent on purpose.
    const sab = new SharedArrayBuffer(16);
    const ctl = new Int32Array(sab, 0, 2);
    const due = new Float64Array(sab, 8, 1);
    const worker = new Worker(ARRIVAL_WORKER_SOURCE, { eval: true, workerData: { sab, origin: performance.timeOrigin } });
    try {
      await once(worker, 'online');
      const answered = once(worker, 'message');
      due[0] = performance.now() + 50;
      Atomics.store(ctl, 0, 1);
      Atomics.notify(ctl, 0);
      await new Promise((r) => setTimeout(r, 10)); // the worker is in its timed wait for generation 1
      Atomics.notify(ctl, 0); // the late notify, generation unchanged
      const timeout = new Promise((r) => setTimeout(() => r(['no answer']), 2_000).unref());
      // 2 s is forty times the 50 ms asked for: a lost request never answers at all.
      expect(await Promise.race([answered, timeout])).toEqual([1]);
      expect(performance.now()).toBeGreaterThanOrEqual(due[0]!);
    } finally {
      Atomics.store(ctl, 1, 1);
      Atomics.add(ctl, 0, 1);
      Atomics.notify(ctl, 0);
      await worker.terminate();
    }
  });
});
