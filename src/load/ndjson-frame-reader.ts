/** A frame longer than this is refused (a stream that never sends a newline must not grow memory without end). */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

const NEWLINE = 0x0a;

export class FrameTooLargeError extends Error {}

/**
 * Splits a newline-delimited stream into frames with the fewest copies: a frame that lies inside one
 * chunk is handed over as (chunk, start, end) without copying; only a frame split across chunks is
 * joined, once, when its newline arrives. The event stream's fan-out reads up to a million frames a
 * second, where JsonValueStream's byte-by-byte scan and string building were most of the harness's
 * CPU (bench profile); the newline search here is Buffer.indexOf, which is native.
 *
 * The frames are the bytes between newlines, without the newline; empty lines are skipped.
 */
export class NdjsonFrameReader {
  /** The start of a frame not yet ended: pieces of earlier chunks (subarrays, not copies). */
  private partial: Buffer[] = [];
  private partialBytes = 0;

  /** Calls `onFrame` for every frame this chunk completes, in order. A frame's bytes are only valid during the call. */
  push(chunk: Buffer, onFrame: (buf: Buffer, start: number, end: number) => void): void {
    let from = 0;
    let nl = chunk.indexOf(NEWLINE, 0);
    if (this.partialBytes > 0) {
      if (nl < 0) return this.keep(chunk, 0);
      const joined = Buffer.concat([...this.partial, chunk.subarray(0, nl)], this.partialBytes + nl);
      this.partial = [];
      this.partialBytes = 0;
      if (joined.length > 0) onFrame(joined, 0, joined.length);
      from = nl + 1;
      nl = chunk.indexOf(NEWLINE, from);
    }
    while (nl >= 0) {
      if (nl > from) onFrame(chunk, from, nl);
      from = nl + 1;
      nl = chunk.indexOf(NEWLINE, from);
    }
    if (from < chunk.length) this.keep(chunk, from);
  }

  /** Bytes of a frame not yet ended (0 at a frame boundary): a stream that ends with some was cut short. */
  get pendingBytes(): number {
    return this.partialBytes;
  }

  /**
   * The bytes of the frame not yet ended, as text (at most `max` characters, control characters
   * shown as spaces): what a stream that ended without its newline left, such as a server's error
   * text written after the last frame.
   */
  pendingText(max = 200): string {
    const bytes = Buffer.concat(this.partial, this.partialBytes);
    return bytes.toString('utf8', 0, Math.min(bytes.length, max * 4)).slice(0, max).replace(/[\u0000-\u001f\u007f]/g, ' ');
  }

  private keep(chunk: Buffer, from: number): void {
    this.partialBytes += chunk.length - from;
    if (this.partialBytes > MAX_FRAME_BYTES) throw new FrameTooLargeError(`a frame is longer than ${MAX_FRAME_BYTES} bytes without a newline`);
    this.partial.push(from === 0 ? chunk : chunk.subarray(from));
  }
}
