import { Agent, buildConnector, request as undiciRequest, type Dispatcher } from 'undici';
import type { z } from 'zod';
import type { Exchange, ExchangeObserver } from './exchange.ts';
import { JsonValueStream } from './json-value-stream.ts';
import type { Redactor } from './redact.ts';
import { TargetError } from './target-error.ts';

const EXCERPT_CHARS = 4096;
/** A body larger than this is not a documented answer from any endpoint; refuse to buffer it. */
const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

export interface HttpRequest {
  method: string;
  /** Path below the base URL, e.g. `/v1/secret/foo`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined | Array<string>>;
  headers?: Record<string, string | undefined>;
  /** Serialised as JSON with Content-Type application/json. */
  json?: unknown;
  /** Serialised as application/x-www-form-urlencoded. */
  form?: Record<string, string | undefined>;
  /** Sent as is. */
  body?: string | Buffer;
  timeoutMs?: number;
  /** Leave out the client's default headers (the token, for instance). */
  bare?: boolean;
}

export class HttpResponse {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    readonly body: Buffer,
    readonly exchange: Exchange,
  ) {}

  get text(): string {
    return this.body.toString('utf8');
  }

  header(name: string): string | undefined {
    return this.headers[name.toLowerCase()];
  }

  /** The body as JSON; a body that is not JSON is the target's fault, so it raises ERROR, not FAIL. */
  json(): unknown {
    try {
      return JSON.parse(this.text);
    } catch {
      throw new TargetError(
        'unparseable',
        `${this.exchange.method} ${this.exchange.url} answered ${this.status} with a body that is not JSON: ${JSON.stringify(this.exchange.responseBody?.slice(0, 200) ?? '')}`,
      );
    }
  }

  /**
   * Parses the body with a schema that is a precondition of the check, not its subject: a mismatch
   * means the target answered something the suite cannot reason about, so ERROR.
   */
  parse<S extends z.ZodType>(schema: S): z.infer<S> {
    const value = this.json();
    const result = schema.safeParse(value);
    if (!result.success) {
      const where = result.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`)
        .join('; ');
      throw new TargetError('unparseable', `${this.exchange.method} ${this.exchange.url} answered ${this.status} with an unexpected body shape: ${where}`);
    }
    return result.data;
  }
}

export interface StreamState {
  /** Each complete JSON value, however the stream delimits them (see JsonValueStream). */
  values: unknown[];
  bytes: Buffer;
  /** Text between values that was not JSON. */
  malformed: string[];
}

export interface StreamResult extends StreamState {
  status: number;
  headers: Record<string, string>;
  /** The server ended the stream (rather than the reader stopping it). */
  ended: boolean;
  stoppedBy: 'until' | 'deadline' | 'bytes' | 'end';
  exchange: Exchange;
}

export interface HttpClientOptions {
  baseUrl: string;
  defaultHeaders?: Record<string, string>;
  timeoutMs: number;
  redactor: Redactor;
  observers?: ExchangeObserver[];
  maxBodyBytes?: number;
  dispatcher?: Dispatcher;
  /** Local source address to connect from (a second loopback address, to look like another client). */
  localAddress?: string;
}

/**
 * An HTTP client for one target. Every request has a deadline, and every exchange is recorded,
 * redacted, for the evidence of the rule being checked.
 */
export class HttpClient {
  readonly baseUrl: string;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly observers: ExchangeObserver[];

  constructor(private readonly options: HttpClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.ownsDispatcher = !options.dispatcher;
    this.dispatcher =
      options.dispatcher ??
      new Agent({
        connect: options.localAddress ? fromAddress(options.localAddress, Math.min(options.timeoutMs, 10_000)) : undefined,
        connectTimeout: Math.min(options.timeoutMs, 10_000),
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        keepAliveTimeout: 4_000,
      });
    this.observers = [...(options.observers ?? [])];
  }

  observe(observer: ExchangeObserver): void {
    this.observers.push(observer);
  }

  url(path: string, query?: HttpRequest['query']): string {
    const url = new URL(this.baseUrl + (path.startsWith('/') ? path : `/${path}`));
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v === undefined) continue;
      for (const item of Array.isArray(v) ? v : [v]) url.searchParams.append(k, String(item));
    }
    return url.toString();
  }

  async request(req: HttpRequest): Promise<HttpResponse> {
    const url = this.url(req.path, req.query);
    const headers: Record<string, string> = {};
    if (!req.bare) Object.assign(headers, this.options.defaultHeaders);
    for (const [k, v] of Object.entries(req.headers ?? {})) if (v !== undefined) headers[k] = v;
    let body: string | Buffer | undefined = req.body;
    if (req.json !== undefined) {
      body = JSON.stringify(req.json);
      headers['content-type'] ??= 'application/json';
    } else if (req.form) {
      const form = new URLSearchParams();
      for (const [k, v] of Object.entries(req.form)) if (v !== undefined) form.append(k, v);
      body = form.toString();
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
    }
    const timeoutMs = req.timeoutMs ?? this.options.timeoutMs;
    const redact = this.options.redactor;
    const exchange: Exchange = {
      method: req.method,
      url: redact.text(url),
      requestHeaders: redact.headers(headers),
      requestBody: body === undefined ? undefined : redact.text(excerpt(body)),
      durationMs: 0,
    };
    const started = performance.now();
    try {
      const res = await undiciRequest(url, {
        method: req.method as Dispatcher.HttpMethod,
        headers,
        body,
        dispatcher: this.dispatcher,
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const bytes = await readLimited(res.body, this.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, url);
      const resHeaders = flattenHeaders(res.headers);
      exchange.status = res.statusCode;
      exchange.responseHeaders = redact.headers(resHeaders);
      exchange.responseBody = redact.text(excerpt(bytes));
      exchange.durationMs = Math.round(performance.now() - started);
      this.emit(exchange, { status: res.statusCode, body: bytes.toString('utf8'), headers: resHeaders });
      return new HttpResponse(res.statusCode, resHeaders, bytes, exchange);
    } catch (err) {
      exchange.durationMs = Math.round(performance.now() - started);
      const targetError = toTargetError(err, req.method, exchange.url, timeoutMs);
      exchange.error = targetError.message;
      this.emit(exchange, {});
      throw targetError;
    }
  }

  /**
   * Reads a streaming answer (JSON values, newline-delimited or back to back, or plain bytes) until
   * `until` says enough, the deadline passes, the byte cap is reached or the server ends it; then
   * closes the stream. Values are reassembled across chunks (JsonValueStream), so a frame split in
   * two or two frames in one chunk parse alike.
   */
  async stream(req: HttpRequest, options: { maxMs: number; maxBytes?: number; until?: (s: StreamState) => boolean }): Promise<StreamResult> {
    const url = this.url(req.path, req.query);
    const headers: Record<string, string> = {};
    if (!req.bare) Object.assign(headers, this.options.defaultHeaders);
    for (const [k, v] of Object.entries(req.headers ?? {})) if (v !== undefined) headers[k] = v;
    const redact = this.options.redactor;
    const exchange: Exchange = { method: req.method, url: redact.text(url), requestHeaders: redact.headers(headers), durationMs: 0 };
    const started = performance.now();
    const controller = new AbortController();
    const deadline = setTimeout(() => controller.abort(), options.maxMs);
    const reader = new JsonValueStream();
    const state: StreamState = { values: reader.values, bytes: Buffer.alloc(0), malformed: reader.malformed };
    let ended = false;
    let stoppedBy: StreamResult['stoppedBy'] = 'deadline';
    let status: number | undefined;
    let resHeaders: Record<string, string> = {};
    try {
      const res = await undiciRequest(url, { method: req.method as Dispatcher.HttpMethod, headers, dispatcher: this.dispatcher, signal: controller.signal, headersTimeout: options.maxMs, bodyTimeout: options.maxMs });
      status = res.statusCode;
      resHeaders = flattenHeaders(res.headers);
      try {
        for await (const chunk of res.body) {
          const buf = chunk as Buffer;
          state.bytes = Buffer.concat([state.bytes, buf]);
          reader.push(buf);
          if (options.maxBytes !== undefined && state.bytes.length >= options.maxBytes) {
            stoppedBy = 'bytes';
            break;
          }
          if (options.until?.(state)) {
            stoppedBy = 'until';
            break;
          }
        }
        if (stoppedBy === 'deadline' && !controller.signal.aborted) {
          ended = true;
          stoppedBy = 'end';
          reader.end();
        }
      } catch (err) {
        if (!controller.signal.aborted) throw err;
      } finally {
        res.body.destroy();
      }
    } catch (err) {
      if (status === undefined) {
        exchange.durationMs = Math.round(performance.now() - started);
        const e = toTargetError(err, req.method, exchange.url, options.maxMs);
        exchange.error = e.message;
        this.emit(exchange, {});
        throw e;
      }
    } finally {
      clearTimeout(deadline);
    }
    exchange.status = status;
    exchange.responseHeaders = redact.headers(resHeaders);
    exchange.responseBody = redact.text(excerpt(state.bytes));
    exchange.durationMs = Math.round(performance.now() - started);
    this.emit(exchange, { status, body: state.bytes.toString('utf8'), headers: resHeaders });
    return { status: status!, headers: resHeaders, ...state, ended, stoppedBy, exchange };
  }

  get(path: string, query?: HttpRequest['query'], extra: Partial<HttpRequest> = {}): Promise<HttpResponse> {
    return this.request({ method: 'GET', path, query, ...extra });
  }

  post(path: string, json: unknown, extra: Partial<HttpRequest> = {}): Promise<HttpResponse> {
    return this.request({ method: 'POST', path, json, ...extra });
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  private emit(exchange: Exchange, raw: Parameters<ExchangeObserver>[1]): void {
    for (const observer of this.observers) observer(exchange, raw);
  }
}

/** A connector that binds the local end of each connection to `localAddress`. */
function fromAddress(localAddress: string, timeout: number): buildConnector.connector {
  const connect = buildConnector({ timeout });
  return (opts, callback) => connect({ ...opts, localAddress } as buildConnector.Options, callback);
}

function excerpt(body: string | Buffer): string {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}… (${text.length} chars)` : text;
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

async function readLimited(body: Dispatcher.ResponseData['body'], limit: number, url: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      body.destroy();
      throw new TargetError('oversized', `${url} sent a body over ${limit} bytes; stopped reading`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export function toTargetError(err: unknown, method: string, url: string, timeoutMs: number): TargetError {
  if (err instanceof TargetError) return err;
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code ?? '';
  const where = `${method} ${url}`;
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || /TIMEOUT/.test(code)) {
    return new TargetError('timeout', `${where}: no complete answer within ${timeoutMs} ms (${code || e.name})`);
  }
  if (code === 'ECONNREFUSED') return new TargetError('refused', `${where}: connection refused`);
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') {
    return new TargetError('reset', `${where}: the connection was closed or reset before a complete answer (${code})`);
  }
  return new TargetError('protocol', `${where}: ${e.message ?? String(err)}${code ? ` (${code})` : ''}`);
}
