import { defineConfig } from 'vitest/config';
import { TIMING_TESTS } from './vitest.config.ts';

/** The timing-accuracy tests, alone on the machine: one file at a time, nothing else running. */
export default defineConfig({
  test: {
    include: TIMING_TESTS,
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', './test/support/plain-summary-reporter.ts'],
  },
});
