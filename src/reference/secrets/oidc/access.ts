import type { TokenEntry } from '../token-store.ts';

/** The configuration routes of the OIDC provider (relative to the identity mount): providers, scopes, clients, assignments. */
export const OIDC_CONFIG_PATH = /^oidc\/(provider|scope|client|assignment)(\/[^/]*)?$/;

/**
 * Whether a token may use the OIDC configuration routes. Their reads return client secrets, so the
 * reference enforces the one policy whose text it knows: a token carrying only 'default' gets what
 * Vault's default policy grants under identity/oidc, which is the authorize endpoint and nothing of
 * the configuration (hashicorp/vault vault/policy_store.go defaultPolicy). Root may do anything;
 * other policies are stored but not evaluated (PolicyStore), so they grant these routes.
 */
export function mayConfigureOidc(token: TokenEntry | undefined): boolean {
  if (!token) return false;
  if (token.oidc) return false;
  return token.policies.some((p) => p !== 'default');
}
