import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

// Read once, at import, before any pinning: availableParallelism() counts the cores this process may
// use, so once pinned to one it says 1, and the pins would never be undone.
export const TWO_CORES = availableParallelism() >= 2;

/** Pins every thread of a process to `cores` (taskset -a: its GC and libuv threads too); a no-op with one core. */
export function pinProcess(pid: number | undefined, cores: string): void {
  if (pid && TWO_CORES) spawnSync('taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'ignore' });
}
