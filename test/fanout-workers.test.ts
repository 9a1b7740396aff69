import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEventFanout } from '../src/load/event-fanout.ts';
import { provisionLoadFixtures } from '../src/load/run-load.ts';
import type { LoadFixtures } from '../src/load/scenarios/types.ts';
import { newRunPrefix } from '../src/provision/run-prefix.ts';
import { startReference, type ReferenceWithControl } from '../src/reference/reference.ts';
import { referenceTargets } from '../src/run/reference-targets.ts';

// The fan-out's subscribers on this thread and spread over worker threads count alike: every
// subscriber gets every accepted registration once. (Behaviour only: no speed is asserted.)
describe('event fan-out subscribers', () => {
  let ref: ReferenceWithControl;
  let made: LoadFixtures;
  let teardown: (() => Promise<unknown>) | undefined;
  const runPrefix = newRunPrefix();

  beforeAll(async () => {
    ref = await startReference();
    const provisioned = await provisionLoadFixtures(referenceTargets(ref), false, runPrefix, () => undefined);
    made = provisioned.made;
    teardown = provisioned.provision?.teardown.bind(provisioned.provision);
  });

  afterAll(async () => {
    await teardown?.();
    await ref?.stop();
  });

  for (const workers of [0, 2]) {
    it(`${workers ? `on ${workers} worker threads` : 'on the main thread'}: every subscriber gets every registration once, with a latency for each`, async () => {
      const f = await runEventFanout(referenceTargets(ref).scheduler!, made.scheduler!, { subscribers: 5, rate: 40, durationMs: 1000, runPrefix, workers });
      expect(f.error).toBeUndefined();
      expect(f.workers).toBe(workers);
      expect(f.published).toBeGreaterThan(0);
      expect(f.missed).toBe(0);
      expect(f.duplicates).toBe(0);
      expect(f.deliveredPerSubscriber).toEqual(Array(5).fill(f.published));
      expect(f.requests).toBe(5 * f.published);
      expect(f.latencyMs.max).toBeGreaterThan(0);
      expect(f.timeline.reduce((n, b) => n + b.requests, 0)).toBe(f.requests);
    });
  }
});
