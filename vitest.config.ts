import { defineConfig } from 'vitest/config';

/**
 * Tests that check measured latencies against ground truth (the open-model runner's accuracy) need
 * a machine nobody else is loading: beside the fault matrix, which takes both cores for minutes,
 * a 2 ms server's p50 moves by half a millisecond. They run in a pass of their own, one file at a
 * time, before the rest (vitest.timing.config.ts); `npm test` runs both.
 */
export const TIMING_TESTS = ['test/open-model.test.ts'];

// The harness's own tests. The conformance suites (suites/**/*.suite.ts) are not run from here:
// the CLI runs them against a target.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...TIMING_TESTS],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', './test/support/plain-summary-reporter.ts'],
  },
});
