import { randomBytes } from 'node:crypto';

/**
 * Every name a run gives to what it creates on a target starts with its run prefix, `sp-` and ten
 * base-36 characters (the start time, so leftovers sort by age, then randomness), followed by a
 * dash. Cleanup removes by prefix and never touches a name without one.
 */
export const RUN_PREFIX = /^sp-[0-9a-z]{10}$/;

/** Any name made by some stackproof run: what `stackproof cleanup --all` removes. */
export const ANY_RUN_NAME = /^sp-[0-9a-z]{10}-/;

export function newRunPrefix(now = Date.now()): string {
  const time = now.toString(36).slice(-8).padStart(8, '0');
  const random = (randomBytes(2).readUInt16BE(0) % 1296).toString(36).padStart(2, '0');
  return `sp-${time}${random}`;
}

/** Whether `name` was made by the run with `prefix` (or by any run, when `prefix` is 'all'). */
export function madeByRun(name: string, prefix: string | 'all'): boolean {
  const bare = name.replace(/\/$/, '');
  return prefix === 'all' ? ANY_RUN_NAME.test(bare) : bare.startsWith(`${prefix}-`);
}

/** When the run with this prefix started (from the time encoded in it), for listing leftovers. */
export function runStartedAt(name: string): Date | undefined {
  const m = /^sp-([0-9a-z]{8})/.exec(name);
  if (!m) return undefined;
  // The prefix keeps the low eight base-36 digits of the start time: enough for the next decades.
  const now = Date.now();
  const high = Math.floor(now / 36 ** 8) * 36 ** 8;
  let t = high + parseInt(m[1]!, 36);
  if (t > now + 60_000) t -= 36 ** 8;
  return new Date(t);
}
