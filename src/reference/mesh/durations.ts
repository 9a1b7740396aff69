/** Blocking-query wait values as the upstream agent takes them: "10s", "2m", "500ms", or a bare number of seconds. */
export function parseWait(text: string): number | undefined {
  const m = /^(\d+)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  return n * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit]!;
}
