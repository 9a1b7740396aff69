// Section "consul": the mesh hot paths on the embedded reference (hashicorp dialect) and on a real
// Consul, side by side: the same scenarios, the same requests, at the same arrival rates.
import type { MeshTarget } from '../src/config/schema.ts';
import { maxInFlightFor } from '../src/load/connection-limits.ts';
import { runOpenModel } from '../src/load/open-model-runner.ts';
import { LOAD_SCENARIOS } from '../src/load/scenarios/catalog.ts';
import type { PreparedScenario } from '../src/load/scenarios/types.ts';
import { meshFixturesFor, provisionMesh, type MeshProvision } from '../src/provision/mesh-provisioner.ts';
import { newRunPrefix } from '../src/provision/run-prefix.ts';
import { findConsul, startConsulAgent, type ConsulAgent } from '../test/support/consul-agent.ts';
import type { BenchContext } from './context.ts';
import { pinProcess, TWO_CORES } from './core-pinning.ts';
import { processCpuMicros } from './process-cpu.ts';
import { benchScript, startServerProcess } from './server-process.ts';
import { Table, fmt, type GoalFigure } from './table.ts';

const SCENARIOS = ['mesh-leaf', 'mesh-roots', 'mesh-authorize'];
/** BENCH_CONSUL_RATES: the arrival rates, per second (default a light one and one near a core's worth of Consul). */
const RATES = (process.env.BENCH_CONSUL_RATES ?? '1000,4000').split(',').map(Number).filter((r) => r > 0);

interface Side {
  name: string;
  pid: number;
  target: MeshTarget;
  provision?: MeshProvision;
}

export async function benchConsulSideBySide(ctx: BenchContext): Promise<GoalFigure[]> {
  const found = findConsul();
  if (!found.path) {
    console.log(`\nReference beside a real Consul: not run (${found.why})`);
    return [];
  }
  const agent: ConsulAgent = await startConsulAgent(found.path);
  const reference = await startServerProcess(['--import', 'tsx', benchScript('reference-server.ts'), 'hashicorp']);
  const runPrefix = newRunPrefix();
  const sides: Side[] = [
    { name: 'reference', pid: reference.proc.pid!, target: (reference.info as { mesh: MeshTarget }).mesh },
    { name: 'Consul', pid: agent.pid, target: { url: agent.url, token: agent.token, dialect: 'hashicorp', capabilities: { namespaces: false, meshFixtures: false } } as MeshTarget },
  ];
  const version = await fetch(`${agent.url}/v1/agent/self`, { headers: { 'x-consul-token': agent.token } }).then((r) => r.json() as Promise<{ Config: { Version: string } }>);
  // Both targets on core 1, the generator (this process) on core 0, as in the hot-path section.
  pinProcess(process.pid, '0');
  for (const s of sides) pinProcess(s.pid, '1');
  const t = new Table(
    `Mesh hot paths, the reference (hashicorp dialect) beside HashiCorp Consul ${version.Config.Version} (dev agent, ACLs on), open model at each rate for ${ctx.seconds} s, ${TWO_CORES ? 'targets pinned to core 1 and the generator to core 0' : 'one core: nothing pinned'}, alternating targets in 2 rounds`,
  );
  t.row('scenario', 'rate/s', 'target', 'held/s', 'p50 ms', 'p99 ms', 'errors', 'dropped', 'target CPU µs/req');
  try {
    for (const s of sides) {
      s.provision = await provisionMesh(s.target, runPrefix);
      s.target = s.provision.target;
    }
    for (const name of SCENARIOS) {
      const scenario = LOAD_SCENARIOS.find((x) => x.name === name)!;
      const prepared = new Map<Side, PreparedScenario>();
      for (const s of sides) prepared.set(s, await scenario.prepare({ mesh: s.target }, { runPrefix, mesh: meshFixturesFor(s.provision!, runPrefix) }));
      try {
        for (const rate of RATES) {
          // A first run in a fresh process (and a cold agent cache) is slower: warm each side up unmeasured.
          for (const s of sides) await measure(prepared.get(s)!, s, rate, Math.min(2, ctx.seconds));
          const runs = new Map<Side, Measured[]>(sides.map((s) => [s, []]));
          for (let round = 0; round < 2; round++) {
            for (const s of round === 0 ? sides : [...sides].reverse()) runs.get(s)!.push(await measure(prepared.get(s)!, s, rate, ctx.seconds));
          }
          for (const s of sides) {
            const m = runs.get(s)!;
            const mean = (f: (x: Measured) => number) => m.reduce((a, x) => a + f(x), 0) / m.length;
            t.row(name, rate, s.name, fmt(mean((x) => x.throughput)), fmt(mean((x) => x.p50)), fmt(Math.max(...m.map((x) => x.p99))), m.reduce((a, x) => a + x.errors, 0), m.reduce((a, x) => a + x.dropped, 0), Number.isFinite(mean((x) => x.cpu)) ? fmt(mean((x) => x.cpu)) : '-');
          }
        }
      } finally {
        for (const p of prepared.values()) await p.close();
      }
    }
  } finally {
    for (const s of sides) await s.provision?.teardown();
    pinProcess(process.pid, '0,1');
    reference.proc.kill('SIGTERM');
    await agent.stop();
  }
  t.print();
  return [];
}

interface Measured {
  throughput: number;
  p50: number;
  p99: number;
  errors: number;
  dropped: number;
  /** The target process's CPU (all its threads) per request, µs. */
  cpu: number;
}

async function measure(prepared: PreparedScenario, side: Side, rate: number, seconds: number): Promise<Measured> {
  const before = processCpuMicros(side.pid);
  const r = await runOpenModel({
    scenario: prepared.name,
    rate,
    durationMs: seconds * 1000,
    maxRequests: 10_000_000,
    maxInFlight: maxInFlightFor('mesh', side.target.dialect),
    fixed: { url: prepared.url, requests: prepared.fixed!, ...prepared.openFixed!, timeoutMs: 10_000 },
  });
  const after = processCpuMicros(side.pid);
  return { throughput: r.throughput, p50: r.latencyMs.p50, p99: r.latencyMs.p99, errors: r.errors, dropped: r.dropped, cpu: r.requests > 0 ? (after - before) / r.requests : NaN };
}
