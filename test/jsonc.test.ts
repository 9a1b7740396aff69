import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsoncSyntaxError, parseJsonc, stripJsonc } from '../src/config/jsonc.ts';
import { loadConfig } from '../src/config/load-config.ts';

describe('JSONC scanner', () => {
  it('drops line and block comments and trailing commas', () => {
    const text = `{
  // a line comment
  "a": 1, /* a block
  comment */ "b": [1, 2, ],
  "c": { "d": true, }, // after a trailing comma
}`;
    expect(parseJsonc(text)).toEqual({ a: 1, b: [1, 2], c: { d: true } });
  });

  it('leaves comment markers and commas inside strings alone', () => {
    const text = '{"url": "http://h:1//x", "s": "/* not a comment */", "e": "a\\"//b", "t": ",}"}';
    expect(parseJsonc(text)).toEqual({ url: 'http://h:1//x', s: '/* not a comment */', e: 'a"//b', t: ',}' });
  });

  it('keeps every offset, so errors point at the line of the file', () => {
    const text = '{\n  // note\n  "a": 1,\n  "b": nope\n}';
    expect(stripJsonc(text)).toHaveLength(text.length);
    expect(stripJsonc(text).split('\n')).toHaveLength(text.split('\n').length);
    expect(() => parseJsonc(text)).toThrow(JsoncSyntaxError);
    try {
      parseJsonc(text);
    } catch (err) {
      expect((err as JsoncSyntaxError).line).toBe(4);
    }
  });

  it('names an unterminated block comment, and does not quote the text in a syntax error', () => {
    expect(() => parseJsonc('{ /* open')).toThrow(/unterminated \/\* comment at line 1, column 3/);
    expect(() => parseJsonc('{"token": s3cr3t-value}')).toThrow(JsoncSyntaxError);
    try {
      parseJsonc('{"token": s3cr3t-value}');
    } catch (err) {
      expect((err as Error).message).not.toContain('s3cr3t');
    }
  });

  it('reads any JSON value exactly as JSON.parse does (a comma-free scan is the identity)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value, null, 1);
        expect(parseJsonc(text)).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('takes a byte order mark, as some Windows editors write', () => {
    expect(parseJsonc('\uFEFF{"a": 1, // x\n}')).toEqual({ a: 1 });
  });

  it('still rejects what JSON rejects besides comments and trailing commas', () => {
    for (const bad of ['{,}', '[,]', '{"a":1,,}', "{'a':1}", '{"a":1} x', '']) expect(() => parseJsonc(bad), bad).toThrow(JsoncSyntaxError);
  });
});

describe('config files with comments', () => {
  it('loadConfig reads a commented config and names the file on an error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'stackproof-jsonc-'));
    const good = join(dir, 'good.json');
    writeFileSync(good, '{\n  // fewer cases\n  "runs": 3, /* two systems */ "systems": ["mesh", "scheduler",],\n}\n');
    expect(loadConfig({ file: good })).toMatchObject({ runs: 3, systems: ['mesh', 'scheduler'] });
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{\n  "runs": 3\n  "seed": 1\n}\n');
    expect(() => loadConfig({ file: bad })).toThrow(new RegExp(`config file ${bad.replace(/[\\/.]/g, '\\$&')}: not valid JSON .*line 3`));
  });
});
