import type { DialectName } from '../../config/dialects.ts';
import type { ReferenceBehavior } from '../behavior.ts';
import type { FaultSet } from '../faults/types.ts';
import type { TokenStore } from './token-store.ts';

/** What the cloud-identity auth method's config, role and login code share. */
export interface CloudAuthContext {
  faults: FaultSet;
  tokens: TokenStore;
  /** Where the cloud's issuer and compute API answer, for every environment (the reference trusts its simulator). */
  cloudBase: () => string;
  namespace: string;
  /** The hashicorp dialect answers like Vault's Azure auth plugin wherever the spec leaves a choice. */
  dialect: DialectName;
  /** `upstream` (hashicorp dialect only) also reproduces the plugin's listed spec deviations. */
  behavior: ReferenceBehavior;
}

export interface CloudConfig {
  tenant_id: string;
  resource: string;
  environment: string;
  client_id: string;
  client_secret: string;
}

export const BOUND_FIELDS = ['bound_service_principal_ids', 'bound_group_ids', 'bound_locations', 'bound_subscription_ids', 'bound_resource_groups', 'bound_scale_sets'] as const;
export type BoundField = (typeof BOUND_FIELDS)[number];

/** The bounds that make Vault look at the machine at all (path_login.go verifyResource). */
export const RESOURCE_BOUNDS: readonly BoundField[] = ['bound_subscription_ids', 'bound_resource_groups', 'bound_locations', 'bound_scale_sets'];

/** A role. A bound never written is undefined: Vault reads it back as null (the upstream behaviour). */
export type Role = Record<BoundField, string[] | undefined> & {
  token_ttl: number;
  token_max_ttl: number;
  token_policies: string[];
  token_bound_cidrs: string[];
  token_explicit_max_ttl: number;
  token_no_default_policy: boolean;
  token_num_uses: number;
  token_period: number;
  token_type: string;
  /**
   * The older field names Vault's plugin still takes and mirrors (hashicorp dialect): policies, ttl,
   * max_ttl, period, num_uses, as tokenutil.UpgradeValue leaves them. Read back while non-zero.
   */
  legacy?: Partial<Record<LegacyField, number | string[]>>;
};

/** vault-plugin-auth-azure path_role.go: each older name and the token_* field it upgrades to. */
export const LEGACY_FIELDS = [
  ['policies', 'token_policies'],
  ['num_uses', 'token_num_uses'],
  ['ttl', 'token_ttl'],
  ['max_ttl', 'token_max_ttl'],
  ['period', 'token_period'],
] as const;
export type LegacyField = (typeof LEGACY_FIELDS)[number][0];

export const bound = (role: Role, field: BoundField): string[] => role[field] ?? [];

/** Login was refused: the status and the message naming the reason (the failing bound, for instance). */
export class LoginRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
