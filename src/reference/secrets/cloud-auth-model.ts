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
};

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
