/**
 * Go's time.Duration in the shapes Consul's CA configuration shows it: parsed from the strings a
 * client sends (time.ParseDuration, with its error texts) and written back in Go's String() form
 * ("72h0m0s", "1m30s", "500ms") for error messages. Durations are whole nanoseconds.
 */

const UNIT_NS: Record<string, bigint> = { ns: 1n, us: 1_000n, 'µs': 1_000n, 'μs': 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n };

export type ParsedDuration = { ok: true; ns: bigint } | { ok: false; message: string };

/** time.ParseDuration: a signed sequence of decimal numbers, each with a unit; "0" alone needs none. */
export function parseGoDurationNs(text: string): ParsedDuration {
  const invalid = { ok: false as const, message: `time: invalid duration ${JSON.stringify(text)}` };
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (rest === '0') return { ok: true, ns: 0n };
  if (rest === '') return invalid;
  let total = 0n;
  while (rest !== '') {
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest)!;
    const [whole = '', fraction] = [number[1], number[2]];
    if (whole === '' && (fraction === undefined || fraction === '')) return invalid;
    rest = rest.slice(number[0].length);
    const unit = /^[^\d.]*/.exec(rest)![0];
    if (unit === '') return { ok: false, message: `time: missing unit in duration ${JSON.stringify(text)}` };
    const scale = UNIT_NS[unit];
    if (scale === undefined) return { ok: false, message: `time: unknown unit ${JSON.stringify(unit)} in duration ${JSON.stringify(text)}` };
    rest = rest.slice(unit.length);
    total += BigInt(whole || '0') * scale;
    if (fraction) total += (BigInt(fraction) * scale) / 10n ** BigInt(fraction.length);
  }
  return { ok: true, ns: negative ? -total : total };
}

/** Go's Duration.String(). */
export function formatGoDuration(ns: bigint): string {
  if (ns === 0n) return '0s';
  const sign = ns < 0n ? '-' : '';
  const abs = ns < 0n ? -ns : ns;
  if (abs < 1_000_000_000n) {
    const [unit, scale] = abs < 1_000n ? ['ns', 1n] : abs < 1_000_000n ? ['µs', 1_000n] : ['ms', 1_000_000n];
    return `${sign}${decimal(abs, scale)}${unit}`;
  }
  const hours = abs / UNIT_NS.h!;
  const minutes = (abs % UNIT_NS.h!) / UNIT_NS.m!;
  const seconds = decimal(abs % UNIT_NS.m!, UNIT_NS.s!);
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

/** value / scale with the fraction's trailing zeros dropped, as Go prints it. */
function decimal(value: bigint, scale: bigint): string {
  const whole = value / scale;
  const fraction = value % scale;
  if (fraction === 0n) return String(whole);
  const digits = String(scale).length - 1;
  return `${whole}.${String(fraction).padStart(digits, '0').replace(/0+$/, '')}`;
}

export const NS_PER_MS = 1_000_000n;
