import { open, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultSet } from '../faults/types.ts';

const CHUNK = 64 * 1024;
const POLL_MS = 100;
const HEARTBEAT_MS = 1_000;

export interface StreamOptions {
  file: string;
  /** The name frames carry in File. */
  name: string;
  offset: number;
  origin: 'start' | 'end';
  follow: boolean;
  /** Plain bytes instead of frames (log streaming with plain=true). */
  plain: boolean;
  /**
   * How frames are written and what Offset means; the spec leaves both open. `nomad`: frames back to
   * back with nothing between them, and Offset the position after the frame's bytes, as Nomad's
   * client/fs_endpoint.go does (frames encoded with structs.JsonHandle, no newline; streamFile passes
   * the offset after each read to the framer). `lines`: one frame per line, Offset where the bytes start.
   */
  framing: 'lines' | 'nomad';
  /** The Content-Type of framed answers (plain ones are text/plain). */
  framedType: string;
  faults: FaultSet;
}

/**
 * Streams a file: its bytes from the requested position as frames {File, Offset, Data (base64),
 * FileEvent}, then, when following, the bytes appended to it (and
 * 'file truncated' or 'file deleted' events), with {} heartbeats, until the client goes away.
 */
export async function streamFile(req: IncomingMessage, res: ServerResponse, o: StreamOptions): Promise<void> {
  const f = o.faults;
  const size = (await stat(o.file)).size;
  const fromEnd = o.origin === 'end' && !f.has('scheduler.stream-origin-end-ignored');
  let pos = Math.min(size, fromEnd ? Math.max(0, size - o.offset) : o.offset);
  res.writeHead(200, { 'content-type': o.plain ? 'text/plain' : o.framedType, 'cache-control': 'no-cache' });
  res.flushHeaders();
  let closed = false;
  req.once('close', () => (closed = true));
  res.once('close', () => (closed = true));

  const delimiter = o.framing === 'nomad' ? '' : '\n';
  const frame = (body: Record<string, unknown>) => res.write(`${JSON.stringify(body)}${delimiter}`);
  const sendBytes = (bytes: Buffer, at: number) => {
    if (o.plain) return res.write(bytes);
    for (let i = 0; i < bytes.length; i += CHUNK) {
      const part = bytes.subarray(i, i + CHUNK);
      const offset = o.framing === 'nomad' ? at + i + part.length : at + i;
      frame({ File: f.has('scheduler.stream-frame-file-empty') ? '' : o.name, Offset: offset, Data: f.has('scheduler.stream-data-not-base64') ? part.toString('utf8') : part.toString('base64') });
    }
    return true;
  };
  /** The bytes from start to end; undefined when the file is gone (deleted between a stat and this read). */
  const readFrom = async (start: number, end: number): Promise<Buffer | undefined> => {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(o.file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    try {
      const buf = Buffer.alloc(end - start);
      const { bytesRead } = await handle.read(buf, 0, buf.length, start);
      return buf.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  };

  if (size > pos) {
    // Gone already: a follower's next stat reports the deletion.
    const bytes = await readFrom(pos, size);
    if (bytes) {
      sendBytes(bytes, pos);
      pos = size;
    }
  }
  if (!o.follow || f.has('scheduler.stream-follow-ignored')) {
    res.end();
    return;
  }
  const deleted = () => {
    if (!o.plain && !f.has('scheduler.stream-delete-silent')) frame({ File: o.name, Offset: pos, FileEvent: 'file deleted' });
  };
  let lastWrite = Date.now();
  while (!closed) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    if (closed) break;
    let now: number;
    try {
      now = (await stat(o.file)).size;
    } catch {
      deleted();
      break;
    }
    if (now < pos) {
      // The event carries the new stream position: reading starts again at the file's beginning.
      if (!o.plain && !f.has('scheduler.stream-truncate-no-event')) frame({ File: o.name, Offset: 0, FileEvent: 'file truncated' });
      if (!f.has('scheduler.stream-truncate-keeps-position')) pos = 0;
    }
    if (now > pos) {
      // A file deleted right after it grew (the stat saw it, the read does not) is a deletion, not an error.
      const bytes = await readFrom(pos, now);
      if (!bytes) {
        deleted();
        break;
      }
      sendBytes(bytes, pos);
      pos = now;
      lastWrite = Date.now();
    } else if (!o.plain && Date.now() - lastWrite >= HEARTBEAT_MS) {
      res.write(`{}${delimiter}`);
      lastWrite = Date.now();
    }
  }
  res.end();
}
