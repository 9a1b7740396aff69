import type { EngineResult } from './respond.ts';

/** `patch` is Vault's JSON merge patch (PATCH with application/merge-patch+json), only where an engine offers it. */
export type Operation = 'read' | 'list' | 'create-or-update' | 'delete' | 'help' | 'patch';

/** One request as an engine sees it: the path relative to its mount, already authorised. */
export interface EngineRequest {
  operation: Operation;
  /** Path below the mount, without a leading slash; a list path ends with '/'. */
  path: string;
  data: Record<string, unknown>;
  query: URLSearchParams;
  /** The namespace path ('' for root, else ending in '/'). */
  namespace: string;
  /** The path as the caller sent it below /v1/ (with the namespace header applied), for help documents. */
  requestPath: string;
  headers: import('node:http').IncomingHttpHeaders;
  /** The authenticated client token; absent on paths that need none. */
  token?: import('./token-store.ts').TokenEntry;
  /** The peer address of the connection. */
  remoteAddress?: string;
  /** The HTTP method, for endpoints that document more than one. */
  method: string;
}

/** What ?help=1 returns: markdown text and an OpenAPI 3 document whose paths are relative to the queried path. */
export interface HelpDocument {
  help: string;
  openapi: Record<string, unknown>;
}

export interface SecretsEngine {
  readonly type: string;
  handle(request: EngineRequest): EngineResult | Promise<EngineResult>;
  /** Help for a path below the mount; undefined when the path is not one the engine serves. */
  help(path: string): HelpDocument | undefined;
  /** Paths below the mount that take PATCH (hashicorp dialect); every other path answers it 405. */
  patches?(path: string): boolean;
  /** Paths below the mount that need no client token (an auth method's login). */
  isUnauthenticated?(path: string): boolean;
}

/** Names in URLs follow the upstream name pattern: word characters, dashes and dots, starting and ending with a word character. */
const NAME = /^\w(([\w.-]+)?\w)?$/;

/** Spec 000: path parameters must not end with a period; such a path is unsupported (404). */
export function isValidName(name: string): boolean {
  return NAME.test(name);
}
