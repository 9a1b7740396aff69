import { availableParallelism } from 'node:os';
import { readdirSync, readFileSync } from 'node:fs';

/** Linux's clock tick for /proc CPU times (sysconf(_SC_CLK_TCK), 100 on every Linux platform Node runs on). */
const TICKS_PER_SECOND = 100;

/**
 * The CPU used over a scenario's run, each figure in percent of one core (as top shows it: 156% is
 * a core and a half): the machine's (all its cores), the target's process where it is on this
 * machine, and the generator's own (this process with every thread, plus the children it waited
 * for, such as k6). Each side also gives how many cores it may run on (its affinity) and its
 * busiest thread: one thread can use one core at most, so a full thread is a limit of its own.
 */
export interface CpuUsage {
  windowMs: number;
  /** What part of the run the figures cover, where not all of it (e.g. the seconds before the first stream ended). */
  about?: string;
  /** The machine's cores. */
  cores: number;
  /** All cores' busy time (absent without /proc/stat). */
  machinePercent?: number;
  /** The target's process; absent with `targetUnmeasured` saying why. */
  target?: ProcessCpu & { pid: number; name: string };
  targetUnmeasured?: string;
  /** Where the target is this very process (the embedded reference): its CPU is inside the generator's. */
  targetInGenerator?: boolean;
  generator: ProcessCpu;
  /** What neither the target nor the generator used: other processes on the machine. */
  othersPercent?: number;
}

export interface ProcessCpu {
  percent: number;
  /** The cores it may run on (Cpus_allowed_list); absent where /proc does not say. */
  cores?: number;
  /** The threads that used the most, busiest first (at most 4), named where known. */
  threads: { name: string; percent: number }[];
}

interface ProcessSample {
  own: number;
  children: number;
  threads: Map<number, number>;
}

interface Sample {
  at: number;
  machine?: { busy: number; total: number; cores: number };
  self?: ProcessSample;
  /** Node's own figure for this process, where /proc is not there. */
  selfFallback: number;
  target?: ProcessSample;
}

/**
 * Samples /proc while a scenario runs: at its start, every `everyMs`, and at its end. Threads are
 * summed interval by interval, so a worker that ends before the scenario does still counts.
 */
export class CpuWatch {
  private readonly samples: Sample[] = [];
  private readonly timer: NodeJS.Timeout;
  private readonly targetPid: number | undefined;

  constructor(
    private readonly target: { pid: number; name: string } | { why: string },
    /** OS thread ids of this process with a name (the main thread is named by the watch; workers report theirs). */
    private readonly threadNames: () => Map<number, string> = () => new Map(),
    everyMs = 500,
  ) {
    this.targetPid = 'pid' in target && target.pid !== process.pid ? target.pid : undefined;
    this.samples.push(this.sample());
    this.timer = setInterval(() => this.samples.push(this.sample()), everyMs);
    this.timer.unref();
  }

  /**
   * The CPU used from the start to the end, or over `window` (epoch milliseconds, as
   * performance.timeOrigin + performance.now()) when given: the figures of the moments that matter,
   * such as the seconds before the first stream that ended, which a run-long average would dilute.
   * The window is widened to the samples around it; `about` says what it is.
   */
  stop(window?: { fromEpochMs: number; untilEpochMs: number; about: string }): CpuUsage {
    clearInterval(this.timer);
    this.samples.push(this.sample());
    let start = 0;
    let end = this.samples.length - 1;
    if (window) {
      const last = this.samples.findIndex((x, i) => i > 0 && x.at >= window.untilEpochMs);
      if (last > 0) end = last;
      for (let i = end - 1; i >= 0; i--) {
        start = i;
        if (this.samples[i]!.at <= window.fromEpochMs) break;
      }
    }
    const samples = this.samples.slice(start, end + 1);
    const a = samples[0]!;
    const b = samples[samples.length - 1]!;
    const windowMs = b.at - a.at;
    const seconds = windowMs / 1000;
    const pct = (ticks: number) => (seconds > 0 ? Math.round((ticks / TICKS_PER_SECOND / seconds) * 1000) / 10 : 0);
    const cores = b.machine?.cores ?? availableParallelism();
    const machinePercent = a.machine && b.machine && b.machine.total > a.machine.total ? Math.round(((b.machine.busy - a.machine.busy) / (b.machine.total - a.machine.total)) * cores * 1000) / 10 : undefined;
    const names = this.threadNames();
    const selfCores = allowedCores('/proc/self/status');
    const generator: ProcessCpu = {
      percent: a.self && b.self ? pct(b.self.own - a.self.own + (b.self.children - a.self.children)) : pct(b.selfFallback - a.selfFallback),
      ...(selfCores ? { cores: selfCores } : {}),
      threads: busiest(samples.map((x) => x.self?.threads), pct, (tid) => (tid === process.pid ? 'main thread' : (names.get(tid) ?? `other thread ${tid}`))),
    };
    const usage: CpuUsage = { windowMs: Math.round(windowMs), ...(window ? { about: window.about } : {}), cores, ...(machinePercent !== undefined ? { machinePercent } : {}), generator };
    if ('why' in this.target) usage.targetUnmeasured = this.target.why;
    else if (this.target.pid === process.pid) usage.targetInGenerator = true;
    else if (a.target && b.target) {
      const targetCores = allowedCores(`/proc/${this.target.pid}/status`);
      usage.target = {
        ...this.target,
        percent: pct(b.target.own - a.target.own),
        ...(targetCores ? { cores: targetCores } : {}),
        threads: busiest(samples.map((x) => x.target?.threads), pct, (tid) => (tid === this.targetPid ? 'main thread' : `thread ${tid}`)),
      };
    } else usage.targetUnmeasured = `could not read /proc/${this.target.pid}/stat (the process ended?)`;
    if (machinePercent !== undefined && (usage.target || usage.targetInGenerator)) {
      usage.othersPercent = Math.max(0, Math.round((machinePercent - generator.percent - (usage.target?.percent ?? 0)) * 10) / 10);
    }
    return usage;
  }

  private sample(): Sample {
    const fallback = process.cpuUsage();
    const self = processSample('self');
    const target = this.targetPid !== undefined ? processSample(String(this.targetPid)) : undefined;
    return {
      at: performance.timeOrigin + performance.now(),
      machine: machineTicks(),
      ...(self ? { self } : {}),
      selfFallback: ((fallback.user + fallback.system) / 1e6) * TICKS_PER_SECOND,
      ...(target ? { target } : {}),
    };
  }
}

/** The threads that used the most over consecutive samples of one process, summed interval by interval. */
function busiest(samples: (Map<number, number> | undefined)[], pct: (ticks: number) => number, name: (tid: number) => string): { name: string; percent: number }[] {
  const ticks = new Map<number, number>();
  for (let i = 1; i < samples.length; i++) {
    const before = samples[i - 1];
    const now = samples[i];
    if (!before || !now) continue;
    // A thread not in the sample before started since: all its time is in this interval.
    for (const [tid, t] of now) ticks.set(tid, (ticks.get(tid) ?? 0) + t - (before.get(tid) ?? 0));
  }
  return [...ticks.entries()]
    .sort((x, y) => y[1] - x[1])
    .slice(0, 4)
    .map(([tid, t]) => ({ name: name(tid), percent: pct(t) }));
}

/** A process's CPU and each of its threads', from /proc/<pid>/stat and /proc/<pid>/task/<tid>/stat; undefined where it cannot be read. */
function processSample(pid: string): ProcessSample | undefined {
  const whole = cpuTicks(`/proc/${pid}/stat`);
  if (!whole) return undefined;
  const threads = new Map<number, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const t = cpuTicks(`/proc/${pid}/task/${tid}/stat`);
      if (t) threads.set(Number(tid), t.own);
    }
  } catch {
    // the process ended meanwhile: its whole figure still counts
  }
  return { ...whole, threads };
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

/** How many cores a process may run on (its affinity, "0-1,4" in Cpus_allowed_list). */
function allowedCores(statusFile: string): number | undefined {
  try {
    const list = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync(statusFile, 'utf8'))?.[1];
    if (!list) return undefined;
    let n = 0;
    for (const part of list.split(',')) {
      const [lo, hi] = part.split('-').map(Number);
      n += hi === undefined ? 1 : hi - lo! + 1;
    }
    return n > 0 ? n : undefined;
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
