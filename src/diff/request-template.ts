import type fc from 'fast-check';
import type { SystemName } from '../config/names.ts';

/**
 * The kinds of request the diff sends to each endpoint: the well-formed one and the classic bad
 * ones. A known difference (docs/reference-fidelity.md) names one of these, or `*`.
 */
export const REQUEST_CLASSES = [
  'ok',
  'missing-field',
  'unknown-field',
  'wrong-type',
  'bad-value',
  'bad-id',
  'short-id',
  'path-escape',
  'unknown-name',
  'no-token',
  'wrong-token',
  'forbidden',
  'wrong-method',
] as const;
export type RequestClass = (typeof REQUEST_CLASSES)[number];

/**
 * Which token a request carries: the target's management token, none, one the target never issued,
 * or a fixture token by its symbol (a limited token each target made under the run prefix).
 */
export type TokenChoice = { kind: 'management' } | { kind: 'none' } | { kind: 'wrong' } | { kind: 'fixture'; symbol: string };

/**
 * A request before it is resolved for a target: every string may hold `@{symbol}` (a fixture of
 * that target: an allocation ID, a client ID, a mount) or `@{symbol:8}` (its first 8 characters).
 * Generated values are put in as literals: both targets get the same.
 */
export interface SymbolicRequest {
  method: string;
  path: string;
  query?: Record<string, string | string[]>;
  headers?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  /** A raw body (sent as is, with the headers given). */
  body?: string;
  token: TokenChoice;
  /** A streaming answer: read frames until `frames` non-empty JSON values arrived or `maxMs` passed. */
  stream?: { maxMs: number; frames: number };
}

/**
 * Per target, before its request is sent: makes what only that target can make for it (an OIDC
 * authorization code, an access token) and gives it as symbols. Runs once per request and target.
 */
export type Prepare = (ctx: PrepareContext) => Promise<Record<string, string>>;

export interface PrepareContext {
  /** Sends a request to this target (resolved with its symbols) and gives the answer. */
  send(req: SymbolicRequest): Promise<{ status: number; text: string; headers: Record<string, string> }>;
  symbols: Record<string, string>;
}

/** One request of an endpoint: its class, what it is in words, and how it is generated. */
export interface RequestTemplate<T = unknown> {
  class: RequestClass;
  /** What the request is, in words (`a file that does not exist`). */
  what: string;
  /** The generated part (a name, a wrong-typed value); `fc.constant(undefined)` when nothing varies. */
  gen?: fc.Arbitrary<T>;
  build(value: T): SymbolicRequest;
  prepare?: Prepare;
  /** Sent once whatever --runs says (a request that changes state, or a slow one). */
  once?: boolean;
  /** The status the spec states for this very request, where its class's default says nothing (logs of a task without logging: 404). */
  stated?: { status: number[]; statement: string };
  /**
   * Why this request may not be sent to a target (it would change something there that cannot be
   * put back), or undefined. A request either target may not get is sent to neither, and said.
   */
  notOn?: (product: { key?: string; version?: string } | undefined) => string | undefined;
  /** Fixture symbols both targets must have for this request (a namespace a target may not have). */
  needs?: string[];
}

/** One endpoint of a spec, as the spec names it, with what its statements say and the requests to send. */
export interface DiffEndpoint {
  system: SystemName;
  /** The method and path as the spec's endpoint table writes them (`GET /v1/client/fs/cat/:alloc_id`). */
  method: string;
  path: string;
  /** The statement ids (src/rules/statements) about this endpoint's answer. */
  statements: string[];
  /** Fixture symbols both targets must have for this endpoint to be compared (a plugin one may lack). */
  needs?: string[];
  /** Globs of answer paths whose object keys are data (metadata keys, PIDs), compared as `*`. */
  maps?: string[];
  requests: RequestTemplate<any>[];
}

export const endpointKey = (e: { method: string; path: string }) => `${e.method} ${e.path}`;

const SYMBOL = /@\{([A-Za-z][\w.-]*)(?::(\d+))?\}/g;

/** The symbols a string refers to. */
export function symbolsIn(text: string): string[] {
  return [...text.matchAll(SYMBOL)].map((m) => m[1]!);
}

/** Replaces every `@{symbol}` with the target's value; an unknown symbol is a bug of the catalog, so it throws. */
export function resolveText(text: string, symbols: Record<string, string>): string {
  return text.replace(SYMBOL, (_m, name: string, cut?: string) => {
    const value = symbols[name];
    if (value === undefined) throw new Error(`the request refers to @{${name}}, which this target's fixtures do not have`);
    return cut ? value.slice(0, Number(cut)) : value;
  });
}

/** Resolves every string inside a JSON-like value. */
export function resolveValue(value: unknown, symbols: Record<string, string>): unknown {
  if (typeof value === 'string') return resolveText(value, symbols);
  if (Array.isArray(value)) return value.map((v) => resolveValue(v, symbols));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [resolveText(k, symbols), resolveValue(v, symbols)]));
  return value;
}

/** The request as the report shows it: method, path and query, symbols kept as symbols. */
export function describeRequest(req: SymbolicRequest): string {
  const query = Object.entries(req.query ?? {}).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}=${x}`));
  const token = req.token.kind === 'management' ? '' : req.token.kind === 'fixture' ? ` (token @{${req.token.symbol}})` : req.token.kind === 'none' ? ' (no token)' : ' (a token never issued)';
  const body = req.json !== undefined ? ` ${JSON.stringify(req.json)}` : req.form ? ` form ${Object.entries(req.form).map(([k, v]) => `${k}=${v}`).join('&')}` : req.body !== undefined ? ` ${JSON.stringify(req.body)}` : '';
  const headers = Object.entries(req.headers ?? {}).filter(([k]) => k.toLowerCase() !== 'content-type').map(([k, v]) => ` [${k}: ${v}]`).join('');
  return `${req.method} ${req.path}${query.length ? `?${query.join('&')}` : ''}${headers}${body}${token}`;
}
