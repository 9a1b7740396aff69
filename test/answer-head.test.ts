import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAnswerHead, statusOf, type AnswerHead } from '../src/load/fixed-request-client.ts';

/**
 * The head parser walks header lines in place for speed; it must read every head as the plain
 * reading does: a status-line regex, then each line split at its colon, trimmed and lowercased.
 * The oracle is that plain reading, written here; whitespace around names is limited to spaces and
 * tabs, the only kind the parser tolerates (String.prototype.trim would strip more).
 */
type Reading = AnswerHead | { problem: 'status' | 'name' | 'length' | 'coding' };

function plainReading(text: string): Reading {
  const m = /^HTTP\/1\.[01] (\d{3})(?: [^\r\n]*)?(?:\r\n|$)/.exec(text);
  if (!m) return { problem: 'status' };
  const status = Number(m[1]);
  const head: AnswerHead = { status, length: -1, chunked: false, close: false };
  if (status >= 100 && status < 200) return head;
  for (const line of text.slice(m[0].length).split('\r\n')) {
    if (line === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) return { problem: 'name' };
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1);
    if (name === 'content-length') {
      const v = value.trim();
      if (!/^\d{1,15}$/.test(v) || (head.length >= 0 && Number(v) !== head.length)) return { problem: 'length' };
      head.length = Number(v);
    } else if (name === 'transfer-encoding') {
      const codings = value.toLowerCase().split(',').map((c) => c.trim());
      if (codings[codings.length - 1] !== 'chunked') return { problem: 'coding' };
      head.chunked = true;
    } else if (name === 'connection') head.close = /(^|,)\s*close\s*(,|$)/i.test(value);
  }
  return head;
}

function fastReading(text: string): Reading {
  const out: AnswerHead = { status: 0, length: -1, chunked: false, close: false };
  const problem = parseAnswerHead(text, out);
  if (problem === undefined) return out;
  if (problem.startsWith('not an HTTP')) return { problem: 'status' };
  if (problem.startsWith('a header line')) return { problem: 'name' };
  if (problem.startsWith('bad content-length')) return { problem: 'length' };
  return { problem: 'coding' };
}

const bits = fc.string({ unit: fc.constantFrom('a', 'Z', '-', ':', ' ', '\t', '\r', '\n', '1', ','), maxLength: 12 });
const statusLine = fc.oneof(
  fc.constantFrom('HTTP/1.1 200 OK', 'HTTP/1.0 204', 'HTTP/1.1 100 Continue', 'HTTP/1.1 103 Early Hints', 'HTTP/1.1 304 Not Modified', 'HTTP/1.1 404 ', 'HTTP/1.1 500 x y'),
  fc.constantFrom('HTTP/2 200', 'HTTP/1.1 20 OK', 'HTTP/1.1 2000', 'HTTP/1.1 200\rX', 'HTTP/1.1 200 O\nK', 'http/1.1 200', 'HTTP/1.1  200', 'HTTP/1.2 200', 'HTTP/1.1 2x0', ''),
  bits.map((b) => `HTTP/1.1 200${b}`),
  bits,
);
const pad = fc.constantFrom('', ' ', '\t', ' \t ');
const name = fc.oneof(
  fc.constantFrom('content-length', 'Content-Length', 'CONTENT-LENGTH', 'transfer-encoding', 'Transfer-Encoding', 'connection', 'Connection', 'CONNECTION'),
  fc.constantFrom('content-type', 'date', 'keep-alive', 'x-a', 'contentlength1', 'content-lengths', 'transfer-encodinG', ''),
  bits,
);
const value = fc.oneof(fc.constantFrom('5', '0', ' 12 ', '007', 'abc', '-1', '1234567890123456', '123456789012345', 'chunked', 'gzip, chunked', 'chunked, gzip', ' CHUNKED', 'close', 'keep-alive, close', 'Close', 'closed', ''), bits);
const headerLine = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(pad, name, pad, fc.constantFrom(':', ': ', ':\t'), value).map(([a, n, b, sep, v]) => `${a}${n}${b}${sep}${v}`) },
  { weight: 1, arbitrary: bits },
);
const head = fc.tuple(statusLine, fc.array(headerLine, { maxLength: 8 })).map(([s, lines]) => [s, ...lines].join('\r\n'));

describe('answer head parser', () => {
  it('reads every head as the plain split-and-trim reading does (fast-check, 5,000 heads)', () => {
    fc.assert(
      fc.property(head, (text) => {
        expect(fastReading(text)).toEqual(plainReading(text));
      }),
      { numRuns: 5_000 },
    );
  });

  it('reads the heads real servers send', () => {
    const node = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\nDate: Wed, 25 Nov 2026 19:00:00 GMT\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5';
    const go = 'HTTP/1.1 403 Forbidden\r\nCache-Control: no-store\r\nContent-Type: application/json\r\nDate: Wed, 25 Nov 2026 19:00:00 GMT\r\nTransfer-Encoding: chunked';
    const closing = 'HTTP/1.0 200 OK\r\nconnection: Close\r\ncontent-length: 0';
    for (const [text, want] of [
      [node, { status: 200, length: 11, chunked: false, close: false }],
      [go, { status: 403, length: -1, chunked: true, close: false }],
      [closing, { status: 200, length: 0, chunked: false, close: true }],
    ] as const) {
      expect(fastReading(text)).toEqual(want);
      expect(plainReading(text)).toEqual(want);
    }
    expect(statusOf('HTTP/1.1 204')).toBe(204);
    expect(statusOf('HTTP/1.1 204 No Content\r\nx: y')).toBe(204);
    expect(statusOf('HTTP/1.1 2040')).toBe(-1);
  });
});
