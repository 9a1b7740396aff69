import { defineConfig } from 'vitest/config';

// The harness's own tests. The conformance suites (suites/**/*.suite.ts) are not run from here:
// the CLI runs them against a target.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', './test/support/plain-summary-reporter.ts'],
  },
});
