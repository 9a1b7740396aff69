import { readlinkSync } from 'node:fs';

/** The OS id of the calling thread (Linux: /proc/thread-self is "<pid>/task/<tid>"); undefined elsewhere. */
export function currentThreadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) ? tid : undefined;
  } catch {
    return undefined;
  }
}
