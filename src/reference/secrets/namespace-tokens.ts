import type { FaultSet } from '../faults/types.ts';
import type { TokenStore } from './token-store.ts';

/**
 * Revokes the tokens a namespace's deletion takes with it: those made in the namespace and below
 * it (OpenBao vault/namespace_store.go DeleteNamespace clears the namespace's token store; Vault
 * Enterprise documents the same). A namespace elsewhere whose path ends like this one keeps its own.
 */
export function revokeNamespaceTokens(tokens: TokenStore, path: string, faults: FaultSet): void {
  tokens.revokeWhere((t) => t.namespace.startsWith(path) || (faults.has('secrets.ns-delete-revokes-suffix') && t.namespace.endsWith(path)));
}
