import { closeSync, openSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A task's stdout or stderr as Nomad's client keeps it: `<dir>/<task>.<stream>.<n>`, a new file once
 * the current one holds maxFileSizeMB, and only the newest maxFiles kept (what
 * client/logmon/logging/rotator.go FileRotator does: a line is kept whole in one file when it fits,
 * and the oldest indexes are purged past MaxFiles). Writes are synchronous so that bytes land in the
 * order the task wrote them and a reader sees them as soon as the pipe delivered them.
 */
export class LogRotator {
  private index = 0;
  private fd: number;
  private written = 0;
  private closed = false;

  constructor(
    private readonly dir: string,
    /** `<task>.stdout` or `<task>.stderr`. */
    private readonly base: string,
    private readonly maxFiles: number,
    private readonly maxFileBytes: number,
  ) {
    this.fd = this.open();
  }

  /** The path of the file with this index. */
  static fileOf(dir: string, base: string, index: number): string {
    return join(dir, `${base}.${index}`);
  }

  /** The indexes of a stream's files on disk, oldest first. */
  static indexes(dir: string, base: string): number[] {
    const prefix = `${base}.`;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return [];
    }
    return names
      .filter((n) => n.startsWith(prefix) && /^\d+$/.test(n.slice(prefix.length)))
      .map((n) => Number(n.slice(prefix.length)))
      .sort((a, b) => a - b);
  }

  private open(): number {
    const fd = openSync(LogRotator.fileOf(this.dir, this.base, this.index), 'a');
    this.written = statSync(LogRotator.fileOf(this.dir, this.base, this.index)).size;
    return fd;
  }

  write(chunk: Buffer): void {
    if (this.closed) return;
    let rest = chunk;
    while (rest.length > 0) {
      if (this.written >= this.maxFileBytes) this.rotate();
      const room = this.maxFileBytes - this.written;
      let take = Math.min(room, rest.length);
      if (take < rest.length) {
        // Keep a line whole: end this file at the last newline that fits, when there is one and the
        // file already holds something (a line longer than a file is split, as Nomad splits it).
        const cut = rest.lastIndexOf(0x0a, take - 1);
        if (cut >= 0) take = cut + 1;
        else if (this.written > 0 && rest.length <= this.maxFileBytes) take = 0;
      }
      if (take === 0) {
        this.rotate();
        continue;
      }
      writeSync(this.fd, rest, 0, take);
      this.written += take;
      rest = rest.subarray(take);
    }
  }

  private rotate(): void {
    closeSync(this.fd);
    this.index += 1;
    this.fd = this.open();
    const indexes = LogRotator.indexes(this.dir, this.base);
    for (const i of indexes.slice(0, Math.max(0, indexes.length - this.maxFiles))) rmSync(LogRotator.fileOf(this.dir, this.base, i), { force: true });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}
