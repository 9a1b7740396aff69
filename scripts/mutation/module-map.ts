// The committed map (mutation/modules.json) from each security-relevant module of the reference to
// the rules that reach it, and the names of its record files.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const MUTATION_DIR = join(ROOT, 'mutation');
export const MAP_FILE = join(MUTATION_DIR, 'modules.json');
export const EQUIVALENT_FILE = join(MUTATION_DIR, 'equivalent.json');
export const REPORTS_DIR = join(MUTATION_DIR, 'reports');
export const INCREMENTAL_DIR = join(MUTATION_DIR, 'incremental');

export const AREAS = ['oidc', 'ns-cloud', 'mesh', 'sched'] as const;
const SYSTEMS = ['secrets', 'mesh', 'scheduler'] as const;
const DIALECTS = ['spec', 'hashicorp'] as const;
const PRODUCTS = ['vault', 'openbao', 'consul', 'nomad'] as const;

/**
 * A run of the hashicorp dialect with `--reference-behavior upstream` (the reference also reproduces
 * the products' listed spec deviations, as Vault would answer), judged with `--expect <products>`:
 * a listed deviation is EXPECTED, any other FAIL kills the mutant, and so does a listed deviation
 * that no longer happens (the upstream reference must reproduce it). For code only that behaviour
 * runs, such as Vault's port-agnostic loopback redirect match.
 */
export interface UpstreamRun {
  /** The rules (ids, prefixes or globs) that reach the module under the upstream behaviour. */
  rules: string[];
  /** The products whose expectation files judge the run (--expect). */
  expect: (typeof PRODUCTS)[number][];
}

/** The name of the upstream run in coverage files, outcomes and reasons. */
export const UPSTREAM_RUN = 'hashicorp+upstream';

export interface ModuleEntry {
  /** The module, relative to the repository: src/reference/... */
  file: string;
  /** Whose survivors file it feeds: /work/helpers/survivors-<area>.md */
  area: (typeof AREAS)[number];
  system: (typeof SYSTEMS)[number];
  /** Rule ids, prefixes or globs (as --rules takes them) whose rules reach the module. */
  rules: string[];
  /** The reference dialects the module serves; each gets a conform run per mutant that reaches it there. */
  dialects: (typeof DIALECTS)[number][];
  /** Also a run of the hashicorp dialect with --reference-behavior upstream, with these rules. */
  upstream?: UpstreamRun;
  /** strict where UPSTREAM rules reach the module. */
  profile: 'default' | 'strict';
  /** The seed of the rules' generated cases: the same for the dry run and every mutant, so a verdict replays. */
  seed: number;
  /** How the rules were chosen (what reaches the module). */
  why: string;
  /**
   * Run the rules one after another (conform --one-at-a-time), as the fault matrix does: for a
   * module whose mutants show only when a rule's requests reach it back to back, which the other
   * rules' requests in between would hide (code-grants.ts: a grant compared with the one before it).
   */
  oneAtATime?: boolean;
}

function isOneOf<T extends string>(list: readonly T[], v: unknown): v is T {
  return typeof v === 'string' && (list as readonly string[]).includes(v);
}

/** The map, checked: a malformed entry is a clear error, not a run that judges nothing. */
export function readModuleMap(file = MAP_FILE): ModuleEntry[] {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { seed?: number; modules?: Record<string, Record<string, unknown>> };
  const problems: string[] = [];
  const entries: ModuleEntry[] = [];
  for (const [path, e] of Object.entries(raw.modules ?? {})) {
    const where = `mutation/modules.json: ${path}`;
    const { area, system, rules, dialects, profile, seed, why, upstream, oneAtATime } = e;
    if (!isOneOf(AREAS, area)) problems.push(`${where}: area must be one of ${AREAS.join(', ')}`);
    if (!isOneOf(SYSTEMS, system)) problems.push(`${where}: system must be one of ${SYSTEMS.join(', ')}`);
    if (!Array.isArray(rules) || rules.length === 0 || rules.some((r) => typeof r !== 'string' || !r.startsWith(`${String(system)}.`))) problems.push(`${where}: rules must be globs of ${String(system)} rule ids`);
    if (!Array.isArray(dialects) || dialects.length === 0 || dialects.some((d) => !isOneOf(DIALECTS, d))) problems.push(`${where}: dialects must be some of ${DIALECTS.join(', ')}`);
    if (profile !== 'default' && profile !== 'strict') problems.push(`${where}: profile must be default or strict`);
    if (upstream !== undefined) {
      const u = upstream as Record<string, unknown>;
      if (typeof u !== 'object' || u === null || !Array.isArray(u.rules) || u.rules.length === 0 || u.rules.some((r) => typeof r !== 'string' || !r.startsWith(`${String(system)}.`))) problems.push(`${where}: upstream.rules must be globs of ${String(system)} rule ids`);
      else if (!Array.isArray(u.expect) || u.expect.length === 0 || u.expect.some((p) => !isOneOf(PRODUCTS, p))) problems.push(`${where}: upstream.expect must be some of ${PRODUCTS.join(', ')}`);
    }
    if (seed !== undefined && !Number.isInteger(seed)) problems.push(`${where}: seed must be an integer`);
    if (oneAtATime !== undefined && typeof oneAtATime !== 'boolean') problems.push(`${where}: oneAtATime must be true or false`);
    if (problems.length) continue;
    entries.push({
      file: path,
      area: area as ModuleEntry['area'],
      system: system as ModuleEntry['system'],
      rules: rules as string[],
      dialects: dialects as ModuleEntry['dialects'],
      ...(upstream !== undefined ? { upstream: upstream as UpstreamRun } : {}),
      profile: profile as ModuleEntry['profile'],
      seed: (seed as number | undefined) ?? raw.seed ?? 47,
      why: typeof why === 'string' ? why : '',
      ...(oneAtATime ? { oneAtATime: true } : {}),
    });
  }
  if (problems.length) throw new Error(problems.join('\n'));
  return entries;
}

/** src/reference/secrets/oidc/access.ts -> secrets.oidc.access: the name of its report and incremental file. */
export function moduleName(file: string): string {
  return file.replace(/^src\/reference\//, '').replace(/\.ts$/, '').replaceAll('/', '.');
}

export function entryFor(file: string, entries = readModuleMap()): ModuleEntry {
  const rel = relative(ROOT, resolve(file)).replaceAll('\\', '/');
  const entry = entries.find((e) => e.file === rel);
  if (!entry) throw new Error(`${rel} is not in mutation/modules.json; the mapped modules are:\n  ${entries.map((e) => e.file).join('\n  ')}`);
  return entry;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? filesUnder(join(dir, d.name)) : d.isFile() ? [join(dir, d.name)] : []));
}

/**
 * What a module's mutants were judged with: its map entry, the suites and the rule catalog. When it
 * changes, the mutants not killed are judged again (a new or sharper rule may kill them now).
 */
export function rulesFingerprint(entry: ModuleEntry): string {
  const hash = createHash('sha256').update(JSON.stringify(entry));
  for (const dir of ['suites', 'src/rules']) {
    for (const f of filesUnder(join(ROOT, dir)).sort()) hash.update(relative(ROOT, f)).update(readFileSync(f));
  }
  return hash.digest('hex').slice(0, 16);
}
