// Section 5: steady load on the hot paths; the reference's memory after a forced GC, and its fds.
import { runOpenModel } from '../src/load/open-model-runner.ts';
import { LOAD_SCENARIOS } from '../src/load/scenarios/catalog.ts';
import type { BenchContext } from './context.ts';
import { Table, fmt, type GoalFigure } from './table.ts';

interface ReferenceStats {
  heapUsed: number;
  rss: number;
  fds: number;
}

export async function benchSoak(ctx: BenchContext): Promise<GoalFigure[]> {
  const soakMs = Number(process.env.BENCH_SOAK_SECONDS ?? 20) * 1000;
  const stats = () =>
    new Promise<ReferenceStats>((resolve) => {
      ctx.reference.once('message', (m) => resolve(m as ReferenceStats));
      ctx.reference.send('stats');
    });
  const soakNames = ['mesh-leaf', 'mesh-authorize', 'mesh-roots', 'oidc-code-flow', 'scheduler-logs'];
  // File descriptors are counted with no load connection open, before and after.
  const fdsBefore = (await stats()).fds;
  const prepared = await Promise.all(soakNames.map((n) => LOAD_SCENARIOS.find((s) => s.name === n)!.prepare(ctx.targets, ctx.made)));
  await Promise.all(prepared.map((p) => runOpenModel({ scenario: p.name, rate: 100, durationMs: 2_000, maxRequests: 1_000, request: p.iterate })));
  const before = await stats();
  const soak = await Promise.all(prepared.map((p) => runOpenModel({ scenario: p.name, rate: 150, durationMs: soakMs, maxRequests: 1_000_000, maxInFlight: 512, request: p.iterate })));
  const after = await stats();
  for (const p of prepared) await p.close();
  await new Promise((r) => setTimeout(r, 1_000));
  const fdsAfter = (await stats()).fds;
  const t = new Table(`Soak: ${soakMs / 1000} s of steady load at 150/s on each hot path`);
  t.row('scenario', 'requests', 'wrong answers', 'dropped', 'p99 ms');
  for (const s of soak) t.row(s.scenario, s.requests, s.errors, s.dropped, fmt(s.latencyMs.p99));
  t.print();
  const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
  console.log(`  reference heap after forced GC: ${mb(before.heapUsed)} MB before, ${mb(after.heapUsed)} MB after (growth ${mb(after.heapUsed - before.heapUsed)} MB); rss ${mb(before.rss)} -> ${mb(after.rss)} MB`);
  console.log(`  reference open file descriptors with no load connection open: ${fdsBefore} before, ${fdsAfter} after`);
  return [];
}
