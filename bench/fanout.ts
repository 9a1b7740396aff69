// Section 3: event-stream fan-out, subscribers x events/s, delivery latency.
// A grid up to 1,000 subscribers x 1,000 events/s: for each rate the subscribers grow until a cell
// misses badly, and the larger cells of that rate are not run (said so in the table). The largest
// cell with p99 < 50 ms and nothing missed is the goal row. The subscribers run on the publisher's
// thread (FANOUT_WORKERS=n spreads them over n worker threads): on 2 cores shared with the reference,
// worker threads cost more CPU per delivery than they free (measured: 100 x 500/s, 10.5 µs of harness
// CPU per delivery on the main thread, 13.8 on 2 workers); the best cell is also measured the other
// way, side by side. Last, the floor: the goal cell's bytes alone between a bare writer and bare
// readers (fanout-floor.ts), so the table says what this machine could do with no broker at all.
import { runEventFanout, type FanoutResult } from '../src/load/event-fanout.ts';
import type { BenchContext } from './context.ts';
import { streamFloor } from './fanout-floor.ts';
import { processCpuMicros } from './process-cpu.ts';
import { referenceFlushGapMs } from './reference-flush-gap.ts';
import { Table, fmt, type GoalFigure } from './table.ts';

/** The grid's axes (FANOUT_SUBSCRIBERS and FANOUT_RATES, comma-separated, to run a part of it). */
const axis = (env: string | undefined, all: number[]) => (env ? env.split(',').map(Number) : all);
const SUBSCRIBERS = axis(process.env.FANOUT_SUBSCRIBERS, [10, 50, 100, 200, 500, 1000]);
const RATES = axis(process.env.FANOUT_RATES, [200, 500, 1000]);
/** A cell this far off (p99 past 10x the goal, or anything missed or not sent) ends its rate's escalation. */
const BADLY_MS = 500;
/** The issue's goal cell. */
const GOAL = { subscribers: 1000, rate: 1000 };
/** Each cell's measurement, at most (the bench stays bounded however many cells run). */
const CELL_SECONDS = 3;

type Cell = FanoutResult & { referenceCpuMicros: number };

const meets = (f: FanoutResult) => f.latencyMs.p99 < 50 && f.missed === 0 && f.skipped === 0 && f.errors === 0 && !f.error;
const badly = (f: FanoutResult) => f.latencyMs.p99 > BADLY_MS || f.missed > 0 || f.skipped > 0 || !!f.error;

export async function benchFanout(ctx: BenchContext): Promise<GoalFigure[]> {
  const workers = Number(process.env.FANOUT_WORKERS ?? 0);
  const seconds = Math.min(ctx.seconds, CELL_SECONDS);
  const cell = async (subscribers: number, rate: number, w: number): Promise<Cell> => {
    const before = processCpuMicros(ctx.reference.pid);
    const f = await runEventFanout(ctx.targets.scheduler!, ctx.made.scheduler!, { subscribers, rate, durationMs: seconds * 1000, runPrefix: ctx.runPrefix, workers: w });
    return { ...f, referenceCpuMicros: processCpuMicros(ctx.reference.pid) - before };
  };
  // CPU per delivery (this process from the first registration to the end of the drain; the
  // reference's for the whole cell) moves little when someone else loads the machine.
  const perDelivery = (us: number, f: FanoutResult) => (f.requests > 0 && Number.isFinite(us) ? fmt(us / f.requests) : '-');
  const row = (t: Table, f: Cell, rate: number) =>
    t.row(f.subscribers, rate, f.workers || 'main', fmt(f.throughput), fmt(f.latencyMs.p50), fmt(f.latencyMs.p99), fmt(f.latencyMs.max), f.missed, f.skipped, perDelivery(f.cpuMicros, f), perDelivery(f.referenceCpuMicros, f), meets(f) ? 'yes' : 'no');
  const header = (t: Table) => t.row('subscribers', 'events/s', 'threads', 'delivered/s', 'p50 ms', 'p99 ms', 'max ms', 'missed', 'not sent', 'harness µs/delivery', 'reference µs/delivery', 'p99 < 50 ms, 0 missed');

  const grid = new Table(`Event-stream fan-out grid (${seconds} s a cell; delivery latency from the registration's sending to receipt; subscribers on ${workers ? `${workers} worker thread${workers === 1 ? '' : 's'}` : 'the main thread'})`);
  header(grid);
  let best: { f: Cell; rate: number } | undefined;
  // Bytes per delivery, from the largest cell run: the size of the frames the floor sends.
  let frameBytes = { deliveries: 0, bytes: 0 };
  for (const rate of RATES) {
    for (const [i, subscribers] of SUBSCRIBERS.entries()) {
      const f = await cell(subscribers, rate, workers);
      row(grid, f, rate);
      if (f.requests > frameBytes.deliveries) frameBytes = { deliveries: f.requests, bytes: f.bytesReceived };
      if (meets(f) && (!best || f.subscribers * rate > best.f.subscribers * best.rate)) best = { f, rate };
      if (badly(f)) {
        const rest = SUBSCRIBERS.slice(i + 1);
        if (rest.length) grid.row(rest.join(', '), rate, '', 'not run: the cell above missed badly', '', '', '', '', '', '', '', 'no');
        break;
      }
    }
  }
  grid.print();

  // The same cell both ways: the subscribers beside the publisher, and spread over worker threads.
  const sideBySide = new Table('Event-stream fan-out: subscribers on the main thread vs on worker threads (same cell)');
  header(sideBySide);
  const s = best ? best.f.subscribers : 100;
  const r = best ? best.rate : 500;
  for (const w of [0, workers || 2]) row(sideBySide, await cell(s, r, w), r);
  sideBySide.print();

  // The goal cell's bytes alone, with nothing else running: the most this machine could deliver.
  const [streams, rate] = [GOAL.subscribers, GOAL.rate];
  const bytes = frameBytes.deliveries ? Math.round(frameBytes.bytes / frameBytes.deliveries) : 0;
  const gapMs = referenceFlushGapMs(streams);
  const floorTable = new Table(
    `Event-stream fan-out floor: the goal cell's bytes with no broker, no registrations and no parsing (bench/stream-floor-server.mjs writes ${streams} streams ${rate} frames/s of ${bytes} bytes, the size the cells above delivered, one write every ${fmt(gapMs)} ms as the reference batches; this process reads them with node:http and only counts newlines; ${seconds} s)`,
  );
  floorTable.row('streams', 'frames/s wanted', 'frames/s delivered', 'share', 'MB/s', 'writer cores', 'reader cores');
  let floorShare: number | undefined;
  if (bytes > 0) {
    const floor = await streamFloor({ streams, rate, frameBytes: bytes, gapMs, seconds });
    floorShare = floor.delivered / floor.wanted;
    floorTable.row(streams, floor.wanted, Math.round(floor.delivered), fmt(floor.delivered / floor.wanted), fmt(floor.megabytesPerSecond), fmt(floor.writerCores), fmt(floor.readerCores));
  } else floorTable.row(streams, streams * rate, 'not run: no cell delivered anything to size the frames by', '', '', '', '');
  floorTable.print();

  return [
    {
      goal: 'fan-out: largest cell with p99 < 50 ms, nothing missed (goal 1,000 x 1,000/s)',
      measured: `${best ? `${best.f.subscribers} x ${best.rate}/s (p99 ${fmt(best.f.latencyMs.p99)} ms, ${fmt(best.f.throughput)} delivered/s)` : 'none'}${floorShare === undefined ? '' : `; the goal cell's bytes alone reach ${fmt(floorShare)} of it here`}`,
      target: '1000 x 1000/s',
      met: !!best && best.f.subscribers >= GOAL.subscribers && best.rate >= GOAL.rate,
    },
  ];
}
