import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { runPrefixOfRun } from './run-names.ts';
import { KIT_BOUNDS, KIT_MARGINS } from './bounds/bound.ts';

const WAIT_MS = KIT_BOUNDS.lock.ms;
const POLL_MS = KIT_MARGINS.lockPoll.ms;

/**
 * Keeps the suite files that declare the same `lock` from running at the same time in different
 * workers, for what is global to a target and that several files change or read back (the
 * scheduler's event buffer: one file's allocations flood it while another reads its own window
 * back). Call it at the top of the file: the file takes the lock before its first rule and gives it
 * back after its last. The lock is a directory named after the run and the lock (mkdir is atomic
 * across vitest's worker threads and processes), so another run never waits on it.
 */
export function runAlone(lock: string): void {
  let held: string | undefined;
  beforeAll(async () => {
    held = await acquire(lock, 'another suite file');
  }, WAIT_MS + KIT_BOUNDS.lockHookBeyond.ms);
  afterAll(async () => {
    if (held) await rm(held, { recursive: true, force: true });
    held = undefined;
  });
}

/**
 * Runs `body` while holding `lock`, for a part of a rule that changes what is global to a target
 * and that rules running side by side (in one file or in several workers) would otherwise change
 * at the same time: the node's scheduling eligibility, which every rule that toggles it reads
 * first and puts back. The same directory lock as runAlone's, taken for `body` only.
 */
export async function exclusively<T>(lock: string, body: () => Promise<T>): Promise<T> {
  const held = await acquire(lock, 'another rule');
  try {
    return await body();
  } finally {
    await rm(held, { recursive: true, force: true });
  }
}

/** Takes the lock (the directory of the run and the lock), waiting while someone else holds it. */
async function acquire(lock: string, holder: string): Promise<string> {
  const path = join(tmpdir(), `${runPrefixOfRun()}-${lock}.lock`);
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      await mkdir(path);
      return path;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (Date.now() > deadline) throw new Error(`${holder} held the lock ${path} for ${WAIT_MS / 60_000} min`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
}
