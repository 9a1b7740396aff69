import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { constants } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { LogRotator } from './log-rotator.ts';

export type TaskState = 'pending' | 'running' | 'dead';

/** One entry of a task's event list, with the fields of Nomad's api.TaskEvent a reader looks at. */
export interface TaskEvent {
  Type: string;
  Time: number;
  DisplayMessage: string;
  Details: Record<string, string>;
  ExitCode: number;
  Signal: number;
  Message: string;
}

export interface TemplateToRender {
  /** Relative to the task's directory (Nomad's DestPath). */
  destPath: string;
  text: string;
  /** Octal permissions, as Nomad's Perms ("0644"). */
  perms: string;
}

/** Everything the reference's raw_exec driver needs to run one task of a placed allocation. */
export interface TaskLaunch {
  allocDir: string;
  name: string;
  command: string;
  args: string[];
  /** The task's whole environment: the job's Env and the NOMAD_* variables (see taskEnvironment). */
  env: Record<string, string>;
  /** Already rendered: templates are written before the task starts, as Nomad's template hook does. */
  templates: TemplateToRender[];
  logs: { disabled: boolean; maxFiles: number; maxFileSizeMB: number };
  killTimeoutMs: number;
  killSignal: NodeJS.Signals;
}

const nowNanos = () => Date.now() * 1_000_000;

/**
 * The directories of one task as Nomad's client builds them for a driver without filesystem
 * isolation (client/allocdir/task_dir.go newTaskDir and Build; alloc_dir.go: TaskLocal "local",
 * TaskSecrets "secrets", TaskPrivate "private", TmpDirName "tmp"), beside the shared alloc/ with
 * logs/, tmp/ and data/ (alloc_dir.go SharedAllocDirs).
 */
export function taskDirs(allocDir: string, task: string) {
  const dir = join(allocDir, task);
  return { dir, local: join(dir, 'local'), secrets: join(dir, 'secrets'), tmp: join(dir, 'tmp'), private: join(dir, 'private'), shared: join(allocDir, 'alloc'), logs: join(allocDir, 'alloc', 'logs') };
}

/**
 * A task run for real by the reference's raw_exec driver: its command as a process of its own
 * process group in its task directory, its stdout and stderr written to rotated log files under
 * alloc/logs (or discarded when logging is disabled), its exit code deciding whether it failed.
 * Stopping it sends its kill signal (raw_exec's default SIGINT) to the whole group and SIGKILL once
 * its kill timeout has passed, as Nomad's executor does (drivers/shared/executor Shutdown).
 */
export class TaskProcess {
  state: TaskState = 'pending';
  failed = false;
  startedAt?: Date;
  finishedAt?: Date;
  exitCode?: number;
  readonly events: TaskEvent[] = [];
  private child?: ChildProcess;
  private readonly exited: Promise<void>;
  private markExited!: () => void;
  private killing = false;
  private readonly rotators: LogRotator[] = [];

  private constructor(
    private readonly launch: TaskLaunch,
    private readonly onChange: (task: TaskProcess) => void,
  ) {
    this.exited = new Promise((r) => (this.markExited = r));
    this.event('Received', 'Task received by client');
  }

  /**
   * A task whose driver config the driver cannot take: it never starts and is dead and failed, with
   * a "Failed Validation" event (client/allocrunner/taskrunner/task_runner.go runDriver:
   * "failed to parse config: " and the decoding errors).
   */
  static invalid(launch: TaskLaunch, reason: string, onChange: (task: TaskProcess) => void): TaskProcess {
    const task = new TaskProcess(launch, onChange);
    task.failed = true;
    task.event('Failed Validation', `failed to parse config: ${reason}`);
    task.finish();
    return task;
  }

  /** Sets the task up (directories, templates) and starts it; `onChange` hears of its start and its end. */
  static async start(launch: TaskLaunch, onChange: (task: TaskProcess) => void): Promise<TaskProcess> {
    const task = new TaskProcess(launch, onChange);
    await task.setUp();
    task.run();
    return task;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  private event(type: string, message: string, extra: Partial<TaskEvent> = {}): void {
    this.events.push({ Type: type, Time: nowNanos(), DisplayMessage: message, Details: {}, ExitCode: 0, Signal: 0, Message: '', ...extra });
  }

  private async setUp(): Promise<void> {
    const dirs = taskDirs(this.launch.allocDir, this.launch.name);
    for (const d of [dirs.local, dirs.secrets, dirs.tmp, dirs.private, join(dirs.shared, 'tmp'), join(dirs.shared, 'data'), dirs.logs]) await mkdir(d, { recursive: true });
    this.event('Task Setup', 'Building Task Directory');
    for (const t of this.launch.templates) {
      const dest = resolve(dirs.dir, t.destPath);
      // The validation refused a destination outside the task directory; this guards the disk anyway.
      if (relative(dirs.dir, dest).startsWith(`..${sep}`)) throw new Error(`template destination ${t.destPath} escapes the task directory`);
      await mkdir(dirname(dest), { recursive: true });
      await writeFile(dest, t.text);
      await chmod(dest, Number.parseInt(t.perms || '0644', 8));
    }
  }

  private run(): void {
    const dirs = taskDirs(this.launch.allocDir, this.launch.name);
    const logs = this.launch.logs;
    const child = spawn(this.launch.command, this.launch.args, {
      cwd: dirs.dir,
      env: this.launch.env,
      // Its own process group, so that stopping the task stops whatever its command started.
      detached: true,
      stdio: ['ignore', logs.disabled ? 'ignore' : 'pipe', logs.disabled ? 'ignore' : 'pipe'],
    });
    this.child = child;
    if (!logs.disabled) {
      for (const stream of ['stdout', 'stderr'] as const) {
        const rotator = new LogRotator(dirs.logs, `${this.launch.name}.${stream}`, logs.maxFiles, logs.maxFileSizeMB * 1024 * 1024);
        this.rotators.push(rotator);
        child[stream]!.on('data', (chunk: Buffer) => {
          try {
            rotator.write(chunk);
          } catch {
            // The allocation's directory went (collected under a running task): the output is lost, as it would be.
            rotator.close();
          }
        });
      }
    }
    child.once('spawn', () => {
      this.state = 'running';
      this.startedAt = new Date();
      this.event('Started', 'Task started by client');
      this.onChange(this);
    });
    child.once('error', (err) => {
      if (this.state !== 'pending') return;
      this.failed = true;
      this.event('Driver Failure', `failed to launch command with executor: ${err.message}`);
      this.finish();
    });
    // Once the task's process has exited, whatever it left in its group is killed, as the executor
    // kills the process tree after the task (drivers/shared/executor/executor.go Shutdown,
    // killProcessTree); then 'close' comes with the output pipes drained, and the logs are complete.
    child.once('exit', () => this.signalGroup('SIGKILL'));
    child.once('close', (code, signal) => {
      if (this.state === 'dead') return;
      this.exitCode = code ?? undefined;
      const signalNumber = signal ? signalNumberOf(signal) : 0;
      this.event('Terminated', `Exit Code: ${code ?? 0}${signal ? `, Signal: ${signalNumber}` : ''}`, { ExitCode: code ?? 0, Signal: signalNumber });
      if (this.killing) this.event('Killed', 'Task successfully killed');
      // A task the client killed has not failed; one that ended by itself failed unless it exited 0.
      this.failed = !this.killing && (code !== 0 || signal !== null);
      this.finish();
    });
  }

  private finish(): void {
    for (const r of this.rotators) r.close();
    this.state = 'dead';
    this.finishedAt = new Date();
    this.markExited();
    this.onChange(this);
  }

  /** Stops the task: its kill signal to the group, SIGKILL after the kill timeout; resolves once it has exited. */
  async kill(): Promise<void> {
    if (this.state === 'dead') return;
    if (this.state === 'pending' && !this.child?.pid) return this.exited;
    if (!this.killing) {
      this.killing = true;
      this.event('Killing', 'Sent interrupt. Waiting for the kill timeout before killing the task.', { Details: { kill_timeout: `${this.launch.killTimeoutMs}ms` } });
      this.signalGroup(this.launch.killSignal);
      const hard = setTimeout(() => this.signalGroup('SIGKILL'), this.launch.killTimeoutMs);
      hard.unref();
      void this.exited.then(() => clearTimeout(hard));
    }
    return this.exited;
  }

  /**
   * Sends a signal to the task's own process (not its group), as raw_exec's executor does
   * (drivers/shared/executor/executor.go UniversalExecutor.Signal: childCmd.Process.Signal), after a
   * "Signaling" event (client/allocrunner/taskrunner/lifecycle.go TaskRunner.Signal; the message is
   * nomad/structs TaskEvent's for TaskSignaling). False when the task is not running: Nomad has no
   * driver handle then ("Task not running").
   */
  signal(name: string): boolean {
    const pid = this.child?.pid;
    if (this.state !== 'running' || !pid) return false;
    this.event('Signaling', `Task being sent signal ${name}`, { Details: { signal: name } });
    this.onChange(this);
    try {
      process.kill(pid, rawExecSignal(name));
    } catch {
      // It exited meanwhile.
    }
    return true;
  }

  /** At once and synchronously (the reference's process is exiting): SIGKILL to the group. */
  killNow(): void {
    if (this.state !== 'dead') this.signalGroup('SIGKILL');
  }

  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (!pid) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/**
 * The signals raw_exec sends by name (consul-template's signals.SignalLookup on unix, which
 * drivers/rawexec/driver.go SignalTask reads); any other name sends SIGINT instead ("unknown
 * signal to send to task, using SIGINT instead"). SIGNULL is signal 0: no signal, an existence check.
 */
const RAW_EXEC_SIGNALS = new Set(['SIGABRT', 'SIGALRM', 'SIGBUS', 'SIGCONT', 'SIGFPE', 'SIGHUP', 'SIGILL', 'SIGINT', 'SIGIO', 'SIGIOT', 'SIGKILL', 'SIGPIPE', 'SIGPROF', 'SIGQUIT', 'SIGSEGV', 'SIGSTOP', 'SIGSYS', 'SIGTERM', 'SIGTRAP', 'SIGTSTP', 'SIGTTIN', 'SIGTTOU', 'SIGUSR1', 'SIGUSR2', 'SIGWINCH', 'SIGXCPU', 'SIGXFSZ']);

export function rawExecSignal(name: string): NodeJS.Signals | 0 {
  if (name === 'SIGNULL') return 0;
  return RAW_EXEC_SIGNALS.has(name) && name in constants.signals ? (name as NodeJS.Signals) : 'SIGINT';
}

function signalNumberOf(signal: NodeJS.Signals): number {
  return constants.signals[signal] ?? 0;
}
