import type { DialectName } from '../../config/dialects.ts';
import type { ReferenceBehavior } from '../behavior.ts';

/**
 * How closely the embedded secrets service imitates HashiCorp Vault.
 * - `vaultChoices` (hashicorp dialect, any behaviour): where the spec leaves a choice, answer as
 *   Vault does (help body, PATCH, the key set of a provider, null for an empty claim list).
 * - `vaultDeviations` (upstream behaviour): also reproduce the spec deviations listed in
 *   expectations/vault.json, so that a run with `--expect vault` proves the suites accept Vault.
 */
export interface SecretsFlavor {
  vaultChoices: boolean;
  vaultDeviations: boolean;
}

export function secretsFlavor(dialect: DialectName, behavior: ReferenceBehavior): SecretsFlavor {
  return { vaultChoices: dialect === 'hashicorp', vaultDeviations: dialect === 'hashicorp' && behavior === 'upstream' };
}

/** Where the key-value engines live in each namespace. */
export interface KvMounts {
  v1: string;
  v2: string;
}

/**
 * The spec's fresh install has a key-value engine at secret/ (version 1 here, version 2 beside
 * it). Under the upstream behaviour the reference is laid out like `vault server -dev`, which
 * mounts version 2 at secret/ (hashicorp/vault command/server.go, enableDev); version 1 then lives
 * at a mount of its own, as a profile for a real Vault would declare it.
 */
export function kvMounts(flavor: SecretsFlavor): KvMounts {
  return flavor.vaultDeviations ? { v1: 'kv-v1/', v2: 'secret/' } : { v1: 'secret/', v2: 'kv-v2/' };
}
