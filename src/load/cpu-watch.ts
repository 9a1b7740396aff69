import { availableParallelism } from 'node:os';
import { readdirSync, readFileSync } from 'node:fs';

/** Linux's clock tick for /proc CPU times (sysconf(_SC_CLK_TCK), 100 on every Linux platform Node runs on). */
const TICKS_PER_SECOND = 100;

/**
 * The CPU used over a scenario's run, each figure in percent of one core (as top shows it: 156% is
 * a core and a half): the machine's (all its cores), the target's process where it is on this
 * machine, and the generator's own (this process with every thread, plus the children it waited
 * for, such as k6), with its busiest thread.
 */
export interface CpuUsage {
  windowMs: number;
  cores: number;
  /** All cores' busy time (absent without /proc/stat). */
  machinePercent?: number;
  /** The target's process; absent with `targetUnmeasured` saying why. */
  target?: { pid: number; name: string; percent: number };
  targetUnmeasured?: string;
  /** Where the target is this very process (the embedded reference): its CPU is inside the generator's. */
  targetInGenerator?: boolean;
  generator: {
    percent: number;
    /** The threads that used the most, busiest first (at most 4), named where known. */
    threads: { name: string; percent: number }[];
  };
  /** What neither the target nor the generator used: other processes on the machine. */
  othersPercent?: number;
}

interface Sample {
  at: number;
  machine?: { busy: number; total: number; cores: number };
  self: number;
  children: number;
  threads: Map<number, number>;
  target?: number;
}

/**
 * Samples /proc while a scenario runs: at its start, every `everyMs`, and at its end. Threads are
 * summed interval by interval, so a worker that ends before the scenario does still counts.
 */
export class CpuWatch {
  private readonly samples: Sample[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly target: { pid: number; name: string } | { why: string },
    /** OS thread ids with a name (the main thread is named by the watch; workers report theirs). */
    private readonly threadNames: () => Map<number, string> = () => new Map(),
    everyMs = 500,
  ) {
    this.samples.push(this.sample());
    this.timer = setInterval(() => this.samples.push(this.sample()), everyMs);
    this.timer.unref();
  }

  /**
   * The CPU used from the start to the end, or to `untilEpochMs` (epoch milliseconds, as
   * performance.timeOrigin + performance.now()) when given: the figures of the moments that matter,
   * such as the seconds up to the last stream that ended.
   */
  stop(untilEpochMs?: number): CpuUsage {
    clearInterval(this.timer);
    this.samples.push(this.sample());
    let end = this.samples.length - 1;
    if (untilEpochMs !== undefined) {
      const at = this.samples.findIndex((x, i) => i > 0 && x.at >= untilEpochMs);
      if (at > 0) end = at;
    }
    const a = this.samples[0]!;
    const b = this.samples[end]!;
    const threadTicks = new Map<number, number>();
    for (let i = 1; i <= end; i++) {
      const before = this.samples[i - 1]!.threads;
      // A thread not in the sample before started since: all its time is in this interval.
      for (const [tid, ticks] of this.samples[i]!.threads) threadTicks.set(tid, (threadTicks.get(tid) ?? 0) + ticks - (before.get(tid) ?? 0));
    }
    const windowMs = b.at - a.at;
    const seconds = windowMs / 1000;
    const pct = (ticks: number) => (seconds > 0 ? Math.round((ticks / TICKS_PER_SECOND / seconds) * 1000) / 10 : 0);
    const cores = b.machine?.cores ?? availableParallelism();
    const machinePercent = a.machine && b.machine && b.machine.total > a.machine.total ? Math.round(((b.machine.busy - a.machine.busy) / (b.machine.total - a.machine.total)) * cores * 1000) / 10 : undefined;
    const generatorPercent = pct(b.self - a.self + (b.children - a.children));
    const names = this.threadNames();
    const threads = [...threadTicks.entries()]
      .sort((x, y) => y[1] - x[1])
      .slice(0, 4)
      .map(([tid, ticks]) => ({ name: tid === process.pid ? 'main thread' : (names.get(tid) ?? `other thread ${tid}`), percent: pct(ticks) }));
    const usage: CpuUsage = { windowMs: Math.round(windowMs), cores, ...(machinePercent !== undefined ? { machinePercent } : {}), generator: { percent: generatorPercent, threads } };
    if ('why' in this.target) usage.targetUnmeasured = this.target.why;
    else if (this.target.pid === process.pid) usage.targetInGenerator = true;
    else if (a.target !== undefined && b.target !== undefined) usage.target = { ...this.target, percent: pct(b.target - a.target) };
    else usage.targetUnmeasured = `could not read /proc/${this.target.pid}/stat (the process ended?)`;
    if (machinePercent !== undefined && (usage.target || usage.targetInGenerator)) {
      usage.othersPercent = Math.max(0, Math.round((machinePercent - generatorPercent - (usage.target?.percent ?? 0)) * 10) / 10);
    }
    return usage;
  }

  private sample(): Sample {
    const threads = new Map<number, number>();
    try {
      for (const tid of readdirSync('/proc/self/task')) {
        const t = cpuTicks(`/proc/self/task/${tid}/stat`);
        if (t) threads.set(Number(tid), t.own);
      }
    } catch {
      // no /proc: no per-thread figures
    }
    const self = cpuTicks('/proc/self/stat');
    const target = 'pid' in this.target && this.target.pid !== process.pid ? cpuTicks(`/proc/${this.target.pid}/stat`) : undefined;
    const fallback = process.cpuUsage();
    return {
      at: performance.timeOrigin + performance.now(),
      machine: machineTicks(),
      // Without /proc, Node's own figure (all threads, no children).
      self: self?.own ?? ((fallback.user + fallback.system) / 1e6) * TICKS_PER_SECOND,
      children: self?.children ?? 0,
      threads,
      ...(target ? { target: target.own } : {}),
    };
  }
}

/** utime + stime, and cutime + cstime, of a /proc stat file, in clock ticks. */
function cpuTicks(file: string): { own: number; children: number } | undefined {
  try {
    // The command name is in parentheses and may hold spaces: the fields count from after it.
    const f = readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
    return { own: Number(f[11]) + Number(f[12]), children: Number(f[13]) + Number(f[14]) };
  } catch {
    return undefined;
  }
}

/** All cores together: busy and total ticks from the first line of /proc/stat, and how many cores it sums. */
function machineTicks(): { busy: number; total: number; cores: number } | undefined {
  try {
    const lines = readFileSync('/proc/stat', 'utf8').split('\n');
    const [user, nice, system, idle, iowait, irq, softirq, steal] = lines[0]!.trim().split(/\s+/).slice(1, 9).map(Number) as number[];
    const busy = user! + nice! + system! + irq! + softirq! + steal!;
    return { busy, total: busy + idle! + iowait!, cores: lines.filter((l) => /^cpu\d+ /.test(l)).length || availableParallelism() };
  } catch {
    return undefined;
  }
}
