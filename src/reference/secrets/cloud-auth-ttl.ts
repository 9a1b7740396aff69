import type { FaultSet } from '../faults/types.ts';
import type { Role } from './cloud-auth-model.ts';
import { MAX_LEASE_TTL } from './cloud-auth-upstream.ts';

/** The lifetime a token gets when the role sets no token_ttl (the upstream system default, 768h). */
export const SYSTEM_DEFAULT_TTL = 2_764_800;

/**
 * The lifetime (seconds) of a token a login through this role issues. Spec 000: token_ttl is the
 * "Incremental lifetime of generated tokens", token_max_ttl the "Maximum lifetime",
 * token_explicit_max_ttl a "Hard cap on lifetime". Where the spec leaves the rest open (no token_ttl;
 * a period) this follows Vault, whose handleLoginRequest (vault/request_handling.go) runs
 * sdk/framework/lease.go CalculateTTL: the cap is the least of the system maximum, token_max_ttl and
 * token_explicit_max_ttl; a period stands for the TTL; otherwise token_ttl, else the system default;
 * whichever it is, no more than the cap.
 */
export function loginTokenTtl(role: Role, faults: FaultSet): number {
  let cap = MAX_LEASE_TTL;
  if (role.token_max_ttl > 0 && !faults.has('secrets.cloudauth-max-ttl-ignored')) cap = Math.min(cap, role.token_max_ttl);
  if (role.token_explicit_max_ttl > 0 && !faults.has('secrets.cloudauth-explicit-max-ttl-ignored')) cap = Math.min(cap, role.token_explicit_max_ttl);
  if (role.token_period > 0) return faults.has('secrets.cloudauth-period-uncapped') ? role.token_period : Math.min(role.token_period, cap);
  const ttl = faults.has('secrets.cloudauth-lease-ignores-ttl') ? SYSTEM_DEFAULT_TTL : role.token_ttl || SYSTEM_DEFAULT_TTL;
  return Math.min(ttl, cap);
}
