// Section 2: the reference's hot paths beside the bare node:http server (closed model, same connections).
import { readFileSync } from 'node:fs';
import type { PreparedScenario } from '../src/load/scenarios/types.ts';
import { runClosedModel } from '../src/load/autocannon-engine.ts';
import { LOAD_SCENARIOS } from '../src/load/scenarios/catalog.ts';
import type { BenchContext } from './context.ts';
import { Table, fmt, type GoalFigure } from './table.ts';

const HOT_PATHS: [scenario: string, label: string][] = [
  ['mesh-leaf', 'leaf fetch (cached)'],
  ['mesh-authorize', 'connect authorize'],
  ['oidc-code-flow', 'oidc authorize'],
  ['mesh-roots', 'CA roots'],
];

/** A process's CPU time (user + system, all threads) in microseconds; undefined where /proc is not. */
function cpuMicros(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return undefined;
  }
}

/**
 * A closed-model run and the server process's CPU time per request over it: on a shared machine
 * the CPU per request moves much less with other load than the requests per second do.
 */
async function measure(scenario: PreparedScenario, ctx: BenchContext, pid: number | undefined) {
  const before = cpuMicros(pid);
  const r = await runClosedModel(scenario, { connections: ctx.connections, durationMs: ctx.seconds * 1000, maxRequests: 10_000_000 });
  const after = cpuMicros(pid);
  const cpuPerRequest = before !== undefined && after !== undefined && r.requests > 0 ? (after - before) / r.requests : undefined;
  return { ...r, cpuPerRequest };
}

export async function benchHotPaths(ctx: BenchContext): Promise<GoalFigure[]> {
  const bareScenario: PreparedScenario = { name: 'bare', url: ctx.bareUrl, iterate: async () => true, fixed: [{ method: 'GET', path: '/', headers: {} }], k6Env: {}, close: async () => undefined };
  const bare = await measure(bareScenario, ctx, ctx.bare.pid);
  const cpu = (us: number | undefined) => (us === undefined ? '-' : fmt(us));
  const t = new Table('Reference hot paths beside a bare node:http server (closed model)');
  t.row('path', 'requests/s', 'p99 ms', 'server CPU µs/req', 'vs bare node:http');
  t.row('bare node:http', fmt(bare.throughput), fmt(bare.latencyMs.p99), cpu(bare.cpuPerRequest), '1.00');
  const goals: GoalFigure[] = [];
  for (const [name, label] of HOT_PATHS) {
    const scenario = LOAD_SCENARIOS.find((s) => s.name === name)!;
    const prepared = await scenario.prepare(ctx.targets, ctx.made);
    const r = await measure(prepared, ctx, ctx.reference.pid);
    await prepared.close();
    const ratio = r.throughput / bare.throughput;
    t.row(label, fmt(r.throughput), fmt(r.latencyMs.p99), cpu(r.cpuPerRequest), fmt(ratio));
    goals.push({ goal: `reference ${label} vs bare node:http`, measured: fmt(ratio), target: '>= 0.60', met: ratio >= 0.6 });
  }
  t.print();
  return goals;
}
