import { createServer, type Server } from 'node:http';
import { Pool } from 'undici';
import autocannon from 'autocannon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpenModel } from '../src/load/open-model-runner.ts';

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
  const rate = 200;
  const durationMs = 3_000;
  const stallFrom = 1_000;
  const stallFor = 600;
  let srv: Awaited<ReturnType<typeof stallServer>>;
  beforeAll(async () => {
    srv = await stallServer(stallFrom, stallFor);
  });
  afterAll(() => new Promise<void>((r) => srv.server.close(() => r())));

  it('reports the percentiles the stall really caused, where a closed-model tool understates them', async () => {
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
    srv.arm();
    const closed = await autocannon({ url: srv.url, connections: 4, duration: durationMs / 1000 });
    const truthP99 = percentile(truth, 99);
    expect(closed.latency.p99, `closed-model p99 ${closed.latency.p99} ms understates the true ${truthP99} ms`).toBeLessThan(truthP99 / 2);
  }, 30_000);
});
