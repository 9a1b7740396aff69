import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FanoutFrameParser, MalformedFrameError, type FanoutFrame } from '../src/load/fanout-frame.ts';
import { FrameTooLargeError, MAX_FRAME_BYTES, NdjsonFrameReader } from '../src/load/ndjson-frame-reader.ts';

/** Feeds `bytes` cut at the given positions; returns the frames as text. */
function framesOf(bytes: Buffer, cuts: number[]): string[] {
  const reader = new NdjsonFrameReader();
  const out: string[] = [];
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let at = 0;
  for (const p of [...points, bytes.length]) {
    reader.push(bytes.subarray(at, p), (buf, start, end) => out.push(buf.toString('utf8', start, end)));
    at = p;
  }
  expect(reader.pendingBytes).toBe(0);
  return out;
}

/** A Job frame as the reference and Nomad write it (field order of Go's structs), with a sequence number in the job's meta. */
function jobFrame(index: number, key: string, seq: number | undefined, extraMeta: Record<string, string> = {}): string {
  const meta = seq === undefined ? { ...extraMeta } : { stackproof_seq: String(seq), ...extraMeta };
  const job = { Region: 'global', ID: key, Name: key, Meta: meta, TaskGroups: [{ Name: 'fixture', Tasks: [{ Name: 'event', Config: { args: ['-c', 'echo "a\\nb" ✓'] } }] }], ModifyIndex: index };
  return JSON.stringify({ Index: index, Events: [{ Topic: 'Job', Type: 'JobRegistered', Key: key, Namespace: 'default', FilterKeys: null, Payload: { Job: job }, Index: index }] });
}

const parse = (text: string): FanoutFrame => {
  const b = Buffer.from(`  ${text}  `);
  return new FanoutFrameParser('stackproof_seq').parse(b, 2, b.length - 2);
};

describe('NdjsonFrameReader', () => {
  it('hands over the same frames however the stream is cut into chunks (a frame split anywhere, several in one chunk)', () => {
    const frame = fc.oneof(
      fc.constant('{}'),
      fc.tuple(fc.integer({ min: 1, max: 1e9 }), fc.constantFrom('job-a', 'job-b'), fc.option(fc.integer({ min: 1, max: 1e6 }), { nil: undefined })).map(([i, k, s]) => jobFrame(i, k, s)),
      fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify({ Index: 1, Events: [v] })),
    );
    fc.assert(
      fc.property(fc.array(frame, { maxLength: 10 }), fc.array(fc.nat(), { maxLength: 12 }), fc.boolean(), (frames, cuts, blankLines) => {
        const text = frames.map((f) => `${f}\n${blankLines ? '\n' : ''}`).join('');
        expect(framesOf(Buffer.from(text), cuts)).toEqual(frames);
      }),
    );
  });

  it('cuts a multi-byte character across chunks without damage', () => {
    const text = `{"a":"✓😀"}\n{}\n`;
    const bytes = Buffer.from(text);
    for (let cut = 0; cut <= bytes.length; cut++) expect(framesOf(bytes, [cut])).toEqual(['{"a":"✓😀"}', '{}']);
  });

  it('keeps an unfinished frame until its newline, and refuses one that grows past the limit', () => {
    const reader = new NdjsonFrameReader();
    const seen: string[] = [];
    reader.push(Buffer.from('{"Index":1'), (b, s, e) => seen.push(b.toString('utf8', s, e)));
    expect(seen).toEqual([]);
    expect(reader.pendingBytes).toBe(10);
    reader.push(Buffer.from('}\n{"Ind'), (b, s, e) => seen.push(b.toString('utf8', s, e)));
    expect(seen).toEqual(['{"Index":1}']);
    expect(reader.pendingBytes).toBe(5);
    const big = new NdjsonFrameReader();
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    expect(() => {
      for (let n = 0; n <= MAX_FRAME_BYTES / chunk.length; n++) big.push(chunk, () => undefined);
    }).toThrow(FrameTooLargeError);
  });
});

describe('FanoutFrameParser', () => {
  it('reads the Index, the Key and the sequence number of a Job frame as JSON.parse does', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 40 }), fc.stringMatching(/^[a-z0-9-]{1,40}$/), fc.integer({ min: 1, max: 2 ** 40 }), (index, key, seq) => {
        expect(parse(jobFrame(index, key, seq))).toEqual({ index, jobs: [{ key, seq }] });
      }),
    );
  });

  it('a heartbeat and a Job frame without a sequence number carry no registration', () => {
    expect(parse('{}')).toEqual({ index: 0, jobs: [] });
    expect(parse(jobFrame(7, 'job-a', undefined))).toEqual({ index: 7, jobs: [] });
  });

  it('falls back to JSON.parse where the fixed places do not hold, with the same answer', () => {
    const twoEvents = JSON.parse(jobFrame(9, 'job-a', 3)) as { Events: unknown[] };
    twoEvents.Events.push((JSON.parse(jobFrame(9, 'job-b', 4)) as { Events: unknown[] }).Events[0]);
    expect(parse(JSON.stringify(twoEvents))).toEqual({ index: 9, jobs: [{ key: 'job-a', seq: 3 }, { key: 'job-b', seq: 4 }] });
    // Other spacing, a key with an escape, a key with non-ASCII, the marker twice, a number instead of a string.
    expect(parse(JSON.stringify(JSON.parse(jobFrame(5, 'job-a', 8)), null, 1).replace(/\n/g, ''))).toEqual({ index: 5, jobs: [{ key: 'job-a', seq: 8 }] });
    expect(parse(jobFrame(5, 'job"a', 8))).toEqual({ index: 5, jobs: [{ key: 'job"a', seq: 8 }] });
    expect(parse(jobFrame(5, 'jöb', 8))).toEqual({ index: 5, jobs: [{ key: 'jöb', seq: 8 }] });
    const twice = jobFrame(5, 'job-a', 8).replace('"Region":"global"', '"Region":"global","Env":{"stackproof_seq":"99"}');
    expect(parse(twice)).toEqual({ index: 5, jobs: [{ key: 'job-a', seq: 8 }] });
    expect(parse(jobFrame(5, 'job-a', 8).replace('"stackproof_seq":"8"', '"stackproof_seq":8'))).toEqual({ index: 5, jobs: [] });
    // Events of other topics count for nothing.
    const evaluation = JSON.stringify({ Index: 3, Events: [{ Topic: 'Evaluation', Type: 'EvaluationUpdated', Key: 'e', Payload: { Evaluation: { Meta: { stackproof_seq: '1' } } } }] });
    expect(parse(evaluation)).toEqual({ index: 3, jobs: [] });
  });

  it('one parser serves many subscribers: the same bytes again give the same answer, other bytes with the same Index are read afresh', () => {
    const parser = new FanoutFrameParser('stackproof_seq', 2);
    const read = (text: string) => {
      const b = Buffer.from(text);
      return parser.parse(b, 0, b.length);
    };
    expect(read(jobFrame(5, 'job-a', 8))).toEqual({ index: 5, jobs: [{ key: 'job-a', seq: 8 }] });
    expect(read(jobFrame(5, 'job-a', 8))).toEqual({ index: 5, jobs: [{ key: 'job-a', seq: 8 }] });
    expect(read(jobFrame(5, 'job-a', 9))).toEqual({ index: 5, jobs: [{ key: 'job-a', seq: 9 }] });
    expect(read(jobFrame(5, 'job-b', 9))).toEqual({ index: 5, jobs: [{ key: 'job-b', seq: 9 }] });
    for (let i = 6; i < 10; i++) expect(read(jobFrame(i, 'job-a', i))).toEqual({ index: i, jobs: [{ key: 'job-a', seq: i }] });
    expect(() => read('{"Index":6,"Events":[{"Topic":"Job"')).toThrow(MalformedFrameError);
  });

  it('a malformed frame is an error, not a crash or a wrong count', () => {
    for (const bad of ['{"Index":1,"Events":[{"Topic":"Job"', 'not json', '[1,2]', 'null', '{"Index":1,"Events":[{"Topic":"Job","Type":"x","Key":"k","Payload":{"Job":{"Meta":{"stackproof_seq":"1"}}}}]}}']) {
      expect(() => parse(bad), bad).toThrow(MalformedFrameError);
    }
  });
});
