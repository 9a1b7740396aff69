import type { EngineResult } from './respond.ts';

export type Operation = 'read' | 'list' | 'create-or-update' | 'delete' | 'help';

/** One request as an engine sees it: the path relative to its mount, already authorised. */
export interface EngineRequest {
  operation: Operation;
  /** Path below the mount, without a leading slash; a list path ends with '/'. */
  path: string;
  data: Record<string, unknown>;
  query: URLSearchParams;
}

export interface SecretsEngine {
  readonly type: string;
  handle(request: EngineRequest): EngineResult | Promise<EngineResult>;
}
