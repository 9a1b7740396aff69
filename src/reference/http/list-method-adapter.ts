import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';

/**
 * Node's HTTP parser (llhttp) refuses any method outside its fixed list, and LIST is not on it, so a
 * spec-conformant LIST request would die with a 400 before reaching a handler. This adapter sits
 * between the TCP socket and the HTTP server: it follows request boundaries (head, Content-Length
 * or chunked body) and rewrites a `LIST` request line to `GET`, adding a header whose name holds a
 * per-server secret, so a handler can tell a real LIST from a client-sent imitation.
 *
 * Everything else passes through unchanged; malformed input is left for llhttp to reject.
 */
const MAX_HEAD = 64 * 1024;
const CRLFCRLF = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

type State =
  | { kind: 'head' }
  | { kind: 'body'; remaining: number }
  | { kind: 'chunk-size' }
  | { kind: 'chunk-data'; remaining: number }
  | { kind: 'trailer' }
  | { kind: 'passthrough' };

export class ListMethodRewriter {
  private state: State = { kind: 'head' };
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly markerHeader: string) {}

  /** Feeds bytes from the socket; returns the bytes to hand to the HTTP parser. */
  push(chunk: Buffer): Buffer {
    const out: Buffer[] = [];
    let buf: Buffer = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = Buffer.alloc(0);
    while (buf.length > 0) {
      const s = this.state;
      if (s.kind === 'passthrough') {
        out.push(buf);
        break;
      }
      if (s.kind === 'head') {
        const end = buf.indexOf(CRLFCRLF);
        if (end < 0) {
          if (buf.length > MAX_HEAD) {
            this.state = { kind: 'passthrough' };
            continue;
          }
          this.pending = buf;
          break;
        }
        const head = buf.subarray(0, end + 4);
        buf = buf.subarray(end + 4);
        out.push(this.rewriteHead(head));
        continue;
      }
      if (s.kind === 'body' || s.kind === 'chunk-data') {
        const take = Math.min(s.remaining, buf.length);
        out.push(buf.subarray(0, take));
        buf = buf.subarray(take);
        s.remaining -= take;
        if (s.remaining === 0) this.state = s.kind === 'body' ? { kind: 'head' } : { kind: 'chunk-size' };
        continue;
      }
      // chunk-size and trailer lines: need a whole line.
      const eol = buf.indexOf(CRLF);
      if (eol < 0) {
        if (buf.length > MAX_HEAD) {
          this.state = { kind: 'passthrough' };
          continue;
        }
        this.pending = buf;
        break;
      }
      const line = buf.subarray(0, eol).toString('latin1');
      out.push(buf.subarray(0, eol + 2));
      buf = buf.subarray(eol + 2);
      if (s.kind === 'chunk-size') {
        const size = Number.parseInt(line.split(';')[0]!.trim(), 16);
        if (!Number.isFinite(size) || size < 0) this.state = { kind: 'passthrough' };
        else if (size === 0) this.state = { kind: 'trailer' };
        else this.state = { kind: 'chunk-data', remaining: size + 2 };
      } else if (line === '') {
        this.state = { kind: 'head' };
      }
    }
    return out.length === 1 ? out[0]! : Buffer.concat(out);
  }

  private rewriteHead(head: Buffer): Buffer {
    const text = head.toString('latin1');
    // Most heads are neither LIST nor carry a framing header or the marker: one case-folded scan
    // tells, instead of splitting every header line on every request (this runs per request).
    if (!text.startsWith('LIST ')) {
      const lower = text.toLowerCase();
      if (!lower.includes('content-length') && !lower.includes('transfer-encoding') && !lower.includes(this.markerHeader)) return head;
    }
    const lines = text.split('\r\n');
    const requestLine = lines[0] ?? '';
    let contentLength: number | undefined;
    let chunked = false;
    const kept: string[] = [];
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon > 0) {
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        // A client must not be able to forge the marker.
        if (name === this.markerHeader) continue;
        if (name === 'content-length') contentLength = Number(value);
        if (name === 'transfer-encoding' && /chunked/i.test(value)) chunked = true;
      }
      kept.push(line);
    }
    if (chunked) this.state = { kind: 'chunk-size' };
    else if (contentLength !== undefined && Number.isSafeInteger(contentLength) && contentLength > 0) {
      this.state = { kind: 'body', remaining: contentLength };
    } else if (contentLength !== undefined && !(contentLength >= 0)) {
      // A length llhttp will reject anyway; stop tracking.
      this.state = { kind: 'passthrough' };
    }
    const isList = requestLine.startsWith('LIST ');
    if (!isList && kept.length === lines.length - 1) return head;
    const newRequestLine = isList ? `GET ${requestLine.slice(5)}` : requestLine;
    // kept ends with the two empty strings from the trailing CRLFCRLF; insert before them.
    const headerLines = kept.slice(0, -2);
    if (isList) headerLines.push(`${this.markerHeader}: LIST`);
    return Buffer.from([newRequestLine, ...headerLines, '', ''].join('\r\n'), 'latin1');
  }
}

/**
 * A Duplex that looks enough like a net.Socket for node:http: reads go through the rewriter, writes
 * go straight to the socket, and the socket's addresses and timeouts are exposed.
 */
export class ListMethodSocket extends Duplex {
  private readonly rewriter: ListMethodRewriter;

  constructor(
    readonly socket: Socket,
    markerHeader: string,
  ) {
    // Strings pass through to the socket as they are (node:http writes its heads as strings).
    super({ allowHalfOpen: false, decodeStrings: false });
    this.rewriter = new ListMethodRewriter(markerHeader);
    socket.on('data', (chunk: Buffer) => {
      const out = this.rewriter.push(chunk);
      if (out.length > 0 && !this.push(out)) socket.pause();
    });
    socket.on('end', () => this.push(null));
    socket.on('close', () => this.destroy());
    socket.on('error', (err) => this.destroy(err));
    socket.on('timeout', () => this.emit('timeout'));
    socket.on('drain', () => this.emit('drain'));
  }

  override _read(): void {
    this.socket.resume();
  }

  override _write(chunk: Buffer | string, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.socket.write(chunk, encoding, callback);
  }

  /**
   * node:http corks the socket around a response's head and body: handing them to the socket
   * corked too makes one writev of them instead of a write each.
   */
  override _writev(chunks: { chunk: Buffer | string; encoding: BufferEncoding }[], callback: (error?: Error | null) => void): void {
    this.socket.cork();
    chunks.forEach(({ chunk, encoding }, i) => {
      if (i === chunks.length - 1) this.socket.write(chunk, encoding, callback);
      else this.socket.write(chunk, encoding);
    });
    this.socket.uncork();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.socket.end(callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.socket.destroy(error ?? undefined);
    callback(error);
  }

  get remoteAddress(): string | undefined {
    return this.socket.remoteAddress;
  }
  get remotePort(): number | undefined {
    return this.socket.remotePort;
  }
  get remoteFamily(): string | undefined {
    return this.socket.remoteFamily;
  }
  get localAddress(): string | undefined {
    return this.socket.localAddress;
  }
  get localPort(): number | undefined {
    return this.socket.localPort;
  }
  get bytesWritten(): number {
    return this.socket.bytesWritten;
  }
  address(): ReturnType<Socket['address']> {
    return this.socket.address();
  }
  setTimeout(ms: number, cb?: () => void): this {
    this.socket.setTimeout(ms);
    if (cb) this.once('timeout', cb);
    return this;
  }
  setNoDelay(noDelay?: boolean): this {
    this.socket.setNoDelay(noDelay);
    return this;
  }
  setKeepAlive(enable?: boolean, delay?: number): this {
    this.socket.setKeepAlive(enable, delay);
    return this;
  }
  ref(): this {
    this.socket.ref();
    return this;
  }
  unref(): this {
    this.socket.unref();
    return this;
  }
}
