import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The k6 binary: the K6 environment variable (a path) if it names one, else `k6` on PATH. */
export function findK6(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.K6 && executable(env.K6)) return env.K6;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && executable(join(dir, 'k6'))) return join(dir, 'k6');
  }
  return undefined;
}

export class K6Missing extends Error {
  constructor() {
    super(
      'k6 is not installed: there is no `k6` binary on PATH (nor at $K6). The k6 scripts are bundled in load/dist/ (`npm run build:k6`); run them where k6 is installed (`k6 run load/dist/<scenario>.js`), or use `--engine open` or `--engine autocannon` here.',
    );
  }
}

/** Splits a child's output chunks into whole lines (a chunk can end mid-line), each passed to `line`. */
export function lineSplitter(line: (text: string) => void): { write: (chunk: Buffer | string) => void; end: () => void } {
  let rest = '';
  return {
    write(chunk) {
      const parts = (rest + chunk.toString()).split(/\r?\n/);
      rest = parts.pop() ?? '';
      for (const p of parts) line(p);
    },
    end() {
      if (rest) line(rest);
      rest = '';
    },
  };
}

/**
 * Runs one bundled k6 script with the scenario's SP_* environment; resolves k6's exit code. Quiet (no
 * progress bar, the summary stays) and without k6's usage report, which would go to the internet.
 */
export function runK6(binary: string, script: string, env: Record<string, string>, log: (line: string) => void, signal?: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['run', '--quiet', '--no-usage-report', script], {
      env: { ...process.env, ...Object.fromEntries(Object.entries(env).map(([k, v]) => [`SP_${k}`, v])) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // k6 stops on SIGINT as on Ctrl-C in its own terminal: it ends its iterations and writes its summary.
    const onAbort = () => child.kill('SIGINT');
    signal?.addEventListener('abort', onAbort, { once: true });
    child.on('exit', () => signal?.removeEventListener('abort', onAbort));
    const out = lineSplitter(log);
    const err = lineSplitter(log);
    child.stdout.on('data', out.write);
    child.stderr.on('data', err.write);
    child.on('error', reject);
    child.on('close', (code) => {
      out.end();
      err.end();
      resolve(code ?? 1);
    });
  });
}

/** Each scenario's own bundled script, and how many HTTP requests one of its iterations sends. */
export const K6_SCRIPT: Record<string, { script: string; requestsPerIteration: number }> = {
  'oidc-code-flow': { script: 'oidc-code-flow.js', requestsPerIteration: 3 },
  'mesh-authorize': { script: 'mesh-authorize.js', requestsPerIteration: 1 },
  'mesh-leaf': { script: 'mesh-leaf.js', requestsPerIteration: 1 },
  'mesh-leaf-blocking': { script: 'mesh-leaf-blocking.js', requestsPerIteration: 1 },
  'mesh-roots': { script: 'mesh-roots.js', requestsPerIteration: 1 },
  'scheduler-logs': { script: 'scheduler-logs.js', requestsPerIteration: 1 },
};

/**
 * k6's constant-arrival-rate has no request cap, so --max-requests bounds the iterations instead:
 * at most floor(cap / requests per iteration), enforced by the scripts' iteration guard, and the
 * duration given to k6 is shortened to what those iterations need at the rate (so k6 does not idle on),
 * but never below 1 s, the least k6 accepts for an arrival-rate scenario.
 */
export function k6Schedule(rate: number, durationMs: number, maxRequests: number, requestsPerIteration: number): { iterations: number; durationMs: number; capped: boolean } {
  const byTime = Math.floor((rate * durationMs) / 1000);
  const byCap = Math.floor(maxRequests / requestsPerIteration);
  if (byCap >= byTime) return { iterations: byTime, durationMs, capped: false };
  return { iterations: byCap, durationMs: Math.min(durationMs, Math.max(1000, Math.ceil((byCap / rate) * 1000))), capped: true };
}
