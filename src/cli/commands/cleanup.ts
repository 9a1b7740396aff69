import { ConfigError, loadConfig } from '../../config/load-config.ts';
import { profileSweepScope } from '../../provision/secrets-provisioner.ts';
import { secretsApiFor } from '../../provision/secrets-admin-client.ts';
import { sweepSecrets } from '../../provision/secrets-sweep.ts';
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
  const target = config.targets.secrets;
  if (!target) {
    out('no secrets target is configured (--config, or STACKPROOF_SECRETS_URL and STACKPROOF_SECRETS_TOKEN): nothing to clean up');
    return EXIT.OK;
  }
  const dryRun = !flags.prefix && !flags.all;
  const api = secretsApiFor(target, config.requestTimeoutMs);
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
  const report = await sweepSecrets(api, admin, profileSweepScope(target, api), flags.prefix ?? 'all', { dryRun });
  const runs = new Map<string, number>();
  for (const what of report.removed) {
    const m = /sp-[0-9a-z]{10}/.exec(what);
    if (m) runs.set(m[0], (runs.get(m[0]) ?? 0) + 1);
  }
  const verb = dryRun ? 'left behind' : 'removed';
  out(`secrets ${target.url}: ${report.removed.length} thing(s) ${verb}${runs.size ? ` by ${runs.size} run(s):` : ''}`);
  for (const [prefix, count] of runs) out(`  ${prefix}  started ${runStartedAt(prefix)?.toISOString() ?? '?'}  ${count} thing(s)`);
  for (const p of report.problems) out(`  could not remove: ${p}`);
  if (dryRun && report.removed.length) out('nothing was removed: `stackproof cleanup --prefix <run prefix>` removes one run\'s, `--all` every run\'s (make sure no run is going on)');
  return report.problems.length ? EXIT.RULES_FAILED : EXIT.OK;
}
