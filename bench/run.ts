// npm run bench: performance figures measured side by side in one run and printed as ratios.
// Everything runs on loopback, bounded in time; nothing here is asserted by the tests.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import type { Targets } from '../src/config/schema.ts';
import { runClosedModel } from '../src/load/autocannon-engine.ts';
import { runEventFanout } from '../src/load/event-fanout.ts';
import { provisionLoadFixtures } from '../src/load/run-load.ts';
import { newRunPrefix } from '../src/provision/run-prefix.ts';
import { runOpenModel } from '../src/load/open-model-runner.ts';
import { LOAD_SCENARIOS } from '../src/load/scenarios/catalog.ts';
import type { PreparedScenario } from '../src/load/scenarios/types.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONNECTIONS = 16;

async function child(args: string[]): Promise<{ proc: ChildProcess; info: unknown }> {
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const [line] = (await once(createInterface({ input: proc.stdout! }), 'line')) as [string];
  return { proc, info: JSON.parse(line) };
}

const rows: string[][] = [];
const row = (...cells: (string | number)[]) => rows.push(cells.map(String));
const fmt = (n: number) => (n >= 100 ? Math.round(n).toString() : n.toFixed(2));

function print(title: string): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  console.log(`\n${title}`);
  for (const r of rows) console.log(`  ${r.map((c, i) => c.padEnd(widths[i]!)).join('  ')}`);
  rows.length = 0;
}

async function plainAutocannon(url: string, path = '/', headers: Record<string, string> = {}): Promise<number> {
  const r = await autocannon({ url: url + path, connections: CONNECTIONS, duration: SECONDS, headers });
  return r.requests.average;
}

function wrk(url: string): number | undefined {
  const which = spawnSync('sh', ['-c', 'command -v wrk']);
  if (which.status !== 0) return undefined;
  const out = spawnSync('wrk', ['-t2', `-c${CONNECTIONS}`, `-d${SECONDS}s`, url], { encoding: 'utf8' }).stdout;
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
async function openModelCost(url: string, rate: number): Promise<{ cpu: number; lagP50: number; lagP99: number; p50: number; ownP50: number }> {
  const pool = new Pool(url, { connections: 256 });
  const lags: number[] = [];
  const own: number[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await runOpenModel({
    scenario: 'bare',
    rate,
    durationMs: SECONDS * 1000,
    maxRequests: rate * SECONDS,
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

const bare = await child(['bench/bare-server.mjs']);
const bareUrl = (bare.info as { url: string }).url;
const reference = await child(['--expose-gc', '--import', 'tsx', 'bench/reference-server.ts']);
const targets = reference.info as Targets;
// The scheduler scenarios act through fixtures made by real actions (the reference's control listener).
const runPrefix = newRunPrefix();
const { made, provision } = await provisionLoadFixtures(targets, false, runPrefix, () => undefined);
try {
  // 1. Load generators against the bare server, same connections.
  const ac = await plainAutocannon(bareUrl);
  const fixed: PreparedScenario = { name: 'bare', url: bareUrl, iterate: async () => true, fixed: [{ method: 'GET', path: '/', headers: {} }], k6Env: {}, close: async () => undefined };
  const closed = await runClosedModel(fixed, { connections: CONNECTIONS, durationMs: SECONDS * 1000, maxRequests: 10_000_000 });
  const open = await openModelMax(bareUrl);
  const w = wrk(bareUrl);
  row('generator', 'requests/s', 'vs autocannon', 'vs wrk');
  row('autocannon (plain)', fmt(ac), '1.00', w ? fmt(ac / w) : 'n/a');
  row('stackproof closed (autocannon + HDR)', fmt(closed.throughput), fmt(closed.throughput / ac), w ? fmt(closed.throughput / w) : 'n/a');
  row(`stackproof open model (highest rate held: ${open.rate}/s)`, fmt(open.throughput), fmt(open.throughput / ac), w ? fmt(open.throughput / w) : 'n/a');
  row('wrk -t2', w ? fmt(w) : 'not installed (apt-get install wrk)', w ? fmt(w / ac) : 'n/a', w ? '1.00' : 'n/a');
  print(`Load generator efficiency: a bare node:http server on loopback, ${CONNECTIONS} connections, ${SECONDS} s each`);

  row('rate', 'CPU (share of a core)', 'start lag p50 ms', 'start lag p99 ms', 'open-model p50 ms', 'request-timed p50 ms');
  for (const rate of [1_000, 5_000]) {
    const c = await openModelCost(bareUrl, rate);
    row(`${rate}/s`, fmt(c.cpu), c.lagP50.toFixed(3), c.lagP99.toFixed(3), c.p50.toFixed(3), c.ownP50.toFixed(3));
  }
  print(`Open-model generator cost against the bare server, ${SECONDS} s per rate (p50s differ by the start lag only)`);

  // 2. The reference's hot paths beside the bare server (closed model, same connections).
  const bareRate = closed.throughput;
  row('path', 'requests/s', 'p99 ms', 'vs bare node:http');
  row('bare node:http', fmt(bareRate), fmt(closed.latencyMs.p99), '1.00');
  for (const name of ['mesh-leaf', 'mesh-authorize', 'oidc-code-flow', 'mesh-roots']) {
    const scenario = LOAD_SCENARIOS.find((s) => s.name === name)!;
    const prepared = await scenario.prepare(targets, made);
    const r = await runClosedModel(prepared, { connections: CONNECTIONS, durationMs: SECONDS * 1000, maxRequests: 10_000_000 });
    await prepared.close();
    row(name === 'oidc-code-flow' ? 'oidc authorize' : name === 'mesh-leaf' ? 'leaf fetch (cached)' : name === 'mesh-authorize' ? 'connect authorize' : 'CA roots', fmt(r.throughput), fmt(r.latencyMs.p99), fmt(r.throughput / bareRate));
  }
  print('Reference hot paths beside a bare node:http server (closed model)');

  // 3. Event fan-out: subscribers x events/s, delivery latency.
  row('subscribers', 'events/s', 'delivered/s', 'p50 ms', 'p99 ms', 'max ms', 'missed', 'p99 < 50 ms');
  for (const [subscribers, rate] of [[10, 200], [50, 200], [100, 500], [200, 1000]] as const) {
    const f = await runEventFanout(targets.scheduler!, made.scheduler!, { subscribers, rate, durationMs: SECONDS * 1000, runPrefix });
    row(subscribers, rate, fmt(f.throughput), fmt(f.latencyMs.p50), fmt(f.latencyMs.p99), fmt(f.latencyMs.max), f.missed, f.latencyMs.p99 < 50 ? 'yes' : 'no');
  }
  print('Event-stream fan-out (delivery latency from event creation to receipt)');

  // 4. Soak: steady load on the hot paths; the reference's memory after a forced GC, and its fds.
  const SOAK_MS = Number(process.env.BENCH_SOAK_SECONDS ?? 20) * 1000;
  const stats = () =>
    new Promise<{ heapUsed: number; rss: number; fds: number }>((resolve) => {
      reference.proc.once('message', (m) => resolve(m as { heapUsed: number; rss: number; fds: number }));
      reference.proc.send('stats');
    });
  const soakNames = ['mesh-leaf', 'mesh-authorize', 'mesh-roots', 'oidc-code-flow', 'scheduler-logs'];
  // File descriptors are counted with no load connection open, before and after.
  const fdsBefore = (await stats()).fds;
  const prepared = await Promise.all(soakNames.map((n) => LOAD_SCENARIOS.find((s) => s.name === n)!.prepare(targets, made)));
  await Promise.all(prepared.map((p) => runOpenModel({ scenario: p.name, rate: 100, durationMs: 2_000, maxRequests: 1_000, request: p.iterate })));
  const before = await stats();
  const soak = await Promise.all(prepared.map((p) => runOpenModel({ scenario: p.name, rate: 150, durationMs: SOAK_MS, maxRequests: 1_000_000, maxInFlight: 512, request: p.iterate })));
  const after = await stats();
  for (const p of prepared) await p.close();
  await new Promise((r) => setTimeout(r, 1_000));
  const fdsAfter = (await stats()).fds;
  row('scenario', 'requests', 'wrong answers', 'dropped', 'p99 ms');
  for (const s of soak) row(s.scenario, s.requests, s.errors, s.dropped, fmt(s.latencyMs.p99));
  print(`Soak: ${SOAK_MS / 1000} s of steady load at 150/s on each hot path`);
  const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
  console.log(`  reference heap after forced GC: ${mb(before.heapUsed)} MB before, ${mb(after.heapUsed)} MB after (growth ${mb(after.heapUsed - before.heapUsed)} MB); rss ${mb(before.rss)} -> ${mb(after.rss)} MB`);
  console.log(`  reference open file descriptors with no load connection open: ${fdsBefore} before, ${fdsAfter} after`);
} finally {
  await provision?.teardown();
  bare.proc.kill('SIGTERM');
  reference.proc.kill('SIGTERM');
}
