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
