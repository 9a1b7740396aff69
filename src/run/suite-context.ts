import type { StackproofConfig } from '../config/schema.ts';

/**
 * What the CLI hands to the suites through vitest's provide/inject: the targets and the knobs of
 * this run. Plain data only, since it crosses into vitest's workers.
 */
export interface SuiteContext {
  targets: StackproofConfig['targets'];
  profile: StackproofConfig['profile'];
  runs: number;
  seed: number;
  path?: string;
  requestTimeoutMs: number;
  /** Values that must never appear in evidence (tokens from the config, for instance). */
  secrets: string[];
}

declare module 'vitest' {
  export interface ProvidedContext {
    stackproof: SuiteContext;
  }
}
