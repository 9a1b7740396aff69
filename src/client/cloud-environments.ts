import type { DialectName } from '../config/dialects.ts';

/** Spec 000, cloud-identity auth config: "Default 'CloudPublic'. Allowed: CloudPublic, CloudUSGovernment, CloudChina, CloudGerman". */
export const NEUTRAL_ENVIRONMENTS = ['CloudPublic', 'CloudUSGovernment', 'CloudChina', 'CloudGerman'] as const;
export type NeutralEnvironment = (typeof NEUTRAL_ENVIRONMENTS)[number];

/**
 * The spec names the environments with neutral words; each dialect has its own names for them.
 * Vault's Azure auth plugin takes the Azure SDK's cloud names (vault-plugin-auth-azure azure.go
 * cloudConfigFromName, compared upper-cased). CloudGerman maps to AzureGermanCloud, the name the
 * plugin took through go-autorest until v0.13.0; it refuses it since (a listed deviation of Vault).
 */
const NAMES: Record<DialectName, Record<NeutralEnvironment, string>> = {
  spec: { CloudPublic: 'CloudPublic', CloudUSGovernment: 'CloudUSGovernment', CloudChina: 'CloudChina', CloudGerman: 'CloudGerman' },
  hashicorp: { CloudPublic: 'AzurePublicCloud', CloudUSGovernment: 'AzureUSGovernmentCloud', CloudChina: 'AzureChinaCloud', CloudGerman: 'AzureGermanCloud' },
};

/** The name a target of the dialect takes for a neutral environment. */
export function environmentName(dialect: DialectName, environment: NeutralEnvironment): string {
  return NAMES[dialect][environment];
}

/** Every name of every dialect, for generating values that are no environment in any of them (compared case-insensitively, as upstream does). */
export function isKnownEnvironmentName(value: string): boolean {
  const v = value.toUpperCase();
  return Object.values(NAMES).some((names) => Object.values(names).some((n) => n.toUpperCase() === v));
}
