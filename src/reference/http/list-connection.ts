import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { ListMethodRewriter } from './list-method-adapter.ts';

/**
 * LIST on a listener whose other requests stay on node:http's native read path.
 *
 * node:http feeds a connection's bytes to its parser (llhttp) in C++ until something listens for
 * the socket's data, and llhttp refuses methods outside its fixed list, LIST among them. Reading
 * every connection through JS to rewrite LIST cost about 14 µs of the reference's 48 µs per OIDC
 * authorize request (bench, pinned, with and without). So a connection starts native; when a LIST
 * request reaches llhttp it fails there with HPE_INVALID_METHOD, and the 'clientError' that follows
 * hands the connection, from that request on, to a ListConnection: a Duplex over the socket that
 * reads through the ListMethodRewriter and that node:http then serves like any other connection.
 *
 * Any other parse error is answered as node:http answers it when nobody listens for 'clientError'.
 */
export function acceptListMethod(http: Server, markerHeader: string): void {
  const moved = new WeakSet<object>();
  http.on('clientError', (err: ParseError, socket: Socket | ListConnection) => {
    // The dead parser of a moved socket still reports its leftovers (a request timeout): the
    // connection lives on in its ListConnection.
    if (moved.has(socket)) return;
    const first = socket instanceof ListConnection ? undefined : listRequestFrom(err);
    if (!first) return answerAsNodeDoes(err, socket);
    moved.add(socket);
    moveToListConnection(http, socket as Socket, first, markerHeader);
  });
}

type ParseError = NodeJS.ErrnoException & { rawPacket?: Buffer; bytesParsed?: number };

const L = 0x4c;
const I = 0x49;
const S = 0x53;

/**
 * The bytes of the LIST request that llhttp refused, from its first byte on, or undefined when the
 * error is something else. llhttp matches methods byte by byte and "LI" may still become LINK, so
 * LIST fails at its S, at `bytesParsed` in the read it was parsing (`rawPacket`). An L or LI that
 * came at the end of the previous read is gone, and is put back.
 */
export function listRequestFrom(err: ParseError): Buffer | undefined {
  const raw = err.rawPacket;
  const at = err.bytesParsed;
  if (err.code !== 'HPE_INVALID_METHOD' || !raw || typeof at !== 'number' || raw[at] !== S) return undefined;
  if (at >= 2) return raw[at - 2] === L && raw[at - 1] === I ? raw.subarray(at - 2) : undefined;
  if (at === 1 && raw[0] !== I) return undefined;
  return Buffer.concat([Buffer.from('LI'.slice(0, 2 - at), 'latin1'), raw]);
}

/** The status node:http gives a parse error of this code (lib/_http_server.js socketOnError). */
export function parseErrorStatus(code: string | undefined): [status: number, reason: string] {
  return PARSE_ERROR_STATUS[code ?? ''] ?? [400, 'Bad Request'];
}

const PARSE_ERROR_STATUS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Payload Too Large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout'],
};

/** The response node:http is writing on a connection (its own bookkeeping), if any. */
const inFlightResponse = (socket: Socket | ListConnection) => (socket as { _httpMessage?: ServerResponse | null })._httpMessage;

/** node:http's own answer to a parse error when 'clientError' has no listener. */
function answerAsNodeDoes(err: ParseError, socket: Socket | ListConnection): void {
  const inFlight = inFlightResponse(socket);
  if (socket.writable && (!inFlight || !inFlight.headersSent)) {
    const [status, reason] = parseErrorStatus(err.code);
    socket.write(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\n\r\n`);
  }
  socket.destroy(err);
}

function moveToListConnection(http: Server, socket: Socket, first: Buffer, markerHeader: string): void {
  // node:http's parser for this socket stopped at the LIST for good: its listeners would feed it
  // every later read and time the connection out on its behalf.
  socket.removeAllListeners('data');
  socket.removeAllListeners('timeout');
  const conn = new ListConnection(socket);
  const rewriter = new ListMethodRewriter(markerHeader);
  const feed = (chunk: Buffer) => {
    const out = rewriter.push(chunk);
    if (out.length > 0 && !conn.push(out)) socket.pause();
  };
  feed(first);
  // A 'data' listener takes the socket off the native read path (node:http unconsumes its parser).
  socket.on('data', feed);
  socket.on('end', () => conn.push(null));
  socket.on('close', () => conn.destroy());
  socket.on('timeout', () => conn.emit('timeout'));
  // Pipelined requests before the LIST are still node:http's to answer on the socket itself; the
  // LIST's answer must come after theirs.
  afterEarlierResponses(socket, () => {
    socket.setTimeout(0);
    if (!socket.destroyed) http.emit('connection', conn);
  });
}

function afterEarlierResponses(socket: Socket, then: () => void): void {
  const inFlight = inFlightResponse(socket);
  if (!inFlight) return then();
  // node:http's own 'finish' listener came first: by now it has handed the socket to the next one.
  inFlight.once('finish', () => afterEarlierResponses(socket, then));
}

/** A connection from its first LIST request on: reads come rewritten from the socket, writes go straight to it. */
export class ListConnection extends Duplex {
  constructor(private readonly socket: Socket) {
    super();
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

  setTimeout(ms: number, callback?: () => void): this {
    this.socket.setTimeout(ms);
    if (callback) this.once('timeout', callback);
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

  override _read(): void {
    this.socket.resume();
  }
  override _write(chunk: Buffer, encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.socket.write(chunk, encoding, callback);
  }
  override _writev(chunks: { chunk: Buffer; encoding: BufferEncoding }[], callback: (err?: Error | null) => void): void {
    // A response's head and body in one segment, as on a socket of its own.
    this.socket.cork();
    for (let i = 0; i < chunks.length - 1; i++) this.socket.write(chunks[i]!.chunk, chunks[i]!.encoding);
    this.socket.write(chunks[chunks.length - 1]!.chunk, chunks[chunks.length - 1]!.encoding, callback);
    this.socket.uncork();
  }
  override _final(callback: (err?: Error | null) => void): void {
    this.socket.end();
    callback();
  }
  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.socket.destroy();
    callback(err);
  }
}
