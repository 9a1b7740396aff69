import type { StackproofConfig } from '../config/schema.ts';
import type { ProvisionedMesh } from '../provision/mesh-provisioner.ts';
import type { ProvisionedScheduler } from '../provision/scheduler-provisioner.ts';
import type { ProvisionedSecrets } from '../provision/secrets-provisioner.ts';

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
  /** Multiplies every wait bound of the suites (suites/kit/bounds.ts); 1 unless --time-scale. */
  timeScale?: number;
  /** Values that must never appear in evidence (tokens from the config, for instance). */
  secrets: string[];
  /** Every name the run gives to what it creates starts with this and a dash (cleanup removes by it). */
  runPrefix: string;
  /** What the provisioners made before the suites ran, and why a capability is missing. */
  provisioned?: { secrets?: ProvisionedSecrets; mesh?: ProvisionedMesh; scheduler?: ProvisionedScheduler };
}

declare module 'vitest' {
  export interface ProvidedContext {
    stackproof: SuiteContext;
  }
}
