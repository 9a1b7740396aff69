import { statfs } from 'node:fs/promises';
import { cpus, freemem, totalmem, uptime } from 'node:os';

interface DiskStat {
  Available: number;
  Device: string;
  InodesUsedPercent: number;
  Mountpoint: string;
  Size: number;
  Used: number;
  UsedPercent: number;
}

async function diskStat(path: string): Promise<DiskStat> {
  const s = await statfs(path);
  const size = s.blocks * s.bsize;
  const available = s.bavail * s.bsize;
  const used = size - s.bfree * s.bsize;
  const inodesUsed = s.files > 0 ? ((s.files - s.ffree) / s.files) * 100 : 0;
  return { Available: available, Device: 'rootfs', InodesUsedPercent: inodesUsed, Mountpoint: path, Size: size, Used: used, UsedPercent: size > 0 ? (used / size) * 100 : 0 };
}

/**
 * How the node's usage departs from spec 002's Client stats response, as Nomad's does
 * (client/hoststats/host.go HostStats): CPU entries carry TotalPercent and TotalTicks instead of
 * Total (since 1.6.0), and DeviceStats is null when no device plugin reports (client/devicemanager
 * manager.AllStats returns a nil slice).
 */
export interface HostStatsDeviations {
  cpuTotalSplit: boolean;
  deviceStatsNull: boolean;
}

/** The node's resource usage, read from the machine it runs on. */
export async function hostStats(allocRoot: string, deviations: HostStatsDeviations = { cpuTotalSplit: false, deviceStatsNull: false }): Promise<Record<string, unknown>> {
  const cores = cpus();
  const memTotal = totalmem();
  const memFree = freemem();
  const ticks = cores.reduce((sum, c) => sum + c.times.user + c.times.sys, 0);
  return {
    AllocDirStats: await diskStat(allocRoot),
    CPU: cores.map((c, i) => {
      const total = c.times.user + c.times.nice + c.times.sys + c.times.idle + c.times.irq;
      const pct = (v: number) => (total > 0 ? (v / total) * 100 : 0);
      const entry = { CPU: `cpu${i}`, Idle: pct(c.times.idle), System: pct(c.times.sys), User: pct(c.times.user) };
      if (deviations.cpuTotalSplit) return { ...entry, TotalPercent: pct(total - c.times.idle), TotalTicks: total - c.times.idle };
      return { ...entry, Total: pct(total - c.times.idle) };
    }),
    CPUTicksConsumed: ticks,
    DeviceStats: deviations.deviceStatsNull ? null : [],
    DiskStats: [await diskStat('/')],
    Memory: { Available: memFree, Free: memFree, Total: memTotal, Used: memTotal - memFree },
    Timestamp: Date.now() * 1_000_000,
    Uptime: Math.floor(uptime()),
  };
}

/**
 * An allocation's usage: the figures of this process stand in for its tasks' processes. With
 * `reportsTasks` false (a stopped allocation, like Nomad's: client/allocrunner alloc_runner.go
 * LatestAllocStats lists only tasks that have a usage sample and sums only running ones), Tasks is
 * empty and the sums are zero.
 */
export function allocationStats(tasks: string[], reportsTasks = true): Record<string, unknown> {
  if (!reportsTasks) {
    const zero = {
      CpuStats: { Measured: [], Percent: 0, SystemMode: 0, ThrottledPeriods: 0, ThrottledTime: 0, TotalTicks: 0, UserMode: 0 },
      MemoryStats: { Cache: 0, KernelMaxUsage: 0, KernelUsage: 0, MaxUsage: 0, RSS: 0, Swap: 0, Measured: [] },
    };
    return { ResourceUsage: zero, Tasks: {}, Timestamp: 0 };
  }
  const usage = process.resourceUsage();
  const mem = process.memoryUsage();
  const resourceUsage = {
    CpuStats: { Measured: ['System Mode', 'User Mode', 'Percent'], Percent: 0, SystemMode: usage.systemCPUTime / 1000, ThrottledPeriods: 0, ThrottledTime: 0, TotalTicks: (usage.userCPUTime + usage.systemCPUTime) / 1000, UserMode: usage.userCPUTime / 1000 },
    MemoryStats: { Cache: 0, KernelMaxUsage: 0, KernelUsage: 0, MaxUsage: usage.maxRSS * 1024, RSS: mem.rss, Swap: 0, Measured: ['RSS', 'Max Usage'] },
  };
  const now = Date.now() * 1_000_000;
  return {
    ResourceUsage: resourceUsage,
    Tasks: Object.fromEntries(tasks.map((t) => [t, { Pids: null, ResourceUsage: resourceUsage, Timestamp: now }])),
    Timestamp: now,
  };
}
