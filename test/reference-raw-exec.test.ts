import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogRotator } from '../src/reference/scheduler/log-rotator.ts';
import { TaskProcess, type TaskLaunch } from '../src/reference/scheduler/task-process.ts';
import { processRunning } from './support/process-alive.ts';

/**
 * The reference's raw_exec driver on its own: real processes in Nomad's task directory layout,
 * their output in rotated log files, their exit code deciding failure, and a stop that ends them.
 */
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'stackproof-raw-exec-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

let n = 0;
async function run(script: string, over: Partial<TaskLaunch> = {}): Promise<{ task: TaskProcess; allocDir: string }> {
  n += 1;
  const allocDir = join(root, `alloc-${n}`);
  const launch: TaskLaunch = {
    allocDir,
    name: 'app',
    command: '/bin/sh',
    args: ['-c', script],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NOMAD_TASK_DIR: join(allocDir, 'app', 'local'), NOMAD_SECRETS_DIR: join(allocDir, 'app', 'secrets'), GREETING: 'hello' },
    templates: [],
    logs: { disabled: false, maxFiles: 2, maxFileSizeMB: 1 },
    killTimeoutMs: 5_000,
    killSignal: 'SIGINT',
    ...over,
  };
  const task = await TaskProcess.start(launch, () => undefined);
  return { task, allocDir };
}

const exited = async (task: TaskProcess, ms = 10_000) => {
  for (const end = Date.now() + ms; task.state !== 'dead'; ) {
    if (Date.now() > end) throw new Error(`task still ${task.state} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

const alive = processRunning;

describe('raw_exec tasks', () => {
  it('run in the task directory with its environment, templates written first, output in alloc/logs', async () => {
    const { task, allocDir } = await run('cat "$NOMAD_SECRETS_DIR/in.txt"; echo "$GREETING from $(pwd)"; echo oops >&2', {
      templates: [{ destPath: 'secrets/in.txt', text: 'rendered\n', perms: '0600' }],
    });
    await exited(task);
    expect(task.failed).toBe(false);
    expect(task.exitCode).toBe(0);
    const logs = join(allocDir, 'alloc', 'logs');
    expect(await readFile(join(logs, 'app.stdout.0'), 'utf8')).toBe(`rendered\nhello from ${join(allocDir, 'app')}\n`);
    expect(await readFile(join(logs, 'app.stderr.0'), 'utf8')).toBe('oops\n');
    expect(((await stat(join(allocDir, 'app', 'secrets', 'in.txt'))).mode & 0o777).toString(8)).toBe('600');
    for (const d of ['local', 'secrets', 'tmp', 'private']) expect((await stat(join(allocDir, 'app', d))).isDirectory()).toBe(true);
    expect(task.events.map((e) => e.Type)).toEqual(['Received', 'Task Setup', 'Started', 'Terminated']);
  });

  it('fail when their command exits non-zero, and say so in the Terminated event', async () => {
    const { task } = await run('exit 3');
    await exited(task);
    expect(task.failed).toBe(true);
    expect(task.events.at(-1)).toMatchObject({ Type: 'Terminated', ExitCode: 3 });
  });

  it('fail to start when the command does not exist', async () => {
    const { task } = await run('', { command: '/nonexistent/stackproof-command', args: [] });
    await exited(task);
    expect(task.failed).toBe(true);
    expect(task.events.at(-1)?.Type).toBe('Driver Failure');
  });

  it('write no log files when logging is disabled', async () => {
    const { task, allocDir } = await run('echo quiet', { logs: { disabled: true, maxFiles: 1, maxFileSizeMB: 1 } });
    await exited(task);
    expect(await readdir(join(allocDir, 'alloc', 'logs'))).toEqual([]);
  });

  it('stop on their kill signal, with what they started, and are not failed for it', async () => {
    // The shell execs its last command, and the signal is sent only once it has: a SIGINT that
    // reaches sh between two commands may be held until the next one ends (dash catches it under
    // -c), and the task would then stop only at the kill timeout, on a busy machine now and then.
    const { task, allocDir } = await run('sleep 30 & echo $! > "$NOMAD_TASK_DIR/child.pid"; exec sleep 30', { killTimeoutMs: 60_000 });
    const execed = async () => (await readFile(`/proc/${task.pid}/cmdline`, 'utf8').catch(() => '')).startsWith('sleep');
    for (const end = Date.now() + 20_000; !(await execed()); await new Promise((r) => setTimeout(r, 10))) {
      if (Date.now() > end) throw new Error('the task did not reach its last command in 20 s');
    }
    const child = Number(await readFile(join(allocDir, 'app', 'local', 'child.pid'), 'utf8'));
    const started = Date.now();
    await task.kill();
    // Far below the kill timeout: the kill signal ended it, not the SIGKILL that follows the timeout.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(task.failed).toBe(false);
    expect(alive(task.pid!)).toBe(false);
    expect(alive(child)).toBe(false);
    expect(task.events.map((e) => e.Type)).toContain('Killed');
  });

  it('are killed once the kill timeout has passed when they ignore their kill signal', async () => {
    const { task } = await run('trap "" INT; while :; do sleep 0.05; done', { killTimeoutMs: 300 });
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await task.kill();
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(250);
    expect(alive(task.pid!)).toBe(false);
  });
});

describe('log rotation', () => {
  it('starts a new file once one holds its size, keeps lines whole and only the newest files', async () => {
    const dir = await mkdtemp(join(root, 'logs-'));
    const rotator = new LogRotator(dir, 'app.stdout', 2, 100);
    const line = (i: number) => `line ${String(i).padStart(3, '0')} ${'x'.repeat(20)}\n`; // 30 bytes
    for (let i = 0; i < 20; i++) rotator.write(Buffer.from(line(i)));
    rotator.close();
    const files = (await readdir(dir)).sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()));
    // 3 lines (90 bytes) a file: 7 files written, the newest 2 kept.
    expect(files).toEqual(['app.stdout.5', 'app.stdout.6']);
    expect(await readFile(join(dir, 'app.stdout.5'), 'utf8')).toBe([15, 16, 17].map(line).join(''));
    expect(await readFile(join(dir, 'app.stdout.6'), 'utf8')).toBe([18, 19].map(line).join(''));
  });

  it('splits a line longer than a file', async () => {
    const dir = await mkdtemp(join(root, 'logs-'));
    const rotator = new LogRotator(dir, 'app.stderr', 5, 10);
    rotator.write(Buffer.from('a'.repeat(25)));
    rotator.close();
    expect((await readdir(dir)).sort()).toEqual(['app.stderr.0', 'app.stderr.1', 'app.stderr.2']);
    expect(await readFile(join(dir, 'app.stderr.2'), 'utf8')).toBe('aaaaa');
  });
});
