import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { findK6 } from '../../src/load/k6-engine.ts';
import { ROOT } from './run-cli.ts';

/**
 * The real k6 for a test: $K6, else `k6` on PATH, else ../shared/bin/k6 (see ../shared/bin/README.md);
 * undefined where there is none, for the test to say so and skip.
 */
export function realK6(): string | undefined {
  const found = findK6(process.env);
  if (found) return found;
  const shared = join(ROOT, '..', 'shared', 'bin', 'k6');
  try {
    accessSync(shared, constants.X_OK);
    return shared;
  } catch {
    return undefined;
  }
}
