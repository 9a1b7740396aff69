// The embedded reference in a process of its own, so the load generator does not share its event loop.
// Over IPC it reports its memory after a forced GC and its open file descriptors (for the soak).
import { readdirSync } from 'node:fs';
import { startReference } from '../src/reference/reference.ts';
import { referenceTargets } from '../src/run/reference-targets.ts';

// argv[2]: the dialect (spec by default; hashicorp to stand beside a real Consul in the consul section).
const ref = await startReference(process.argv[2] === 'hashicorp' ? { dialect: 'hashicorp' } : {});
process.stdout.write(`${JSON.stringify(referenceTargets(ref))}\n`);
process.on('message', (msg) => {
  if (msg !== 'stats') return;
  (globalThis as { gc?: () => void }).gc?.();
  const mem = process.memoryUsage();
  process.send?.({ heapUsed: mem.heapUsed, rss: mem.rss, fds: readdirSync('/proc/self/fd').length });
});
process.on('SIGTERM', () => void ref.stop().then(() => process.exit(0)));
