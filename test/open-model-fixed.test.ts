import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTO_FINE_MAX_RATE, resolvePrecision, runOpenModel } from '../src/load/open-model-runner.ts';

/** The open model's lean path (fixed requests): what it counts, not how fast (that is bench/generators.ts). */
describe('open-model runner with fixed requests', () => {
  let server: Server;
  let url: string;
  const paths: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      paths.push(req.url!);
      if (req.url === '/slow') setTimeout(() => res.end('late'), 300);
      else res.writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'text/plain' }).end(`body of ${req.url}`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('sends the sequence round robin on schedule, never early, and counts wrong answers as errors', async () => {
    paths.length = 0;
    let early = 0;
    const bodies: string[] = [];
    const r = await runOpenModel({
      scenario: 'fixed',
      rate: 400,
      durationMs: 500,
      maxRequests: 1_000,
      onStart: (_i, intended, actual) => void (actual < intended && early++),
      fixed: {
        url,
        requests: [
          { method: 'GET', path: '/a', headers: {} },
          { method: 'GET', path: '/missing', headers: {} },
        ],
        keepBodies: true,
        accept: (status, body) => {
          bodies.push(body!.toString());
          return status === 200;
        },
      },
    });
    expect(r.requests).toBe(200);
    expect(r.dropped).toBe(0);
    expect(r.errors).toBe(100);
    expect(early).toBe(0);
    expect(paths.filter((p) => p === '/a')).toHaveLength(100);
    expect(bodies.filter((b) => b === 'body of /missing')).toHaveLength(100);
    expect(r.timeline.reduce((n, s) => n + s.requests, 0)).toBe(200);
  });

  it('drops arrivals beyond maxInFlight and times out answers that never complete', async () => {
    const r = await runOpenModel({
      scenario: 'fixed-slow',
      rate: 100,
      durationMs: 200,
      maxRequests: 1_000,
      maxInFlight: 5,
      fixed: { url, requests: [{ method: 'GET', path: '/slow', headers: {} }], timeoutMs: 100 },
    });
    // 20 arrivals 10 ms apart, each answer 300 ms away: 5 in flight, the rest dropped until the
    // first time out at 100 ms and free their connections.
    expect(r.requests + r.dropped).toBe(20);
    expect(r.dropped).toBeGreaterThan(0);
    expect(r.errors).toBe(r.requests);
  });

  it('with fewer connections than requests in flight, queues arrivals for a free connection rather than dropping them', async () => {
    let connections = 0;
    const count = () => (connections += 1);
    server.on('connection', count);
    try {
      const r = await runOpenModel({
        scenario: 'fixed-queued',
        rate: 200,
        durationMs: 500,
        maxRequests: 1_000,
        fixed: { url, requests: [{ method: 'GET', path: '/a', headers: {} }], connections: 1 },
      });
      expect(r.requests).toBe(100);
      expect(r.errors).toBe(0);
      expect(r.dropped).toBe(0);
      expect(connections).toBe(1);
    } finally {
      server.off('connection', count);
    }
  });

  it('with coarse precision, starts every arrival at or after it is due and times it from then', async () => {
    let early = 0;
    let lagged = 0;
    const r = await runOpenModel({
      scenario: 'fixed-coarse',
      rate: 2_000,
      durationMs: 300,
      maxRequests: 1_000,
      precision: 'coarse',
      onStart: (_i, intended, actual) => {
        if (actual < intended) early += 1;
        if (actual - intended > 0.1) lagged += 1;
      },
      fixed: { url, requests: [{ method: 'GET', path: '/a', headers: {} }] },
    });
    expect(r.requests + r.dropped).toBe(600);
    expect(r.errors).toBe(0);
    expect(early).toBe(0);
    // Millisecond timers start most arrivals a fraction of a millisecond late; the latency forgives up to a tick of it.
    expect(lagged).toBeGreaterThan(0);
    expect(r.latencyMs.p50).toBeGreaterThan(0);
  });

  it('times arrivals as auto by default: finely up to 1,000/s, millisecond timers above; an explicit choice stays', () => {
    expect(resolvePrecision(undefined, AUTO_FINE_MAX_RATE)).toBe('fine');
    expect(resolvePrecision(undefined, AUTO_FINE_MAX_RATE + 1)).toBe('coarse');
    expect(resolvePrecision('auto', AUTO_FINE_MAX_RATE)).toBe('fine');
    expect(resolvePrecision('auto', AUTO_FINE_MAX_RATE + 1)).toBe('coarse');
    expect(resolvePrecision('auto', 10_000)).toBe('coarse');
    expect(resolvePrecision('fine', 10_000)).toBe('fine');
    expect(resolvePrecision('coarse', 10)).toBe('coarse');
  });

  it('wants exactly one of a request function and fixed requests', async () => {
    await expect(runOpenModel({ scenario: 'x', rate: 1, durationMs: 1, maxRequests: 1 })).rejects.toThrow(/either/);
  });
});
