import { expect } from 'vitest';
import { Redactor } from '../../src/client/redact.ts';

/**
 * A refusal where the spec names no status: any status but 2xx, a server error included. Spec 000
 * shows no status for "which condition of each individual OIDC or login operation", nor for a proxy's
 * refusal or an oversized request; Vault's answers there range from 400 to 500 (issue 53: refusals are
 * "not 2xx" wherever the spec names no code). What else the rule asserts (no code, no token, nothing
 * stored) tells a refusal from a target that merely broke down.
 */
export function expectNotSuccess(res: { status: number; text: string }, what: string): void {
  // An answer that was not a refusal may carry a client token: blanked before it is cut and quoted.
  expect(res.status >= 200 && res.status < 300, `${what} (answered ${res.status}: ${new Redactor().text(res.text).slice(0, 200)})`).toBe(false);
}
