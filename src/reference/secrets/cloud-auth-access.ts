import type { FaultSet } from '../faults/types.ts';
import type { TokenEntry } from './token-store.ts';

/**
 * Whether a token may read and change the auth method's config (which holds its cloud credentials)
 * and roles. Spec 000: "Permission policies decide access per path". The reference stores ACL
 * policies but evaluates none of them (policy-store.ts), so here it grants these paths to what no
 * policy text is needed for: a token carrying the root policy. A token whose policies are other
 * names, such as a login token from one of the method's own roles, is refused with 403 "permission
 * denied", as Vault refuses a token whose policies grant nothing on auth/<mount>/config
 * (vault/request_handling.go CheckToken, ACL.AllowOperation).
 */
export function mayManage(token: TokenEntry | undefined, faults: FaultSet): boolean {
  if (faults.has('secrets.cloudauth-policies-unchecked')) return token !== undefined;
  return token?.policies.includes('root') ?? false;
}
