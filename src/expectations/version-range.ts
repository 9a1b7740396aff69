/**
 * A small semver range matcher for the `range` of an expectation (stackproof's own, no dependency):
 * alternatives separated by `||`, each a space-separated list of comparators that must all hold;
 * a comparator is `>=`, `>`, `<=`, `<`, `=` or nothing (equal) before a version of one to three
 * numbers (`1.9` is `1.9.0`), or `*` (any version).
 *
 * Versions are compared by major, minor and patch only: a product's pre-release or build suffix
 * (`1.16.0-rc1`, `1.8.7+ent`, Debian's `1.8.7+dfsg1`) is left out, so `1.8.7+ent` is in `>=1.8.0 <1.9.0`.
 */
export type Version = readonly [number, number, number];

const VERSION = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:[-+].*)?$/;
const COMPARATOR = /^(>=|<=|>|<|=)?\s*(.+)$/;

/** The major, minor and patch of a version string, or undefined when it is not one. */
export function parseVersion(text: string): Version | undefined {
  const m = VERSION.exec(text.trim());
  if (!m) return undefined;
  return [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
}

export function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

type Comparator = { op: '>=' | '<=' | '>' | '<' | '='; version: Version } | { op: '*' };

/** Parses a range; throws an Error naming the part that is not a comparator. */
export function parseRange(range: string): Comparator[][] {
  const sets = range.split('||').map((s) => s.trim());
  if (sets.some((s) => s === '')) throw new Error(`range "${range}": an empty alternative`);
  return sets.map((set) =>
    // ">= 1.2.0" is read as one comparator: the space after an operator is dropped first.
    set
      .replace(/(>=|<=|>|<|=)\s+/g, '$1')
      .split(/\s+/)
      .map((part): Comparator => {
        if (part === '*' || part === 'x') return { op: '*' };
        const m = COMPARATOR.exec(part);
        const version = m ? parseVersion(m[2]!) : undefined;
        if (!m || !version) throw new Error(`range "${range}": "${part}" is not a comparator (>=1.2.3, <1.9.0, 1.8.7, *)`);
        return { op: (m[1] ?? '=') as '>=' | '<=' | '>' | '<' | '=', version };
      }),
  );
}

/** Whether a range is well formed. */
export function isValidRange(range: string): boolean {
  try {
    parseRange(range);
    return true;
  } catch {
    return false;
  }
}

/** Whether the version is inside the range; a version that does not parse is inside none. */
export function satisfies(version: string, range: string): boolean {
  const v = parseVersion(version);
  if (!v) return false;
  return parseRange(range).some((set) =>
    set.every((c) => {
      if (c.op === '*') return true;
      const d = compareVersions(v, c.version);
      switch (c.op) {
        case '>=':
          return d >= 0;
        case '>':
          return d > 0;
        case '<=':
          return d <= 0;
        case '<':
          return d < 0;
        default:
          return d === 0;
      }
    }),
  );
}

/** Whether a range has no upper bound: it holds the newest versions (a deviation that still happens). */
export function coversNewest(range: string): boolean {
  return satisfies('999999.0.0', range);
}
