// Section "products": the hot paths on the embedded reference (hashicorp dialect) beside each real
// product found, side by side in one run: Consul's leaf fetch and connect authorize, OpenBao's OIDC
// code flow, Nomad's logs and event fan-out. The same scenarios, the same requests, at the same
// rates, the two sides alternating; each product's figures as ratios to the reference's.
import { loadavg } from 'node:os';
import type { MeshTarget, SchedulerTarget, SecretsTarget, Targets } from '../src/config/schema.ts';
import { maxInFlightFor } from '../src/load/connection-limits.ts';
import { CpuWatch, type CpuUsage } from '../src/load/cpu-watch.ts';
import { runEventFanout } from '../src/load/event-fanout.ts';
import { runOpenModel } from '../src/load/open-model-runner.ts';
import { provisionLoadFixtures, provisionLoadMesh, provisionLoadSecrets } from '../src/load/run-load.ts';
import { LOAD_SCENARIOS } from '../src/load/scenarios/catalog.ts';
import type { LoadFixtures, PreparedScenario } from '../src/load/scenarios/types.ts';
import { meshFixturesFor } from '../src/provision/mesh-provisioner.ts';
import { newRunPrefix } from '../src/provision/run-prefix.ts';
import type { SweepReport } from '../src/provision/sweep-report.ts';
import type { LoadScenarioResult } from '../src/report/results-model.ts';
import { findConsul, startConsulAgent } from '../test/support/consul-agent.ts';
import { findNomad, startNomadAgent } from '../test/support/nomad-agent.ts';
import { findOpenBao, startOpenBao } from '../test/support/openbao-server.ts';
import type { BenchContext } from './context.ts';
import { pinProcess, TWO_CORES } from './core-pinning.ts';
import { benchScript, startServerProcess } from './server-process.ts';
import { Table, fmt, type GoalFigure } from './table.ts';

/** One hot path: a request scenario at an arrival rate, or the fan-out at subscribers x registrations/s. */
type Path = { label: string; scenario: string; rate: number } | { label: string; scenario: 'scheduler-event-fanout'; rate: number; subscribers: number };

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback) || fallback;
/** The rates (BENCH_PRODUCT_* to change them): light enough that every product holds them on one core. */
const PATHS: Record<'mesh' | 'secrets' | 'scheduler', Path[]> = {
  mesh: [
    { label: 'leaf fetch (cached)', scenario: 'mesh-leaf', rate: num('BENCH_PRODUCT_MESH_RATE', 2000) },
    { label: 'connect authorize', scenario: 'mesh-authorize', rate: num('BENCH_PRODUCT_MESH_RATE', 2000) },
  ],
  secrets: [{ label: 'OIDC code flow (3 requests)', scenario: 'oidc-code-flow', rate: num('BENCH_PRODUCT_OIDC_RATE', 100) }],
  scheduler: [
    { label: 'logs (200 KB, plain)', scenario: 'scheduler-logs', rate: num('BENCH_PRODUCT_LOGS_RATE', 200) },
    { label: 'event fan-out', scenario: 'scheduler-event-fanout', rate: num('BENCH_PRODUCT_FANOUT_RATE', 100), subscribers: num('BENCH_PRODUCT_FANOUT_SUBSCRIBERS', 20) },
  ],
};

interface Side {
  name: string;
  pid: number;
  targets: Targets;
  /** Provisioned through the product's own API (a real product) or the reference's control listener. */
  external: boolean;
  made?: LoadFixtures;
  teardowns: (() => Promise<SweepReport | void>)[];
}

interface Measured {
  held: number;
  p50: number;
  p99: number;
  errors: number;
  /** Arrivals dropped; for the fan-out, deliveries missed and registrations not sent. */
  lost: number;
  /** The target's CPU per request (per flow, per delivery), µs. */
  cpuPerUnit: number;
  /** CPU the other processes on the machine used meanwhile, percent of one core. */
  others?: number;
}

interface Product {
  system: keyof typeof PATHS;
  find: () => { path?: string; why: string };
  start: (path: string) => Promise<{ name: string; pid: number; target: Targets; stop: () => Promise<void> }>;
}

const PRODUCTS: Product[] = [
  {
    system: 'mesh',
    find: findConsul,
    async start(path) {
      const agent = await startConsulAgent(path);
      const version = await fetch(`${agent.url}/v1/agent/self`, { headers: { 'x-consul-token': agent.token } }).then((r) => r.json() as Promise<{ Config: { Version: string } }>);
      return { name: `Consul ${version.Config.Version}`, pid: agent.pid, target: { mesh: { url: agent.url, token: agent.token, dialect: 'hashicorp', capabilities: { namespaces: false, meshFixtures: false } } as MeshTarget }, stop: () => agent.stop() };
    },
  },
  {
    system: 'secrets',
    find: findOpenBao,
    async start(path) {
      const server = await startOpenBao(path);
      const target = { url: server.url, token: server.token, dialect: 'hashicorp', capabilities: { namespaces: false, requestHeaderProxy: false, kvV2: false, identityFixtures: false, cloudIdentity: false }, kv: { v1Mount: 'secret/' }, namespaces: [] } as unknown as SecretsTarget;
      return { name: `OpenBao ${server.version}`, pid: server.pid, target: { secrets: target }, stop: () => server.stop() };
    },
  },
  {
    system: 'scheduler',
    find: () => findNomad('current'),
    async start(path) {
      const agent = await startNomadAgent(path);
      return { name: `Nomad ${agent.version}`, pid: agent.pid, target: { scheduler: { url: agent.url, token: agent.token, dialect: 'hashicorp', capabilities: { schedulerFixtures: false } } as SchedulerTarget }, stop: () => agent.stop() };
    },
  },
];

export async function benchProductsSideBySide(ctx: BenchContext): Promise<GoalFigure[]> {
  const found = PRODUCTS.map((p) => ({ p, tool: p.find() }));
  for (const { p, tool } of found) if (!tool.path) console.log(`\nReference beside a real ${p.system} product: not run (${tool.why})`);
  const present = found.filter((f) => f.tool.path);
  if (!present.length) return [];
  const reference = await startServerProcess(['--import', 'tsx', benchScript('reference-server.ts'), 'hashicorp']);
  const referenceTargets = reference.info as Targets;
  const load = [loadavg()[0]!];
  const t = new Table(
    `Hot paths on the reference (hashicorp dialect) beside each real product, open model for ${ctx.seconds} s a run, ${TWO_CORES ? 'targets pinned to core 1 and the generator to core 0' : 'one core: nothing pinned'}, 2 rounds alternating the targets; CPU per request is the target process's (all threads, /proc); "others" is what other processes used of the machine meanwhile`,
  );
  t.row('path', 'rate/s', 'target', 'held/s', 'p50 ms', 'p99 ms', 'errors', 'lost', 'target CPU µs/req', 'others %');
  const ratios = new Table('Each product beside the reference, measured side by side in this run (product / reference: above 1 the product is slower or costs more)');
  ratios.row('path', 'rate/s', 'product', 'p50', 'p99', 'CPU per request');
  pinProcess(process.pid, '0');
  pinProcess(reference.proc.pid, '1');
  try {
    for (const { p, tool } of present) {
      const runPrefix = newRunPrefix();
      const started = await p.start(tool.path!);
      pinProcess(started.pid, '1');
      const sides: Side[] = [
        { name: 'reference', pid: reference.proc.pid!, targets: { [p.system]: referenceTargets[p.system] }, external: false, teardowns: [] },
        { name: started.name, pid: started.pid, targets: started.target, external: true, teardowns: [] },
      ];
      try {
        for (const s of sides) s.made = await provision(s, p.system, runPrefix);
        for (const path of PATHS[p.system]) {
          const runs = new Map<Side, Measured[]>(sides.map((s) => [s, []]));
          // Each side's fixtures for the path once (a client, an intention, a finished job with its log).
          const prepared = new Map<Side, PreparedScenario | undefined>();
          for (const s of sides) prepared.set(s, path.scenario === 'scheduler-event-fanout' ? undefined : await LOAD_SCENARIOS.find((x) => x.name === path.scenario)!.prepare(s.targets, s.made));
          try {
            // A first run in a fresh process (and a cold cache) is slower: each side is warmed up unmeasured.
            for (const s of sides) await measure(path, s, prepared.get(s), Math.min(2, ctx.seconds), runPrefix);
            for (let round = 0; round < 2; round++) {
              for (const s of round === 0 ? sides : [...sides].reverse()) runs.get(s)!.push(await measure(path, s, prepared.get(s), ctx.seconds, runPrefix));
            }
          } finally {
            for (const x of prepared.values()) await x?.close();
          }
          const summary = new Map<Side, Measured>();
          for (const s of sides) {
            const m = runs.get(s)!;
            const mean = (f: (x: Measured) => number) => m.reduce((a, x) => a + f(x), 0) / m.length;
            const row: Measured = { held: mean((x) => x.held), p50: mean((x) => x.p50), p99: Math.max(...m.map((x) => x.p99)), errors: m.reduce((a, x) => a + x.errors, 0), lost: m.reduce((a, x) => a + x.lost, 0), cpuPerUnit: mean((x) => x.cpuPerUnit), others: mean((x) => x.others ?? NaN) };
            summary.set(s, row);
            const rate = 'subscribers' in path ? `${path.subscribers} x ${path.rate}` : path.rate;
            t.row(path.label, rate, s.name, fmt(row.held), fmt(row.p50), fmt(row.p99), row.errors, row.lost, Number.isFinite(row.cpuPerUnit) ? fmt(row.cpuPerUnit) : '-', Number.isFinite(row.others!) ? fmt(row.others!) : '-');
          }
          const [ref, product] = [summary.get(sides[0]!)!, summary.get(sides[1]!)!];
          const ratio = (a: number, b: number) => (b > 0 && Number.isFinite(a / b) ? `${(a / b).toFixed(2)}x` : '-');
          ratios.row(path.label, 'subscribers' in path ? `${path.subscribers} x ${path.rate}` : path.rate, started.name, ratio(product.p50, ref.p50), ratio(product.p99, ref.p99), ratio(product.cpuPerUnit, ref.cpuPerUnit));
        }
      } finally {
        for (const s of sides) for (const teardown of s.teardowns.reverse()) await teardown();
        await started.stop();
        load.push(loadavg()[0]!);
      }
    }
  } finally {
    pinProcess(process.pid, '0,1');
    reference.proc.kill('SIGTERM');
  }
  t.print();
  ratios.print();
  console.log(`  load average (1 min) while the section ran: ${load.map((l) => l.toFixed(1)).join(', ')}`);
  return [];
}

/** What the side's scenarios act through: the product's own API, or the reference's control listener. */
async function provision(side: Side, system: keyof typeof PATHS, runPrefix: string): Promise<LoadFixtures> {
  const quiet = () => undefined;
  if (system === 'mesh') {
    const mesh = await provisionLoadMesh(side.targets, side.external, runPrefix, quiet);
    side.teardowns.push(() => mesh.teardown());
    return { runPrefix, mesh: meshFixturesFor(mesh, runPrefix), meshMissing: mesh.provisioned.missing.meshFixtures };
  }
  if (system === 'secrets') {
    const identity = await provisionLoadSecrets(side.targets, side.external, runPrefix, quiet);
    side.teardowns.push(() => identity.teardown());
    return { runPrefix, entities: identity.provisioned.entities, entitiesMissing: identity.provisioned.missing };
  }
  const { made, provision: scheduler } = await provisionLoadFixtures(side.targets, side.external, runPrefix, quiet);
  if (scheduler) side.teardowns.push(() => scheduler.teardown());
  return made;
}

async function measure(path: Path, side: Side, prepared: PreparedScenario | undefined, seconds: number, runPrefix: string): Promise<Measured> {
  const system = LOAD_SCENARIOS.find((x) => x.name === path.scenario)?.system ?? 'scheduler';
  const target = side.targets[system]!;
  const watch = new CpuWatch({ pid: side.pid, name: side.name });
  let row: LoadScenarioResult;
  let lost: number;
  if ('subscribers' in path) {
    const f = await runEventFanout(target as SchedulerTarget, side.made!.scheduler!, { subscribers: path.subscribers, rate: path.rate, durationMs: seconds * 1000, runPrefix });
    row = f;
    lost = f.missed + f.skipped;
  } else {
    const lean = prepared!.openFixed && prepared!.fixed && new URL(prepared!.url).protocol === 'http:';
    row = await runOpenModel({
      scenario: prepared!.name,
      rate: path.rate,
      durationMs: seconds * 1000,
      maxRequests: 10_000_000,
      maxInFlight: maxInFlightFor(system, target.dialect),
      ...(lean ? { fixed: { url: prepared!.url, requests: prepared!.fixed!, ...prepared!.openFixed!, timeoutMs: 10_000 } } : { request: prepared!.iterate }),
    });
    lost = row.dropped;
  }
  const cpu: CpuUsage = watch.stop();
  const cpuPerUnit = cpu.target && row.requests > 0 ? ((cpu.target.percent / 100) * cpu.windowMs * 1000) / row.requests : NaN;
  return { held: row.throughput, p50: row.latencyMs.p50, p99: row.latencyMs.p99, errors: row.errors, lost, cpuPerUnit, ...(cpu.othersPercent !== undefined ? { others: cpu.othersPercent } : {}) };
}
