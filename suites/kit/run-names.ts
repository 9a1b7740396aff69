import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';

/** Tells this worker's names from other workers' within one run. */
const WORKER = randomBytes(3).readUIntBE(0, 3).toString(36).padStart(5, '0').slice(0, 4);
let counter = 0;

/**
 * The run's prefix (from the CLI): every name a suite gives to what it creates on a target starts
 * with it, which is how the end-of-run cleanup and `stackproof cleanup` find it, and how names of
 * anyone else's are never touched.
 */
export function runPrefixOfRun(): string {
  return inject('stackproof').runPrefix;
}

/** A name unique to this run, valid in a named-resource route and as a user, entity or mount name. */
export function uniqueName(tag: string): string {
  counter += 1;
  return `${runPrefixOfRun()}-${tag}-${WORKER}${counter.toString(36)}`;
}
