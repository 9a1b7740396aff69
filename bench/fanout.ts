// Section 3: event-stream fan-out, subscribers x events/s, delivery latency.
import { runEventFanout } from '../src/load/event-fanout.ts';
import type { BenchContext } from './context.ts';
import { Table, fmt, type GoalFigure } from './table.ts';

export async function benchFanout(ctx: BenchContext): Promise<GoalFigure[]> {
  const t = new Table('Event-stream fan-out (delivery latency from event creation to receipt)');
  t.row('subscribers', 'events/s', 'delivered/s', 'p50 ms', 'p99 ms', 'max ms', 'missed', 'p99 < 50 ms');
  const goals: GoalFigure[] = [];
  for (const [subscribers, rate] of [[10, 200], [50, 200], [100, 500], [200, 1000]] as const) {
    const f = await runEventFanout(ctx.targets.scheduler!, ctx.made.scheduler!, { subscribers, rate, durationMs: ctx.seconds * 1000, runPrefix: ctx.runPrefix });
    t.row(subscribers, rate, fmt(f.throughput), fmt(f.latencyMs.p50), fmt(f.latencyMs.p99), fmt(f.latencyMs.max), f.missed, f.latencyMs.p99 < 50 ? 'yes' : 'no');
    if (subscribers === 200) goals.push({ goal: `fan-out ${subscribers} x ${rate}/s p99 (ms), nothing missed`, measured: `${fmt(f.latencyMs.p99)}, ${f.missed} missed`, target: '< 50, 0 missed', met: f.latencyMs.p99 < 50 && f.missed === 0 });
  }
  t.print();
  return goals;
}
