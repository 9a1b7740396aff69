import type { Fault } from './types.ts';

/** Faults of the cloudauth area added with the statement map (issue 18); the older ones are in secrets.ts. */
export const secretsCloudauthFaults: Fault[] = [];
