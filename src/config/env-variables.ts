import { SYSTEMS } from './names.ts';

/**
 * The environment variables a run reads, and where each lands in the config. Kept apart from the
 * zod schema so the CLI's help can list them without loading it.
 */
export const ENV_SCALARS: Record<string, { path: string[]; type: 'string' | 'number' | 'list' | 'bool' }> = {
  STACKPROOF_PROFILE: { path: ['profile'], type: 'string' },
  STACKPROOF_RUNS: { path: ['runs'], type: 'number' },
  STACKPROOF_SEED: { path: ['seed'], type: 'number' },
  STACKPROOF_SYSTEMS: { path: ['systems'], type: 'list' },
  STACKPROOF_RULES: { path: ['rules'], type: 'list' },
  STACKPROOF_REQUEST_TIMEOUT_MS: { path: ['requestTimeoutMs'], type: 'number' },
  STACKPROOF_TIME_SCALE: { path: ['timeScale'], type: 'number' },
  STACKPROOF_REPORTS_DIR: { path: ['reportsDir'], type: 'string' },
  STACKPROOF_REFERENCE_DIALECT: { path: ['referenceDialect'], type: 'string' },
  STACKPROOF_REFERENCE_BEHAVIOR: { path: ['referenceBehavior'], type: 'string' },
  STACKPROOF_EXPECT: { path: ['expect'], type: 'list' },
  STACKPROOF_MAX_SKIP_SHARE: { path: ['maxSkipShare'], type: 'number' },
};
for (const system of SYSTEMS) {
  const up = system.toUpperCase();
  ENV_SCALARS[`STACKPROOF_${up}_URL`] = { path: ['targets', system, 'url'], type: 'string' };
  ENV_SCALARS[`STACKPROOF_${up}_TOKEN`] = { path: ['targets', system, 'token'], type: 'string' };
  ENV_SCALARS[`STACKPROOF_${up}_DIALECT`] = { path: ['targets', system, 'dialect'], type: 'string' };
}
ENV_SCALARS.STACKPROOF_SCHEDULER_NODE_ID = { path: ['targets', 'scheduler', 'nodeId'], type: 'string' };
ENV_SCALARS.STACKPROOF_SECRETS_PROVISIONER = { path: ['targets', 'secrets', 'provisioner'], type: 'string' };
ENV_SCALARS.STACKPROOF_MESH_PROVISIONER = { path: ['targets', 'mesh', 'provisioner'], type: 'string' };
ENV_SCALARS.STACKPROOF_SCHEDULER_PROVISIONER = { path: ['targets', 'scheduler', 'provisioner'], type: 'string' };
ENV_SCALARS.STACKPROOF_SECRETS_NAMESPACES = { path: ['targets', 'secrets', 'capabilities', 'namespaces'], type: 'bool' };
ENV_SCALARS.STACKPROOF_MESH_NAMESPACES = { path: ['targets', 'mesh', 'capabilities', 'namespaces'], type: 'bool' };

export const ENV_VARIABLES = Object.keys(ENV_SCALARS);
