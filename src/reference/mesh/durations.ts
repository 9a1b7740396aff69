/** Blocking-query wait values the spec dialect takes: "10s", "2m", "500ms", or a bare number of seconds. */
export function parseWait(text: string): number | undefined {
  const m = /^(\d+)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  return n * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit]!;
}

const GO_UNITS_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * A wait as Consul reads it: Go's time.ParseDuration (agent/http.go parseWait), so "1m30s", "1.5s"
 * and "-1s" are durations, while a bare number other than "0" is not ("missing unit").
 */
export function parseGoDuration(text: string): number | undefined {
  const m = /^([-+]?)(.*)$/.exec(text)!;
  const sign = m[1] === '-' ? -1 : 1;
  const rest = m[2]!;
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let total = 0;
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let at = 0;
  while (at < rest.length) {
    part.lastIndex = at;
    const p = part.exec(rest);
    if (!p) return undefined;
    total += Number(p[1]) * GO_UNITS_MS[p[2]!]!;
    at = part.lastIndex;
  }
  return sign * total;
}

const MAX_UINT64 = 2n ** 64n - 1n;
/** Consul caps a blocking query's wait at 10 minutes and waits 5 when none is given (agent/http.go parseWait). */
export const MAX_WAIT_MS = 10 * 60 * 1000;
export const DEFAULT_WAIT_MS = 5 * 60 * 1000;

export type BlockingParams = { ok: true; index?: number; waitMs: number } | { ok: false; message: 'Invalid index' | 'Invalid wait time' };

/**
 * A blocking query's `index` and `wait`; no index means a non-blocking query. The hashicorp dialect
 * reads them as Consul does (agent/http.go parseWait): empty values are ignored, the index is an
 * unsigned 64-bit integer, the wait a Go duration. `acceptBadIndex` (a fault) reads a bad index as none.
 */
export function readBlockingParams(url: URL, options: { hashicorp: boolean; acceptBadIndex?: boolean }): BlockingParams {
  const read = (name: string) => {
    const v = url.searchParams.get(name);
    return options.hashicorp && v === '' ? null : v;
  };
  const rawIndex = read('index');
  const rawWait = read('wait');
  let index: number | undefined;
  if (rawIndex !== null) {
    const numeric = /^\d+$/.test(rawIndex) && (!options.hashicorp || BigInt(rawIndex) <= MAX_UINT64);
    if (!numeric && !options.acceptBadIndex) return { ok: false, message: 'Invalid index' };
    index = numeric ? Number(rawIndex) : undefined;
  }
  let waitMs = DEFAULT_WAIT_MS;
  if (rawWait !== null) {
    const parsed = options.hashicorp ? parseGoDuration(rawWait) : parseWait(rawWait);
    if (parsed === undefined) return { ok: false, message: 'Invalid wait time' };
    // A zero or negative wait ends the query at once (upstream it would mean the default wait,
    // which looks like a hang to a client that asked for none).
    waitMs = Math.max(0, parsed);
  }
  return { ok: true, index, waitMs: Math.min(waitMs, MAX_WAIT_MS) };
}
