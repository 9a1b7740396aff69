// One load generator run in a process of its own, so that bench/generators.ts can pin it to a core
// (taskset) and count its CPU alone. Prints one JSON line: requests done, CPU and wall time of the
// run itself (process.cpuUsage counts every thread: autocannon's, the open model's clock worker).
// Usage: node --import tsx bench/generator-child.ts '<json GeneratorJob>'
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { runClosedModel } from '../src/load/autocannon-engine.ts';
import { runOpenModel } from '../src/load/open-model-runner.ts';
import type { PreparedScenario } from '../src/load/scenarios/types.ts';

export interface GeneratorJob {
  kind: 'autocannon' | 'closed' | 'open-general' | 'open-fixed' | 'open-fixed-fine';
  url: string;
  /** Requests per second (autocannon: overallRate); 0 for autocannon's closed model at full speed. */
  rate: number;
  seconds: number;
  connections: number;
  /** Seconds of the same job run first, unmeasured (warm-up). */
  warmupSeconds?: number;
}

export interface GeneratorRun {
  requests: number;
  errors: number;
  dropped: number;
  /** Requests done per second of the run (the open model's: until its last answer). */
  throughput: number;
  /** How late the open model started requests after they were due, ms (absent for the others). */
  lagP50?: number;
  lagP99?: number;
  cpuMs: number;
  wallMs: number;
}

async function run(job: GeneratorJob): Promise<Omit<GeneratorRun, 'cpuMs' | 'wallMs'>> {
  if (job.kind === 'autocannon') {
    const r = await autocannon({ url: job.url, connections: job.connections, duration: job.seconds, ...(job.rate ? { overallRate: job.rate } : {}) });
    return { requests: r.requests.total, errors: r.errors + r.timeouts + r.non2xx, dropped: 0, throughput: r.requests.total / job.seconds };
  }
  if (job.kind === 'closed') {
    const scenario: PreparedScenario = { name: 'bare', url: job.url, iterate: async () => true, fixed: [{ method: 'GET', path: '/', headers: {} }], k6Env: {}, close: async () => undefined };
    const r = await runClosedModel(scenario, { connections: job.connections, durationMs: job.seconds * 1000, maxRequests: 100_000_000 });
    return { requests: r.requests, errors: r.errors, dropped: 0, throughput: r.throughput };
  }
  // Start lags, recorded for every request (a store into a preallocated array: no measurable cost).
  const lags = new Float64Array(job.rate * job.seconds);
  let n = 0;
  const onStart = (_i: number, intended: number, actual: number) => void (lags[n++] = actual - intended);
  const lagFigures = () => {
    const sorted = lags.subarray(0, n).sort();
    return { lagP50: sorted[Math.floor(n * 0.5)] ?? 0, lagP99: sorted[Math.floor(n * 0.99)] ?? 0 };
  };
  const common = { scenario: 'bare', rate: job.rate, durationMs: job.seconds * 1000, maxRequests: job.rate * job.seconds, maxInFlight: 1024, onStart };
  if (job.kind === 'open-fixed' || job.kind === 'open-fixed-fine') {
    // open-fixed: the default precision (auto), as `stackproof load` runs it; open-fixed-fine: --arrival-precision fine.
    const r = await runOpenModel({ ...common, precision: job.kind === 'open-fixed' ? undefined : 'fine', fixed: { url: job.url, requests: [{ method: 'GET', path: '/', headers: {} }], accept: (status) => status === 200, connections: job.connections || 64 } });
    return { requests: r.requests, errors: r.errors, dropped: r.dropped, throughput: r.throughput, ...lagFigures() };
  }
  if (job.kind === 'open-general') {
    // The general path: any iteration function, here one undici request (what the catalog's scenarios do).
    const pool = new Pool(job.url, { connections: 256 });
    try {
      const r = await runOpenModel({
        ...common,
        request: async () => {
          const res = await pool.request({ method: 'GET', path: '/' });
          await res.body.dump();
          return res.statusCode === 200;
        },
      });
      return { requests: r.requests, errors: r.errors, dropped: r.dropped, throughput: r.throughput, ...lagFigures() };
    } finally {
      await pool.close();
    }
  }
  throw new Error(`unknown generator ${job.kind}`);
}

const job = JSON.parse(process.argv[2]!) as GeneratorJob;
// Every generator first runs the same job for a second, unmeasured: the first few thousand requests
// of a fresh process run unoptimised code, and at 30,000/s that start alone drops more than the 1%
// the maximum-rate search allows (measured: all drops in the first 200 ms).
if (job.warmupSeconds) await run({ ...job, seconds: job.warmupSeconds });
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const r = await run(job);
const cpu = process.cpuUsage(cpu0);
const wallMs = performance.now() - t0;
process.stdout.write(`${JSON.stringify({ ...r, cpuMs: (cpu.user + cpu.system) / 1000, wallMs } satisfies GeneratorRun)}\n`);
process.exit(0);
