import type { StackproofConfig, SystemName } from '../config/schema.ts';

/**
 * How the user pointed stackproof at its targets, kept so that a failure's replay command reaches
 * the same targets. Tokens are never part of it: a replay names the variables that carry them.
 */
export interface Invocation {
  configFile?: string;
  /** Target URLs and dialects given as flags. */
  flagTargets: Partial<Record<SystemName, { url?: string; dialect?: string }>>;
  /** Names of STACKPROOF_* variables that were set. */
  envVariables: string[];
  referenceDialect: StackproofConfig['referenceDialect'];
  referenceBehavior: StackproofConfig['referenceBehavior'];
  referenceFaults: string[];
  profile: StackproofConfig['profile'];
}

function quote(arg: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The one command that runs exactly this rule again, with the same seed and, for a counterexample, its path. */
export function replayCommand(inv: Invocation, ruleId: string, seed: number, runs: number, path?: string): string {
  const args = ['npx', 'stackproof', 'conform'];
  if (inv.configFile) args.push('--config', inv.configFile);
  for (const [system, t] of Object.entries(inv.flagTargets)) {
    if (t?.url) args.push(`--${system}-url`, t.url);
    if (t?.dialect) args.push(`--${system}-dialect`, t.dialect);
  }
  const external = inv.configFile || Object.keys(inv.flagTargets).length > 0 || inv.envVariables.some((v) => v.endsWith('_URL'));
  if (!external) {
    if (inv.referenceDialect !== 'spec') args.push('--reference-dialect', inv.referenceDialect);
    if (inv.referenceBehavior !== 'spec') args.push('--reference-behavior', inv.referenceBehavior);
    for (const f of inv.referenceFaults) args.push('--reference-fault', f);
  }
  if (inv.profile !== 'default') args.push('--profile', inv.profile);
  args.push('--systems', ruleId.split('.')[0]!, '--rules', ruleId, '--seed', String(seed), '--runs', String(runs));
  if (path) args.push('--path', path);
  return [...replayedVariables(inv.envVariables, ruleId).map((v) => `${v}="\${${v}:?}"`), ...args.map(quote)].join(' ');
}

/** Settings the replay passes as flags, or that do not change a rule's verdict: never carried over. */
const NOT_REPLAYED = new Set(['STACKPROOF_RULES', 'STACKPROOF_SEED', 'STACKPROOF_SYSTEMS', 'STACKPROOF_RUNS', 'STACKPROOF_REPORTS_DIR', 'STACKPROOF_MAX_SKIP_SHARE', 'STACKPROOF_PROFILE']);
const SYSTEM_VARIABLE = /^STACKPROOF_(SECRETS|MESH|SCHEDULER)_/;

/**
 * The variables a replay carries, as references (`STACKPROOF_MESH_URL="${STACKPROOF_MESH_URL:?}"`,
 * never a value: a token stays in the environment): those the run used, of the rule's own system
 * only. In a shell where one is not set, `:?` stops the shell with the variable's name, rather than
 * a replay that quietly runs against the embedded reference (an empty value counts as unset).
 */
function replayedVariables(used: string[], ruleId: string): string[] {
  const system = ruleId.split('.')[0]!.toUpperCase();
  return used.filter((v) => !NOT_REPLAYED.has(v) && (!SYSTEM_VARIABLE.test(v) || v.startsWith(`STACKPROOF_${system}_`)));
}
