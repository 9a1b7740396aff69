import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { ConfigError } from './load-config.ts';
import { parseJsonc } from './jsonc.ts';

/**
 * Reads a JSON file the user or the package supplies (waivers, expectations) and checks it against
 * its schema; anything wrong is a usage error that names the file and each bad field. Comments and
 * trailing commas are allowed, as in the config file, so a user may note why a waiver exists.
 */
export function readJsonFile<S extends z.ZodType>(file: string, schema: S, what: string): z.infer<S> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`${what} ${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  let raw: unknown;
  try {
    raw = parseJsonc(text);
  } catch (err) {
    throw new ConfigError(`${what} ${file}: cannot be read as JSON (${(err as Error).message})`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(`${what} ${file}:\n${parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`);
  }
  return parsed.data;
}
