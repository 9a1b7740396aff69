/**
 * Node's HTTP parser (llhttp) refuses any method outside its fixed list, and LIST is not on it, so a
 * spec-conformant LIST request would die with a 400 before reaching a handler. This adapter sits
 * between the TCP socket and the HTTP server on a connection that has sent LIST (see
 * acceptListMethod): it follows request boundaries (head, Content-Length
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
