import { chmod, rename, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { DialectName } from '../../config/dialects.ts';
import { dialectFor } from '../../config/dialects.ts';
import type { StackproofConfig } from '../../config/schema.ts';
import { startReference, type RunningReference } from '../../reference/reference.ts';
import type { ReferenceBehavior } from '../../reference/behavior.ts';
import { referenceTargets } from '../../run/reference-targets.ts';
import { EXIT } from '../exit-codes.ts';

export interface ServeFlags {
  dialect: DialectName;
  referenceBehavior: ReferenceBehavior;
  fault: string[];
  host: string;
  /** Where to write the target profile (it holds tokens: mode 0600). */
  profileOut?: string;
  /** false with --no-control: no control listener, as a real product has none. */
  control: boolean;
  /** false with --no-raw-exec: no tasks run, as on a Nomad without the raw_exec driver. */
  rawExec: boolean;
  maxAllocations: number;
}

/**
 * The profile `conform --config` reads to check the reference from another shell with the same
 * coverage as the embedded run: the very targets the embedded run builds.
 */
export function serveProfile(ref: RunningReference): Pick<StackproofConfig, 'targets'> {
  return { targets: referenceTargets(ref) };
}

export async function runServeCommand(opts: ServeFlags): Promise<number> {
  const ref = await startReference({ dialect: opts.dialect, behavior: opts.referenceBehavior, faults: opts.fault, host: opts.host, control: opts.control, rawExec: opts.rawExec, maxRunningAllocations: opts.maxAllocations });
  const d = dialectFor(opts.dialect);
  const meshCarrier = d.mesh.token.scheme ? `${d.mesh.token.header}: ${d.mesh.token.scheme} <token>` : `${d.mesh.token.header}: <token>`;
  const schedCarrier = d.scheduler.token.scheme ? `${d.scheduler.token.header}: ${d.scheduler.token.scheme} <token>` : `${d.scheduler.token.header}: <token>`;
  const expect = ref.behavior === 'upstream' ? ' --expect vault,consul,nomad' : '';
  const out = (s: string) => process.stdout.write(`${s}\n`);
  const profileText = `${JSON.stringify(serveProfile(ref), null, 2)}\n`;
  const profileFile = opts.profileOut === undefined ? undefined : resolve(opts.profileOut);
  try {
    if (profileFile) await writePrivateFile(profileFile, profileText);
  } catch (err) {
    await ref.stop();
    process.stderr.write(`stackproof: --profile-out ${opts.profileOut}: cannot be written (${(err as NodeJS.ErrnoException).code ?? String(err)})\n`);
    return EXIT.USAGE;
  }
  const traits = [`dialect ${ref.dialect}`, ...(ref.behavior !== 'spec' ? [`behaviour ${ref.behavior}`] : []), ...(ref.faults.length ? [`faults ${ref.faults.join(', ')}`] : []), ...(ref.control ? [] : ['no control listener']), ...(opts.rawExec ? [] : ['no raw_exec driver'])];
  out(`stackproof reference is up (${traits.join(', ')}). Ctrl-C stops it.`);
  out('');
  out(`  secrets    ${ref.secrets.url}   token ${ref.secrets.token}   (${d.secrets.tokenHeader}: <token>)`);
  out(`  mesh       ${ref.mesh.url}   token ${ref.mesh.token}   (${meshCarrier})`);
  out(`  scheduler  ${ref.scheduler.url}   token ${ref.scheduler.token}   (${schedCarrier})   node ${ref.scheduler.nodeId}`);
  out(ref.control ? `  control    ${ref.control.url}   token ${ref.control.token}   (fixtures the spec does not show how to make)` : '  control    not started (--no-control): rules that need its fixtures are SKIP');
  out('');
  out('To check it from another shell, with the URLs and tokens only:');
  out(
    `  STACKPROOF_SECRETS_URL=${ref.secrets.url} STACKPROOF_SECRETS_TOKEN=${ref.secrets.token} STACKPROOF_SECRETS_DIALECT=${ref.dialect} \\\n` +
      `  STACKPROOF_MESH_URL=${ref.mesh.url} STACKPROOF_MESH_TOKEN=${ref.mesh.token} STACKPROOF_MESH_DIALECT=${ref.dialect} \\\n` +
      `  STACKPROOF_SCHEDULER_URL=${ref.scheduler.url} STACKPROOF_SCHEDULER_TOKEN=${ref.scheduler.token} STACKPROOF_SCHEDULER_DIALECT=${ref.dialect} \\\n` +
      `  npx stackproof conform${expect}`,
  );
  out('');
  if (profileFile) {
    out(`With the complete target profile (every capability of this reference), written to ${profileFile}:`);
  } else {
    out('The complete target profile (every capability of this reference; save it, or use --profile-out FILE):');
    out(profileText.trimEnd());
  }
  out(`  npx stackproof conform --config ${profileFile ?? 'FILE'}${expect}`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  out('stopping the reference');
  await ref.stop();
  return 0;
}

/** Written whole under a temporary name, then renamed: no reader sees half a file, nobody else can read the tokens. */
async function writePrivateFile(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(tmp, text, { mode: 0o600 });
    // The mode of writeFile is subject to the umask; a profile holds tokens.
    await chmod(tmp, 0o600);
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}
