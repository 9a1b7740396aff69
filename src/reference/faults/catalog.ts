import { meshFaults } from './mesh.ts';
import { schedulerFaults } from './scheduler.ts';
import { secretsFaults } from './secrets.ts';
import { secretsCloudauthFaults } from './secrets-cloudauth.ts';
import { secretsOidcFaults } from './secrets-oidc.ts';
import type { Fault } from './types.ts';

/** Every fault the reference can be started with. Every rule is broken by at least one of them. */
export const FAULTS: readonly Fault[] = [...secretsFaults, ...secretsOidcFaults, ...secretsCloudauthFaults, ...meshFaults, ...schedulerFaults];

const byId = new Map(FAULTS.map((f) => [f.id, f]));

export function faultById(id: string): Fault | undefined {
  return byId.get(id);
}

export function faultsBreaking(ruleId: string): Fault[] {
  return FAULTS.filter((f) => f.breaks.includes(ruleId));
}
