import { stat as statFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { FaultSet } from '../faults/types.ts';
import { sendJsonBody } from '../http/plain-errors.ts';
import type { RouteContext } from '../http/router.ts';
import type { NamespaceCapability } from './acl.ts';
import { PathEscapeError, type AllocationFs } from './alloc-fs.ts';
import { ClientError } from './client-error.ts';
import { streamFile } from './file-stream.ts';
import { goQuoteRuneOfInt, parseBoolGo, parseInt64Go } from './go-strconv.ts';
import { goQuote } from './nomad-job/multierror.ts';
import { nomadAtLeast } from './nomad-version.ts';

export interface FsEndpointsOptions {
  fs: AllocationFs;
  faults: FaultSet;
  /** Nomad's choices where the spec leaves one (hashicorp dialect). */
  nomad: boolean;
  /** Nomad's spec deviations (behaviour upstream). */
  upstream: boolean;
  /** The Nomad release the reference answers as (nomad-version.ts). */
  version: string;
  /** The allocation's full ID, or a ClientError (`prefixFault`: a fault that takes a short ID on this operation). */
  allocId(raw: string | undefined, prefixFault?: string): string;
  /** The endpoint table's namespace capabilities in the allocation's namespace, or a ClientError 403. */
  requireNamespace(req: IncomingMessage, namespace: string, caps: NamespaceCapability[]): void;
}

const OPS = ['cat', 'readat', 'stream', 'logs', 'ls', 'stat'] as const;
type Op = (typeof OPS)[number];

/** The operations Nomad serves through its streaming FileSystem.Stream and Logs (client/fs_endpoint.go). */
const STREAMED = new Set<Op>(['cat', 'readat', 'stream', 'logs']);

/** What the handler took from the query string (Nomad: command/agent/fs_endpoint.go, before the RPC). */
interface FsParams {
  /** undefined: not given (the spec's default '/'). */
  path: string | undefined;
  offset: bigint;
  /** readat: undefined reads to the end. */
  limit: bigint | undefined;
  origin: 'start' | 'end';
  follow: boolean;
  plain: boolean;
  task: string;
  type: 'stdout' | 'stderr';
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * The client's file endpoints (spec 002: cat, readat, stream, logs, ls, stat) on the allocations'
 * directories. In the hashicorp dialect each refusal has Nomad's status and words, in Nomad's order:
 * the HTTP handler's parameter checks (command/agent/fs_endpoint.go), then the allocation, whether
 * it was collected, and the token (client/fs_endpoint.go), then the file (client/allocdir/alloc_dir.go).
 * Read at v1.9.7 and checked against v1.6.1 and v2.0.5 (their answers in test/reference-scheduler-fs.test.ts).
 */
export class FsEndpoints {
  constructor(private readonly o: FsEndpointsOptions) {}

  async serve({ req, res, url, params }: RouteContext): Promise<void> {
    const f = this.o.faults;
    const op = params.op as Op;
    // command/agent/fs_endpoint.go FsRequest: CodedError(404, ErrInvalidMethod).
    if (!OPS.includes(op)) throw new ClientError(404, 'Invalid method');
    const p = this.params(op, url);
    const id = this.o.allocId(params.alloc, op === 'readat' ? 'scheduler.readat-short-id' : undefined);
    const alloc = this.o.fs.allocations.get(id)!;
    // Since 1.9.0 FileSystem.stream and logs refuse an allocation whose runner was destroyed (GC) before
    // they check the token: 404 "state for allocation <id> not found on client"; ls and stat go on to the
    // missing directory.
    if (this.o.nomad && alloc.collected && STREAMED.has(op)) throw new ClientError(404, `state for allocation ${id} not found on client`);
    const aclSkipped = f.has('scheduler.cat-readat-acl-unchecked') && (op === 'cat' || op === 'readat');
    // The fault takes the namespace to check from ?namespace= rather than from the allocation.
    const aclNamespace = f.has('scheduler.client-acl-query-namespace') ? url.searchParams.get('namespace') || alloc.namespace : alloc.namespace;
    if (!aclSkipped) this.o.requireNamespace(req, aclNamespace, op === 'logs' ? ['read-logs', 'read-fs'] : ['read-fs']);
    let path = p.path ?? '/';
    let confined = this.confined(url, op);
    // Faults: a second percent-decoding after the containment check; an absolute path taken from the machine's root.
    if (f.has('scheduler.fs-path-decoded-twice') && path.includes('%')) {
      if (!this.o.fs.isInside(id, path)) throw new PathEscapeError(`Path "${path}" escapes the alloc directory`);
      path = safeDecode(path);
      confined = false;
    }
    if (f.has('scheduler.fs-absolute-path-from-root') && path.startsWith('/') && path !== '/' && !path.includes('..')) {
      path = `${'../'.repeat(32)}${path.slice(1)}`;
      confined = false;
    }
    const framing = this.o.nomad ? 'nomad' : 'lines';
    const full = this.fullPath(id, path);
    switch (op) {
      case 'ls': {
        // client/allocdir/alloc_dir.go List: os.ReadDir, whose error names the directory it opened.
        // os.ReadDir opens a directory with O_DIRECTORY, so a file fails to open: *PathError "open
        // <path>: not a directory", which DirectoryListRequest does not take for a missing file
        // (structs IsErrNoSuchFileOrDirectory), so it is answered 500 (as real 2.0.5 and 1.6.1 do).
        if (this.o.nomad && (await this.o.fs.isFile(id, path))) throw new ClientError(500, `open ${full}: not a directory`);
        const list = await this.onDisk(() => this.o.fs.list(id, path), 404, `open ${full}`);
        return sendJsonBody(res, 200, f.has('scheduler.ls-sizes-zero') ? list.map((e) => ({ ...e, Size: 0 })) : list, this.fileInfoType());
      }
      case 'stat': {
        const inside = this.o.fs.inside(id, path, confined);
        await this.onDisk(() => this.o.fs.real(id, path, confined), 404, `stat ${full}`);
        return sendJsonBody(res, 200, await this.o.fs.info(inside, path === '/' ? '/' : path.replace(/\/+$/, '').split('/').pop()!), this.fileInfoType());
      }
      case 'cat':
      case 'readat': {
        const bytes = await this.fileBytes(id, path, full, confined, op === 'readat' ? p.offset : 0n);
        const offset = op === 'readat' ? Number(p.offset) : 0;
        const start = Math.min(f.has('scheduler.readat-off-by-one') && offset > 0 ? offset - 1 : offset, bytes.length);
        const end = op === 'cat' || p.limit === undefined ? bytes.length : Math.min(start + Number(p.limit), bytes.length);
        let out = bytes.subarray(start, end);
        if (op === 'cat' && f.has('scheduler.cat-truncated') && out.length > 1) out = out.subarray(0, out.length - 1);
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': out.length });
        return void res.end(out);
      }
      case 'stream': {
        const s = await this.fileStat(id, path, full, confined);
        this.checkSeek(id, path, full, p.origin === 'start' ? p.offset : 0n);
        // The position is clamped to the file by streamFile; an offset past 2^53 is past any file.
        const offset = p.offset > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(p.offset);
        // Spec 002: stream produces text/plain (Nomad's answer has no type of its own; Go sniffs its JSON frames as text/plain).
        return streamFile(req, res, { file: s.full, name: path, offset: Math.max(0, offset), origin: p.origin, follow: p.follow, plain: false, framing, framedType: f.has('scheduler.stream-content-type-json') ? 'application/json' : 'text/plain', faults: f });
      }
      case 'logs': {
        const spec = alloc.tasks.find((t) => t.name === p.task);
        // The fault takes any task name, and builds the log file's path from it.
        // client/fs_endpoint.go logs: a task the allocation does not have is 400 "unknown task name".
        if (!spec && !f.has('scheduler.logs-task-path-escape')) throw new ClientError(400, `unknown task name ${goQuote(p.task)}`);
        if (spec?.logsDisabled) {
          if (f.has('scheduler.logs-disabled-empty')) {
            res.writeHead(200, { 'content-type': p.plain ? 'text/plain' : 'application/json' });
            return void res.end();
          }
          throw new ClientError(404, this.logNotFound(p.task, p.type));
        }
        const file = this.o.fs.logPath(id, p.task, p.type);
        await this.onDisk(() => statFile(file), 404, undefined, this.logNotFound(p.task, p.type));
        // Nomad's logsImpl (client/fs_endpoint.go) negates the offset for origin=end, and findClosest
        // takes an offset of 0 as the start of the log file it picked, the newest: offset 0 from the
        // end is that file from its first byte, not from its end (behaviour upstream; expectations/nomad.json).
        const from = this.o.upstream && p.origin === 'end' && p.offset === 0n ? 'start' : p.origin;
        const offset = p.offset < 0n ? 0 : p.offset > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(p.offset);
        return streamFile(req, res, { file, name: `alloc/logs/${p.task}.${p.type}.0`, offset, origin: from, follow: p.follow, plain: p.plain && !f.has('scheduler.logs-plain-framed'), framing, framedType: this.o.upstream ? 'application/json' : 'text/plain', faults: f });
      }
    }
  }

  /**
   * The handler's parameter checks, in Nomad's order per operation (command/agent/fs_endpoint.go
   * FileReadAtRequest, FileCatRequest, Stream, Logs, DirectoryListRequest, FileStatRequest). The spec
   * dialect refuses what spec 002 marks required or typed with 400 in its own words.
   */
  private params(op: Op, url: URL): FsParams {
    const f = this.o.faults;
    const q = url.searchParams;
    const given = q.get('path') || undefined;
    const p: FsParams = { path: given, offset: 0n, limit: undefined, origin: 'start', follow: false, plain: false, task: '', type: 'stdout' };
    const noFileName = () => new ClientError(400, 'must provide a file name');
    switch (op) {
      case 'ls':
        if (f.has('scheduler.fs-path-required') && !given) throw noFileName();
        return p;
      case 'stat':
        if (f.has('scheduler.fs-path-required') && !given) throw noFileName();
        // Spec 002 gives stat the default path '/'; Nomad's FileStatRequest refuses a missing path.
        if (!given && (this.o.upstream || f.has('scheduler.fs-stat-path-required'))) throw noFileName();
        return p;
      case 'cat':
        // Spec 002's default '/' is a directory, which cat refuses anyway; Nomad asks for the path.
        if (this.o.nomad && !given) throw noFileName();
        if (f.has('scheduler.fs-path-required') && !given) throw noFileName();
        return p;
      case 'readat': {
        if ((this.o.nomad || f.has('scheduler.fs-path-required')) && !given) throw noFileName();
        p.offset = this.integer(q, 'offset', { required: true, nomadStatus: 500 });
        const limit = this.integer(q, 'limit', { required: !this.o.nomad, nomadStatus: 500 });
        // Spec 002: "up to limit bytes from offset", so limit 0 reads nothing. Nomad's streamFile reads
        // to the end for a limit <= 0 (behaviour upstream, or the fault); in the hashicorp dialect a
        // missing or negative limit does so too (the spec marks limit required and states no refusal).
        const unbounded = limit < 0n || (limit === 0n && (this.o.upstream || f.has('scheduler.readat-limit-zero-unbounded') || (this.o.nomad && !q.get('limit'))));
        p.limit = unbounded ? undefined : limit;
        return p;
      }
      case 'stream':
        if ((this.o.nomad || f.has('scheduler.fs-path-required')) && !given) throw noFileName();
        // Spec 002: follow defaults to true for files.
        p.follow = this.boolean(q, 'follow', !f.has('scheduler.stream-follow-default-false'), 500) || f.has('scheduler.stream-follow-false-tails');
        // Spec 002 marks offset required without stating a refusal; Nomad's Stream defaults it to 0.
        p.offset = this.integer(q, 'offset', { required: !this.o.nomad, nomadStatus: 500 });
        p.origin = this.origin(q, f.has('scheduler.stream-default-origin-end') ? 'end' : 'start');
        return p;
      case 'logs': {
        p.task = q.get('task') ?? '';
        if (!p.task) throw new ClientError(400, 'must provide task name');
        // Spec 002: follow defaults to false for logs.
        p.follow = this.boolean(q, 'follow', f.has('scheduler.logs-follow-default-true'), 400) && !f.has('scheduler.logs-follow-ignored');
        p.plain = this.boolean(q, 'plain', false, 400);
        const type = q.get('type');
        if (type !== 'stdout' && type !== 'stderr') throw new ClientError(400, 'must provide log type (stdout/stderr)');
        p.type = type;
        p.offset = this.integer(q, 'offset', { required: false, nomadStatus: 400 });
        p.origin = this.origin(q, f.has('scheduler.logs-default-origin-end') ? 'end' : 'start');
        return p;
      }
    }
  }

  /**
   * An integer parameter. Nomad parses it with strconv.ParseInt and answers its error in Go's words:
   * readat and stream through fmt.Errorf, which command/agent/http.go wrap makes a 500; logs as a
   * CodedError 400. readat parses offset even when it is missing ("parsing \"\""). The spec
   * dialect takes non-negative decimal integers only.
   */
  private integer(q: URLSearchParams, name: string, o: { required: boolean; nomadStatus: number }): bigint {
    const raw = q.get(name) ?? '';
    if (this.o.nomad) {
      if (raw === '' && !o.required) return 0n;
      const v = parseInt64Go(raw);
      if (typeof v === 'string') throw new ClientError(o.nomadStatus, `error parsing ${name}: ${v}`);
      return v;
    }
    if (raw === '') {
      if (o.required) throw new ClientError(400, `must provide ${name}`);
      return 0n;
    }
    if (!/^\d+$/.test(raw)) throw new ClientError(400, `error parsing ${name}: ${JSON.stringify(raw)} is not a non-negative integer`);
    return BigInt(raw);
  }

  /** A boolean parameter: Go's strconv.ParseBool in the hashicorp dialect (fmt.Errorf, 500, for stream; CodedError 400 for logs). */
  private boolean(q: URLSearchParams, name: string, fallback: boolean, nomadStatus: number): boolean {
    const raw = q.get(name);
    if (raw === null || raw === '') return fallback;
    if (this.o.nomad) {
      const v = parseBoolGo(raw);
      if (typeof v === 'string') throw new ClientError(nomadStatus, `failed to parse ${name} field to boolean: ${v}`);
      return v;
    }
    if (/^(true|1)$/i.test(raw)) return true;
    if (/^(false|0)$/i.test(raw)) return false;
    throw new ClientError(400, `failed to parse ${name} field to boolean: ${JSON.stringify(raw)}`);
  }

  private origin(q: URLSearchParams, fallback: 'start' | 'end'): 'start' | 'end' {
    const raw = q.get('origin') || fallback;
    if (raw !== 'start' && raw !== 'end' && this.o.faults.has('scheduler.fs-bad-origin-accepted')) return 'start';
    if (raw !== 'start' && raw !== 'end') throw new ClientError(400, 'origin must be start or end');
    return raw;
  }

  /**
   * Whether the containment check applies to this request's path. Faults drop it for the streaming
   * reads only, or check the path before percent-decoding it (so '%2e%2e' passes as a name).
   */
  private confined(url: URL, op: Op): boolean {
    const f = this.o.faults;
    if (f.has('scheduler.fs-stream-path-escape') && (op === 'stream' || op === 'readat')) return false;
    if ((f.has('scheduler.readat-path-escape') || f.has('scheduler.readat-escape-as-nomad')) && op === 'readat') return false;
    if (f.has('scheduler.fs-escape-check-before-decoding')) {
      const raw = url.search.slice(1).split('&').find((p) => p.startsWith('path='))?.slice(5) ?? '';
      return raw.includes('..');
    }
    return true;
  }

  /** The path as Nomad's messages name it: filepath.Join(allocDir, path), cleaned, without a trailing slash. */
  private fullPath(id: string, path: string): string {
    const joined = join(this.o.fs.dirOf(id), path);
    return joined.length > 1 ? joined.replace(/\/+$/, '') : joined;
  }

  /**
   * `work`, with a missing file answered as Nomad answers it in the hashicorp dialect: `status` and
   * "<what>: no such file or directory" (Go's *PathError), or `message` as given; 404 "no such file or
   * directory" in the spec dialect.
   */
  private async onDisk<T>(work: () => Promise<T>, status: number, what: string | undefined, message?: string): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && (err as NodeJS.ErrnoException).code !== 'ENOTDIR') throw err;
      if (!this.o.nomad) throw new ClientError(404, 'no such file or directory');
      const why = (err as NodeJS.ErrnoException).code === 'ENOTDIR' ? 'not a directory' : 'no such file or directory';
      throw new ClientError(status, message ?? `${what}: ${why}`);
    }
  }

  /**
   * client/fs_endpoint.go stream: the file's Stat fails with code 400 (a missing file: "stat <path>:
   * no such file or directory"), and a directory is 400 `file "<path>" is a directory`.
   */
  private async fileStat(id: string, path: string, full: string, confined: boolean) {
    const s = await this.onDisk(() => this.o.fs.stat(id, path, confined), 400, `stat ${full}`);
    if (s.isDir) throw new ClientError(400, `file ${goQuote(path)} is a directory`);
    return s;
  }

  /** cat's and readat's bytes: the file's Stat, then the read (FileSystem.stream with PlainText). */
  private async fileBytes(id: string, path: string, full: string, confined: boolean, offset: bigint): Promise<Buffer> {
    await this.fileStat(id, path, full, confined);
    this.checkSeek(id, path, full, offset);
    return this.onDisk(() => this.o.fs.read(id, path, confined), 400, `stat ${full}`);
  }

  /**
   * What client/allocdir/alloc_dir.go ReadAt refuses once Stat has passed (the hashicorp dialect; each
   * a plain error, 500): a file under a task's secrets/ or private/ directory (a case-insensitive
   * prefix of the joined path), and a negative offset, which the seek refuses. The offset is written
   * with %q before v2.0.1 (a rune: U+FFFD for a negative one) and %d since.
   */
  private checkSeek(id: string, path: string, full: string, offset: bigint): void {
    if (!this.o.nomad) return;
    const lower = full.toLowerCase();
    for (const t of this.o.fs.allocations.get(id)?.tasks ?? []) {
      const task = join(this.o.fs.dirOf(id), t.name).toLowerCase();
      if (lower.startsWith(join(task, 'secrets'))) throw new ClientError(500, `Reading secret file prohibited: ${path}`);
      if (lower.startsWith(join(task, 'private'))) throw new ClientError(500, `Reading private file prohibited: ${path}`);
    }
    if (offset < 0n) {
      const written = nomadAtLeast(this.o.version, '2.0.1') ? offset.toString() : goQuoteRuneOfInt(offset);
      throw new ClientError(500, `can't seek to offset ${written}: seek ${full}: invalid argument`);
    }
  }

  /**
   * client/fs_endpoint.go findClosest: no log file of the task and type is notFoundErr, 404 (logging
   * disabled leaves none). The spec dialect says why in its own words.
   */
  private logNotFound(task: string, type: string): string {
    return this.o.nomad ? `log entry for task ${goQuote(task)} and log type ${goQuote(type)} not found` : `logging is disabled for task ${JSON.stringify(task)}`;
  }

  /**
   * Spec 002's Produces column lists text/plain for ls and stat; Nomad answers their JSON as
   * application/json (command/agent/http.go wrap), a deviation behaviour upstream reproduces.
   */
  private fileInfoType(): Record<string, string> {
    return { 'content-type': this.o.upstream ? 'application/json' : 'text/plain' };
  }
}
