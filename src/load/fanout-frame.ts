/** The Job events of a frame that the fan-out counts: the job's ID and the sequence number in its meta. */
export interface JobSequence {
  key: string;
  seq: number;
}

export class MalformedFrameError extends Error {}

/** A frame as the fan-out reads it: its Index (0 for a heartbeat) and its Job events carrying a sequence number. */
export interface FanoutFrame {
  index: number;
  jobs: JobSequence[];
  /** The frame's `Error`, when the server sent one (an error frame ends a stream): its message. */
  error?: string;
}

const HEARTBEAT: FanoutFrame = Object.freeze({ index: 0, jobs: Object.freeze([]) as unknown as JobSequence[] }) as FanoutFrame;

type JsonFrame = { Index?: unknown; Error?: unknown; Events?: { Topic?: string; Key?: string; Payload?: { Job?: { Meta?: Record<string, string> | null } } }[] };

/**
 * Reads what the fan-out needs from one frame's bytes without parsing the whole frame where that is
 * safe, and with JSON.parse where it is not sure. A frame of one Job event (what a subscription to
 * Job:<id> gets, from the reference and from Nomad alike: Go encodes the fields in this order) is read
 * from fixed places: the Index after `{"Index":`, the Key after `"Key":"`, and the sequence number
 * after the meta key, which must occur exactly once (inside a JSON string a quote is escaped, so the
 * bytes `"<metaKey>":"` can only be an object key with a string value; the fan-out's jobs carry it
 * only in their Meta). Anything else (several events, another shape, escapes) goes to JSON.parse.
 * Bytes that are not JSON throw MalformedFrameError.
 */
export class FanoutFrameParser {
  private readonly prefix = Buffer.from('{"Index":');
  private readonly jobEvent = Buffer.from(',"Events":[{"Topic":"Job","Type":"');
  private readonly topic = Buffer.from('"Topic":');
  private readonly keyField = Buffer.from('","Key":"');
  private readonly seqField: Buffer;

  /**
   * The frames read lately, by Index, with their bytes: every subscriber of a set gets the same bytes
   * for an Index, and comparing them (memcmp) costs a tenth of reading them again. A frame whose bytes
   * differ in any way is read afresh, so the memo never hides what one subscriber got differently.
   */
  private readonly memo = new Map<number, { bytes: Buffer; frame: FanoutFrame }>();

  constructor(
    private readonly metaKey: string,
    private readonly memoSize = 256,
  ) {
    this.seqField = Buffer.from(`${JSON.stringify(metaKey)}:"`);
  }

  parse(buf: Buffer, start: number, end: number): FanoutFrame {
    if (end - start === 2 && buf[start] === 0x7b && buf[start + 1] === 0x7d) return HEARTBEAT;
    const index = startsWith(buf.subarray(start, end), 0, this.prefix) ? digitsAt(buf.subarray(start, end), this.prefix.length)?.value : undefined;
    if (index === undefined || this.memoSize === 0) return this.lean(buf, start, end) ?? this.full(buf, start, end);
    const seen = this.memo.get(index);
    if (seen && seen.bytes.length === end - start && buf.compare(seen.bytes, 0, seen.bytes.length, start, end) === 0) return seen.frame;
    const frame = this.lean(buf, start, end) ?? this.full(buf, start, end);
    this.memo.set(index, { bytes: Buffer.from(buf.subarray(start, end)), frame });
    if (this.memo.size > this.memoSize) this.memo.delete(this.memo.keys().next().value!);
    return frame;
  }

  /** The fixed-place reading, or undefined when the frame is not of the one shape it knows. */
  private lean(buf: Buffer, start: number, end: number): FanoutFrame | undefined {
    // A view, not a copy: every search below stays inside this frame.
    const f = buf.subarray(start, end);
    if (!startsWith(f, 0, this.prefix)) return undefined;
    const index = digitsAt(f, this.prefix.length);
    if (index === undefined) return undefined;
    const eventAt = this.prefix.length + index.length;
    if (!startsWith(f, eventAt, this.jobEvent)) return undefined;
    const body = eventAt + this.jobEvent.length;
    // One event only: a second "Topic": (or one inside a payload) sends the frame to JSON.parse.
    if (f.indexOf(this.topic, body) !== -1) return undefined;
    // The frame must end its one event and the array: ...}]}
    const n = f.length;
    if (f[n - 1] !== 0x7d || f[n - 2] !== 0x5d || f[n - 3] !== 0x7d) return undefined;
    const k = f.indexOf(this.keyField, body);
    if (k === -1) return undefined;
    const keyStart = k + this.keyField.length;
    const keyEnd = plainStringEnd(f, keyStart);
    if (keyEnd === undefined) return undefined;
    const s = f.indexOf(this.seqField, keyEnd);
    if (s === -1) return { index: index.value, jobs: [] };
    const seqStart = s + this.seqField.length;
    if (f.indexOf(this.seqField, seqStart) !== -1) return undefined;
    const seq = digitsAt(f, seqStart);
    // The meta value is a string: its digits and then the closing quote, or it is not a sequence number.
    if (seq === undefined || f[seqStart + seq.length] !== 0x22) return undefined;
    return { index: index.value, jobs: [{ key: f.toString('latin1', keyStart, keyEnd), seq: seq.value }] };
  }

  private full(buf: Buffer, start: number, end: number): FanoutFrame {
    let frame: JsonFrame;
    try {
      frame = JSON.parse(buf.toString('utf8', start, end)) as JsonFrame;
    } catch (err) {
      throw new MalformedFrameError(`a frame is not JSON: ${(err as Error).message}`);
    }
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) throw new MalformedFrameError('a frame is not a JSON object');
    const jobs: JobSequence[] = [];
    if (Array.isArray(frame.Events)) {
      for (const e of frame.Events) {
        if (e?.Topic !== 'Job' || typeof e.Key !== 'string') continue;
        const raw = e.Payload?.Job?.Meta?.[this.metaKey];
        if (typeof raw !== 'string' || !/^\d+$/.test(raw)) continue;
        jobs.push({ key: e.Key, seq: Number(raw) });
      }
    }
    return { index: typeof frame.Index === 'number' ? frame.Index : 0, jobs, ...(frame.Error !== undefined && frame.Error !== null ? { error: errorText(frame.Error) } : {}) };
  }
}

/** An error frame's message: Nomad's RPC errors are {Message, Code}; anything else is shown as JSON. */
function errorText(error: unknown): string {
  if (typeof error === 'string') return error.slice(0, 300);
  const o = error as { Message?: unknown; Code?: unknown };
  if (typeof o === 'object' && typeof o.Message === 'string') return `${o.Message.slice(0, 300)}${typeof o.Code === 'number' ? ` (code ${o.Code})` : ''}`;
  return JSON.stringify(error).slice(0, 300);
}

function startsWith(buf: Buffer, at: number, prefix: Buffer): boolean {
  if (buf.length - at < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (buf[at + i] !== prefix[i]) return false;
  return true;
}

/** Where a string of plain ASCII (no escape, no control or non-ASCII byte) starting at `at` ends (its closing quote), or undefined. */
function plainStringEnd(buf: Buffer, at: number): number | undefined {
  for (let i = at; i < buf.length; i++) {
    const c = buf[i]!;
    if (c === 0x22) return i;
    if (c === 0x5c || c < 0x20 || c > 0x7e) return undefined;
  }
  return undefined;
}

/** A run of decimal digits at `at` (at most 15, so the value is a safe integer), or undefined. */
function digitsAt(buf: Buffer, at: number): { value: number; length: number } | undefined {
  let value = 0;
  let i = at;
  while (i < buf.length && i - at < 16) {
    const c = buf[i]!;
    if (c < 0x30 || c > 0x39) break;
    value = value * 10 + (c - 0x30);
    i++;
  }
  const length = i - at;
  if (length === 0 || length > 15) return undefined;
  return { value, length };
}
