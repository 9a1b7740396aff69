import type { Fault } from './types.ts';

const f = (id: string, breaks: string[], description: string): Fault => ({ id: `secrets.${id}`, system: 'secrets', breaks, description });

/** Faults of the oidc area added with the statement map (issue 18); the older ones are in secrets.ts. */
export const secretsOidcFaults: Fault[] = [
  // The hard sides of allowed_client_ids (issue 37).
  f('oidc-allowed-star-snapshot', ['secrets.oidc.allowed-client-ids'], "'*' in allowed_client_ids stands for the clients that existed when the provider was written; a client created later is refused"),
  f('oidc-allowed-ids-first-only', ['secrets.oidc.allowed-client-ids'], 'Only the first entry of allowed_client_ids is compared with the client_id'),
  f('oidc-key-allowed-ids-prefix', ['secrets.upstream.oidc-key-allowed-client-ids'], "A signing key's allowed_client_ids entry admits every client_id it is a prefix of"),
  f('oidc-allowed-ids-case-folded', ['secrets.oidc.allowed-client-ids'], 'allowed_client_ids entries are compared with the client_id ignoring letter case'),
  f('oidc-allowed-ids-prefix', ['secrets.oidc.allowed-client-ids'], 'An allowed_client_ids entry admits every client_id it is a prefix of'),
  f('oidc-config-open', ['secrets.oidc.config-requires-token'], 'The OIDC configuration routes (providers, scopes, clients with their secrets, assignments) answer without a client token'),
  f('oidc-config-any-token', ['secrets.oidc.config-requires-policy'], 'Any valid client token may read and change the OIDC configuration, whatever its policies'),
  f('oidc-config-default-taints', ['secrets.upstream.oidc-config-policy'], 'A token that carries the default policy is refused on the OIDC configuration routes even when another of its policies grants them (every policy, not some, must be other than default)'),
  f('oidc-confidential-secret-optional', ['secrets.oidc.token-client-auth-required'], 'A confidential client that presents no secret at all (client_id alone, or an empty one) is let through: the secret is checked only when one is sent'),
  f('oidc-secret-of-any-client', ['secrets.oidc.token-client-auth-required'], "The token endpoint accepts any confidential client's secret, not only the authenticating client's own"),
  f('oidc-max-age-ignored', ['secrets.oidc.authorize-max-age'], 'max_age is validated but not enforced: a token older than max_age still gets a code'),
  f('oidc-max-age-millis', ['secrets.oidc.authorize-max-age'], 'max_age is compared with the milliseconds since the token was made, so it refuses tokens well within it'),
  f('oidc-access-token-any-provider', ['secrets.oidc.userinfo-other-provider'], "An access token is accepted at the userinfo endpoint of every provider that allows its client, not only at the issuing provider's"),
  f('oidc-client-key-ignored', ['secrets.oidc.client-key-signs'], "Every ID token is signed with the default key, whatever key the client names"),
  f('oidc-expires-in-id-token-ttl', ['secrets.oidc.token-response'], "expires_in follows the client's id_token_ttl instead of its access_token_ttl"),
  f('oidc-access-token-never-expires', ['secrets.oidc.access-token-expires'], "Access tokens never expire: expires_in says the client's access_token_ttl, but userinfo keeps answering after it"),
  f('oidc-unsupported-scope-rendered', ['secrets.oidc.scope-not-supported-no-claims'], "A requested scope that exists but is not among the provider's scopes_supported still puts its claims in the ID token and userinfo"),
  // Cross-scope breaks (issue 47): each one the rules that ask from inside one client missed.
  f('oidc-code-any-client', ['secrets.oidc.access-token-neighbours', 'secrets.oidc.access-code-lifecycle'], 'The token endpoint does not check that the code was issued to the client that authenticated: another client the provider allows exchanges it with its own credentials'),
  f('oidc-code-grant-client-shared', ['secrets.oidc.access-code-binding'], "The code store compares a new code's grant with the one made just before it without its client: a code made right after another client's, at the same provider with the same redirect URI, entity and scopes, is bound to that other client"),
  f('oidc-code-grant-auth-time-shared', ['secrets.upstream.oidc-auth-time'], "The code store compares a new code's grant with the one made just before it without its auth time: a code asked without max_age right after one asked with it carries that one's auth_time, and the other way round"),
  f('oidc-code-any-provider', ['secrets.oidc.access-token-neighbours'], "The token endpoint does not check that the code was issued by its provider: another provider's token endpoint that allows the client exchanges it"),
  f('oidc-secret-prefix', ['secrets.oidc.access-token-neighbours'], "The client secret is compared as a prefix: the real secret less its last characters authenticates the client"),
  // Held-out misses of issue 47 (audit 01, 08): the classes a near-miss secret and conflicting client identification.
  f('oidc-secret-case-folded', ['secrets.oidc.access-token-neighbours'], "The client secret is compared without letter case: the real secret with its case swapped authenticates the client"),
  f('oidc-userinfo-access-not-rechecked', ['secrets.upstream.oidc-userinfo-rechecks-access'], "Userinfo does not look at the provider's allowed_client_ids nor the client's assignments again: an access token keeps answering after its provider stopped allowing its client (audit 04)"),
  f('oidc-code-client-from-form', ['secrets.oidc.access-token-neighbours'], "The token endpoint checks the code against the form's client_id, not the client the Basic credentials authenticated: client A's credentials with client_id=B in the form exchange client B's code"),
  f('oidc-redirect-query-ignored', ['secrets.oidc.access-authorize-neighbours'], 'A redirect_uri that is a registered one with a query added is accepted at authorize'),
  f('oidc-token-assignments-unchecked', ['secrets.oidc.access-code-lifecycle'], "The token endpoint does not re-check the client's assignments: a code issued before the entity was unassigned is still exchanged"),
];
