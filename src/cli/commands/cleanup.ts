import { ConfigError, loadConfig } from '../../config/load-config.ts';
import { profileSweepScope } from '../../provision/secrets-provisioner.ts';
import { secretsApiFor } from '../../provision/secrets-admin-client.ts';
import { sweepSecrets } from '../../provision/secrets-sweep.ts';
import { isPutBack, type SweepReport } from '../../provision/sweep-report.ts';
import { meshHttpFor, sweepMesh } from '../../provision/mesh-provisioner.ts';
import { ConsulAdminApi } from '../../provision/consul-admin-api.ts';
import type { SchedulerTarget, SecretsTarget, Targets } from '../../config/schema.ts';
import { identifyTargets, identityProblems, TargetIdentityError } from '../../run/target-identity.ts';
import { newRunPrefix } from '../../provision/run-prefix.ts';
import { NomadAdminApi } from '../../provision/nomad-admin-api.ts';
import { schedulerControlHttpFor, schedulerHttpFor, sweepScheduler } from '../../provision/scheduler-provisioner.ts';
import { RUN_PREFIX, runStartedAt } from '../../provision/run-prefix.ts';
import { VaultAdminApi } from '../../provision/vault-admin-api.ts';
import { EXIT } from '../exit-codes.ts';
import { flagsToConfig, type CommonFlags } from '../flags.ts';

export interface CleanupFlags extends CommonFlags {
  prefix?: string;
  all?: boolean;
}

/**
 * Removes what interrupted runs left on the configured targets, by run prefix. Without --prefix or
 * --all it only lists the leftovers, so nothing is removed by accident (another run may be going).
 */
export async function runCleanupCommand(flags: CleanupFlags): Promise<number> {
  if (flags.prefix && !RUN_PREFIX.test(flags.prefix)) throw new ConfigError(`--prefix ${flags.prefix}: a run prefix looks like sp-mwr2cgztnj (printed at the start of each run)`);
  if (flags.prefix && flags.all) throw new ConfigError('--prefix and --all exclude each other');
  const config = loadConfig({ file: flags.config, env: process.env, flags: flagsToConfig(flags) });
  const out = (s: string) => process.stdout.write(`${s}\n`);
  const dryRun = !flags.prefix && !flags.all;
  // The same identification as conform's: a wrong URL or token is one line per target, not a sweep
  // that reads another product's answers as "nothing left" or fails on every item.
  const configured = Object.fromEntries(Object.entries(config.targets).filter(([, t]) => t)) as Targets;
  if (Object.keys(configured).length) {
    const problems = identityProblems(await identifyTargets(configured, flags.prefix ?? newRunPrefix()));
    if (problems.length) throw new TargetIdentityError(problems.join('\n'), 'nothing looked at or removed');
  }
  const reports: { system: string; url: string; report: SweepReport }[] = [];
  const target = config.targets.secrets;
  const mesh = config.targets.mesh;
  const scheduler = config.targets.scheduler;
  if (!target && !mesh && !scheduler) {
    out('no target is configured (--config, or STACKPROOF_SECRETS_URL / STACKPROOF_MESH_URL / STACKPROOF_SCHEDULER_URL and their tokens): nothing to clean up');
    return EXIT.OK;
  }
  if (scheduler) {
    const api = schedulerAdminFor(scheduler, config.requestTimeoutMs);
    if (!api) out(`scheduler ${scheduler.url}: the spec dialect lists nothing a run made (only Nomad's API does, or the control listener's copy of it); nothing to do`);
    else reports.push({ system: 'scheduler', url: scheduler.url, report: await sweepSchedulerTarget(api, scheduler, flags.prefix ?? 'all', dryRun, config.requestTimeoutMs, out) });
  }
  if (mesh) {
    if (mesh.dialect !== 'hashicorp') out(`mesh ${mesh.url}: the spec dialect lists nothing a run made (only Consul's API does); nothing to do`);
    else reports.push({ system: 'mesh', url: mesh.url, report: await sweepMesh(new ConsulAdminApi(meshHttpFor(mesh, config.requestTimeoutMs)), flags.prefix ?? 'all', { dryRun }) });
  }
  if (target) reports.push({ system: 'secrets', url: target.url, report: await sweepSecretsTarget(target, flags.prefix ?? 'all', dryRun, config.requestTimeoutMs, out) });
  let problems = 0;
  for (const { system, url, report } of reports) {
    // The count and the per-run lines add up: a change put back is named apart, and a thing whose
    // name does not carry the prefix (found through its parent) is the asked run's.
    const things = report.removed.filter((w) => !isPutBack(w));
    const runs = new Map<string, number>();
    for (const what of things) {
      const run = /sp-[0-9a-z]{10}/.exec(what)?.[0] ?? flags.prefix ?? '(no run prefix in its name)';
      runs.set(run, (runs.get(run) ?? 0) + 1);
    }
    const verb = dryRun ? 'left behind' : 'removed';
    out(`${system} ${url}: ${things.length} thing(s) ${verb}${runs.size ? ` by ${runs.size} run(s):` : ''}`);
    for (const [prefix, count] of runs) out(`  ${prefix}  started ${runStartedAt(prefix)?.toISOString() ?? '?'}  ${count} thing(s)`);
    // A change put back rather than a thing removed (a node's eligibility, the CA configuration) is named.
    for (const what of report.removed.filter(isPutBack)) out(`  ${dryRun ? 'to put back' : 'put back'}: ${what}`);
    for (const note of report.notes ?? []) out(`  ${note}`);
    for (const p of report.problems) out(`  could not remove: ${p}`);
    problems += report.problems.length;
  }
  if (dryRun && reports.some((r) => r.report.removed.length)) out('nothing was removed: `stackproof cleanup --prefix <run prefix>` removes one run\'s, `--all` every run\'s (make sure no run is going on)');
  return problems ? EXIT.RULES_FAILED : EXIT.OK;
}

async function sweepSecretsTarget(target: SecretsTarget, prefix: string, dryRun: boolean, timeoutMs: number, out: (s: string) => void): Promise<SweepReport> {
  const api = secretsApiFor(target, timeoutMs);
  let admin: VaultAdminApi | undefined;
  if (target.dialect === 'hashicorp' && target.provisioner !== 'control' && target.provisioner !== 'none') {
    admin = new VaultAdminApi(api);
    try {
      await admin.mounts('mounts');
    } catch (err) {
      out(`the admin API is not usable with this token (${(err as Error).message}): only what the spec's endpoints list is looked at`);
      admin = undefined;
    }
  }
  return sweepSecrets(api, admin, profileSweepScope(target, api), prefix, { dryRun });
}

/** Nomad's API on the agent (hashicorp dialect), else the control listener's copy of it when the profile names one. */
function schedulerAdminFor(target: SchedulerTarget, timeoutMs: number): NomadAdminApi | undefined {
  const upstream = target.dialect === 'hashicorp' && target.provisioner !== 'control' && target.provisioner !== 'none';
  if (upstream) return new NomadAdminApi(schedulerHttpFor(target, timeoutMs));
  if (target.fixtures && target.provisioner !== 'none') return new NomadAdminApi(schedulerControlHttpFor(target.fixtures, timeoutMs));
  return undefined;
}

async function sweepSchedulerTarget(api: NomadAdminApi, target: SchedulerTarget, prefix: string, dryRun: boolean, timeoutMs: number, out: (s: string) => void): Promise<SweepReport> {
  // The node whose dynamic metadata a run may have set: the profile's, else the agent's own client, else the only node.
  let nodeId = target.nodeId;
  try {
    nodeId ??= (await api.agentNodeId()) ?? (await api.nodes()).map((n) => n.ID).find((_, i, all) => all.length === 1);
  } catch (err) {
    out(`scheduler ${target.url}: no node found for its metadata keys (${(err as Error).message}); jobs, tokens, policies and namespaces are still looked at`);
  }
  // A killed run's eligibility change is put back from the record the run left in the node's
  // dynamic metadata before it first changed it; without a record it cannot be told from an operator's.
  return sweepScheduler(api, prefix, { dryRun, nodeId, metadataApi: new NomadAdminApi(schedulerHttpFor(target, timeoutMs)) });
}
