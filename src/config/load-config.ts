import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { configSchema, type StackproofConfig } from './schema.ts';
import { ENV_SCALARS, ENV_VARIABLES } from './env-variables.ts';
import { EXIT } from '../cli/exit-codes.ts';
import { parseJsonc } from './jsonc.ts';

/** A configuration that cannot be used; the CLI turns it into exit code 2. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly exitCode = EXIT.USAGE;
}

type Plain = Record<string, unknown>;

/** Where each leaf of the merged config came from, so an error can name the file, variable or flag. */
type Origins = Map<string, string>;

export interface ConfigSources {
  /** Path of a JSON config file; comments and trailing commas are allowed (JSONC). */
  file?: string;
  env?: NodeJS.ProcessEnv;
  /** Values from command-line flags, already shaped like the config. */
  flags?: Plain;
}

export { ENV_VARIABLES };

function coerceEnv(name: string, raw: string, type: 'string' | 'number' | 'list' | 'bool'): unknown {
  switch (type) {
    case 'number': {
      const n = Number(raw);
      // Leave the raw text in place when it is not a number so zod names the field in its message.
      return raw.trim() !== '' && Number.isFinite(n) ? n : raw;
    }
    case 'list':
      return raw.split(',').map((s) => s.trim()).filter(Boolean);
    case 'bool':
      if (/^(1|true|yes)$/i.test(raw)) return true;
      if (/^(0|false|no)$/i.test(raw)) return false;
      throw new ConfigError(`${name}: expected true or false, got ${JSON.stringify(raw)}`);
    default:
      return raw;
  }
}

function setPath(target: Plain, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Plain;
  }
  node[path[path.length - 1]!] = value;
}

function isPlain(v: unknown): v is Plain {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep-merges `layer` over `base`, remembering the origin of every leaf it sets. */
function mergeLayer(base: Plain, layer: Plain, origin: string, origins: Origins, prefix: string[] = []): void {
  for (const [key, value] of Object.entries(layer)) {
    if (value === undefined) continue;
    const path = [...prefix, key];
    if (isPlain(value)) {
      if (!isPlain(base[key])) base[key] = {};
      mergeLayer(base[key] as Plain, value, origin, origins, path);
    } else {
      base[key] = value;
      origins.set(path.join('.'), origin);
    }
  }
}

function readConfigFile(file: string): Plain {
  const full = resolve(file);
  let text: string;
  try {
    text = readFileSync(full, 'utf8');
  } catch (err) {
    throw new ConfigError(`config file ${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  let parsed: unknown;
  try {
    parsed = parseJsonc(text);
  } catch (err) {
    throw new ConfigError(`config file ${file}: not valid JSON (${(err as Error).message})`);
  }
  if (!isPlain(parsed)) throw new ConfigError(`config file ${file}: the top level must be a JSON object`);
  return parsed;
}

function envLayer(env: NodeJS.ProcessEnv, origins: Origins): Plain {
  const layer: Plain = {};
  for (const [name, spec] of Object.entries(ENV_SCALARS)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    setPath(layer, spec.path, coerceEnv(name, raw, spec.type));
    origins.set(spec.path.join('.'), name);
  }
  return layer;
}

/**
 * Builds the run configuration from a JSON file, then environment variables, then flags: each later
 * source overrides the earlier ones field by field. Throws ConfigError naming the offending field
 * and where it came from.
 */
export function loadConfig(sources: ConfigSources = {}): StackproofConfig {
  const merged: Plain = {};
  const origins: Origins = new Map();
  if (sources.file) mergeLayer(merged, readConfigFile(sources.file), `config file ${sources.file}`, origins);
  const envOrigins: Origins = new Map();
  const fromEnv = envLayer(sources.env ?? {}, envOrigins);
  mergeLayer(merged, fromEnv, 'environment', origins);
  for (const [k, v] of envOrigins) origins.set(k, `environment variable ${v}`);
  if (sources.flags) mergeLayer(merged, sources.flags, 'command-line flag', origins);

  const result = configSchema.safeParse(merged);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => {
      const field = issue.path.length ? issue.path.join('.') : '(top level)';
      // A field nobody set is not the fault of the variable that set its sibling: say what sets it.
      if (/received undefined/.test(issue.message)) return `  ${field}: ${missingFieldHelp(issue.path.map(String))}`;
      const origin = originOf(origins, issue.path.map(String));
      return `  ${field}: ${issue.message}${origin ? ` (from ${origin})` : ''}`;
    });
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}

/** What sets a required field that is missing: a target's token comes from the environment. */
function missingFieldHelp(path: string[]): string {
  const [top, system, field] = path;
  if (top === 'targets' && system && path.length === 3) {
    const v = `STACKPROOF_${system.toUpperCase()}_${field === 'token' ? 'TOKEN' : field === 'url' ? 'URL' : field === 'dialect' ? 'DIALECT' : ''}`;
    if (field === 'token') return `missing: set ${v} in the environment (tokens are meant to come from the environment: not a config file that gets committed, nor a flag a shell history keeps)`;
    if (field === 'url') return `missing: set ${v} or --${system}-url (or targets.${system}.url in the config file)`;
    if (field === 'dialect') return `missing: set ${v} (hashicorp or spec) or targets.${system}.dialect in the config file`;
  }
  return 'missing: required, and no config file, variable or flag sets it';
}

function originOf(origins: Origins, path: string[]): string | undefined {
  for (let i = path.length; i > 0; i--) {
    const hit = origins.get(path.slice(0, i).join('.'));
    if (hit) return hit;
  }
  // A missing or unknown key: report where its siblings came from, nearest first.
  for (let i = path.length; i > 0; i--) {
    const prefix = `${path.slice(0, i).join('.')}.`;
    for (const [k, v] of origins) if (k.startsWith(prefix)) return v;
  }
  return undefined;
}

/** True when the config names at least one target, so the embedded reference is not used. */
export function hasExternalTargets(config: StackproofConfig): boolean {
  return Object.values(config.targets).some(Boolean);
}
