/** A TTL given as integer seconds or a duration string ("90s", "30m", "6h", "1h30m"); read back as integer seconds. */
export class DurationError extends Error {}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

export function parseDuration(value: unknown, field: string): number {
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= 0) return value;
    throw new DurationError(`${field} must be a non-negative integer number of seconds or a duration string such as 30m`);
  }
  if (typeof value === 'string') {
    const text = value.trim();
    if (/^\d+$/.test(text)) return Number(text);
    const parts = [...text.matchAll(/(\d+)([smhd])/g)];
    if (parts.length > 0 && parts.map((p) => p[0]).join('') === text) return parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_SECONDS[p[2]!]!, 0);
  }
  throw new DurationError(`${field}: ${JSON.stringify(value)} is not a duration (integer seconds or a string such as 30m, 6h, 1h30m)`);
}
