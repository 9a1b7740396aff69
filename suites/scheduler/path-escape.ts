import fc from 'fast-check';

/** The fs operations a path escape is tried on. */
export type EscapeOp = 'cat' | 'readat' | 'stat' | 'stream' | 'ls' | 'logs';

/** How the traversal is percent-encoded in the query string. */
export const ENCODINGS = ['component', 'dots', 'dots-slashes', 'double', 'mixed'] as const;
export type Encoding = (typeof ENCODINGS)[number];

/**
 * One generated attempt to leave the allocation directory: `traversal` walks up from a directory
 * inside it (with or without a leading slash and a './' segment) to a sibling allocation or to the
 * machine's /etc; `absolute` names /etc/passwd as an absolute path; `task` puts the traversal in the
 * logs task name.
 */
export interface EscapeProbe {
  op: EscapeOp;
  kind: 'traversal' | 'absolute' | 'task';
  prefix: '' | 'app/' | 'app/local/' | 'app/local/conf/';
  dot: boolean;
  lead: boolean;
  target: 'sibling' | 'machine';
  encoding: Encoding;
}

export function encodePath(p: string, e: Encoding): string {
  switch (e) {
    case 'component':
      return encodeURIComponent(p);
    case 'dots':
      return p.replaceAll('..', '%2e%2e');
    case 'dots-slashes':
      return p.replaceAll('..', '%2e%2e').replaceAll('/', '%2f');
    // Decoded once, as a server must, this names a directory literally called '%2e%2e': not the parent.
    case 'double':
      return p.replaceAll('..', '%252e%252e');
    case 'mixed':
      return p.replaceAll('..', '.%2e');
  }
}

/** The raw query string of a probe; `sibling` is the full ID of another allocation of the node. */
export function probeQuery(p: EscapeProbe, sibling: string): string {
  if (p.kind === 'task') {
    const task = `${'../'.repeat(p.prefix === '' ? 2 : 3)}${sibling}/alloc/logs/app`;
    return `task=${encodePath(task, p.encoding)}&type=stdout&offset=0&origin=start${p.dot ? '&plain=true' : ''}`;
  }
  const dir = p.op === 'ls';
  let path: string;
  if (p.kind === 'absolute') path = dir ? '/etc' : '/etc/passwd';
  else {
    const depth = p.prefix.split('/').filter(Boolean).length;
    // Exactly up to the allocations' directory for a sibling; far past the machine's root for /etc.
    const ups = p.target === 'sibling' ? depth + 1 : 12;
    const goal = p.target === 'sibling' ? `${sibling}/app/local${dir ? '' : '/data.txt'}` : dir ? 'etc' : 'etc/passwd';
    path = `${p.lead ? '/' : ''}${p.prefix}${p.dot ? './' : ''}${'../'.repeat(ups)}${goal}`;
  }
  const q = `path=${encodePath(path, p.encoding)}`;
  switch (p.op) {
    case 'readat':
      return `${q}&offset=0&limit=4096`;
    case 'stream':
      return `${q}&offset=0&origin=start&follow=false`;
    default:
      return q;
  }
}

const base = { prefix: '' as const, dot: false, lead: false, target: 'sibling' as const, encoding: 'component' as Encoding };

export const escapeProbeArbitrary: fc.Arbitrary<EscapeProbe> = fc.oneof(
  fc.record({
    op: fc.constantFrom<EscapeOp>('cat', 'readat', 'stat', 'stream', 'ls'),
    kind: fc.constant<'traversal'>('traversal'),
    prefix: fc.constantFrom<EscapeProbe['prefix']>('', 'app/', 'app/local/', 'app/local/conf/'),
    dot: fc.boolean(),
    lead: fc.boolean(),
    target: fc.constantFrom<'sibling' | 'machine'>('sibling', 'machine'),
    encoding: fc.constantFrom(...ENCODINGS),
  }),
  fc.record({ op: fc.constantFrom<EscapeOp>('cat', 'readat', 'stat', 'stream', 'ls'), kind: fc.constant<'absolute'>('absolute'), encoding: fc.constantFrom(...ENCODINGS) }).map((p) => ({ ...base, ...p, target: 'machine' as const })),
  fc.record({ prefix: fc.constantFrom<EscapeProbe['prefix']>('', 'app/'), dot: fc.boolean(), encoding: fc.constantFrom<Encoding>('component', 'dots', 'mixed') }).map((p) => ({ ...base, ...p, op: 'logs' as const, kind: 'task' as const })),
);

/**
 * The corners every seed must reach: each operation with each encoding toward the sibling and the
 * machine, from the root and from deep inside, with a leading slash; each operation with an absolute
 * path; the logs task name framed and plain.
 */
export function escapeExamples(): EscapeProbe[] {
  const out: EscapeProbe[] = [];
  for (const op of ['cat', 'readat', 'stat', 'stream', 'ls'] as const) {
    for (const encoding of ENCODINGS) {
      out.push({ ...base, op, kind: 'traversal', encoding, target: 'sibling' });
      out.push({ ...base, op, kind: 'traversal', encoding, target: 'machine', prefix: 'app/local/', lead: true, dot: true });
    }
    out.push({ ...base, op, kind: 'traversal', prefix: 'app/', target: 'sibling', encoding: 'dots' });
    out.push({ ...base, op, kind: 'absolute', target: 'machine' });
  }
  for (const prefix of ['', 'app/'] as const) for (const dot of [false, true]) for (const encoding of ['component', 'dots'] as const) out.push({ ...base, op: 'logs', kind: 'task', prefix, dot, encoding });
  return out;
}
