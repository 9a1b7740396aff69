import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonValueStream, parseJsonValues } from '../src/client/json-value-stream.ts';

/** Feeds `bytes` cut at the given positions, then ends the stream. */
function readChunked(bytes: Buffer, cuts: number[]): JsonValueStream {
  const reader = new JsonValueStream();
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let at = 0;
  for (const p of [...points, bytes.length]) {
    reader.push(bytes.subarray(at, p));
    at = p;
  }
  reader.end();
  return reader;
}

const isBareScalar = (v: unknown) => v === null || typeof v === 'number' || typeof v === 'boolean';

/** Values with strings that have multi-byte characters (2, 3 and 4 bytes in UTF-8). */
const value = fc.jsonValue({ maxDepth: 3 }).chain((v) =>
  fc.constantFrom('ä', '✓', '😀', '—', '').map((extra) => (typeof v === 'string' ? v + extra : Array.isArray(v) ? [...v, `x${extra}`] : v)),
);

/** JSON text of values with the separators of every framing: none, newline, other whitespace. */
const stream = fc
  .array(fc.tuple(value, fc.constantFrom('', '\n', '\r\n', ' ', '\t\n  ')), { maxLength: 12 })
  .map((items) => {
    let text = '';
    items.forEach(([v, sep], i) => {
      // Two bare scalars need whitespace between them, or they would read as one token.
      const prev = items[i - 1];
      const needsSpace = prev !== undefined && isBareScalar(prev[0]) && isBareScalar(v);
      text += (i === 0 ? '' : needsSpace && sep === '' ? ' ' : sep) + JSON.stringify(v);
    });
    return { text, values: items.map(([v]) => JSON.parse(JSON.stringify(v)) as unknown) };
  });

describe('JsonValueStream', () => {
  it('reads the same values however the bytes are cut into chunks and however the values are delimited', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 20 }), ({ text, values }, cuts) => {
        const reader = readChunked(Buffer.from(text, 'utf8'), cuts);
        expect(reader.malformed).toEqual([]);
        expect(reader.values).toEqual(values);
      }),
      { numRuns: 500 },
    );
  });

  it('reads frames written back to back with no newline, like Nomad file stream frames', () => {
    const frames = [{ File: 'a', Offset: 3, Data: Buffer.from('äö✓').toString('base64') }, {}, { FileEvent: 'file truncated' }];
    const { values, malformed } = parseJsonValues(Buffer.from(frames.map((f) => JSON.stringify(f)).join('')));
    expect(malformed).toEqual([]);
    expect(values).toEqual(frames);
  });

  it('puts a multi-byte character split between two chunks back together', () => {
    const bytes = Buffer.from('{"t":"✓"}\n');
    const reader = new JsonValueStream();
    // '✓' is 3 bytes at positions 6..8: cut after its first byte.
    reader.push(bytes.subarray(0, 7));
    reader.push(bytes.subarray(7));
    reader.end();
    expect(reader.values).toEqual([{ t: '✓' }]);
  });

  it('reports what is not JSON and goes on with the next value', () => {
    const { values, malformed } = parseJsonValues(Buffer.from('nope\n{"a":1}\n}{"b":[1,2]} {"c":}\n7'));
    expect(values).toEqual([{ a: 1 }, { b: [1, 2] }, 7]);
    expect(malformed).toEqual(['nope', '}', '{"c":}']);
  });

  it('reports a value the stream cut short', () => {
    const { values, malformed } = parseJsonValues(Buffer.from('{"a":1}{"b":"unterminated'));
    expect(values).toEqual([{ a: 1 }]);
    expect(malformed).toEqual(['{"b":"unterminated']);
  });

  it('returns from each push only the values that chunk completed', () => {
    const reader = new JsonValueStream();
    expect(reader.push(Buffer.from('{"a":'))).toEqual([]);
    expect(reader.push(Buffer.from('1}{"b":2}{'))).toEqual([{ a: 1 }, { b: 2 }]);
    expect(reader.push(Buffer.from('}'))).toEqual([{}]);
    expect(reader.end()).toEqual([]);
  });
});
