import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { isLoopback } from './loopback.ts';

/** The process listening on a target's port, or why it could not be found. */
export type ListeningProcess = { pid: number; name: string } | { why: string };

/**
 * Finds the process that listens on a loopback target's port, as `ss -ltnp` would: the listening
 * socket's inode from /proc/net/tcp and tcp6 (state 0A), then the process holding a descriptor
 * `socket:[inode]` in /proc/<pid>/fd. Only the user's own processes (or, as root, all) can be read;
 * a target elsewhere is not on this machine. Never throws: where it cannot say, it says why.
 */
export function findListeningProcess(url: string): ListeningProcess {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { why: `${url} is not a URL` };
  }
  if (!isLoopback(url)) return { why: `the target (${u.host}) is not on this machine's loopback, so its CPU is not measured here` };
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  let inodes: Set<string>;
  try {
    inodes = listeningInodes(port);
  } catch (err) {
    return { why: `could not read /proc/net/tcp (${(err as Error).message})` };
  }
  if (inodes.size === 0) return { why: `no listening socket on port ${port} in /proc/net/tcp or tcp6 (another network namespace, such as a container's?)` };
  let unreadable = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      unreadable += 1;
      continue;
    }
    for (const fd of fds) {
      let link: string;
      try {
        link = readlinkSync(`/proc/${entry}/fd/${fd}`);
      } catch {
        continue;
      }
      const m = /^socket:\[(\d+)\]$/.exec(link);
      if (m && inodes.has(m[1]!)) return { pid: Number(entry), name: processName(Number(entry)) };
    }
  }
  return { why: `the socket listening on port ${port} belongs to no process whose descriptors this user may read (${unreadable} processes could not be read; run as the target's user or as root)` };
}

/** Inodes of the sockets listening on `port`, IPv4 and IPv6. */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      if (file.endsWith('6')) continue;
      throw err;
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== '0A') continue;
      if (f[1]!.split(':')[1] === hex) inodes.add(f[9]!);
    }
  }
  return inodes;
}

/** The process's command name (/proc/<pid>/comm: "nomad", "bao", "consul", "node"). */
export function processName(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return `pid ${pid}`;
  }
}
