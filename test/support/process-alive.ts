import { readFileSync } from 'node:fs';

/**
 * Whether a process is still running: it exists and is not a zombie. A killed orphan waits as a
 * zombie until its new parent reaps it, and a container's PID 1 may never reap it.
 */
export function processRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
