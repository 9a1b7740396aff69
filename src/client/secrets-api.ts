import type { Dialect } from '../config/dialects.ts';
import type { HttpClient, HttpResponse } from './http-client.ts';

export type ListVia = 'verb' | 'query';

/** The secrets service's HTTP API, with the dialect's header names. Paths are relative to /v1/. */
export class SecretsApi {
  constructor(
    readonly http: HttpClient,
    readonly dialect: Dialect,
  ) {}

  /** LIST through the LIST verb or through GET ?list=true; the spec says they are the same. */
  list(path: string, via: ListVia, headers: Record<string, string> = {}): Promise<HttpResponse> {
    return via === 'verb'
      ? this.http.request({ method: 'LIST', path: `/v1/${path}`, headers })
      : this.http.request({ method: 'GET', path: `/v1/${path}`, query: { list: 'true' }, headers });
  }

  read(path: string, headers: Record<string, string> = {}): Promise<HttpResponse> {
    return this.http.request({ method: 'GET', path: `/v1/${path}`, headers });
  }

  write(path: string, data: unknown, method: 'POST' | 'PUT' = 'POST', headers: Record<string, string> = {}): Promise<HttpResponse> {
    return this.http.request({ method, path: `/v1/${path}`, json: data, headers });
  }

  delete(path: string, headers: Record<string, string> = {}): Promise<HttpResponse> {
    return this.http.request({ method: 'DELETE', path: `/v1/${path}`, headers });
  }
}
