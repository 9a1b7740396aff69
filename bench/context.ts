import type { ChildProcess } from 'node:child_process';
import type { Targets } from '../src/config/schema.ts';
import type { LoadFixtures } from '../src/load/scenarios/types.ts';

/** What every bench section gets: the two servers started once, and the run's fixtures. */
export interface BenchContext {
  /** Seconds per measurement (BENCH_SECONDS, default 4). */
  seconds: number;
  connections: number;
  /** A bare node:http server in a process of its own (the yardstick). */
  bareUrl: string;
  bare: ChildProcess;
  /** The embedded reference in a process of its own. */
  targets: Targets;
  reference: ChildProcess;
  made: LoadFixtures;
  runPrefix: string;
}
