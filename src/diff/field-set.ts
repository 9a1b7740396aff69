/**
 * The field set of a JSON value: every path to a value with the value's JSON type, the elements of
 * an array merged under `path[]`. Two answers with the same field set have the same keys at every
 * depth, each with the same type; their values (per-target IDs, times, counts) are not compared.
 * `renameKey` normalises a key that is itself a per-target value (an allocation ID keying a map);
 * the keys of an object at a path `isMap` names are data (a node's metadata keys, a task's PIDs),
 * all written `*`: only the types of its values count.
 */
export function fieldSet(value: unknown, renameKey: (key: string) => string, root = '', isMap: (path: string) => boolean = () => false): Record<string, string> {
  const types = new Map<string, Set<string>>();
  const add = (path: string, type: string) => {
    const set = types.get(path) ?? new Set<string>();
    set.add(type);
    types.set(path, set);
  };
  const walk = (v: unknown, path: string, depth: number) => {
    const type = jsonType(v);
    add(path || '(body)', type);
    // A document deeper than this is not an API answer a client reads field by field.
    if (depth > 24 || types.size > MAX_PATHS) return;
    if (type === 'array') for (const item of v as unknown[]) walk(item, `${path}[]`, depth + 1);
    if (type === 'object') {
      const map = isMap(path);
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        const key = map ? '*' : renameKey(k);
        walk(x, path ? `${path}.${key}` : key, depth + 1);
      }
    }
  };
  walk(value, root, 0);
  return Object.fromEntries([...types].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([p, t]) => [p, [...t].sort().join('|')]));
}

const MAX_PATHS = 5_000;

export function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** How two field sets differ: paths only one has, and paths whose types differ. */
export interface FieldSetDifference {
  onlyA: string[];
  onlyB: string[];
  types: { path: string; a: string; b: string }[];
}

export function compareFieldSets(a: Record<string, string>, b: Record<string, string>): FieldSetDifference | undefined {
  const onlyA = Object.keys(a).filter((p) => !(p in b));
  const onlyB = Object.keys(b).filter((p) => !(p in a));
  const types = Object.keys(a)
    .filter((p) => p in b && a[p] !== b[p])
    .map((p) => ({ path: p, a: a[p]!, b: b[p]! }));
  if (!onlyA.length && !onlyB.length && !types.length) return undefined;
  // A missing object's own keys say nothing more than the object's path: only the topmost is kept.
  return { onlyA: topmost(onlyA), onlyB: topmost(onlyB), types };
}

function topmost(paths: string[]): string[] {
  const set = new Set(paths);
  return paths.filter((p) => !ancestors(p).some((x) => set.has(x)));
}

function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let i = path.length - 1; i > 0; i--) {
    if (path[i] === '.' || (path[i] === '[' && path.slice(i, i + 2) === '[]')) out.push(path.slice(0, i));
  }
  return out;
}
