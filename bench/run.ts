// npm run bench: performance figures measured side by side in one run and printed as ratios.
// Everything runs on loopback, bounded in time; nothing here is asserted by the tests.
// BENCH_ONLY=generators,hot-paths,consul,products,fanout,conform,soak,startup runs some sections only; BENCH_SECONDS sets each measurement's length.
import { availableParallelism, cpus } from 'node:os';
import type { Targets } from '../src/config/schema.ts';
import { provisionLoadFixtures, provisionLoadMesh, provisionLoadSecrets } from '../src/load/run-load.ts';
import { meshFixturesFor } from '../src/provision/mesh-provisioner.ts';
import { newRunPrefix } from '../src/provision/run-prefix.ts';
import { benchConformTime } from './conform-time.ts';
import { benchConsulSideBySide } from './consul-side-by-side.ts';
import type { BenchContext } from './context.ts';
import { benchFanout } from './fanout.ts';
import { benchGenerators } from './generators.ts';
import { benchHotPaths } from './hot-paths.ts';
import { benchProductsSideBySide } from './products-side-by-side.ts';
import { benchScript, startServerProcess } from './server-process.ts';
import { benchSoak } from './soak.ts';
import { benchStartup } from './startup.ts';
import { Table, type GoalFigure } from './table.ts';

const SECTIONS: [name: string, run: (ctx: BenchContext) => Promise<GoalFigure[]>][] = [
  ['generators', benchGenerators],
  ['hot-paths', benchHotPaths],
  ['consul', benchConsulSideBySide],
  ['products', benchProductsSideBySide],
  ['fanout', benchFanout],
  ['conform', benchConformTime],
  ['soak', benchSoak],
  ['startup', benchStartup],
];
const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());

console.log(`machine: ${cpus()[0]?.model ?? 'unknown cpu'}, ${availableParallelism()} cores, Node ${process.version}`);
const bare = await startServerProcess([benchScript('bare-server.mjs')]);
// BENCH_CPU_PROF=dir writes a V8 CPU profile of the reference process there, to see where its time goes.
const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : [];
const reference = await startServerProcess(['--expose-gc', ...profile, '--import', 'tsx', benchScript('reference-server.ts')]);
const targets = reference.info as Targets;
// The scheduler scenarios act through fixtures made by real actions (the reference's control listener).
const runPrefix = newRunPrefix();
const { made: scheduled, provision } = await provisionLoadFixtures(targets, false, runPrefix, () => undefined);
// The authorize path's intention, through the control listener.
const mesh = await provisionLoadMesh(targets, false, runPrefix, () => undefined);
// The code flow's entities, through the control listener.
const identity = await provisionLoadSecrets(targets, false, runPrefix, () => undefined);
const made = { ...scheduled, mesh: meshFixturesFor(mesh, runPrefix), entities: identity.provisioned.entities, entitiesMissing: identity.provisioned.missing };
const ctx: BenchContext = {
  seconds: Number(process.env.BENCH_SECONDS ?? 4),
  connections: 16,
  bareUrl: (bare.info as { url: string }).url,
  bare: bare.proc,
  targets,
  reference: reference.proc,
  made,
  runPrefix,
};
const goals: GoalFigure[] = [];
try {
  for (const [name, run] of SECTIONS) if (!only || only.includes(name)) goals.push(...(await run(ctx)));
} finally {
  await provision?.teardown();
  await mesh.teardown();
  await identity.teardown();
  bare.proc.kill('SIGTERM');
  reference.proc.kill('SIGTERM');
}
const summary = new Table('The goals of issues 19 and 20, measured in this run');
summary.row('goal', 'measured', 'target', 'met');
for (const g of goals) summary.row(g.goal, g.measured, g.target, g.met ? 'yes' : 'no');
summary.print();
