import fc from 'fast-check';
import type { SystemName } from '../config/names.ts';
import type { SweepReport } from '../provision/sweep-report.ts';
import { compareAnswers, describeDifference } from './compare.ts';
import { countRequests, type DiffedEndpoint, type DiffedRequest, type DiffRun, type DiffSide } from './diff-model.ts';
import type { DiffFixtures } from './fixtures/diff-fixtures.ts';
import { FixtureError } from './fixtures/diff-fixtures.ts';
import { applicableRows, findListing, type KnownDifference, type Orientation } from './known-differences.ts';
import { Normaliser } from './normalise.ts';
import { describeRequest, endpointKey, resolveText, type DiffEndpoint, type RequestTemplate, type SymbolicRequest } from './request-template.ts';
import { sendRequest, type Sender } from './send-request.ts';
import { specWordOn, statement } from './spec-word.ts';
import { systemKit } from './system-kit.ts';

export interface DiffTarget extends DiffSide {
  token: string;
}

export interface DiffOptions {
  system: SystemName;
  a: DiffTarget;
  b: DiffTarget;
  runs: number;
  seed: number;
  prefix: string;
  requestTimeoutMs: number;
  known: KnownDifference[];
  /** Only endpoints whose `METHOD /path` contains this text. */
  only?: string;
  /** Aborted (Ctrl-C): no further request is sent; what was made is still removed. */
  signal?: AbortSignal;
  progress?: (line: string) => void;
}

/** Thrown when a target's fixtures cannot be made; both targets have been cleaned up by then. */
export class DiffFixtureError extends Error {
  constructor(
    message: string,
    readonly cleanup: { a: SweepReport; b: SweepReport },
  ) {
    super(message);
  }
}

interface Side {
  target: DiffTarget;
  fixtures: DiffFixtures;
  sender: Sender;
  normaliser: Normaliser;
}

/**
 * Sends the same generated requests to both targets and compares the answers: every endpoint of the
 * system's spec, each request class, `runs` generated cases of each (seeded), fixtures made on both
 * first and removed from both at the end, whatever happens between.
 */
export async function runDiff(o: DiffOptions): Promise<DiffRun> {
  const started = Date.now();
  const kit = systemKit(o.system);
  const say = o.progress ?? (() => undefined);
  const made = await Promise.allSettled([kit.makeFixtures(o.a, o.prefix), kit.makeFixtures(o.b, o.prefix)]);
  const teardowns = made.map((m) => (m.status === 'fulfilled' ? m.value.teardown : m.reason instanceof FixtureError ? m.reason.teardown : async (): Promise<SweepReport> => ({ removed: [], problems: [] })));
  const cleanup = async () => {
    const [a, b] = await Promise.all(teardowns.map((t) => untilClean(t)));
    return { a: a!, b: b! };
  };
  if (made.some((m) => m.status === 'rejected')) {
    const why = made.map((m, i) => (m.status === 'rejected' ? `${i === 0 ? o.a.name : o.b.name}: ${(m.reason as Error).message}` : '')).filter(Boolean).join('; ');
    throw new DiffFixtureError(why, await cleanup());
  }
  const [fa, fb] = made.map((m) => (m as PromiseFulfilledResult<DiffFixtures>).value) as [DiffFixtures, DiffFixtures];
  for (const [t, f] of [[o.a, fa], [o.b, fb]] as const) for (const line of f.lines) say(`${t.label}: ${line}`);
  const side = (target: DiffTarget, fixtures: DiffFixtures): Side => ({
    target,
    fixtures,
    sender: kit.sender(target, fixtures, o.requestTimeoutMs),
    normaliser: new Normaliser(fixtures.symbols, [...fixtures.secrets, target.token], o.prefix),
  });
  const a = side(o.a, fa);
  const b = side(o.b, fb);
  const orientation = orient(o.a, o.b);
  const endpoints: DiffedEndpoint[] = [];
  const skipped: DiffRun['skipped'] = [];
  let interrupted = false;
  try {
    for (const [ei, endpoint] of kit.endpoints.entries()) {
      if (o.only && !endpointKey(endpoint).includes(o.only)) continue;
      const lacking = [a, b].filter((s) => (endpoint.needs ?? []).some((n) => s.fixtures.symbols[n] === undefined));
      if (lacking.length) {
        skipped.push({ endpoint: endpointKey(endpoint), why: `${lacking.map((s) => s.target.name).join(' and ')} could not have its fixtures (${(endpoint.needs ?? []).join(', ')}): see the fixture lines` });
        continue;
      }
      if (o.signal?.aborted) {
        interrupted = true;
        break;
      }
      endpoints.push(await diffEndpoint(endpoint, ei, a, b, o, orientation, skipped));
      const last = endpoints.at(-1)!;
      say(`${endpointKey(endpoint)}: ${last.requests.length} request(s), ${last.requests.filter((r) => r.differences.length).length} differing`);
    }
  } finally {
    for (const s of [a, b]) await s.sender.http.close().catch(() => undefined);
  }
  const removed = await cleanup();
  const used = new Set(endpoints.flatMap((e) => e.requests.flatMap((r) => r.differences.flatMap((d) => (d.listed ? [d.listed.line] : [])))));
  const unseen = interrupted || o.only ? [] : applicableRows(o.known, o.system, orientation).filter((r) => !used.has(r.line)).map((r) => ({ line: r.line, row: `${r.endpoint} [${r.class}] ${r.aspect} ${r.detail}` }));
  return {
    system: o.system,
    seed: o.seed,
    runs: o.runs,
    prefix: o.prefix,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    a: sideInfo(o.a),
    b: sideInfo(o.b),
    listing: orientation ? `reference against ${orientation.product.key} ${orientation.product.version ?? '(version unknown: every row of the product applies)'}` : 'none: the known differences are listed for the reference against a product, and this diff has no reference on one side and a known product on the other',
    endpoints,
    skipped,
    counts: countRequests(endpoints),
    unseen,
    cleanup: removed,
    ...(interrupted ? { interrupted } : {}),
  };
}

/** How long a teardown that left something is tried again. */
const CLEANUP_RETRY_MS = 20_000;

/**
 * Runs a teardown, and again while it leaves something, for a bounded time: a product that removes
 * in the background (OpenBao deletes a namespace asynchronously, so its parent's delete is refused
 * while the child is still going: vault/namespace_store.go DeleteNamespace) is done a moment later.
 * A sweep removes by prefix, so running it again removes only what is still there.
 */
async function untilClean(teardown: () => Promise<SweepReport>): Promise<SweepReport> {
  const deadline = Date.now() + CLEANUP_RETRY_MS;
  const removed: string[] = [];
  for (;;) {
    const report = await teardown().catch((err: Error): SweepReport => ({ removed: [], problems: [`cleanup broke off: ${err.message}`] }));
    removed.push(...report.removed.filter((r) => !removed.includes(r)));
    if (!report.problems.length || Date.now() > deadline) return { ...report, removed };
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

function sideInfo(t: DiffTarget): DiffSide {
  const { token: _token, ...info } = t;
  return info;
}

/** Rows speak of the reference against a product: which side is which, if that is this diff. */
function orient(a: DiffSide, b: DiffSide): Orientation | undefined {
  if (a.reference && !b.reference && b.product?.key) return { referenceSide: 'a', product: { key: b.product.key, version: b.product.version } };
  if (b.reference && !a.reference && a.product?.key) return { referenceSide: 'b', product: { key: a.product.key, version: a.product.version } };
  return undefined;
}

/** The requests of one template: its generated cases (seeded per template), duplicates sent once. */
export function casesOf(template: RequestTemplate<unknown>, seed: number, runs: number): SymbolicRequest[] {
  const values = template.gen ? fc.sample(template.gen, { seed, numRuns: template.once ? 1 : runs }) : [undefined];
  const seen = new Set<string>();
  const out: SymbolicRequest[] = [];
  for (const v of values) {
    const req = template.build(v);
    const key = JSON.stringify(req);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(req);
  }
  return out;
}

async function diffEndpoint(endpoint: DiffEndpoint, index: number, a: Side, b: Side, o: DiffOptions, orientation: Orientation | undefined, skipped: DiffRun['skipped']): Promise<DiffedEndpoint> {
  const spec = endpoint.statements.map(statement);
  const requests: DiffedRequest[] = [];
  const names = { a: a.target.name, b: b.target.name };
  for (const [ti, template] of endpoint.requests.entries()) {
    const lacking = [a, b].filter((s) => (template.needs ?? []).some((n) => s.fixtures.symbols[n] === undefined));
    const barred = [a, b].map((s) => template.notOn?.(s.target.product)).find(Boolean) ?? (lacking.length ? `${lacking.map((s) => s.target.name).join(' and ')} could not have its fixtures (${(template.needs ?? []).join(', ')})` : undefined);
    if (barred) {
      skipped.push({ endpoint: `${endpointKey(endpoint)} [${template.class}] ${template.what}`, why: barred });
      continue;
    }
    // Each template its own seed: a case replays with the same --seed whatever else changed.
    for (const req of casesOf(template, o.seed + index * 1000 + ti, o.runs)) {
      if (o.signal?.aborted) return { method: endpoint.method, path: endpoint.path, spec, requests };
      const [ra, rb] = await Promise.all([ask(a, template, req, o.requestTimeoutMs), ask(b, template, req, o.requestTimeoutMs)]);
      const maps = [...systemKit(o.system).maps, ...(endpoint.maps ?? [])];
      const answers = { a: a.normaliser.answer(ra, maps), b: b.normaliser.answer(rb, maps) };
      const differences = compareAnswers(answers.a, answers.b).map((d) => {
        const listed = findListing(o.known, { system: o.system, endpoint: endpointKey(endpoint), class: template.class }, d, orientation);
        return {
          difference: d,
          line: describeDifference(d, names),
          ...(listed ? { listed: { line: listed.line, why: listed.why } } : {}),
          spec: specWordOn(o.system, template.class, d, spec, answers, names, template.stated),
        };
      });
      requests.push({ class: template.class, what: template.what, request: describeRequest(req), a: answers.a, b: answers.b, differences });
    }
  }
  return { method: endpoint.method, path: endpoint.path, spec, requests };
}

/** One target's answer to a request, after the template's per-target preparation. */
async function ask(s: Side, template: RequestTemplate<unknown>, req: SymbolicRequest, timeoutMs: number) {
  let symbols = s.fixtures.symbols;
  if (template.prepare) {
    try {
      const extra = await template.prepare({
        symbols,
        send: async (r) => {
          const res = await sendRequest(s.sender, r, symbols, s.fixtures.tokens, timeoutMs);
          return { status: res.status ?? 0, text: res.text, headers: { 'content-type': res.contentType ?? '' } };
        },
      });
      for (const v of Object.values(extra)) s.normaliser.redactor.add(v);
      symbols = { ...symbols, ...extra };
    } catch (err) {
      return { text: '', error: `preparing the request failed: ${(err as Error).message}`, durationMs: 0 };
    }
  }
  // A path that names a symbol this target lacks is the catalog's bug: said, not sent.
  try {
    resolveText(req.path, symbols);
  } catch (err) {
    return { text: '', error: (err as Error).message, durationMs: 0 };
  }
  return sendRequest(s.sender, req, symbols, s.fixtures.tokens, timeoutMs);
}
