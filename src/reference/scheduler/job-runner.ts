import type { FixtureTask } from '../../client/fixture-job.ts';
import type { AllocationFs } from './alloc-fs.ts';

export type TaskState = 'pending' | 'running' | 'dead';

/**
 * Plays what a fixture task's shell script does on a real node (src/client/fixture-job.ts
 * FIXTURE_TASK_SCRIPT): its files and its stdout/stderr bytes are there when it starts (AllocationFs
 * writes them), then every `everyMs` it appends "tick <n>\n" to local/<file> and to stdout, `count`
 * times, and it stays alive `holdMs` more. Real timers, real files.
 */
export class TaskRunner {
  state: TaskState = 'running';
  readonly startedAt = new Date();
  finishedAt?: Date;
  private timer?: NodeJS.Timeout;
  private ticks = 0;
  /** Appends are chained so ticks land in order even when the disk is slow. */
  private writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly fs: AllocationFs,
    private readonly allocId: string,
    private readonly task: FixtureTask,
    private readonly onExit: () => void,
  ) {
    const ticks = task.ticks;
    if (ticks && ticks.count > 0) this.timer = setTimeout(() => this.tick(), ticks.everyMs);
    else this.hold();
  }

  private tick(): void {
    const ticks = this.task.ticks!;
    this.ticks += 1;
    const line = `tick ${this.ticks}\n`;
    const path = `${this.task.name}/local/${ticks.file}`;
    // The allocation may have been collected under a running task (a GC fault): the writes then fail, like the task's would.
    const n = this.ticks;
    this.writes = this.writes
      .then(() => this.fs.append(this.allocId, path, line))
      .then(() => (this.task.logsDisabled ? undefined : this.fs.appendLog(this.allocId, this.task.name, 'stdout', line)))
      .then(() => (n === ticks.truncateAt ? this.fs.truncate(this.allocId, path) : undefined))
      .then(() => (n === ticks.deleteAt ? this.fs.remove(this.allocId, path) : undefined))
      .catch(() => undefined);
    // The script stops ticking once it has deleted its file.
    if (this.ticks < ticks.count && this.ticks !== ticks.deleteAt) this.timer = setTimeout(() => this.tick(), ticks.everyMs);
    else this.hold();
  }

  private hold(): void {
    this.timer = setTimeout(() => void this.writes.then(() => this.exit()), this.task.holdMs ?? 0);
  }

  private exit(): void {
    if (this.state === 'dead') return;
    this.state = 'dead';
    this.finishedAt = new Date();
    this.onExit();
  }

  /** Kills the task (the job was stopped): no more writes; resolves once the pending ones landed. */
  async kill(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.writes;
    if (this.state !== 'dead') {
      this.state = 'dead';
      this.finishedAt = new Date();
    }
  }
}
