import type { WaitBound } from './bound.ts';

/**
 * The secrets rules' waits. Spec 003's times are TTLs and max_age in whole seconds: a rule waits past
 * one by a margin, and judges a lifetime by what it measured the exchange to take, never by a fixed
 * allowance a busy host could use up.
 */
export const SECRETS_BOUNDS = {
  largeRequest: {
    ms: 180_000,
    waitsFor: 'the over-limit and just-under-limit requests of secrets.limits.max-request-size (32 MB by default) to be sent and answered',
    why: 'the rule sends about 65 MB through loopback and a product parses half of it; a busy host takes tens of seconds',
  },
} satisfies Record<string, WaitBound>;

/**
 * How far apart the generated access and ID token lifetimes of secrets.oidc.token-response are, so
 * that an expires_in taken from the wrong one shows: a product may count expires_in from any moment
 * of the exchange, so the rule allows the seconds it measured the exchange to take, and ERRORs when
 * that reaches this separation (the two could no longer be told apart).
 */
export const TTL_SEPARATION_S = 10;

/** How far past a whole-second time the secrets rules wait: waiting longer only makes the verdict surer. */
export const SECRETS_MARGINS = {
  pastExpiry: {
    ms: 2_000,
    waitsFor: 'an access token to be past its access_token_ttl',
    why: "the TTL is whole seconds and the product may round the token's end up to the next one: a second of rounding and a second of margin. Waiting longer only makes the token more expired, so a busy host cannot turn this into a wrong verdict",
  },
  pastMaxAge: {
    ms: 2_200,
    waitsFor: 'the login to be more than max_age=1 s old',
    why: 'max_age is whole seconds, compared with the login time in whole seconds (Vault: auth_time): two seconds and a fifth cannot be read as one',
  },
} satisfies Record<string, WaitBound>;
