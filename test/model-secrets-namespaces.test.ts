import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { childKeys, effectivePath, fits, normalizeNamespace, readOutcome, resolve, segmentSplits, within, type NamespaceIncarnation, type StoredSecret } from '../suites/models/secrets-namespaces.ts';

const inc = (path: string, generation = 0): NamespaceIncarnation => ({ path, generation });
const ROOT = inc('');
const A = inc('a/');
const AB = inc('ab/');
const C = inc('a/c/');
const live = [ROOT, A, AB, C];
const secrets: StoredSecret[] = live.map((n) => ({ namespace: n, rest: 'kv/s', value: { in: n.path || 'root' } }));

describe('secrets namespaces model', () => {
  it("joins header and path as the spec's example does", () => {
    expect(effectivePath('ns1/ns2/', 'secret/foo')).toBe('ns1/ns2/secret/foo');
    expect(effectivePath('ns1/ns2', 'secret/foo')).toBe('ns1/ns2/secret/foo');
    expect(effectivePath(undefined, 'ns1/ns2/secret/foo')).toBe('ns1/ns2/secret/foo');
    expect(normalizeNamespace('/a//b/')).toBe('a/b/');
  });

  it('resolves to the deepest namespace at segment boundaries', () => {
    expect(resolve(['a/', 'ab/', 'a/c/'], 'ab/kv/s')).toEqual({ namespace: 'ab/', rest: 'kv/s' });
    expect(resolve(['a/', 'ab/', 'a/c/'], 'a/c/kv/s')).toEqual({ namespace: 'a/c/', rest: 'kv/s' });
    expect(resolve(['a/'], 'abc/kv')).toEqual({ namespace: '', rest: 'abc/kv' });
  });

  it('a prefix-named namespace is not within another', () => {
    expect(within('ab/', 'a/')).toBe(false);
    expect(within('a/c/', 'a/')).toBe(true);
    expect(within('a/', 'a/c/')).toBe(false);
    expect(within('a/', '')).toBe(true);
  });

  it('every segment split reads the same secret; a split inside a segment reads none', () => {
    for (const s of segmentSplits('a/c/', 'kv/s')) expect(readOutcome({ live, secrets, ...s })).toEqual({ kind: 'value', value: { in: 'a/c/' } });
    // Header 'a' and path 'b/kv/s' name a/b/kv/s, never ab/kv/s.
    expect(readOutcome({ live, secrets, header: 'a', path: 'b/kv/s' })).toEqual({ kind: 'absent' });
  });

  it('a token reaches its namespace and those below it, not its parent, sibling or prefix-named neighbour', () => {
    const read = (token: NamespaceIncarnation, ns: string) => readOutcome({ live, secrets, header: ns, path: 'kv/s', token }).kind;
    expect(read(A, 'a/')).toBe('value');
    expect(read(A, 'a/c/')).toBe('value');
    expect(read(A, 'ab/')).toBe('denied');
    expect(read(A, '')).toBe('denied');
    expect(read(C, 'a/')).toBe('denied');
    expect(read(AB, 'a/')).toBe('denied');
    expect(read(ROOT, 'ab/')).toBe('value');
  });

  it('a recreated namespace is a new one: old tokens and old secrets are gone from it', () => {
    const reborn = [ROOT, inc('a/', 1), AB];
    expect(readOutcome({ live: reborn, secrets, header: 'a/', path: 'kv/s' }).kind).toBe('absent');
    expect(readOutcome({ live: reborn, secrets: [...secrets, { namespace: inc('a/', 1), rest: 'kv/s', value: { v: '2' } }], header: 'a/', path: 'kv/s', token: A }).kind).toBe('denied');
    expect(readOutcome({ live: reborn, secrets: [...secrets, { namespace: inc('a/', 1), rest: 'kv/s', value: { v: '2' } }], header: 'a/', path: 'kv/s', token: inc('a/', 1) })).toEqual({ kind: 'value', value: { v: '2' } });
  });

  it('fits: a value only as a 200 with it; absent as 404; denied as 403 or 404', () => {
    expect(fits({ kind: 'value', value: { a: '1' } }, 200, { a: '1' })).toBe(true);
    expect(fits({ kind: 'value', value: { a: '1' } }, 200, { a: '2' })).toBe(false);
    expect(fits({ kind: 'value', value: { a: '1', b: '2' } }, 200, { b: '2', a: '1' })).toBe(true);
    expect(fits({ kind: 'value', value: { a: '1' } }, 200, { a: '1', b: '2' })).toBe(false);
    expect(fits({ kind: 'absent' }, 404, undefined)).toBe(true);
    expect(fits({ kind: 'absent' }, 200, { a: '1' })).toBe(false);
    expect(fits({ kind: 'denied' }, 403, undefined)).toBe(true);
    expect(fits({ kind: 'denied' }, 200, { a: '1' })).toBe(false);
  });

  const segment = fc.constantFrom('a', 'ab', 'b', 'c');
  const nsPath = fc.array(segment, { maxLength: 3 }).map((p) => p.map((s) => `${s}/`).join(''));

  it('property: all segment splits are equivalent', () => {
    fc.assert(
      fc.property(fc.uniqueArray(nsPath, { maxLength: 6 }), nsPath, (spaces, ns) => {
        const world = [ROOT, ...spaces.filter(Boolean).map((p) => inc(p))];
        const stored = world.map((n) => ({ namespace: n, rest: 'kv/s', value: { in: n.path } }));
        const answers = segmentSplits(ns, 'kv/s').map((s) => JSON.stringify(readOutcome({ live: world, secrets: stored, ...s })));
        expect(new Set(answers).size).toBe(1);
      }),
    );
  });

  it('property: a token never reaches more than the root token, and a descendant token never more than its ancestor', () => {
    fc.assert(
      fc.property(fc.uniqueArray(nsPath, { maxLength: 6 }), nsPath, nsPath, (spaces, t, target) => {
        const world = [ROOT, ...[...spaces, t].filter(Boolean).map((p) => inc(p))].filter((n, i, all) => all.findIndex((m) => m.path === n.path) === i);
        const stored = world.map((n) => ({ namespace: n, rest: 'kv/s', value: { in: n.path } }));
        const token = world.find((n) => n.path === t)!;
        const withToken = readOutcome({ live: world, secrets: stored, header: target, path: 'kv/s', token });
        const asRoot = readOutcome({ live: world, secrets: stored, header: target, path: 'kv/s' });
        if (withToken.kind === 'value') expect(withToken).toEqual(asRoot);
        const parent = world.filter((n) => n.path !== token.path && within(token.path, n.path)).at(-1);
        if (parent && withToken.kind === 'value') expect(readOutcome({ live: world, secrets: stored, header: target, path: 'kv/s', token: parent }).kind).toBe('value');
      }),
    );
  });
});

describe('secrets namespaces model: the children a list names', () => {
  it('names the direct children only, as their last segment', () => {
    expect(childKeys(['a/', 'ab/', 'a/c/', 'a/c/d/'], '')).toEqual(['a/', 'ab/']);
    expect(childKeys(['a/', 'ab/', 'a/c/', 'a/c/d/'], 'a/')).toEqual(['c/']);
    expect(childKeys(['a/', 'ab/', 'a/c/', 'a/c/d/'], 'a')).toEqual(['c/']);
    expect(childKeys(['a/', 'ab/', 'a/c/'], 'a/c/')).toEqual([]);
    expect(childKeys(['a/', 'ab/'], 'ab/')).toEqual([]);
  });

  it('every key is one segment, and the parent joined to it is a namespace within the parent', () => {
    const seg = fc.constantFrom('a', 'b', 'ab', 'c');
    const path = fc.array(seg, { minLength: 1, maxLength: 3 }).map((p) => p.map((s) => `${s}/`).join(''));
    fc.assert(
      fc.property(fc.array(path, { maxLength: 8 }), fc.option(path, { nil: '' }), (existing, parent) => {
        for (const k of childKeys(existing, parent)) {
          expect(k).toMatch(/^[^/]+\/$/);
          expect(existing).toContain(parent + k);
          expect(within(parent + k, parent)).toBe(true);
        }
      }),
    );
  });
});
