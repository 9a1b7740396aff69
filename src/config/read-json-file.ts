import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { ConfigError } from './load-config.ts';

/**
 * Reads a JSON file the user or the package supplies (waivers, expectations) and checks it against
 * its schema; anything wrong is a usage error that names the file and each bad field.
 */
export function readJsonFile<S extends z.ZodType>(file: string, schema: S, what: string): z.infer<S> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`${what} ${file}: cannot be read as JSON (${(err as Error).message})`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(`${what} ${file}:\n${parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`);
  }
  return parsed.data;
}
