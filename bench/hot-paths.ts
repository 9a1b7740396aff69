// Section 2: the reference's hot paths beside the bare node:http server (closed model, same connections).
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

export async function benchHotPaths(ctx: BenchContext): Promise<GoalFigure[]> {
  const bareScenario: PreparedScenario = { name: 'bare', url: ctx.bareUrl, iterate: async () => true, fixed: [{ method: 'GET', path: '/', headers: {} }], k6Env: {}, close: async () => undefined };
  const bare = await runClosedModel(bareScenario, { connections: ctx.connections, durationMs: ctx.seconds * 1000, maxRequests: 10_000_000 });
  const t = new Table('Reference hot paths beside a bare node:http server (closed model)');
  t.row('path', 'requests/s', 'p99 ms', 'vs bare node:http');
  t.row('bare node:http', fmt(bare.throughput), fmt(bare.latencyMs.p99), '1.00');
  const goals: GoalFigure[] = [];
  for (const [name, label] of HOT_PATHS) {
    const scenario = LOAD_SCENARIOS.find((s) => s.name === name)!;
    const prepared = await scenario.prepare(ctx.targets, ctx.made);
    const r = await runClosedModel(prepared, { connections: ctx.connections, durationMs: ctx.seconds * 1000, maxRequests: 10_000_000 });
    await prepared.close();
    const ratio = r.throughput / bare.throughput;
    t.row(label, fmt(r.throughput), fmt(r.latencyMs.p99), fmt(ratio));
    goals.push({ goal: `reference ${label} vs bare node:http`, measured: fmt(ratio), target: '>= 0.60', met: ratio >= 0.6 });
  }
  t.print();
  return goals;
}
