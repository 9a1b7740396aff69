/**
 * The error-text conventions Nomad's job validation is written with, re-implemented:
 * hashicorp/go-multierror v1.1.1 (Nomad's go.mod at v1.9.7..main) ListFormatFunc, and the Go
 * formatting verbs the messages use (time.Duration's String, strconv.Quote for %q).
 *
 * An "error list" here is a string[]: one entry per error a multierror.Error holds. Nomad builds
 * them two ways, and the difference shows in the message:
 *  - `multierror.Append(mErr, err)` with err itself a *multierror.Error FLATTENS err's entries into
 *    mErr (go-multierror append.go Append) -> use `flatten`.
 *  - `mErr.Errors = append(mErr.Errors, err)` or fmt.Errorf("...%v", err) NESTS err's formatted
 *    text as one entry -> use `formatList(err)` as a single string.
 */

/** go-multierror format.go ListFormatFunc: "1 error occurred:\n\t* x\n\n" / "N errors occurred:\n\t* a\n\t* b\n\n". */
export function formatList(errors: readonly string[]): string {
  if (errors.length === 1) return `1 error occurred:\n\t* ${errors[0]}\n\n`;
  return `${errors.length} errors occurred:\n\t${errors.map((e) => `* ${e}`).join('\n\t')}\n\n`;
}

/** multierror.Append(into, list...) where the appended error is a *multierror.Error: its entries are spliced in. */
export function flatten(into: string[], list: readonly string[] | null): void {
  if (list && list.length > 0) into.push(...list);
}

/** mErr.Errors = append(mErr.Errors, err) where err is a *multierror.Error: one entry, its formatted text. */
export function nest(into: string[], list: readonly string[] | null, prefix = ''): void {
  if (list && list.length > 0) into.push(prefix + formatList(list));
}

const NS_PER = { us: 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n } as const;

function fraction(v: bigint, digits: number): string {
  const unit = 10n ** BigInt(digits);
  const whole = v / unit;
  let frac = (v % unit).toString().padStart(digits, '0').replace(/0+$/, '');
  return frac === '' ? whole.toString() : `${whole}.${frac}`;
}

/** Go's time.Duration.String (src/time/time.go): "0s", "1.5s", "1m30s", "24h0m0s", "500ms", "1µs", "-5s". */
export function goDuration(ns: number | bigint): string {
  let d = typeof ns === 'bigint' ? ns : BigInt(Math.trunc(ns));
  if (d === 0n) return '0s';
  const neg = d < 0n;
  if (neg) d = -d;
  let out: string;
  if (d < NS_PER.s) {
    if (d < NS_PER.us) out = `${d}ns`;
    else if (d < NS_PER.ms) out = `${fraction(d, 3)}µs`;
    else out = `${fraction(d, 6)}ms`;
  } else {
    const h = d / NS_PER.h;
    const m = (d % NS_PER.h) / NS_PER.m;
    const s = fraction(d % NS_PER.m, 9);
    out = h > 0n ? `${h}h${m}m${s}s` : m > 0n ? `${m}m${s}s` : `${s}s`;
  }
  return neg ? `-${out}` : out;
}

/** Go's Duration.Round(m) for m > 0: halves away from zero (src/time/time.go Round). */
export function goDurationRound(ns: number, m: number): number {
  const r = ns % m;
  if (ns < 0) {
    const rr = -r;
    return rr + rr < m ? ns + rr : ns + rr - m;
  }
  return r + r < m ? ns - r : ns + m - r;
}

/** True for what Go's strconv.IsPrint calls printable (close enough: controls, C1, and a few format characters are not). */
function isPrint(cp: number): boolean {
  if (cp < 0x20 || cp === 0x7f) return false;
  if (cp >= 0x80 && cp <= 0x9f) return false;
  if (cp === 0xad || cp === 0x2028 || cp === 0x2029 || cp === 0xfeff) return false;
  if (cp >= 0xd800 && cp <= 0xdfff) return false;
  return true;
}

/** Go's strconv.Quote, which is what fmt's %q prints for a string. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    switch (ch) {
      case '"': out += '\\"'; continue;
      case '\\': out += '\\\\'; continue;
      case '\x07': out += '\\a'; continue;
      case '\b': out += '\\b'; continue;
      case '\f': out += '\\f'; continue;
      case '\n': out += '\\n'; continue;
      case '\r': out += '\\r'; continue;
      case '\t': out += '\\t'; continue;
      case '\v': out += '\\v'; continue;
    }
    if (isPrint(cp)) out += ch;
    else if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

/** fmt's %q of a []string: ["a" "b"]. */
export function goQuoteList(list: readonly string[]): string {
  return `[${list.map(goQuote).join(' ')}]`;
}
