/**
 * Reads a stream of JSON values however they are delimited: one per line (the scheduler's event
 * stream, NDJSON), back to back with nothing between them (Nomad's file and log stream frames:
 * client/fs_endpoint.go encodes each frame with structs.JsonHandle, which writes no newline, and
 * api/fs.go reads them with a streaming json.Decoder), or any whitespace. A value may be split
 * across chunks anywhere, even inside a multi-byte UTF-8 character: bytes are decoded with a
 * streaming decoder, so a character cut in two is put back together instead of becoming U+FFFD.
 *
 * Text that is not JSON is kept in `malformed` (cut to 200 characters) and reading goes on with
 * the next value.
 */
export class JsonValueStream {
  /** Every value read so far (left empty when the reader was made with `retain: false`). */
  readonly values: unknown[] = [];
  readonly malformed: string[] = [];
  private readonly decoder = new TextDecoder('utf-8');
  /** Decoded text not yet consumed; `pos` is how far it has been scanned. */
  private text = '';
  private pos = 0;
  /** The value being scanned: where it starts in `text` (-1: between values) and how it is nested. */
  private start = -1;
  private kind: 'container' | 'string' | 'bare' = 'container';
  private depth = 0;
  private inString = false;
  private escaped = false;

  /** `retain: false` for long-lived readers that use only what each push returns (load fan-out). */
  constructor(private readonly options: { retain?: boolean } = {}) {}

  /** Feeds the next chunk of bytes; returns the values it completed. */
  push(chunk: Uint8Array): unknown[] {
    return this.scan(this.decoder.decode(chunk, { stream: true }));
  }

  /** The stream ended: a value still open is malformed, a bare scalar at the very end is complete. */
  end(): unknown[] {
    const done = this.scan(this.decoder.decode());
    if (this.start >= 0) {
      const rest = this.text.slice(this.start);
      if (this.kind === 'bare') this.emit(rest, done);
      else if (rest.trim()) this.malformed.push(rest.slice(0, 200));
    }
    this.text = '';
    this.pos = 0;
    this.start = -1;
    return done;
  }

  private scan(decoded: string): unknown[] {
    const done: unknown[] = [];
    this.text += decoded;
    const text = this.text;
    let i = this.pos;
    while (i < text.length) {
      const c = text[i]!;
      if (this.start < 0) {
        if (c === ' ' || c === '\n' || c === '\r' || c === '\t') {
          i++;
          continue;
        }
        this.start = i;
        this.depth = 0;
        this.inString = false;
        this.escaped = false;
        this.kind = c === '{' || c === '[' ? 'container' : c === '"' ? 'string' : 'bare';
      }
      if (this.kind === 'bare') {
        // A number, true, false, null, or junk: it ends where whitespace or another value begins.
        if (i > this.start && isBareEnd(c)) {
          this.emit(text.slice(this.start, i), done);
          this.start = -1;
          continue;
        }
        if (i === this.start && isBareEnd(c)) {
          // A stray closing bracket or similar: junk of one character.
          this.emit(c, done);
          this.start = -1;
          i++;
          continue;
        }
        i++;
        continue;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === '\\') this.escaped = true;
        else if (c === '"') {
          this.inString = false;
          if (this.kind === 'string') {
            this.emit(text.slice(this.start, i + 1), done);
            this.start = -1;
          }
        }
        i++;
        continue;
      }
      if (c === '"') this.inString = true;
      else if (c === '{' || c === '[') this.depth++;
      else if (c === '}' || c === ']') {
        this.depth--;
        if (this.depth === 0) {
          this.emit(text.slice(this.start, i + 1), done);
          this.start = -1;
        }
      }
      i++;
    }
    // Keep only what is still needed: the open value, or nothing between values.
    const keepFrom = this.start >= 0 ? this.start : i;
    this.text = text.slice(keepFrom);
    this.pos = i - keepFrom;
    if (this.start >= 0) this.start -= keepFrom;
    return done;
  }

  private emit(raw: string, done: unknown[]): void {
    try {
      const value: unknown = JSON.parse(raw);
      if (this.options.retain !== false) this.values.push(value);
      done.push(value);
    } catch {
      this.malformed.push(raw.slice(0, 200));
    }
  }
}

/** Where a bare scalar stops: whitespace, or the first character of a string, object or array. */
function isBareEnd(c: string): boolean {
  return c === ' ' || c === '\n' || c === '\r' || c === '\t' || c === '{' || c === '[' || c === '"' || c === '}' || c === ']';
}

/** Every JSON value of a complete body (as read by {@link JsonValueStream}). */
export function parseJsonValues(body: Uint8Array): { values: unknown[]; malformed: string[] } {
  const reader = new JsonValueStream();
  reader.push(body);
  reader.end();
  return { values: reader.values, malformed: reader.malformed };
}
