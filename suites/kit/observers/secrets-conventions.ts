import type { ExchangeObserver } from '../../../src/client/exchange.ts';
import { errorBodySchema } from '../../../src/client/schemas/secrets.ts';
import type { Observation } from '../../../src/run/evidence.ts';

/**
 * The OIDC flow endpoints answer errors in OAuth's format upstream, and the spec leaves their
 * error format "not shown" (spec 000, Errors), so the convention checks leave them out.
 */
const OAUTH_ENDPOINT = /\/identity\/oidc\/provider\/[^/]+\/(authorize|token|userinfo)(\?|$)/;

/**
 * Checks run on every exchange with the secrets service, whichever rule's test made it: the error
 * body on every status >= 400, Content-Type on every body, and 200-with-body or 204-without for
 * every success.
 */
export function secretsConventionObserver(record: (o: Observation) => void): ExchangeObserver {
  return (exchange, raw) => {
    if (raw.status === undefined) return;
    const where = `${exchange.method} ${exchange.url} answered ${raw.status}`;
    const body = raw.body ?? '';
    // Paths outside /v1/ are no route of the API (secrets.versioning.v1-only probes them): Vault
    // answers them with its HTTP mux's plain 404 (hashicorp/vault http/handler.go).
    const outsideApi = !new URL(exchange.url, 'http://x.invalid').pathname.startsWith('/v1/');
    if (raw.status >= 400 && !OAUTH_ENDPOINT.test(exchange.url) && !outsideApi) {
      let ok = false;
      try {
        ok = errorBodySchema.safeParse(JSON.parse(body)).success;
      } catch {
        ok = false;
      }
      record({ rule: 'secrets.errors.body-on-every-error', ok, detail: ok ? where : `${where} without a {"errors":[...]} body: ${JSON.stringify(body.slice(0, 200))}` });
    }
    if (body.length > 0) {
      const ok = Boolean(raw.headers?.['content-type']);
      record({ rule: 'secrets.core.content-type-set', ok, detail: ok ? where : `${where} with a ${body.length}-byte body and no Content-Type` });
    }
    if (raw.status >= 200 && raw.status < 300) {
      const ok = (raw.status === 200 && body.length > 0) || (raw.status === 204 && body.length === 0);
      record({ rule: 'secrets.core.success-status', ok, detail: ok ? where : `${where} with ${body.length ? 'a body' : 'no body'}: success must be 200 with a body or 204 without` });
    }
  };
}
