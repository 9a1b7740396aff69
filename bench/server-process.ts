import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The path of a script in bench/, wherever the bench is run from. */
export const benchScript = (name: string): string => fileURLToPath(new URL(`./${name}`, import.meta.url));

/**
 * Starts a bench server (node with `args`) in a process of its own, with an IPC channel, and waits
 * for the JSON line it prints first (its URL, or the reference's targets).
 */
export async function startServerProcess(args: string[]): Promise<{ proc: ChildProcess; info: unknown }> {
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const [line] = (await once(createInterface({ input: proc.stdout! }), 'line')) as [string];
  return { proc, info: JSON.parse(line) };
}
