import { writeFile } from 'node:fs/promises';
import { ConfigError } from '../../config/load-config.ts';

export interface SchemaFlags {
  /** Write the schema to this file instead of stdout. */
  out?: string;
}

/** Prints (or writes) the JSON Schema of the config file, for an editor to check it through `$schema`. */
export async function runSchemaCommand(flags: SchemaFlags): Promise<number> {
  const { configJsonSchema } = await import('../../config/config-json-schema.ts');
  const text = `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
  if (!flags.out) {
    process.stdout.write(text);
    return 0;
  }
  try {
    await writeFile(flags.out, text);
  } catch (err) {
    throw new ConfigError(`--out ${flags.out}: cannot be written (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  process.stderr.write(`wrote the config schema to ${flags.out}\n`);
  return 0;
}
