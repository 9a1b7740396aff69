import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { runClosedModel } from './src/load/autocannon-engine.ts';
import { LOAD_SCENARIOS } from './src/load/scenarios/catalog.ts';
const [scenarioName, ...dirs] = process.argv.slice(2);
const rounds = Number(process.env.ROUNDS ?? 10);
const cpu = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10_000; };
spawnSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
const refs = [];
for (const dir of dirs) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/reference-server.ts'], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const line: string = await new Promise((r) => createInterface({ input: child.stdout! }).once('line', r));
  spawnSync('taskset', ['-a', '-p', '-c', '1', String(child.pid)], { stdio: 'ignore' });
  const targets = JSON.parse(line);
  const sc = LOAD_SCENARIOS.find((s) => s.name === scenarioName)!;
  const prepared = await sc.prepare(targets);
  await runClosedModel(prepared, { connections: 16, durationMs: 2000, maxRequests: 1e7 });
  refs.push({ dir, child, prepared, us: [] as number[], rps: [] as number[] });
}
for (let k = 0; k < rounds; k++) for (const r of k % 2 ? [...refs].reverse() : refs) {
  const c0 = cpu(r.child.pid!);
  const res = await runClosedModel(r.prepared, { connections: 16, durationMs: 1500, maxRequests: 1e7 });
  r.us.push((cpu(r.child.pid!) - c0) / res.requests); r.rps.push(res.throughput);
}
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
for (const r of refs) console.log(r.dir.padEnd(20), 'CPU µs/req median', med(r.us).toFixed(1), 'all', r.us.map((x) => x.toFixed(0)).join(' '), ' rps median', Math.round(med(r.rps)));
if (refs.length === 2) console.log('per-round ratio B/A median', med(refs[0]!.us.map((a, i) => refs[1]!.us[i]! / a)).toFixed(3));
for (const r of refs) { await r.prepared.close(); r.child.kill('SIGTERM'); }
process.exit(0);
