import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The k6 binary on PATH, if any. */
export function findK6(env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'k6');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export class K6Missing extends Error {
  constructor() {
    super(
      'k6 is not installed: there is no `k6` binary on PATH. The k6 scripts are bundled in load/dist/ (`npm run build:k6`); run them where k6 is installed (`k6 run load/dist/<scenario>.js`), or use `--engine open` or `--engine autocannon` here.',
    );
  }
}

/** Runs one bundled k6 script with the scenario's environment; resolves k6's exit code. */
export function runK6(binary: string, script: string, env: Record<string, string>, log: (line: string) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['run', script], { env: { ...process.env, ...Object.fromEntries(Object.entries(env).map(([k, v]) => [`SP_${k}`, v])) }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d: Buffer) => log(d.toString().trimEnd()));
    child.stderr.on('data', (d: Buffer) => log(d.toString().trimEnd()));
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
}

/** Which bundled script runs a scenario (the mesh script drives all three mesh paths at once). */
export const K6_SCRIPT: Record<string, string> = {
  'oidc-code-flow': 'oidc.js',
  'mesh-authorize': 'mesh.js',
  'mesh-leaf': 'mesh.js',
  'mesh-roots': 'mesh.js',
  'scheduler-logs': 'scheduler.js',
};
