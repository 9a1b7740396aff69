import { dialectFor } from '../config/dialects.ts';
import type { SecretsTarget } from '../config/schema.ts';
import { HttpClient } from '../client/http-client.ts';
import { Redactor } from '../client/redact.ts';
import { SecretsApi } from '../client/secrets-api.ts';

/**
 * The secrets API with the profile's token, for provisioning and cleanup outside the suites (no
 * evidence is kept; the token is redacted from any error text).
 */
export function secretsApiFor(target: SecretsTarget, timeoutMs = 10_000): SecretsApi {
  const dialect = dialectFor(target.dialect);
  const redactor = new Redactor();
  redactor.add(target.token);
  const headers = { [dialect.secrets.tokenHeader]: target.token, [dialect.secrets.requestHeader]: 'true' };
  return new SecretsApi(new HttpClient({ baseUrl: target.url, defaultHeaders: headers, timeoutMs, redactor }), dialect);
}
