import type { Dialect } from '../config/dialects.ts';
import type { HttpClient, HttpResponse } from './http-client.ts';

/** The scheduler's client endpoints. */
export class SchedulerApi {
  constructor(
    readonly http: HttpClient,
    readonly dialect: Dialect,
    readonly nodeId?: string,
  ) {}

  private nodeQuery(): Record<string, string> {
    return this.nodeId ? { node_id: this.nodeId } : {};
  }

  readMetadata(): Promise<HttpResponse> {
    return this.http.get('/v1/client/metadata', this.nodeQuery());
  }

  updateMetadata(meta: Record<string, string | null>): Promise<HttpResponse> {
    return this.http.post('/v1/client/metadata', { Meta: meta }, { query: this.nodeQuery() });
  }
}
