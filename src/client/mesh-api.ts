import type { Dialect } from '../config/dialects.ts';
import type { HttpClient, HttpResponse } from './http-client.ts';

/** The mesh agent's connect endpoints. */
export class MeshApi {
  constructor(
    readonly http: HttpClient,
    readonly dialect: Dialect,
  ) {}

  roots(query: Record<string, string> = {}): Promise<HttpResponse> {
    return this.http.get('/v1/agent/connect/ca/roots', query);
  }
}
