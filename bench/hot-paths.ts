// Section 2: the reference's hot paths beside the bare node:http server (closed model, same connections).
import { pinProcess as pin } from './core-pinning.ts';
import type { PreparedScenario } from '../src/load/scenarios/types.ts';
import { runClosedModel } from '../src/load/autocannon-engine.ts';
import { LOAD_SCENARIOS } from '../src/load/scenarios/catalog.ts';
import type { BenchContext } from './context.ts';
import { processCpuMicros } from './process-cpu.ts';
import { benchScript, startServerProcess } from './server-process.ts';
import { Table, fmt, type GoalFigure } from './table.ts';

/** A path's floor: a server doing the least a correct implementation must do for the same request (argv from the prepared scenario). */
type Floor = { script: string; label: string; args: (prepared: PreparedScenario) => string[] };

const OIDC_FLOOR: Floor = {
  script: 'oidc-floor-server.mjs',
  label: 'oidc authorize, the least it must do',
  args(prepared) {
    const req = prepared.fixed?.[0];
    if (!req) throw new Error('the oidc floor needs the scenario\'s fixed request');
    const [path, query] = req.path.split('?') as [string, string];
    const q = new URLSearchParams(query);
    const [tokenHeader, token] = Object.entries(req.headers ?? {})[0]!;
    return [JSON.stringify({ path, tokenHeader, token, clientId: q.get('client_id'), redirectUri: q.get('redirect_uri') })];
  },
};

const HOT_PATHS: [scenario: string, label: string, floor?: Floor][] = [
  ['mesh-leaf', 'leaf fetch (cached)'],
  ['mesh-authorize', 'connect authorize'],
  ['oidc-code-flow', 'oidc authorize', OIDC_FLOOR],
  ['mesh-roots', 'CA roots'],
];

/**
 * A closed-model run and the server process's CPU time per request over it: on a shared machine
 * the CPU per request moves much less with other load than the requests per second do.
 */
async function measure(scenario: PreparedScenario, ctx: BenchContext, pid: number | undefined) {
  const before = processCpuMicros(pid);
  const r = await runClosedModel(scenario, { connections: ctx.connections, durationMs: ctx.seconds * 1000, maxRequests: 10_000_000 });
  const after = processCpuMicros(pid);
  const cpuPerRequest = Number.isFinite(before) && Number.isFinite(after) && r.requests > 0 ? (after - before) / r.requests : undefined;
  return { ...r, cpuPerRequest };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Each path is measured in BENCH_ROUNDS rounds (default 3), every round right after a bare-server
 * run of the same length, and its ratio is the median of the rounds' ratios: this VM's speed
 * drifts by a third within minutes, and a ratio to a bare run made a minute earlier measured the
 * drift as much as the path.
 */

export async function benchHotPaths(ctx: BenchContext): Promise<GoalFigure[]> {
  // The servers on core 1 and the generator (this process) on core 0, as in the generator section:
  // unpinned, the scheduler moves them onto one core and apart again from run to run.
  if (!process.env.BENCH_NO_PIN) {
    pin(ctx.bare.pid, '1');
    pin(ctx.reference.pid, '1');
    pin(process.pid, '0');
  }
  try {
    return await measureHotPaths(ctx);
  } finally {
    pin(ctx.bare.pid, '0,1');
    pin(ctx.reference.pid, '0,1');
    pin(process.pid, '0,1');
  }
}

async function measureHotPaths(ctx: BenchContext): Promise<GoalFigure[]> {
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
  const bareScenario: PreparedScenario = { name: 'bare', url: ctx.bareUrl, iterate: async () => true, fixed: [{ method: 'GET', path: '/', headers: {} }], k6Env: {}, close: async () => undefined };
  const cpu = (us: number | undefined) => (us === undefined ? '-' : fmt(us));
  const mean = (xs: (number | undefined)[]) => (xs.some((x) => x === undefined) ? undefined : xs.reduce<number>((a, x) => a + x!, 0) / xs.length);
  const t = new Table(`Reference hot paths beside a bare node:http server (closed model, servers pinned to core 1 and the generator to core 0, each path warmed up and then measured in ${rounds} rounds alternating with the bare server, median ratio)`);
  // Two ratios: requests/s (the goal's), and CPU per request (bare's over the path's), which moves
  // less when the VM's speed changes between a round's two runs.
  t.row('path', 'requests/s', 'p99 ms', 'server CPU µs/req', 'bare requests/s', 'bare CPU µs/req', 'vs bare node:http', 'vs bare, CPU per request');
  const goals: GoalFigure[] = [];
  // BENCH_PATHS=mesh-leaf,oidc-code-flow measures some hot paths only (with BENCH_CPU_PROF, to profile one).
  const only = process.env.BENCH_PATHS?.split(',').map((p) => p.trim());
  type Run = Awaited<ReturnType<typeof measure>>;
  /** A row of the table; returns the median ratio of requests/s to the round's bare run. */
  const row = (label: string, runs: Run[], bares: Run[]): number => {
    const ratio = median(runs.map((r, i) => r.throughput / bares[i]!.throughput));
    const cpuRatios = runs.map((r, i) => (r.cpuPerRequest && bares[i]!.cpuPerRequest ? bares[i]!.cpuPerRequest! / r.cpuPerRequest : undefined));
    const cpuRatio = cpuRatios.every((x) => x !== undefined) ? median(cpuRatios as number[]) : undefined;
    t.row(
      label,
      fmt(mean(runs.map((r) => r.throughput))!),
      fmt(Math.max(...runs.map((r) => r.latencyMs.p99))),
      cpu(mean(runs.map((r) => r.cpuPerRequest))),
      fmt(mean(bares.map((r) => r.throughput))!),
      cpu(mean(bares.map((r) => r.cpuPerRequest))),
      fmt(ratio),
      cpuRatio === undefined ? '-' : fmt(cpuRatio),
    );
    return ratio;
  };
  for (const [name, label, floor] of HOT_PATHS.filter(([n]) => !only || only.includes(n))) {
    const scenario = LOAD_SCENARIOS.find((s) => s.name === name)!;
    const prepared = await scenario.prepare(ctx.targets, ctx.made);
    // The floor answers the very request the path gets, from a server of its own on the same core.
    const floorServer = floor ? await startServerProcess([benchScript(floor.script), ...floor.args(prepared)]) : undefined;
    try {
      if (floorServer && !process.env.BENCH_NO_PIN) pin(floorServer.proc.pid, '1');
      const floorScenario: PreparedScenario | undefined = floorServer && { ...prepared, name: `${name}-floor`, url: (floorServer.info as { url: string }).url };
      // A first run of a path in a fresh process is up to half as fast (JIT, heap growth): warm it up unmeasured.
      for (const s of [prepared, floorScenario]) if (s) await runClosedModel(s, { connections: ctx.connections, durationMs: Math.min(2000, ctx.seconds * 1000), maxRequests: 10_000_000 });
      const bares: Run[] = [];
      const paths: Run[] = [];
      const floors: Run[] = [];
      for (let i = 0; i < rounds; i++) {
        bares.push(await measure(bareScenario, ctx, ctx.bare.pid));
        paths.push(await measure(prepared, ctx, ctx.reference.pid));
        if (floorScenario) floors.push(await measure(floorScenario, ctx, floorServer!.proc.pid));
        if (process.env.BENCH_VERBOSE) console.error(`  ${name} round ${i + 1}: ${fmt(paths[i]!.throughput)}/s (${fmt(paths[i]!.cpuPerRequest ?? 0)} µs)${floors[i] ? `, floor ${fmt(floors[i]!.throughput)}/s (${fmt(floors[i]!.cpuPerRequest ?? 0)} µs)` : ''} vs bare ${fmt(bares[i]!.throughput)}/s (${fmt(bares[i]!.cpuPerRequest ?? 0)} µs)`);
      }
      const ratio = row(label, paths, bares);
      const floorRatio = floor ? row(`  ${floor.label} (bench/${floor.script})`, floors, bares) : undefined;
      goals.push({
        goal: `reference ${label} vs bare node:http`,
        measured: `${fmt(ratio)}${floorRatio === undefined ? '' : `; the least it must do reaches ${fmt(floorRatio)} here`}`,
        target: '>= 0.60',
        met: ratio >= 0.6,
      });
    } finally {
      await prepared.close();
      floorServer?.proc.kill('SIGTERM');
    }
  }
  t.print();
  return goals;
}
