import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SubscriberSet, epochNow, type SubscriberSetConfig } from '../src/load/fanout-subscribers.ts';

// The fan-out's subscriber side against streams that misbehave: each one ends as an error that
// names what happened, within bounded time, and the set still stops and reports.
describe('fan-out subscribers against a misbehaving stream', () => {
  let server: Server | undefined;
  const held: ServerResponse[] = [];

  afterEach(async () => {
    for (const r of held.splice(0)) r.destroy();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    server = undefined;
  });

  async function serve(handler: (res: ServerResponse) => void): Promise<string> {
    server = createServer((_req, res) => handler(res));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/event/stream?topic=Job:a`;
  }

  function config(url: string, total = 3): SubscriberSetConfig {
    return {
      url,
      headers: {},
      count: 2,
      first: 0,
      jobs: ['a'],
      metaKey: 'stackproof_seq',
      total,
      startedAt: epochNow(),
      sentAt: new SharedArrayBuffer(8 * (total + 1)),
      progress: new SharedArrayBuffer(4),
      progressSlot: 0,
      headersTimeoutMs: 300,
    };
  }

  const frame = (index: number, seq: number) =>
    `{"Index":${index},"Events":[{"Topic":"Job","Type":"JobRegistered","Key":"a","Namespace":"default","FilterKeys":null,"Index":${index},"Payload":{"Job":{"ID":"a","Meta":{"stackproof_seq":"${seq}"}}}}]}\n`;

  async function run(url: string, settleMs = 200) {
    const set = new SubscriberSet(config(url));
    await set.start();
    await new Promise((r) => setTimeout(r, settleMs));
    return { set, result: await set.stop([1, 2]) };
  }

  it('a stream that answers 403 is an error naming the status and the server\'s words', async () => {
    const url = await serve((res) => res.writeHead(403, { 'content-type': 'text/plain' }).end('Permission denied'));
    const { set, result } = await run(url);
    expect(set.connected).toBe(0);
    expect(result.errors).toEqual(['subscriber 0: refused with a status other than 200 (HTTP 403: Permission denied)', 'subscriber 1: refused with a status other than 200 (HTTP 403: Permission denied)']);
    expect(result.endings.map((e) => e.cause)).toEqual(['status', 'status']);
    expect(result.missed).toBe(4);
  });

  it('a stream the server ends is an error saying so, with where the subscriber was; what came before it counts', async () => {
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(frame(10, 1));
    });
    const { result } = await run(url);
    expect(result.errors).toEqual(['subscriber 0: closed by the server with no error frame (the end of its body)', 'subscriber 1: closed by the server with no error frame (the end of its body)']);
    expect(result.endings.map((e) => [e.subscriber, e.cause, e.lastIndex, e.delivered])).toEqual([
      [0, 'server-closed', 10, 1],
      [1, 'server-closed', 10, 1],
    ]);
    expect(result.deliveredPerSubscriber).toEqual([1, 1]);
    expect(result.missed).toBe(2);
  });

  it('an error frame is the cause given, with its message', async () => {
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(frame(10, 1));
      res.end('{"Error":{"Message":"event dropped from buffer","Code":500}}\n');
    });
    const { result } = await run(url);
    expect(result.endings.map((e) => [e.cause, e.detail])).toEqual([
      ['error-frame', 'Error: event dropped from buffer (code 500)'],
      ['error-frame', 'Error: event dropped from buffer (code 500)'],
    ]);
  });

  it('a connection cut in the middle of the body is a reset, not a clean end', async () => {
    const url = await serve((res) => {
      // Chunked: a clean end needs the last chunk, which never comes.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(frame(10, 1));
      setTimeout(() => res.socket?.destroy(), 30);
    });
    const { result } = await run(url);
    expect(result.endings.map((e) => e.cause)).toEqual(['reset', 'reset']);
    expect(result.endings[0]!.detail).toMatch(/closed in the middle of the body|ECONNRESET/);
  });

  it('a stream still short of events when the run stops it at the drain deadline says so, and is no error', async () => {
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(frame(10, 1));
      held.push(res);
    });
    const set = new SubscriberSet(config(url));
    await set.start();
    await new Promise((r) => setTimeout(r, 200));
    const result = await set.stop([1, 2], 5_000);
    expect(result.errors).toEqual([]);
    expect(result.endings.map((e) => e.cause)).toEqual(['deadline', 'deadline']);
    for (const e of result.endings) expect(e.detail).toMatch(/^stopped 5 s after the last registration answered, 1 event\(s\) still missing, nothing received for the last [\d.]+ s$/);
  });

  it('an ended stream says how far behind the newest registration it was', async () => {
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(frame(10, 1));
    });
    const newest = new SharedArrayBuffer(16);
    // The publisher had 3 registrations accepted, the newest at index 250.
    new Float64Array(newest).set([3, 250]);
    const set = new SubscriberSet({ ...config(url), newest });
    await set.start();
    await new Promise((r) => setTimeout(r, 200));
    const result = await set.stop([1, 2, 3]);
    expect(result.endings.map((e) => [e.behindIndexes, e.behindRegistrations])).toEqual([
      [240, 2],
      [240, 2],
    ]);
  });

  it('a stream that sends a frame that is not JSON is an error', async () => {
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"Index":3,"Events":[{"Topic":\n');
      held.push(res);
    });
    const { result } = await run(url);
    expect(result.errors).toHaveLength(2);
    for (const e of result.errors) expect(e).toMatch(/^subscriber \d: a frame that is not JSON \(a frame is not JSON/);
  });

  it('a stream that never answers times out on its headers instead of hanging', async () => {
    const url = await serve((res) => void held.push(res));
    const started = performance.now();
    const { result } = await run(url, 0);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result.errors).toEqual(['subscriber 0: no response headers in time (no response headers within 300 ms)', 'subscriber 1: no response headers in time (no response headers within 300 ms)']);
  });

  it('stopping a healthy stream is no error, and every frame counts once', async () => {
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // One frame split across two writes, then one whole: the reader joins the pieces.
      const f = frame(11, 1);
      res.write(f.slice(0, 40));
      setTimeout(() => res.write(f.slice(40) + frame(12, 2)), 20);
      held.push(res);
    });
    const { set, result } = await run(url);
    expect(set.connected).toBe(2);
    expect(result.errors).toEqual([]);
    expect(result.deliveredPerSubscriber).toEqual([2, 2]);
    expect(result.missed).toBe(0);
    expect(result.duplicates).toBe(0);
  });
});
