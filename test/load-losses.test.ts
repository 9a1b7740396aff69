import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CpuUsage } from '../src/load/cpu-watch.ts';
import { CpuWatch } from '../src/load/cpu-watch.ts';
import { findListeningProcess } from '../src/load/listening-process.ts';
import { FULL_SHARE, judgeSaturation } from '../src/load/saturation.ts';
import { runResultsSchema } from '../src/report/results-model.ts';
import { startChaosTarget, type ChaosTarget } from './support/chaos-target.ts';
import { runCli } from './support/run-cli.ts';
import { serveInChild, type ServedReference } from './support/serve-child.ts';

/**
 * Issue 53, part 7: a load run that loses streams or arrivals says why: how each stream ended, the
 * CPU of the target (found by its port), of the generator and of the machine, and who ran out.
 */
describe('who ran out of CPU, from the figures', () => {
  const usage = (over: Partial<CpuUsage>): CpuUsage => ({
    windowMs: 5000,
    cores: 2,
    machinePercent: 100,
    target: { pid: 10, name: 'nomad', percent: 40, cores: 2, threads: [{ name: 'thread 11', percent: 20 }] },
    generator: { percent: 30, cores: 2, threads: [{ name: 'main thread', percent: 25 }] },
    othersPercent: 30,
    ...over,
  });

  it('a generator thread busy a whole core is the generator, whatever the machine', () => {
    const s = judgeSaturation(usage({ generator: { percent: 99, cores: 2, threads: [{ name: 'main thread', percent: 97 }] } }));
    expect(s.verdict).toBe('generator');
    expect(s.explanation).toContain('main thread was busy 97% of a core');
  });

  it('a target using all the cores it may run on is the target, and so is one thread of it busy a whole core', () => {
    expect(judgeSaturation(usage({ target: { pid: 10, name: 'nomad', percent: 190, cores: 2, threads: [{ name: 'thread 11', percent: 60 }] }, machinePercent: 195 })).verdict).toBe('target');
    // Pinned to one core: 95% is all it can have.
    expect(judgeSaturation(usage({ target: { pid: 10, name: 'bao', percent: 95, cores: 1, threads: [{ name: 'thread 11', percent: 50 }] } })).verdict).toBe('target');
    const single = judgeSaturation(usage({ target: { pid: 10, name: 'node', percent: 98, cores: 2, threads: [{ name: 'main thread', percent: 96 }] } }));
    expect(single.verdict).toBe('target');
    expect(single.explanation).toContain('the target (node) ran out: its main thread was busy 96% of a core');
  });

  it('a full machine is the target when the target used most of it and the generator had time to spare', () => {
    const s = judgeSaturation(usage({ machinePercent: 196, target: { pid: 10, name: 'nomad', percent: 156, cores: 2, threads: [{ name: 'thread 11', percent: 40 }] }, generator: { percent: 31, cores: 2, threads: [{ name: 'main thread', percent: 22 }] }, othersPercent: 9 }));
    expect(s.verdict).toBe('target');
    expect(s.explanation).toMatch(/the target ran out: the machine's 2 cores were full \(196% of 200%\), the target \(nomad\) used 156%, the generator 31%/);
  });

  it('a machine full of other processes says to measure on a quieter one', () => {
    const s = judgeSaturation(usage({ machinePercent: 199, othersPercent: 150, target: { pid: 10, name: 'nomad', percent: 30, cores: 2, threads: [] }, generator: { percent: 19, cores: 2, threads: [] } }));
    expect(s.verdict).toBe('machine');
    expect(s.explanation).toContain('measure on a quieter machine');
  });

  it('CPU to spare on every side is neither; without /proc, unknown', () => {
    expect(judgeSaturation(usage({})).verdict).toBe('neither');
    expect(judgeSaturation({ windowMs: 1000, cores: 2, targetUnmeasured: 'no /proc', generator: { percent: 10, threads: [] } }).verdict).toBe('unknown');
  });
});

describe('the target process by its port, and its CPU', () => {
  let child: ChildProcess | undefined;
  afterAll(() => void child?.kill('SIGKILL'));

  it('finds the process listening on a loopback port and measures it and its busiest thread; elsewhere it says why not', async () => {
    // A server that spins for 300 ms on each request: a process of its own whose CPU can be seen.
    child = spawn(process.execPath, ['-e', "require('http').createServer((q,s)=>{const t=Date.now();while(Date.now()-t<300);s.end('ok')}).listen(0,'127.0.0.1',function(){console.log(this.address().port)})"], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<number>((resolve) => child!.stdout!.once('data', (d) => resolve(Number(String(d).trim()))));
    const url = `http://127.0.0.1:${port}`;
    const found = findListeningProcess(url);
    expect(found).toEqual({ pid: child.pid, name: 'node' });
    const watch = new CpuWatch(found, () => new Map(), 100);
    for (let i = 0; i < 3; i++) await fetch(url).then((r) => r.text());
    const cpu = watch.stop();
    expect(cpu.target?.pid).toBe(child.pid);
    expect(cpu.target!.percent, JSON.stringify(cpu)).toBeGreaterThan(0);
    expect(cpu.target!.threads[0]?.name).toBe('main thread');
    expect(cpu.generator.threads.map((t) => t.name)).toContain('main thread');
    expect(cpu.machinePercent).toBeGreaterThan(0);

    expect(findListeningProcess('http://192.0.2.1:8200')).toEqual({ why: expect.stringContaining('not on this machine') });
    const closed = findListeningProcess('http://127.0.0.1:1');
    expect('why' in closed && closed.why).toMatch(/no listening socket on port 1/);
  }, 30_000);
});

describe('stackproof load reports what it lost, with the cause', () => {
  let served: ServedReference | undefined;
  let chaos: ChaosTarget | undefined;
  let busy: ChildProcess | undefined;
  const reports = mkdtempSync(join(tmpdir(), 'stackproof-load-losses-'));
  beforeAll(async () => {
    served = await serveInChild(['--dialect', 'hashicorp', '--no-control']);
  }, 60_000);
  afterAll(async () => {
    await chaos?.close();
    busy?.kill('SIGKILL');
    served?.child.kill('SIGTERM');
    rmSync(reports, { recursive: true, force: true });
  });

  it('streams the server ends are said with the cause in the console, results.json and the HTML report', async () => {
    // The server's event streams end after their first line, with no error frame; everything else passes through.
    chaos = await startChaosTarget(served!.targets.scheduler!.url, 'stream-close-early', /^\/v1\/event\/stream/);
    const env = { STACKPROOF_SCHEDULER_URL: chaos.url, STACKPROOF_SCHEDULER_TOKEN: served!.targets.scheduler!.token, STACKPROOF_SCHEDULER_DIALECT: 'hashicorp' };
    const res = await runCli(['load', '--scenario', 'scheduler-event-fanout', '--subscribers', '4', '--event-rate', '20', '--duration', '1s', '--reports-dir', reports], { env, timeoutMs: 90_000 });
    expect(res.code, res.stdout + res.stderr).toBe(4);
    expect(res.stdout).toMatch(/streams: 4 streams closed by the server with no error frame \(the end of its body\) after [\d.-]+ s, having received 0 event\(s\)/);
    expect(res.stdout).toMatch(/CPU \(percent of one core, over the seconds up to the first stream that ended: [\d.]+ s\): target node \(pid \d+\)/);
    expect(res.stdout).toMatch(/who ran out: /);
    const row = runResultsSchema.parse(JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8'))).load[0]!;
    expect(row.streams?.endedEarly).toBe(4);
    expect(row.streams?.endings.map((g) => [g.cause, g.count, g.subscribers])).toEqual([['server-closed', 4, [0, 1, 2, 3]]]);
    expect(row.error).toBe('4 of 4 streams ended early: 4 closed by the server with no error frame (the end of its body)');
    // The target is the chaos proxy's process, found by its port: this test's own.
    expect(row.cpu?.target?.pid).toBe(process.pid);
    expect(row.saturation?.verdict).toMatch(/^(target|generator|machine|neither)$/);
    const html = readFileSync(join(reports, 'index.html'), 'utf8');
    expect(html).toContain('What was lost, and why');
    expect(html).toMatch(/4 streams closed by the server with no error frame/);
    expect(html).toMatch(/who ran out: /);
  }, 120_000);

  it('a target whose one thread is full is named as the one that ran out (the machine, when other processes filled it)', async () => {
    // A proxy in a process of its own that spins 5 ms on every CA roots request before passing it on:
    // at 400/s its one event loop would need two cores, so it falls behind whatever the machine.
    const upstream = served!.targets.mesh!.url;
    busy = spawn(
      process.execPath,
      [
        '-e',
        `const http=require('http');const up=new URL(${JSON.stringify(upstream)});http.createServer((q,s)=>{const b=[];q.on('data',c=>b.push(c));q.on('end',()=>{if(q.url.startsWith('/v1/agent/connect/ca/roots')){const t=performance.now();while(performance.now()-t<5);}const r=http.request({host:up.hostname,port:up.port,path:q.url,method:q.method,headers:q.headers},(u)=>{s.writeHead(u.statusCode,u.headers);u.pipe(s)});r.on('error',()=>s.destroy());r.end(Buffer.concat(b))})}).listen(0,'127.0.0.1',function(){console.log(this.address().port)})`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const port = await new Promise<number>((resolve) => busy!.stdout!.once('data', (d) => resolve(Number(String(d).trim()))));
    const env = { STACKPROOF_MESH_URL: `http://127.0.0.1:${port}`, STACKPROOF_MESH_TOKEN: served!.targets.mesh!.token, STACKPROOF_MESH_DIALECT: 'hashicorp' };
    const res = await runCli(['load', '--scenario', 'mesh-roots', '--rate', '400', '--duration', '2s', '--p99', '5', '--reports-dir', reports], { env, timeoutMs: 90_000 });
    const row = runResultsSchema.parse(JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8'))).load[0]!;
    console.log(`load-losses: ${res.stdout.split('\n').filter((l) => /CPU|who ran out/.test(l)).join(' | ')}`);
    expect(row.cpu?.target?.pid, res.stdout).toBe(busy.pid);
    expect(row.cpu?.target?.name).toBe('node');
    expect(row.saturation, res.stdout).toBeDefined();
    const cpu = row.cpu!;
    const machineFull = (cpu.machinePercent ?? 0) >= FULL_SHARE * cpu.cores * 100;
    // Its one event loop needs 2 s of CPU a second: it is full unless other processes took its core.
    if (!machineFull) expect(row.saturation!.verdict, row.saturation!.explanation).toBe('target');
    else expect(['target', 'machine']).toContain(row.saturation!.verdict);
    expect(res.stdout).toContain(`who ran out: ${row.saturation!.explanation}`);
    expect(readFileSync(join(reports, 'index.html'), 'utf8')).toContain(`who ran out: ${row.saturation!.explanation.replace(/'/g, '&#39;')}`);
  }, 120_000);
});
