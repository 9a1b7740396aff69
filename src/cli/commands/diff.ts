import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError } from '../../config/load-config.ts';
import { SYSTEMS, type SystemName } from '../../config/names.ts';
import { targetsSchema } from '../../config/schema.ts';
import type { DiffRun } from '../../diff/diff-model.ts';
import { KnownDifferencesError, loadKnownDifferences } from '../../diff/known-differences.ts';
import { diffMarkdown, diffSummary } from '../../diff/report-markdown.ts';
import { DiffFixtureError, runDiff, type DiffTarget } from '../../diff/run-diff.ts';
import { ConsulAdminApi } from '../../provision/consul-admin-api.ts';
import { consulCapabilities } from '../../provision/consul-capabilities.ts';
import { meshHttpFor } from '../../provision/mesh-provisioner.ts';
import { newRunPrefix } from '../../provision/run-prefix.ts';
import { startReference, type RunningReference } from '../../reference/reference.ts';
import { identifyTargets, identityProblems, TargetIdentityError } from '../../run/target-identity.ts';
import { EXIT } from '../exit-codes.ts';

export interface DiffFlags {
  a?: string;
  b?: string;
  system?: string;
  runs?: string;
  seed?: string;
  json?: boolean;
  reportsDir?: string;
  requestTimeout?: string;
  only?: string;
  /** false with --no-fail-on-unlisted. */
  failOnUnlisted: boolean;
}

/** Where each side's token comes from: the environment only, so no token is on a command line. */
export const DIFF_TOKEN_ENV = { a: 'STACKPROOF_DIFF_A_TOKEN', b: 'STACKPROOF_DIFF_B_TOKEN' } as const;

const REFERENCE = 'reference';

function wholeNumber(flag: string, v: string | undefined, fallback: number, min: number, max: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || n < min || n > max) throw new ConfigError(`${flag} ${v}: a whole number from ${min} to ${max}`);
  return n;
}

/**
 * `stackproof diff`: the same generated requests against two targets of one system, every
 * difference in status, media type, error text and field set, grouped by endpoint with the spec's
 * word on each; exits 1 when a difference is not listed in docs/reference-fidelity.md (unless
 * --no-fail-on-unlisted), 2 on bad usage, 3 when a target does not answer as it should.
 */
export async function runDiffCommand(flags: DiffFlags, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const system = flags.system as SystemName | undefined;
  if (!system || !(SYSTEMS as readonly string[]).includes(system)) throw new ConfigError(`--system: one of ${SYSTEMS.join(', ')}`);
  if (!flags.a || !flags.b) throw new ConfigError('--a and --b: each a target URL, or "reference" for the embedded reference (hashicorp dialect)');
  const runs = wholeNumber('--runs', flags.runs, 2, 1, 50);
  const seed = wholeNumber('--seed', flags.seed, Math.floor(Math.random() * 2 ** 31), 0, 2 ** 31 - 1);
  const requestTimeoutMs = wholeNumber('--request-timeout', flags.requestTimeout, 10_000, 100, 600_000);
  const sides = { a: flags.a, b: flags.b };
  for (const side of ['a', 'b'] as const) {
    const v = sides[side];
    if (v !== REFERENCE && !(URL.canParse(v) && /^https?:$/.test(new URL(v).protocol))) throw new ConfigError(`--${side} ${v}: an http(s) URL, or "reference"`);
    if (v !== REFERENCE && !env[DIFF_TOKEN_ENV[side]]) throw new ConfigError(`--${side} ${v}: set ${DIFF_TOKEN_ENV[side]} to a management token of that target (tokens are read from the environment)`);
  }
  let known;
  try {
    known = loadKnownDifferences();
  } catch (err) {
    if (err instanceof KnownDifferencesError) throw new ConfigError(`the known differences cannot be read: ${err.message}`);
    throw err;
  }
  const prefix = newRunPrefix();
  const say = (line: string) => (flags.json ? process.stderr : process.stdout).write(`${line}\n`);
  const references: RunningReference[] = [];
  const controller = new AbortController();
  const onSignal = () => {
    say('stopping: no further request is sent; removing what the diff made');
    controller.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const targets = {} as Record<'a' | 'b', DiffTarget>;
    for (const side of ['a', 'b'] as const) {
      if (sides[side] === REFERENCE) {
        const ref = await startReference({ dialect: 'hashicorp', control: false });
        references.push(ref);
        const endpoint = ref[system];
        targets[side] = { label: side, name: 'the reference', url: endpoint.url, token: endpoint.token, reference: true };
      } else {
        targets[side] = { label: side, name: side === 'a' ? 'target a' : 'target b', url: sides[side], token: env[DIFF_TOKEN_ENV[side]]!, reference: false };
      }
    }
    await identify(system, targets, prefix);
    say(`diff ${system}: a = ${targets.a.name} (${targets.a.url}), b = ${targets.b.name} (${targets.b.url}); run prefix ${prefix}, seed ${seed}`);
    let run: DiffRun;
    try {
      run = await runDiff({ system, a: targets.a, b: targets.b, runs, seed, prefix, requestTimeoutMs, known, only: flags.only, signal: controller.signal, progress: say });
    } catch (err) {
      if (!(err instanceof DiffFixtureError)) throw err;
      say(`the fixtures could not be made, so nothing was compared: ${err.message}`);
      for (const side of ['a', 'b'] as const) {
        const r = err.cleanup[side];
        say(`cleanup ${targets[side].name}: removed ${r.removed.length} thing(s)${r.problems.length ? `, could not remove: ${r.problems.join('; ')}` : ''}`);
      }
      return EXIT.UNREACHABLE;
    }
    const dir = resolve(flags.reportsDir ?? 'reports');
    await mkdir(dir, { recursive: true });
    const base = join(dir, `diff-${system}`);
    await writeFile(`${base}.md`, diffMarkdown(run));
    await writeFile(`${base}.json`, `${JSON.stringify(run, null, 2)}\n`);
    if (flags.json) process.stdout.write(`${JSON.stringify(run, null, 2)}\n`);
    else process.stdout.write(diffSummary(run, `${base}.md`));
    if (run.interrupted) return EXIT.INTERRUPTED;
    const leftovers = run.cleanup.a.problems.length + run.cleanup.b.problems.length;
    if (leftovers) say(`${leftovers} thing(s) could not be removed: \`stackproof cleanup --prefix ${prefix}\` with each target's URL and token removes them later`);
    return (flags.failOnUnlisted && run.counts.unlisted > 0) || leftovers ? EXIT.RULES_FAILED : EXIT.OK;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await Promise.all(references.map((r) => r.stop()));
  }
}

/**
 * Each URL target answers as the product of the hashicorp dialect and takes its token (exit 3
 * otherwise, as conform); its product and version decide which known differences apply.
 */
async function identify(system: SystemName, targets: Record<'a' | 'b', DiffTarget>, prefix: string): Promise<void> {
  const problems: string[] = [];
  for (const side of ['a', 'b'] as const) {
    const t = targets[side];
    if (t.reference) continue;
    const profile = targetsSchema.parse({ [system]: { url: t.url, token: t.token, dialect: 'hashicorp' } });
    const [identity] = await identifyTargets(profile, prefix);
    if (!identity!.ok) {
      problems.push(...identityProblems([identity!]).map((p) => `--${side}: ${p}`));
      continue;
    }
    if (identity!.product) {
      const p = identity!.product;
      if (p.name.startsWith('the stackproof reference')) Object.assign(t, { reference: true, name: 'the reference' });
      else Object.assign(t, { product: { ...(p.key ? { key: p.key } : {}), name: p.name, ...(p.version ? { version: p.version } : {}) }, name: `${p.name}${p.version ? ` ${p.version}` : ''}` });
    } else if (system === 'mesh') {
      const caps = await consulCapabilities(new ConsulAdminApi(meshHttpFor(profile.mesh!)));
      Object.assign(t, { product: { key: 'consul', name: caps.product.name, ...(caps.product.version ? { version: caps.product.version } : {}) }, name: `${caps.product.name}${caps.product.version ? ` ${caps.product.version}` : ''}` });
    }
  }
  if (problems.length) throw new TargetIdentityError(problems.join('\n'), 'nothing compared');
  if (targets.a.name === targets.b.name) for (const side of ['a', 'b'] as const) targets[side].name = `${targets[side].name} (${side})`;
}
