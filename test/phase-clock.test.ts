import { describe, expect, it } from 'vitest';
import { PhaseClock } from '../src/run/phase-clock.ts';

describe('PhaseClock', () => {
  it('lists the phases in the order they ran, a recorded start-up first, and sums a phase that ran twice', async () => {
    const clock = new PhaseClock();
    clock.record('start-up', 1234);
    await clock.time('suites', async () => undefined);
    clock.start('cleanup');
    clock.start('suites');
    clock.stop();
    const summary = clock.summary();
    expect(summary).toMatch(/^start-up 1\.2 s, suites 0\.0 s, cleanup 0\.0 s$/);
  });
});
