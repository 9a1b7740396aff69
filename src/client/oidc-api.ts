import type { HttpResponse } from './http-client.ts';
import type { SecretsApi, SecretsCallOptions } from './secrets-api.ts';

export type OidcKind = 'provider' | 'scope' | 'client' | 'assignment';

/** The OIDC provider endpoints of the secrets service (spec 000, OIDC provider). */
export class OidcApi {
  constructor(
    readonly secrets: SecretsApi,
    /** Namespace the provider lives in; '' for root. */
    readonly namespace = '',
  ) {}

  private opts(extra: SecretsCallOptions = {}): SecretsCallOptions {
    return this.namespace ? { namespace: this.namespace, ...extra } : extra;
  }

  write(kind: OidcKind, name: string, body: Record<string, unknown>): Promise<HttpResponse> {
    return this.secrets.write(`identity/oidc/${kind}/${name}`, body, 'POST', this.opts());
  }

  read(kind: OidcKind, name: string): Promise<HttpResponse> {
    return this.secrets.read(`identity/oidc/${kind}/${name}`, this.opts());
  }

  list(kind: OidcKind): Promise<HttpResponse> {
    return this.secrets.list(`identity/oidc/${kind}`, 'verb', this.opts());
  }

  delete(kind: OidcKind, name: string): Promise<HttpResponse> {
    return this.secrets.delete(`identity/oidc/${kind}/${name}`, this.opts());
  }

  /** The well-known configuration, with no token (the spec's example sends none). */
  discovery(provider: string, withToken = false): Promise<HttpResponse> {
    return this.secrets.read(`identity/oidc/provider/${provider}/.well-known/openid-configuration`, this.opts({ bare: !withToken }));
  }

  keys(provider: string, withToken = false): Promise<HttpResponse> {
    return this.secrets.read(`identity/oidc/provider/${provider}/.well-known/keys`, this.opts({ bare: !withToken }));
  }

  /** Authorize with an entity's client token: GET with the parameters in the query, or POST with them in the JSON body. */
  authorize(provider: string, params: Record<string, string | undefined>, entityToken: string, method: 'GET' | 'POST' = 'GET'): Promise<HttpResponse> {
    const d = this.secrets.dialect.secrets;
    const headers = { [d.tokenHeader]: entityToken, [d.requestHeader]: 'true' };
    const path = `identity/oidc/provider/${provider}/authorize`;
    if (method === 'GET') return this.secrets.read(path, this.opts({ bare: true, headers, query: params }));
    return this.secrets.write(path, Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)), 'POST', this.opts({ bare: true, headers }));
  }

  /** The token endpoint: form-encoded, no client token; client_secret_basic when `basic` is given. */
  token(provider: string, form: Record<string, string | undefined>, basic?: { id: string; secret: string }): Promise<HttpResponse> {
    const headers: Record<string, string> = {};
    if (basic) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(basic.id)}:${encodeURIComponent(basic.secret)}`).toString('base64')}`;
    return this.secrets.http.request({
      method: 'POST',
      path: `/v1/identity/oidc/provider/${encodeURIComponent(provider)}/token`,
      form,
      headers: this.namespace ? { ...headers, [this.secrets.dialect.secrets.namespaceHeader]: this.namespace } : headers,
      bare: true,
    });
  }

  /** Userinfo with the access token as a Bearer token (and nothing else). */
  userinfo(provider: string, accessToken: string | undefined, method: 'GET' | 'POST' = 'POST', extraHeaders: Record<string, string> = {}): Promise<HttpResponse> {
    const headers: Record<string, string> = { ...extraHeaders };
    if (accessToken !== undefined) headers.authorization = `Bearer ${accessToken}`;
    const path = `identity/oidc/provider/${provider}/userinfo`;
    return method === 'GET' ? this.secrets.read(path, this.opts({ bare: true, headers })) : this.secrets.write(path, {}, 'POST', this.opts({ bare: true, headers }));
  }
}
