import type { Dialect } from '../config/dialects.ts';
import type { HttpClient, HttpRequest, HttpResponse } from './http-client.ts';

export type ListVia = 'verb' | 'query';

export interface SecretsCallOptions {
  headers?: Record<string, string | undefined>;
  /** Sent in the dialect's namespace header. */
  namespace?: string;
  /** Leave out the client's default headers (the token, the request header). */
  bare?: boolean;
  query?: HttpRequest['query'];
}

/** Percent-encodes each segment of a path, keeping the slashes between them. */
export function encodePath(path: string): string {
  return path
    .split('/')
    .map((s) => encodeURIComponent(s))
    .join('/');
}

/** The secrets service's HTTP API, with the dialect's header names. Paths are relative to /v1/. */
export class SecretsApi {
  constructor(
    readonly http: HttpClient,
    readonly dialect: Dialect,
  ) {}

  private call(method: string, path: string, options: SecretsCallOptions, extra: Partial<HttpRequest> = {}): Promise<HttpResponse> {
    const headers: Record<string, string | undefined> = { ...options.headers };
    if (options.namespace !== undefined) headers[this.dialect.secrets.namespaceHeader] = options.namespace;
    return this.http.request({ method, path: `/v1/${encodePath(path)}`, headers, bare: options.bare, query: options.query, ...extra });
  }

  /** LIST through the LIST verb or through GET ?list=true; the spec says they are the same. */
  list(path: string, via: ListVia, options: SecretsCallOptions = {}): Promise<HttpResponse> {
    return via === 'verb' ? this.call('LIST', path, options) : this.call('GET', path, { ...options, query: { ...options.query, list: 'true' } });
  }

  read(path: string, options: SecretsCallOptions = {}): Promise<HttpResponse> {
    return this.call('GET', path, options);
  }

  write(path: string, data: unknown, method: 'POST' | 'PUT' = 'POST', options: SecretsCallOptions = {}): Promise<HttpResponse> {
    return this.call(method, path, options, { json: data });
  }

  /** A write whose body is sent exactly as given, with whatever headers the caller sets. */
  writeRaw(path: string, body: string | Buffer, options: SecretsCallOptions = {}, method = 'POST'): Promise<HttpResponse> {
    return this.call(method, path, options, { body });
  }

  delete(path: string, options: SecretsCallOptions = {}): Promise<HttpResponse> {
    return this.call('DELETE', path, options);
  }

  help(path: string, options: SecretsCallOptions = {}): Promise<HttpResponse> {
    return this.call('GET', path, { ...options, query: { ...options.query, help: '1' } });
  }

  /** Any method on any path, for the error conventions. */
  raw(method: string, path: string, options: SecretsCallOptions = {}): Promise<HttpResponse> {
    return this.call(method, path, options);
  }
}
