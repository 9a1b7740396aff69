import { connect, type Socket } from 'node:net';
import type { FixedRequest } from './scenarios/types.ts';

/**
 * A lean keep-alive HTTP/1.1 client for a fixed request sequence, the open-model engine's request
 * path when a scenario's iteration is fixed requests (the bench's bare server, the catalog's
 * single-request hot paths).
 *
 * Hand-written because the generator's own CPU per request is what the open model is judged by
 * (issue 19): undici's Pool.request costs a promise chain, a body stream and a dispatcher queue per
 * request, which measured several times autocannon's CPU for the same request. Here each request is
 * serialised once, written from a Buffer; answers are read through net's `onread` (one shared
 * buffer, no stream 'data' events) and parsed only as far as framing needs: the status line,
 * content-length, chunked transfer encoding, or a body that ends with the connection. One request
 * at a time per connection (no pipelining); connections open as requests need them, up to
 * maxConnections, and are reused. Anything unparseable, a connection closed mid-answer or an answer
 * not complete within timeoutMs is an error for that request and ends its connection: never a hang.
 */
export interface FixedRequestClientOptions {
  /** Connections open at most; a send beyond them is refused (the open model counts it as dropped), or queued. */
  maxConnections: number;
  /**
   * Queue a send while every allowed connection is busy, for the next one free, rather than refuse
   * it (default false). Its deadline runs from the send.
   */
  queue?: boolean;
  /** An answer not complete this long after its request was written is an error (default 10 s). */
  timeoutMs?: number;
  /** Keep answer bodies for the callback (default false: bodies are framed and dropped). */
  keepBodies?: boolean;
}

/** err set: no complete answer (status 0). Otherwise the status and, when kept, the body. */
export type AnswerCallback = (err: Error | undefined, status: number, body: Buffer | undefined) => void;

export class HttpAnswerError extends Error {}

/** Heads longer than this are refused rather than buffered without end. */
const MAX_HEAD_BYTES = 64 * 1024;
const CRLFCRLF = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

/** Serialises a fixed request once; a CR or LF in any part would split it, so it is refused. */
export function serialiseRequest(r: FixedRequest, host: string): Buffer {
  const body = r.body === undefined ? undefined : Buffer.from(r.body);
  const lines = [`${r.method} ${r.path} HTTP/1.1`, `host: ${host}`];
  for (const [k, v] of Object.entries(r.headers)) {
    if (k.toLowerCase() === 'host' || k.toLowerCase() === 'content-length') continue;
    lines.push(`${k}: ${v}`);
  }
  if (body) lines.push(`content-length: ${body.length}`);
  const head = `${lines.join('\r\n')}\r\n\r\n`;
  if (/[\r\n]/.test(lines.join(''))) throw new Error(`a fixed request has a CR or LF in its path or headers: ${r.method} ${r.path}`);
  return body ? Buffer.concat([Buffer.from(head, 'latin1'), body]) : Buffer.from(head, 'latin1');
}

const enum State {
  Idle,
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkDataEnd,
  Trailers,
  UntilClose,
  /** The answer is complete; the read that completed it decides whether the connection is reused. */
  Done,
}

const isBlank = (c: number) => c === 32 || c === 9;
const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * The status code of a head's status line, or -1 when the line is not `HTTP/1.0` or `HTTP/1.1`, a
 * space and three digits, then the end of the line or a space and a reason phrase.
 */
export function statusOf(text: string): number {
  if (!text.startsWith('HTTP/1.') || (text[7] !== '0' && text[7] !== '1') || text[8] !== ' ') return -1;
  const a = text.charCodeAt(9);
  const b = text.charCodeAt(10);
  const c = text.charCodeAt(11);
  if (!isDigit(a) || !isDigit(b) || !isDigit(c)) return -1;
  const lineEnd = text.indexOf('\r\n', 12);
  const end = lineEnd < 0 ? text.length : lineEnd;
  if (end > 12 && text[12] !== ' ') return -1;
  // A lone CR or LF in the reason phrase is no status line.
  const cr = text.indexOf('\r', 12);
  const lf = text.indexOf('\n', 12);
  if ((cr >= 0 && cr < end) || (lf >= 0 && lf < end)) return -1;
  return (a - 48) * 100 + (b - 48) * 10 + (c - 48);
}

/** What framing needs of an answer's head. */
export interface AnswerHead {
  status: number;
  /** content-length, or -1 when absent. */
  length: number;
  chunked: boolean;
  /** `connection: close`. */
  close: boolean;
}

/** Filled by each parse: heads are parsed one at a time, and an object per answer is garbage. */
const parsed: AnswerHead = { status: 0, length: -1, chunked: false, close: false };

/**
 * Parses an answer's head (the text before its blank line) into `out`; returns what is wrong with
 * it, or undefined. Header lines are walked in place: only the three names framing needs are cut
 * out and lowercased (content-type, date and the like are passed over by their length), since this
 * runs once per answer and was most of the generator's own parsing cost. Spaces and tabs around a
 * name are tolerated; a line with no colon or nothing before it is refused.
 */
export function parseAnswerHead(text: string, out: AnswerHead): string | undefined {
  const status = statusOf(text);
  if (status < 0) return `not an HTTP/1.x status line: ${JSON.stringify(text.slice(0, 40))}`;
  out.status = status;
  out.length = -1;
  out.chunked = false;
  out.close = false;
  if (status >= 100 && status < 200) return undefined;
  for (let at = text.indexOf('\r\n'); at >= 0; ) {
    const from = at + 2;
    const next = text.indexOf('\r\n', from);
    const end = next < 0 ? text.length : next;
    at = next;
    if (end === from) continue;
    const colon = text.indexOf(':', from);
    if (colon < 0 || colon >= end || colon === from) return `a header line without a name: ${JSON.stringify(text.slice(from, Math.min(end, from + 40)))}`;
    let nameFrom = from;
    let nameEnd = colon;
    while (nameFrom < nameEnd && isBlank(text.charCodeAt(nameFrom))) nameFrom++;
    while (nameEnd > nameFrom && isBlank(text.charCodeAt(nameEnd - 1))) nameEnd--;
    const nameLength = nameEnd - nameFrom;
    if (nameLength !== 14 && nameLength !== 17 && nameLength !== 10) continue;
    const name = text.slice(nameFrom, nameEnd).toLowerCase();
    if (name === 'content-length') {
      const v = text.slice(colon + 1, end).trim();
      if (!/^\d{1,15}$/.test(v) || (out.length >= 0 && Number(v) !== out.length)) return `bad content-length ${JSON.stringify(v)}`;
      out.length = Number(v);
    } else if (name === 'transfer-encoding') {
      const codings = text.slice(colon + 1, end).toLowerCase().split(',').map((c) => c.trim());
      if (codings[codings.length - 1] !== 'chunked') return `unsupported transfer-encoding ${codings.join(', ')}`;
      out.chunked = true;
    } else if (name === 'connection') out.close = /(^|,)\s*close\s*(,|$)/i.test(text.slice(colon + 1, end));
  }
  return undefined;
}

/** The buffer every connection reads into; whatever outlives a read is copied out of it. */
let sharedReadBuffer: Buffer | undefined;

class Connection {
  readonly socket: Socket;
  state = State.Idle;
  callback: AnswerCallback | undefined;
  deadline = 0;
  /** Bytes kept across reads: an incomplete head, chunk-size line or trailer section. */
  partial: Buffer | undefined;
  status = 0;
  remaining = 0;
  closeAfter = false;
  body: Buffer[] | undefined;
  closed = false;

  constructor(
    private readonly client: FixedRequestClient,
    port: number,
    host: string,
  ) {
    sharedReadBuffer ??= Buffer.allocUnsafe(64 * 1024);
    this.socket = connect({
      port,
      host,
      noDelay: true,
      onread: { buffer: sharedReadBuffer, callback: (n: number, buf: Buffer) => this.read(buf, n) },
    });
    this.socket.on('error', (err) => this.fail(err));
    this.socket.on('close', () => this.ended());
    // Half-closed by the server: the end of an until-close body, or of this connection.
    this.socket.on('end', () => this.ended());
  }

  send(request: Buffer, callback: AnswerCallback, deadline: number): void {
    this.callback = callback;
    this.state = State.Head;
    this.deadline = deadline;
    this.socket.write(request);
  }

  /** Returns false to stop reading (the connection is gone). */
  private read(buf: Buffer, n: number): boolean {
    if (this.closed) return false;
    if (this.state === State.Idle) return this.fail(new HttpAnswerError('bytes arrived with no request outstanding'));
    let pos = 0;
    while (pos < n && !this.closed && this.state !== State.Done) {
      switch (this.state as State) {
        case State.Head: {
          const r = this.takeLine(buf, pos, n, CRLFCRLF, MAX_HEAD_BYTES);
          if (!r) return true;
          pos = r.next;
          if (!this.head(r.text)) return false;
          break;
        }
        case State.Length: {
          pos = this.takeBody(buf, pos, n);
          if (this.remaining === 0) this.complete();
          break;
        }
        case State.ChunkSize: {
          const r = this.takeLine(buf, pos, n, CRLF, 1024);
          if (!r) return true;
          pos = r.next;
          const m = /^([0-9a-fA-F]+)[ \t]*(;.*)?$/.exec(r.text);
          if (!m) return this.fail(new HttpAnswerError(`bad chunk size line ${JSON.stringify(r.text.slice(0, 40))}`));
          this.remaining = parseInt(m[1]!, 16);
          this.state = this.remaining === 0 ? State.Trailers : State.ChunkData;
          break;
        }
        case State.ChunkData: {
          pos = this.takeBody(buf, pos, n);
          if (this.remaining === 0) this.state = State.ChunkDataEnd;
          break;
        }
        case State.ChunkDataEnd: {
          const r = this.takeLine(buf, pos, n, CRLF, 2);
          if (!r) return true;
          pos = r.next;
          if (r.text !== '') return this.fail(new HttpAnswerError('chunk data not followed by CRLF'));
          this.state = State.ChunkSize;
          break;
        }
        case State.Trailers: {
          // Trailer lines until an empty one; none is the usual case.
          const r = this.takeLine(buf, pos, n, CRLF, MAX_HEAD_BYTES);
          if (!r) return true;
          pos = r.next;
          if (r.text === '') this.complete();
          break;
        }
        case State.UntilClose:
          this.body?.push(Buffer.from(buf.subarray(pos, n)));
          pos = n;
          break;
      }
    }
    if (this.closed) return false;
    if (this.state === State.Done) {
      // Bytes beyond the answer belong to no request: the answer stands, the connection is not reused.
      if (pos < n) this.closeAfter = true;
      this.finish();
    }
    return !this.closed;
  }

  /** The text up to `sep` (the separator consumed), joining bytes kept from earlier reads; undefined when it has not all arrived. */
  /** Takes up to `remaining` body bytes from buf[pos, n) (kept only when the answer's body is wanted); returns the new position. */
  private takeBody(buf: Buffer, pos: number, n: number): number {
    const take = Math.min(this.remaining, n - pos);
    this.body?.push(Buffer.from(buf.subarray(pos, pos + take)));
    this.remaining -= take;
    return pos + take;
  }

  private takeLine(buf: Buffer, pos: number, n: number, sep: Buffer, max: number): { text: string; next: number } | undefined {
    if (this.partial) {
      // Rare (a head split across reads): join what was kept with this read and search again.
      const kept = this.partial.length;
      const joined = Buffer.concat([this.partial, buf.subarray(pos, n)]);
      const at = joined.indexOf(sep);
      if (at < 0) {
        if (joined.length > max) return void this.fail(new HttpAnswerError(`no end of line within ${max} bytes`));
        this.partial = joined;
        return undefined;
      }
      this.partial = undefined;
      return { text: joined.toString('latin1', 0, at), next: pos + (at + sep.length - kept) };
    }
    const at = buf.indexOf(sep, pos);
    if (at < 0 || at >= n) {
      if (n - pos > max) return void this.fail(new HttpAnswerError(`no end of line within ${max} bytes`));
      this.partial = Buffer.from(buf.subarray(pos, n));
      return undefined;
    }
    return { text: buf.toString('latin1', pos, at), next: at + sep.length };
  }

  /** Parses a head; false when the connection had to be failed. */
  private head(text: string): boolean {
    const problem = parseAnswerHead(text, parsed);
    if (problem) return this.fail(new HttpAnswerError(problem));
    const { status, length, chunked, close } = parsed;
    // An interim answer (100 Continue, 103 Early Hints): the real one follows.
    if (status >= 100 && status < 200) return true;
    this.status = status;
    this.closeAfter = close;
    this.body = this.client.keepBodies ? [] : undefined;
    if (chunked) this.state = State.ChunkSize;
    else if (status === 204 || status === 304) this.complete();
    else if (length >= 0) {
      this.remaining = length;
      this.state = State.Length;
      if (length === 0) this.complete();
    } else {
      // Neither framing: the body is whatever comes until the server closes.
      this.state = State.UntilClose;
      this.closeAfter = true;
    }
    return true;
  }

  private complete(): void {
    this.state = State.Done;
  }

  private finish(): void {
    const cb = this.callback!;
    const body = this.body && (this.body.length === 1 ? this.body[0] : Buffer.concat(this.body));
    this.callback = undefined;
    this.body = undefined;
    this.state = State.Idle;
    if (this.closeAfter) this.destroy();
    else this.client.released(this);
    cb(undefined, this.status, body);
  }

  private ended(): void {
    if (this.closed) return;
    if (this.state === State.UntilClose || this.state === State.Done) {
      this.closeAfter = true;
      this.finish();
      return;
    }
    this.fail(new HttpAnswerError(this.callback ? 'the connection closed before the answer was complete' : 'the server closed the connection'));
  }

  /** Ends the connection, reporting err to the request outstanding on it, if any. Returns false. */
  fail(err: Error): false {
    const cb = this.callback;
    this.callback = undefined;
    this.destroy();
    cb?.(err, 0, undefined);
    return false;
  }

  private destroy(): void {
    if (this.closed) return;
    this.closed = true;
    this.state = State.Idle;
    this.partial = undefined;
    this.socket.destroy();
    this.client.gone(this);
  }

  get busy(): boolean {
    return this.callback !== undefined;
  }
}

export class FixedRequestClient {
  readonly keepBodies: boolean;
  private readonly requests: Buffer[];
  private next = 0;
  private readonly idle: Connection[] = [];
  /** Sends waiting for a connection (queue option), oldest first; `head` is the next to go. */
  private readonly queued: { request: Buffer; callback: AnswerCallback; deadline: number }[] = [];
  private head = 0;
  private readonly all = new Set<Connection>();
  private readonly port: number;
  private readonly host: string;
  private readonly timeoutMs: number;
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  constructor(
    url: string,
    requests: FixedRequest[],
    private readonly options: FixedRequestClientOptions,
  ) {
    const u = new URL(url);
    if (u.protocol !== 'http:') throw new Error(`the fixed-request client speaks plain HTTP only, not ${u.protocol}`);
    if (!requests.length) throw new Error('no fixed requests to send');
    this.host = u.hostname.replace(/^\[|\]$/g, '');
    this.port = Number(u.port || 80);
    this.requests = requests.map((r) => serialiseRequest(r, u.host));
    this.keepBodies = options.keepBodies ?? false;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    // One timer for all requests rather than one each: a request past its deadline fails at the next sweep.
    this.sweeper = setInterval(() => this.sweep(), Math.max(10, Math.min(1_000, this.timeoutMs / 4)));
    this.sweeper.unref();
  }

  /** Connections open now (idle or carrying a request). */
  get connections(): number {
    return this.all.size;
  }

  /**
   * Sends the next request of the sequence on an idle connection, or a new one; false when every
   * allowed connection is busy (nothing is sent). The callback runs exactly once. `now`: the
   * caller's performance.now() reading, if it has one, from which the answer's deadline runs.
   */
  send(callback: AnswerCallback, now = performance.now()): boolean {
    if (this.closed) throw new Error('the client is closed');
    const conn = this.idle.pop() ?? this.open();
    if (!conn && !this.options.queue) return false;
    const request = this.requests[this.next]!;
    this.next = this.next + 1 === this.requests.length ? 0 : this.next + 1;
    const deadline = now + this.timeoutMs;
    if (conn) conn.send(request, callback, deadline);
    else this.queued.push({ request, callback, deadline });
    return true;
  }

  /**
   * Opens up to `count` connections ahead of the first send and waits (at most `withinMs`) until
   * they are up: at a high rate, the first tens of milliseconds otherwise go to connecting while
   * arrivals pile up behind, enough to drop requests at a rate the client holds afterwards. A
   * connection that fails here is gone, as any other; sends open new ones as they need.
   */
  async preconnect(count: number, withinMs = 5_000): Promise<void> {
    const opening: Promise<void>[] = [];
    for (let n = Math.min(count, this.options.maxConnections) - this.all.size; n > 0; n--) {
      const conn = this.open()!;
      this.idle.push(conn);
      opening.push(
        new Promise<void>((resolve) => {
          conn.socket.once('connect', resolve);
          conn.socket.once('close', resolve);
        }),
      );
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(opening), new Promise<void>((resolve) => (timer = setTimeout(resolve, withinMs)))]);
    clearTimeout(timer);
  }

  /** Sends waiting for a connection (the queue option). */
  get waiting(): number {
    return this.queued.length - this.head;
  }

  private open(): Connection | undefined {
    if (this.all.size >= this.options.maxConnections) return undefined;
    const conn = new Connection(this, this.port, this.host);
    this.all.add(conn);
    return conn;
  }

  private dequeue(): { request: Buffer; callback: AnswerCallback; deadline: number } | undefined {
    if (this.head === this.queued.length) return undefined;
    const q = this.queued[this.head++]!;
    // Compacted now and then, not shifted each time.
    if (this.head > 1024 && this.head * 2 > this.queued.length) {
      this.queued.splice(0, this.head);
      this.head = 0;
    }
    return q;
  }

  /** @internal a connection finished its answer and may carry the next request. */
  released(conn: Connection): void {
    const q = this.dequeue();
    if (q) conn.send(q.request, q.callback, q.deadline);
    else this.idle.push(conn);
  }

  /** @internal a connection ended. */
  gone(conn: Connection): void {
    this.all.delete(conn);
    const i = this.idle.indexOf(conn);
    if (i >= 0) this.idle.splice(i, 1);
    // A queued send takes the place of the connection that ended.
    if (this.waiting > 0 && !this.closed) {
      const q = this.dequeue()!;
      this.open()!.send(q.request, q.callback, q.deadline);
    }
  }

  private sweep(): void {
    const now = performance.now();
    for (const conn of this.all) if (conn.busy && now > conn.deadline) conn.fail(new HttpAnswerError(`no complete answer within ${this.timeoutMs} ms`));
    // Queued sends are oldest first: the expired ones are at the front.
    while (this.waiting > 0 && now > this.queued[this.head]!.deadline) this.dequeue()!.callback(new HttpAnswerError(`no connection free within ${this.timeoutMs} ms`), 0, undefined);
  }

  /** Ends every connection; requests still outstanding get an error. */
  close(): void {
    this.closed = true;
    clearInterval(this.sweeper);
    for (let q = this.dequeue(); q; q = this.dequeue()) q.callback(new HttpAnswerError('the client was closed'), 0, undefined);
    for (const conn of [...this.all]) conn.fail(new HttpAnswerError('the client was closed'));
  }
}
