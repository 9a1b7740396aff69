import { spawn, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { processRunning } from './process-alive.ts';

/**
 * CPU-bound processes that keep the machine busy while a test runs (issue 36), started and stopped
 * by PID, and the load average sampled while they run, so the log shows what the run was under.
 */
export class CpuStress {
  private readonly children: ChildProcess[] = [];
  private readonly samples: number[] = [];
  private timer: NodeJS.Timeout | undefined;

  /** Starts `count` busy loops (each a node process spinning on one core). */
  start(count: number): number[] {
    for (let i = 0; i < count; i++) {
      const child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
      this.children.push(child);
    }
    this.sample();
    this.timer = setInterval(() => this.sample(), 2_000);
    return this.pids();
  }

  pids(): number[] {
    return this.children.map((c) => c.pid!).filter((pid) => pid !== undefined);
  }

  /** Every busy loop still spinning (a loop that died would leave the run unstressed). */
  allRunning(): boolean {
    return this.children.length > 0 && this.pids().every((pid) => processRunning(pid));
  }

  private sample(): void {
    this.samples.push(loadavg()[0]!);
  }

  /** The 1-minute load average sampled since the last call: min, mean, max. */
  takeLoad(): { min: number; mean: number; max: number; samples: number } {
    this.sample();
    const s = this.samples.splice(0);
    const round = (n: number) => Math.round(n * 100) / 100;
    return { min: round(Math.min(...s)), mean: round(s.reduce((a, b) => a + b, 0) / s.length), max: round(Math.max(...s)), samples: s.length };
  }

  /** Kills every busy loop by PID and waits until none runs. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    for (const pid of this.pids()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    for (const until = Date.now() + 10_000; this.pids().some((pid) => processRunning(pid)) && Date.now() < until; ) await new Promise((r) => setTimeout(r, 50));
  }
}
