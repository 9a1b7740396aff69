// Section 1: the load generators' own cost and highest rate, against the bare server.
import { spawnSync } from 'node:child_process';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { runClosedModel } from '../src/load/autocannon-engine.ts';
import { runOpenModel } from '../src/load/open-model-runner.ts';
import type { PreparedScenario } from '../src/load/scenarios/types.ts';
import type { BenchContext } from './context.ts';
import { Table, fmt, type GoalFigure } from './table.ts';

async function plainAutocannon(ctx: BenchContext): Promise<number> {
  const r = await autocannon({ url: ctx.bareUrl, connections: ctx.connections, duration: ctx.seconds });
  return r.requests.average;
}

function wrk(ctx: BenchContext): number | undefined {
  const which = spawnSync('sh', ['-c', 'command -v wrk']);
  if (which.status !== 0) return undefined;
  const out = spawnSync('wrk', ['-t2', `-c${ctx.connections}`, `-d${ctx.seconds}s`, ctx.bareUrl], { encoding: 'utf8' }).stdout;
  const m = /Requests\/sec:\s+([\d.]+)/.exec(out);
  return m ? Number(m[1]) : undefined;
}

async function openModelMax(url: string): Promise<{ rate: number; throughput: number }> {
  const pool = new Pool(url, { connections: 256 });
  let best = { rate: 0, throughput: 0 };
  for (const rate of [2_000, 5_000, 10_000, 20_000, 40_000]) {
    const r = await runOpenModel({
      scenario: 'bare',
      rate,
      durationMs: 2_000,
      maxRequests: rate * 2,
      maxInFlight: 1024,
      request: async () => {
        const res = await pool.request({ method: 'GET', path: '/' });
        await res.body.dump();
        return res.statusCode === 200;
      },
    });
    if (r.dropped / (r.requests + r.dropped) > 0.01 || r.throughput < rate * 0.95) break;
    best = { rate, throughput: r.throughput };
  }
  await pool.close();
  return best;
}

/**
 * The open model's own cost at fixed rates: CPU of this process (process.cpuUsage counts every
 * thread, the arrival clock's worker included) per second of run, how late requests start after
 * they are due, and its p50 beside the p50 each request measures from its real start.
 */
async function openModelCost(ctx: BenchContext, rate: number): Promise<{ cpu: number; lagP50: number; lagP99: number; p50: number; ownP50: number }> {
  const pool = new Pool(ctx.bareUrl, { connections: 256 });
  const lags: number[] = [];
  const own: number[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await runOpenModel({
    scenario: 'bare',
    rate,
    durationMs: ctx.seconds * 1000,
    maxRequests: rate * ctx.seconds,
    onStart: (_i, intended, actual) => lags.push(actual - intended),
    request: async () => {
      const sent = performance.now();
      const res = await pool.request({ method: 'GET', path: '/' });
      await res.body.dump();
      own.push(performance.now() - sent);
      return res.statusCode === 200;
    },
  });
  const cpu = process.cpuUsage(cpu0);
  const wall = performance.now() - t0;
  await pool.close();
  const q = (a: number[], p: number) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(a.length * p))]!;
  return { cpu: (cpu.user + cpu.system) / 1000 / wall, lagP50: q(lags, 0.5), lagP99: q(lags, 0.99), p50: r.latencyMs.p50, ownP50: q(own, 0.5) };
}

export async function benchGenerators(ctx: BenchContext): Promise<GoalFigure[]> {
  const ac = await plainAutocannon(ctx);
  const fixed: PreparedScenario = { name: 'bare', url: ctx.bareUrl, iterate: async () => true, fixed: [{ method: 'GET', path: '/', headers: {} }], k6Env: {}, close: async () => undefined };
  const closed = await runClosedModel(fixed, { connections: ctx.connections, durationMs: ctx.seconds * 1000, maxRequests: 10_000_000 });
  const open = await openModelMax(ctx.bareUrl);
  const w = wrk(ctx);
  const t = new Table(`Load generator efficiency: a bare node:http server on loopback, ${ctx.connections} connections, ${ctx.seconds} s each`);
  t.row('generator', 'requests/s', 'vs autocannon', 'vs wrk');
  t.row('autocannon (plain)', fmt(ac), '1.00', w ? fmt(ac / w) : 'n/a');
  t.row('stackproof closed (autocannon + HDR)', fmt(closed.throughput), fmt(closed.throughput / ac), w ? fmt(closed.throughput / w) : 'n/a');
  t.row(`stackproof open model (highest rate held: ${open.rate}/s)`, fmt(open.throughput), fmt(open.throughput / ac), w ? fmt(open.throughput / w) : 'n/a');
  t.row('wrk -t2', w ? fmt(w) : 'not installed (apt-get install wrk)', w ? fmt(w / ac) : 'n/a', w ? '1.00' : 'n/a');
  t.print();

  const c = new Table(`Open-model generator cost against the bare server, ${ctx.seconds} s per rate (p50s differ by the start lag only)`);
  c.row('rate', 'CPU (share of a core)', 'start lag p50 ms', 'start lag p99 ms', 'open-model p50 ms', 'request-timed p50 ms');
  for (const rate of [1_000, 5_000]) {
    const m = await openModelCost(ctx, rate);
    c.row(`${rate}/s`, fmt(m.cpu), m.lagP50.toFixed(3), m.lagP99.toFixed(3), m.p50.toFixed(3), m.ownP50.toFixed(3));
  }
  c.print();
  const maxRatio = open.throughput / ac;
  return [{ goal: 'open-model maximum rate vs autocannon', measured: fmt(maxRatio), target: '>= 0.80', met: maxRatio >= 0.8 }];
}
