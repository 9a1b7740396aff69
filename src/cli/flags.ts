import { SYSTEMS, type SystemName } from '../config/schema.ts';

/** Flag values shaped like the config, so the loader can layer them over the file and environment. */
export interface CommonFlags {
  config?: string;
  systems?: string;
  rules?: string;
  runs?: string;
  seed?: string;
  path?: string;
  profile?: string;
  reportsDir?: string;
  requestTimeout?: string;
  timeScale?: string;
  referenceDialect?: string;
  referenceBehavior?: string;
  expect?: string;
  failOn?: string;
  waivers?: string;
  strictWaivers?: boolean;
  strictExpectations?: boolean;
  maxSkipShare?: string;
  [key: string]: unknown;
}

const list = (v: string | undefined) => (v === undefined ? undefined : v.split(',').map((s) => s.trim()).filter(Boolean));
/** Leaves non-numbers as text so the schema names the flag in its message. */
const num = (v: string | undefined) => (v === undefined ? undefined : /^-?\d+$/.test(v.trim()) ? Number(v) : v);
/** The same for decimals such as 0.5. */
const decimal = (v: string | undefined) => (v === undefined ? undefined : /^-?(\d+\.?\d*|\.\d+)$/.test(v.trim()) ? Number(v) : v);

export function flagsToConfig(flags: CommonFlags): Record<string, unknown> {
  const targets: Record<string, Record<string, unknown>> = {};
  for (const system of SYSTEMS) {
    const url = flags[`${system}Url`] as string | undefined;
    const token = flags[`${system}Token`] as string | undefined;
    const dialect = flags[`${system}Dialect`] as string | undefined;
    const t: Record<string, unknown> = {};
    if (url !== undefined) t.url = url;
    if (token !== undefined) t.token = token;
    if (dialect !== undefined) t.dialect = dialect;
    if (system === 'scheduler' && flags.schedulerNodeId !== undefined) t.nodeId = flags.schedulerNodeId;
    if (Object.keys(t).length) targets[system] = t;
  }
  return {
    systems: list(flags.systems),
    rules: list(flags.rules),
    runs: num(flags.runs),
    seed: num(flags.seed),
    path: flags.path,
    profile: flags.profile,
    reportsDir: flags.reportsDir,
    requestTimeoutMs: num(flags.requestTimeout),
    timeScale: decimal(flags.timeScale),
    referenceDialect: flags.referenceDialect,
    referenceBehavior: flags.referenceBehavior,
    expect: list(flags.expect),
    failOn: flags.failOn,
    waivers: flags.waivers,
    strictWaivers: flags.strictWaivers,
    strictExpectations: flags.strictExpectations,
    maxSkipShare: decimal(flags.maxSkipShare),
    targets: Object.keys(targets).length ? targets : undefined,
  };
}

export function flagTargets(flags: CommonFlags): Partial<Record<SystemName, { url?: string; dialect?: string }>> {
  const out: Partial<Record<SystemName, { url?: string; dialect?: string }>> = {};
  for (const system of SYSTEMS) {
    const url = flags[`${system}Url`] as string | undefined;
    const dialect = flags[`${system}Dialect`] as string | undefined;
    if (url || dialect) out[system] = { url, dialect };
  }
  return out;
}
