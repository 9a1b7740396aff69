import { randomUUID } from 'node:crypto';
import type { HttpClient } from '../client/http-client.ts';
import { TargetError } from '../client/target-error.ts';
import type { TokenCarrier } from '../config/dialects.ts';
import { tokenHeaders } from '../config/dialects.ts';
import { resolveText, resolveValue, type SymbolicRequest } from './request-template.ts';

/** What a target answered to one request, before normalising. */
export interface RawAnswer {
  /** undefined: no answer (the reason is in `error`). */
  status?: number;
  contentType?: string;
  /** The body as text (a stream's bytes as read), at most BODY_LIMIT characters. */
  text: string;
  /** A stream's JSON values (heartbeats `{}` left out). */
  frames?: unknown[];
  error?: string;
  durationMs: number;
}

const BODY_LIMIT = 64 * 1024;

/** A target's HTTP client (its default header: the management token), and the way its tokens travel. */
export interface Sender {
  http: HttpClient;
  carrier: TokenCarrier;
  /** Header names sent on every request (Vault's X-Vault-Request). */
  fixedHeaders?: Record<string, string>;
}

/**
 * Sends one resolved request to a target. A token that was never issued is a fresh UUID each time
 * (the same shape as the products' secrets), so no target can have it.
 */
export async function sendRequest(sender: Sender, req: SymbolicRequest, symbols: Record<string, string>, tokens: Record<string, string>, timeoutMs: number): Promise<RawAnswer> {
  const started = performance.now();
  const headers: Record<string, string> = { ...sender.fixedHeaders };
  for (const [k, v] of Object.entries(req.headers ?? {})) headers[k] = resolveText(v, symbols);
  if (req.token.kind === 'wrong') Object.assign(headers, tokenHeaders(sender.carrier, randomUUID()));
  if (req.token.kind === 'fixture') {
    const secret = tokens[req.token.symbol];
    if (!secret) throw new Error(`the request carries token @{${req.token.symbol}}, which this target's fixtures do not have`);
    Object.assign(headers, tokenHeaders(sender.carrier, secret));
  }
  const query = Object.fromEntries(Object.entries(req.query ?? {}).map(([k, v]) => [k, Array.isArray(v) ? v.map((x) => resolveText(x, symbols)) : resolveText(v, symbols)]));
  const base = {
    method: req.method,
    path: resolveText(req.path, symbols),
    query,
    headers,
    // The management token is the client's default header; every other choice leaves it out.
    bare: req.token.kind !== 'management',
    ...(req.json !== undefined ? { json: resolveValue(req.json, symbols) } : {}),
    ...(req.form ? { form: resolveValue(req.form, symbols) as Record<string, string> } : {}),
    ...(req.body !== undefined ? { body: resolveText(req.body, symbols) } : {}),
  };
  try {
    if (req.stream) {
      const frames: unknown[] = [];
      const res = await sender.http.stream(base, {
        maxMs: req.stream.maxMs,
        maxBytes: BODY_LIMIT,
        until: (s) => s.values.filter(isFrame).length >= req.stream!.frames,
      });
      frames.push(...res.values.filter(isFrame));
      return { status: res.status, contentType: mediaType(res.headers['content-type']), text: res.bytes.toString('utf8').slice(0, BODY_LIMIT), frames, durationMs: elapsed(started) };
    }
    const res = await sender.http.request({ ...base, timeoutMs });
    return { status: res.status, contentType: mediaType(res.header('content-type')), text: res.text.slice(0, BODY_LIMIT), durationMs: elapsed(started) };
  } catch (err) {
    if (err instanceof TargetError) return { text: '', error: err.message, durationMs: elapsed(started) };
    throw err;
  }
}

/** A stream's heartbeat (`{}`) carries nothing to compare. */
const isFrame = (v: unknown) => !(v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0);

const elapsed = (started: number) => Math.round(performance.now() - started);

/** `application/json; charset=utf-8` → `application/json`. */
export function mediaType(header: string | undefined): string | undefined {
  return header?.split(';')[0]?.trim().toLowerCase() || undefined;
}
