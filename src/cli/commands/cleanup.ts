import { ConfigError, loadConfig } from '../../config/load-config.ts';
import { profileSweepScope } from '../../provision/secrets-provisioner.ts';
import { secretsApiFor } from '../../provision/secrets-admin-client.ts';
import { sweepSecrets } from '../../provision/secrets-sweep.ts';
import type { SweepReport } from '../../provision/sweep-report.ts';
import { meshHttpFor, sweepMesh } from '../../provision/mesh-provisioner.ts';
import { ConsulAdminApi } from '../../provision/consul-admin-api.ts';
import type { SecretsTarget } from '../../config/schema.ts';
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
  const reports: { system: string; url: string; report: SweepReport }[] = [];
  const target = config.targets.secrets;
  const mesh = config.targets.mesh;
  if (!target && !mesh) {
    out('no target is configured (--config, or STACKPROOF_SECRETS_URL / STACKPROOF_MESH_URL and their tokens): nothing to clean up');
    return EXIT.OK;
  }
  if (mesh) {
    if (mesh.dialect !== 'hashicorp') out(`mesh ${mesh.url}: the spec dialect lists nothing a run made (only Consul's API does); nothing to do`);
    else reports.push({ system: 'mesh', url: mesh.url, report: await sweepMesh(new ConsulAdminApi(meshHttpFor(mesh, config.requestTimeoutMs)), flags.prefix ?? 'all', { dryRun }) });
  }
  if (target) reports.push({ system: 'secrets', url: target.url, report: await sweepSecretsTarget(target, flags.prefix ?? 'all', dryRun, config.requestTimeoutMs, out) });
  let problems = 0;
  for (const { system, url, report } of reports) {
    const runs = new Map<string, number>();
    for (const what of report.removed) {
      const m = /sp-[0-9a-z]{10}/.exec(what);
      if (m) runs.set(m[0], (runs.get(m[0]) ?? 0) + 1);
    }
    const verb = dryRun ? 'left behind' : 'removed';
    out(`${system} ${url}: ${report.removed.length} thing(s) ${verb}${runs.size ? ` by ${runs.size} run(s):` : ''}`);
    for (const [prefix, count] of runs) out(`  ${prefix}  started ${runStartedAt(prefix)?.toISOString() ?? '?'}  ${count} thing(s)`);
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
