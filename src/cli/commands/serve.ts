import type { DialectName } from '../../config/dialects.ts';
import { dialectFor } from '../../config/dialects.ts';
import { startReference } from '../../reference/reference.ts';
import type { ReferenceBehavior } from '../../reference/behavior.ts';

export async function runServeCommand(opts: { dialect: DialectName; referenceBehavior: ReferenceBehavior; fault: string[]; host: string }): Promise<number> {
  const ref = await startReference({ dialect: opts.dialect, behavior: opts.referenceBehavior, faults: opts.fault, host: opts.host });
  const d = dialectFor(opts.dialect);
  const meshCarrier = d.mesh.token.scheme ? `${d.mesh.token.header}: ${d.mesh.token.scheme} <token>` : `${d.mesh.token.header}: <token>`;
  const schedCarrier = d.scheduler.token.scheme ? `${d.scheduler.token.header}: ${d.scheduler.token.scheme} <token>` : `${d.scheduler.token.header}: <token>`;
  const out = (s: string) => process.stdout.write(`${s}\n`);
  out(`stackproof reference is up (dialect ${ref.dialect}${ref.behavior !== 'spec' ? `, behaviour ${ref.behavior}` : ''}${ref.faults.length ? `, faults ${ref.faults.join(', ')}` : ''}). Ctrl-C stops it.`);
  out('');
  out(`  secrets    ${ref.secrets.url}   token ${ref.secrets.token}   (${d.secrets.tokenHeader}: <token>)`);
  out(`  mesh       ${ref.mesh.url}   token ${ref.mesh.token}   (${meshCarrier})`);
  out(`  scheduler  ${ref.scheduler.url}   token ${ref.scheduler.token}   (${schedCarrier})   node ${ref.scheduler.nodeId}`);
  out('');
  out('To check it from another shell:');
  out(
    `  STACKPROOF_SECRETS_URL=${ref.secrets.url} STACKPROOF_SECRETS_TOKEN=${ref.secrets.token} STACKPROOF_SECRETS_DIALECT=${ref.dialect} \\\n` +
      `  STACKPROOF_MESH_URL=${ref.mesh.url} STACKPROOF_MESH_TOKEN=${ref.mesh.token} STACKPROOF_MESH_DIALECT=${ref.dialect} \\\n` +
      `  STACKPROOF_SCHEDULER_URL=${ref.scheduler.url} STACKPROOF_SCHEDULER_TOKEN=${ref.scheduler.token} STACKPROOF_SCHEDULER_DIALECT=${ref.dialect} \\\n` +
      `  npx stackproof conform${ref.behavior === 'upstream' ? ' --expect vault,consul,nomad' : ''}`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  out('stopping the reference');
  await ref.stop();
  return 0;
}
