import { createServer, type Server } from 'node:http';
import fc from 'fast-check';
import { Pool } from 'undici';
import autocannon from 'autocannon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COARSE_TICK_MS, runOpenModel } from '../src/load/open-model-runner.ts';

/**
 * A loopback server that answers at once, except during one known stall window, when every answer
 * waits until the window ends. The ground truth of an open-model run against it is computable.
 */
function stallServer(stallFromMs: number, stallForMs: number): Promise<{ server: Server; url: string; epoch: () => number; arm: () => void }> {
  let epoch = 0;
  const server = createServer((_req, res) => {
    const t = performance.now() - epoch;
    const wait = epoch && t >= stallFromMs && t < stallFromMs + stallForMs ? stallFromMs + stallForMs - t : 0;
    setTimeout(() => res.end('ok'), wait);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, epoch: () => epoch, arm: () => (epoch = performance.now()) }),
    ),
  );
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

describe('open-model runner: latency from the intended start, so a stall is not hidden', () => {
  const durationMs = 3_000;
  const stallFrom = 1_000;
  const stallFor = 600;
  let srv: Awaited<ReturnType<typeof stallServer>>;
  beforeAll(async () => {
    srv = await stallServer(stallFrom, stallFor);
  });
  afterAll(() => new Promise<void>((r) => srv.server.close(() => r())));

  // The default precision's timing worker, then coarse precision, whose forgiven tick must not hide
  // the stall either. Both at 200/s: at 1,000/s the 600 requests the stall holds outnumber the pool's
  // connections, and their release alone took the max 44 ms past the stall (1 run in 6).
  it.each([
    [200, 'default', undefined],
    [200, 'coarse', 'coarse'],
  ] as const)('reports the percentiles the stall really caused at %i/s (%s precision), where a closed-model tool understates them', async (rate, _label, precision) => {
    // Ground truth: request i is due at i/rate; during the stall it waits until the stall ends.
    const truth = Array.from({ length: (rate * durationMs) / 1000 }, (_, i) => (i * 1000) / rate)
      .map((t) => (t >= stallFrom && t < stallFrom + stallFor ? stallFrom + stallFor - t : 0))
      .sort((a, b) => a - b);
    const pool = new Pool(srv.url, { connections: 512 });
    srv.arm();
    const open = await runOpenModel({
      scenario: 'stall',
      rate,
      durationMs,
      maxRequests: 10_000,
      maxInFlight: 1024,
      precision,
      request: async () => {
        const res = await pool.request({ method: 'GET', path: '/' });
        await res.body.dump();
        return res.statusCode === 200;
      },
    });
    await pool.close();
    expect(open.requests).toBe(truth.length);
    for (const p of [90, 99] as const) {
      const expected = percentile(truth, p);
      const measured = p === 90 ? open.latencyMs.p90 : open.latencyMs.p99;
      // Loopback service time and timer slack add a few milliseconds at most.
      expect(Math.abs(measured - expected), `open-model p${p} ${measured} ms vs ground truth ${expected} ms`).toBeLessThan(40);
    }
    expect(Math.abs(open.latencyMs.max - stallFor), `max ${open.latencyMs.max} ms vs the ${stallFor} ms stall`).toBeLessThan(40);

    // The closed model against the same stall: its few connections wait once each, so the stall is
    // a handful of samples and its p99 falls far below the truth.
    if (precision) return;
    srv.arm();
    const closed = await autocannon({ url: srv.url, connections: 4, duration: durationMs / 1000 });
    const truthP99 = percentile(truth, 99);
    expect(closed.latency.p99, `closed-model p99 ${closed.latency.p99} ms understates the true ${truthP99} ms`).toBeLessThan(truthP99 / 2);
  }, 30_000);
});

describe('open-model runner: no request starts before it is due', () => {
  it('calls the request function at or after start + i/rate, for every i, in order, even when the loop is blocked', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 20, max: 20_000 }),
        fc.integer({ min: 20, max: 200 }),
        // Every n-th request blocks the event loop for 1.5 ms (0: none), so the runner wakes late and
        // finds several requests due at once, the batch path.
        fc.constantFrom(0, 7, 50),
        async (rate, durationMs, blockEvery) => {
          const calls: { i: number; intended: number; actual: number; called: number }[] = [];
          let starting: { i: number; intended: number; actual: number } | undefined;
          const result = await runOpenModel({
            scenario: 'no-early-start',
            rate,
            durationMs,
            maxRequests: 1_000_000,
            // Blocked often enough, the runner falls far behind and starts a big batch at once: all of
            // them are in flight until the loop turns, and the usual cap would drop some (by design).
            maxInFlight: 1_000_000,
            onStart: (i, intended, actual) => (starting = { i, intended, actual }),
            request: async () => {
              // Read here, in the request function itself, not trusted from the hook.
              const called = performance.now();
              calls.push({ ...starting!, called });
              if (blockEvery && calls.length % blockEvery === 0) while (performance.now() - called < 1.5);
              return true;
            },
          });
          const total = Math.floor((rate * durationMs) / 1000);
          expect(result.requests).toBe(total);
          expect(result.dropped).toBe(0);
          expect(calls).toHaveLength(total);
          const start = calls[0]?.intended ?? 0;
          calls.forEach((c, k) => {
            expect(c.i).toBe(k);
            // The schedule is computed, never accumulated: no drift over a long run.
            expect(Math.abs(c.intended - (start + (k * 1000) / rate))).toBeLessThan(1e-6);
            expect(c.called, `request ${k} called ${(c.intended - c.called).toFixed(4)} ms early (rate ${rate}/s)`).toBeGreaterThanOrEqual(c.intended);
            expect(c.actual).toBeGreaterThanOrEqual(c.intended);
          });
        },
      ),
      { numRuns: 15 },
    );
  }, 60_000);
});

/**
 * A loopback server that answers after setTimeout(2 ms) and records its own service time, from the
 * request reaching the handler to the answer. Node's timers run on a millisecond loop clock, so that
 * is 1-3 ms, not exactly 2: the test compares against the service time it measures.
 */
function twoMsServer(): Promise<{ server: Server; url: string; service: number[] }> {
  const service: number[] = [];
  const server = createServer((_req, res) => {
    const arrived = performance.now();
    setTimeout(() => {
      service.push(performance.now() - arrived);
      res.end('ok');
    }, 2);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, service })),
  );
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe('open-model runner: sub-millisecond accuracy against a server that answers after 2 ms', () => {
  let srv: Awaited<ReturnType<typeof twoMsServer>>;
  let pool: Pool;
  beforeAll(async () => {
    srv = await twoMsServer();
    pool = new Pool(srv.url, { connections: 256 });
  });
  afterAll(async () => {
    await pool.close();
    await new Promise<void>((r) => srv.server.close(() => r()));
  });

  // The default precision is fine at 1,000/s and coarse at 5,000/s (COARSE_TICK_MS forgiven); fine at
  // 5,000/s is asked for by name.
  it.each([
    [1_000, 'default', undefined],
    [5_000, 'default', undefined],
    [5_000, 'fine', 'fine'],
  ] as const)('reports a p50 within 0.2 ms of the true one at %i/s (%s precision)', async (rate, _label, precision) => {
    const durationMs = 2_000;
    srv.service.length = 0;
    // The true latency of each request: timed by the request itself, from the moment it is really
    // sent to the end of the answer (service time plus the loopback round trip), as k6 times it.
    const roundTrips: number[] = [];
    let early = 0;
    const open = await runOpenModel({
      scenario: 'two-ms',
      rate,
      durationMs,
      maxRequests: rate * 10,
      precision,
      onStart: (_i, intended, actual) => void (actual < intended && early++),
      request: async () => {
        const sent = performance.now();
        const res = await pool.request({ method: 'GET', path: '/', headersTimeout: 5_000, bodyTimeout: 5_000 });
        await res.body.dump();
        roundTrips.push(performance.now() - sent);
        return res.statusCode === 200;
      },
    });
    expect(open.requests + open.dropped).toBe((rate * durationMs) / 1000);
    expect(open.errors).toBe(0);
    expect(early).toBe(0);
    const trueP50 = median(roundTrips);
    const serviceP50 = median(srv.service);
    const detail = `open-model p50 ${open.latencyMs.p50} ms, true round trip p50 ${trueP50.toFixed(3)} ms, server service p50 ${serviceP50.toFixed(3)} ms, ${rate}/s`;
    // The runner measures from the intended start, the round trip from the real one: they differ by
    // how late requests start, a few microseconds at the median when the runner keeps up (the old
    // runner, which started up to 1 ms early, read 0.5-0.6 ms below). 0.2 ms is the bound;
    // it leaves room for other processes taking this one's core for a while: a late start is
    // measured, as it must be, and moves the p50 only if most requests start late. Measured on 2
    // cores: 8 of 8 runs pass beside a full `npm test` run, 10 of 10 beside one CPU-bound process;
    // beside two (both cores taken) 1,000/s still passes 10 of 10, but the runner cannot start
    // 5,000 requests a second on time and that case fails, as it should, every time.
    // The server shares this process: a server in a child process made 1,000/s fail too when
    // both cores were taken (one more process to wake), for no gain in what the test shows.
    expect(Math.abs(open.latencyMs.p50 - trueP50), detail).toBeLessThan(0.2);
    // No answer comes back sooner than the server gives it: the floor the old runner broke at 5,000/s.
    expect(open.latencyMs.p50, detail).toBeGreaterThanOrEqual(serviceP50);
  }, 30_000);
});

describe('open-model runner: coarse precision forgives the timer tick, never a start later than that', () => {
  it('counts all but COARSE_TICK_MS of a start made late by a blocked loop', async () => {
    // Answers take no time, so every latency is what the runner adds: coarse starts are up to a tick
    // late and read ~0; the requests due while the loop is blocked start blockMs late at most and
    // must read that lateness less at most one tick. Forgiving every late start would read ~0 there too.
    const blockMs = 30;
    let blocked = false;
    const late: number[] = [];
    const result = await runOpenModel({
      scenario: 'blocked-loop',
      rate: 2_000,
      durationMs: 150,
      maxRequests: 1_000,
      precision: 'coarse',
      onStart: (_i, intended, actual) => void late.push(actual - intended),
      request: async () => {
        if (!blocked) {
          blocked = true;
          setTimeout(() => {
            const t = performance.now();
            while (performance.now() - t < blockMs);
          }, 20);
        }
        return true;
      },
    });
    expect(result.requests).toBe(300);
    const latest = Math.max(...late);
    expect(latest, 'the blocked loop made some start late').toBeGreaterThan(blockMs - 5);
    expect(result.latencyMs.max, `max latency ${result.latencyMs.max} ms against a start ${latest.toFixed(2)} ms late`).toBeGreaterThan(latest - COARSE_TICK_MS - 0.5);
    expect(result.latencyMs.max).toBeLessThan(latest + 5);
  });
});
