import { readFileSync } from 'node:fs';

/** A process's CPU time so far in µs (utime + stime, all its threads, from /proc in clock ticks of 10 ms); NaN where /proc is not. */
export function processCpuMicros(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return NaN;
  }
}
