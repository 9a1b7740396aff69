import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ROOT } from './run-cli.ts';

/**
 * Where a real product binary is, as ../shared/bin/README.md says tests look for one: an environment
 * variable, then the name on PATH, then `../shared/bin/unpack <name>` (which unpacks an .xz once into
 * a cache and checks it against SHA256SUMS). Undefined, with why, where there is none: the test says
 * so and skips.
 */
export interface FoundTool {
  path?: string;
  why: string;
}

const executable = (p: string) => {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

export const SHARED_BIN = join(ROOT, '..', 'shared', 'bin');

/**
 * `envVar` wins; `onPath` is looked up on PATH (undefined: not looked up, for a tool whose PATH name
 * could be another version); `unpackName` is what ../shared/bin/unpack knows it by.
 */
export function findSharedTool(envVar: string, onPath: string | undefined, unpackName: string): FoundTool {
  const fromEnv = process.env[envVar];
  if (fromEnv) return executable(fromEnv) ? { path: fromEnv, why: `${envVar}=${fromEnv}` } : { why: `${envVar}=${fromEnv} is not an executable file` };
  if (onPath) {
    for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
      const p = join(dir, onPath);
      if (executable(p)) return { path: p, why: `${onPath} on PATH (${p})` };
    }
  }
  const unpack = join(SHARED_BIN, 'unpack');
  if (!existsSync(unpack)) return { why: `no ${unpackName}: ${envVar} is unset${onPath ? `, there is no ${onPath} on PATH` : ''} and there is no ${unpack}` };
  const res = spawnSync(unpack, [unpackName], { encoding: 'utf8', timeout: 120_000 });
  const path = res.stdout.trim().split('\n').pop() ?? '';
  if (res.status !== 0 || !path || !executable(path)) return { why: `../shared/bin/unpack ${unpackName} failed (${res.status ?? res.signal}): ${(res.stderr || res.stdout).trim().slice(0, 300)}` };
  return { path, why: `../shared/bin/unpack ${unpackName} (${path})` };
}
