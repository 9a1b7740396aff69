import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ANY_RUN_NAME, madeByRun, newRunPrefix, RUN_PREFIX, runStartedAt } from '../src/provision/run-prefix.ts';

describe('run prefix', () => {
  it('is sp- and ten base-36 characters, and encodes when the run started', () => {
    const now = Date.UTC(2026, 10, 21, 23, 40);
    const prefix = newRunPrefix(now);
    expect(prefix).toMatch(RUN_PREFIX);
    expect(Math.abs(runStartedAt(prefix)!.getTime() - now)).toBeLessThan(1);
  });

  it("claims a name only when it starts with the run's prefix and a dash", () => {
    const prefix = newRunPrefix();
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (rest) => {
        expect(madeByRun(`${prefix}-${rest}`, prefix)).toBe(true);
        expect(madeByRun(`${prefix}-${rest}/`, prefix)).toBe(true);
        // Another run's names, and names that merely contain the prefix, are never claimed.
        expect(madeByRun(`x${prefix}-${rest}`, prefix)).toBe(false);
        // The prefix followed by anything but a dash is another name (sp-abc vs sp-abcd-…).
        if (!rest.startsWith('-')) expect(madeByRun(`${prefix}${rest}`, prefix)).toBe(false);
      }),
    );
  });

  it('with "all", claims names of any run and nothing a person would name', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (name) => {
        expect(madeByRun(name, 'all')).toBe(ANY_RUN_NAME.test(name.replace(/\/$/, '')));
      }),
    );
    for (const foreign of ['secret/', 'kv-v1/', 'default', 'sp-short-1', 'sp-mwr2cgztnj', 'engineering', 'SP-MWR2CGZTNJ-x']) expect(madeByRun(foreign, 'all'), foreign).toBe(false);
    for (const ours of ['sp-mwr2cgztnj-kv1/', 'sp-mwr2cgztnj-entity-ab12c3']) expect(madeByRun(ours, 'all'), ours).toBe(true);
  });
});
