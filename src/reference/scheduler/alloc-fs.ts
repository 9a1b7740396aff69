import { randomUUID } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, realpath, rm, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';

export interface TaskSpec {
  name: string;
  /** Logging disabled: the task has no log files and log requests answer 404. */
  logsDisabled?: boolean;
}

export interface Allocation {
  id: string;
  namespace: string;
  jobId: string;
  tasks: TaskSpec[];
  /** Stopped allocations are the ones garbage collection removes. */
  stopped: boolean;
  /** Garbage collection removed its directory (the allocation stays known, as to Nomad's servers). */
  collected?: boolean;
}

/** The path escapes the allocation directory. */
export class PathEscapeError extends Error {}

/**
 * Allocations of the node on a real filesystem under a temporary directory, laid out like the
 * upstream client: alloc/logs/<task>.<stdout|stderr>.<n> shared by the tasks, and a directory per
 * task with local/, secrets/, tmp/ and private/, written by the tasks' real processes.
 */
export class AllocationFs {
  readonly allocations = new Map<string, Allocation>();

  constructor(
    readonly root: string,
    /** The fault that drops the containment check. */
    private readonly escapeAllowed = false,
  ) {}

  dirOf(id: string): string {
    return join(this.root, id);
  }

  /**
   * A placed allocation's directory with the shared alloc/ (logs/, tmp/, data/) that Nomad's client
   * builds before any task (client/allocdir/alloc_dir.go Build, SharedAllocDirs); each task's own
   * directory is built as it is set up (task-process.ts).
   */
  async create(spec: { namespace?: string; jobId?: string; tasks: TaskSpec[]; stopped?: boolean }): Promise<Allocation> {
    const alloc: Allocation = { id: randomUUID(), namespace: spec.namespace ?? 'default', jobId: spec.jobId ?? `job-${randomUUID().slice(0, 8)}`, tasks: spec.tasks, stopped: spec.stopped ?? true };
    const dir = this.dirOf(alloc.id);
    for (const shared of ['logs', 'tmp', 'data']) await mkdir(join(dir, 'alloc', shared), { recursive: true });
    this.allocations.set(alloc.id, alloc);
    return alloc;
  }

  /**
   * The absolute path of `path` inside an allocation's directory; refuses anything that leaves it.
   * `confined: false` skips the check (for faults that drop it on one operation only).
   */
  inside(id: string, path: string, confined = true): string {
    const base = this.dirOf(id);
    if (this.escapeAllowed || !confined) return resolve(base, path.replace(/^\/+/, ''));
    const full = resolve(base, `.${sep}${path.replace(/^\/+/, '')}`);
    const rel = relative(base, full);
    if (rel.startsWith('..') || resolve(base, rel) !== full) throw new PathEscapeError(`Path "${path}" escapes the alloc directory`);
    return full;
  }

  /** Whether `path` stays inside the allocation's directory (the check `inside` makes, as a test). */
  isInside(id: string, path: string): boolean {
    try {
      this.inside(id, path);
      return true;
    } catch (err) {
      if (err instanceof PathEscapeError) return false;
      throw err;
    }
  }

  /** Resolves symlinks too: a link inside the allocation must not lead outside it. */
  async real(id: string, path: string, confined = true): Promise<string> {
    const full = this.inside(id, path, confined);
    const resolved = await realpath(full);
    if (this.escapeAllowed || !confined) return resolved;
    const base = await realpath(this.dirOf(id));
    if (resolved !== base && !resolved.startsWith(base + sep)) throw new PathEscapeError(`Path "${path}" escapes the alloc directory`);
    return resolved;
  }

  logPath(id: string, task: string, type: 'stdout' | 'stderr'): string {
    return join(this.dirOf(id), 'alloc', 'logs', `${task}.${type}.0`);
  }

  async read(id: string, path: string, confined = true): Promise<Buffer> {
    return readFile(await this.real(id, path, confined));
  }

  async info(full: string, name: string) {
    const s = await lstat(full);
    return { Name: name, IsDir: s.isDirectory(), Size: s.isDirectory() ? 4096 : s.size, FileMode: modeString(s.mode, s.isDirectory()), ModTime: s.mtime.toISOString() };
  }

  /** Whether the path names a file that is not a directory (false for anything missing). */
  async isFile(id: string, path: string): Promise<boolean> {
    try {
      return !(await lstat(await this.real(id, path))).isDirectory();
    } catch {
      return false;
    }
  }

  async list(id: string, path: string) {
    const full = await this.real(id, path);
    const names = (await readdir(full)).sort();
    return Promise.all(names.map((n) => this.info(join(full, n), n)));
  }

  async stat(id: string, path: string, confined = true) {
    const full = await this.real(id, path, confined);
    const s = await stat(full);
    return { full, isDir: s.isDirectory(), size: s.size };
  }

  /** Garbage collection: the allocation's directory is removed; the allocation stays known to the "server". */
  async collect(id: string): Promise<void> {
    await rm(this.dirOf(id), { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    const alloc = this.allocations.get(id);
    if (alloc) {
      alloc.stopped = true;
      alloc.collected = true;
    }
  }

  exists(id: string): boolean {
    return this.allocations.has(id);
  }
}

function modeString(mode: number, dir: boolean): string {
  const bits = ['r', 'w', 'x'];
  let out = dir ? 'd' : '-';
  for (let i = 8; i >= 0; i--) out += mode & (1 << i) ? bits[(8 - i) % 3] : '-';
  return out;
}
