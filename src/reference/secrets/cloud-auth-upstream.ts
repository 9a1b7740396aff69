/**
 * What the upstream product does where the spec leaves a choice, for the cloud-identity auth method
 * in the hashicorp dialect: Vault's Azure auth plugin (hashicorp/vault-plugin-auth-azure) and the
 * parts of Vault's core and SDK it goes through. Each convention names the source it was read in.
 */

/** Spec 000, config: "Allowed: CloudPublic, CloudUSGovernment, CloudChina, CloudGerman". */
export const SPEC_ENVIRONMENTS = ['CloudPublic', 'CloudUSGovernment', 'CloudChina', 'CloudGerman'];

/** azure.go cloudConfigFromName: the names the plugin knows, compared upper-cased. */
export const UPSTREAM_ENVIRONMENTS = ['AzurePublicCloud', 'AzureUSGovernmentCloud', 'AzureChinaCloud'];

/**
 * The upstream name of the spec's CloudGerman (go-autorest's azure.EnvironmentFromName). The plugin
 * has refused it since v0.13.0 (azure.go cloudConfigFromName has no German cloud): only the upstream
 * behaviour reproduces that, as the listed deviation it is.
 */
export const RETIRED_UPSTREAM_ENVIRONMENT = 'AzureGermanCloud';

/** Vault's default maximum lease TTL (768h), which caps token_period (path_role.go pathRoleCreateUpdate). */
export const MAX_LEASE_TTL = 2_764_800;

/**
 * Vault's core wraps a plugin's plain error in a multierror on the request path (vault/request_handling.go
 * handleRequest appends routeErr to retErr), so the message reads like this. Logins return routeErr unwrapped.
 */
export function wrappedPlainError(message: string): string {
  return `1 error occurred:\n\t* ${message}\n\n`;
}

/**
 * The policies a login token gets: vault/request_handling.go LoginCreateToken runs
 * sdk/helper/policyutil SanitizePolicies (trimmed, lower-cased, empty names dropped, 'root' alone
 * if present, 'default' added unless token_no_default_policy, de-duplicated and sorted).
 */
export function sanitizePolicies(policies: string[], addDefault: boolean): string[] {
  let names = policies.map((p) => p.trim().toLowerCase()).filter(Boolean);
  if (names.includes('root')) names = ['root'];
  else if (addDefault && !names.includes('default')) names.push('default');
  return [...new Set(names)].sort();
}

/** azure.go: the subscription id is a GUID (guidRx). */
const GUID = /^[0-9A-Fa-f]{8}-([0-9A-Fa-f]{4}-){3}[0-9A-Fa-f]{12}$/;
/** azure.go nameRx: a letter first, then letters, digits, '.', '-', '_', ending in a letter, digit or '_'. */
const MACHINE_NAME = /^[a-zA-Z]$|^[a-zA-Z][a-zA-Z0-9.\-_]*[a-zA-Z0-9_]$/;
/** azure.go rgRx: Unicode letters and digits, '-', '_', '.', '(', ')', not ending in '.'. */
const RESOURCE_GROUP = /^[-_.()\p{L}\p{N}]*[-_()\p{L}\p{N}]$/u;

/** path_login.go pathLogin: the machine fields are checked for form (400) before anything is verified. */
export function machineFieldError(fields: { subscription_id: string; resource_group_name: string; vmss_name: string; vm_name: string }): string | undefined {
  if (fields.subscription_id && !GUID.test(fields.subscription_id)) return `invalid subscription id "${fields.subscription_id}"`;
  if (fields.resource_group_name && !RESOURCE_GROUP.test(fields.resource_group_name)) return `invalid resource group name "${fields.resource_group_name}"`;
  if (fields.vmss_name && !MACHINE_NAME.test(fields.vmss_name)) return `invalid vmss_name "${fields.vmss_name}"`;
  if (fields.vm_name && !MACHINE_NAME.test(fields.vm_name)) return `invalid vm name "${fields.vm_name}"`;
  return undefined;
}

/** What the role checks of upstream need to see of a role. */
export interface RoleLimits {
  bounds: (string[] | undefined)[];
  token_ttl: number;
  token_max_ttl: number;
  token_period: number;
  token_num_uses: number;
  token_type: string;
}

/**
 * The role validation Vault does and the spec is silent on, each a 400 (logical.ErrorResponse):
 * sdk/helper/tokenutil ParseTokenFields (token_ttl above token_max_ttl; batch tokens that are
 * periodic or use-limited) and path_role.go pathRoleCreateUpdate (token_period above the maximum
 * lease TTL; a role with no bound at all).
 */
export function upstreamRoleError(role: RoleLimits): string | undefined {
  if (role.token_type === 'batch' && role.token_period !== 0) return "'token_type' cannot be 'batch' or 'default_batch' when set to generate periodic tokens";
  if (role.token_type === 'batch' && role.token_num_uses !== 0) return "'token_type' cannot be 'batch' or 'default_batch' when set to generate tokens with limited use count";
  if (role.token_ttl > 0 && role.token_max_ttl > 0 && role.token_ttl > role.token_max_ttl) return "'token_ttl' cannot be greater than 'token_max_ttl'";
  if (role.token_period > MAX_LEASE_TTL) return `token period of "${role.token_period}s" is greater than the backend's maximum lease TTL of "${MAX_LEASE_TTL}s"`;
  if (role.bounds.every((b) => !b || b.length === 0)) return 'must have at least one bound constraint when creating/updating a role';
  return undefined;
}

/**
 * path_login.go additionalClaims.verifyRole: an identity bound is required at login (plugin v0.21.0,
 * PR 219): bound_service_principal_ids and bound_group_ids must not both be empty or both '*'; a
 * single '*' in either skips that check.
 */
export function identityBoundError(servicePrincipals: string[], groups: string[]): string | undefined {
  if ((servicePrincipals.length === 0 && groups.length === 0) || (isWildcard(servicePrincipals) && isWildcard(groups))) {
    return "expected specific bound_group_ids or bound_service_principal_ids; both cannot be empty or '*'";
  }
  return undefined;
}

/** A bound of the one value '*' admits any value (path_login.go verifyRole). */
export function isWildcard(xs: string[]): boolean {
  return xs.length === 1 && xs[0] === '*';
}

/**
 * The messages go-oidc's IDTokenVerifier.Verify (github.com/coreos/go-oidc, called from
 * path_login.go pathLogin) gives for what jose reports, so a hashicorp-dialect refusal reads like
 * the product's. The plugin returns them as plain errors: 500.
 */
export function verifierMessage(code: string | undefined, detail: string, expected: { issuer: string; audience: string }): string {
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return `oidc: token is expired (${detail})`;
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (/"iss"/.test(detail)) return `oidc: id token issued by a different provider, expected "${expected.issuer}"`;
      if (/"aud"/.test(detail)) return `oidc: expected audience "${expected.audience}"`;
      if (/"nbf"/.test(detail)) return `token is not yet valid (${detail})`;
      return `oidc: ${detail}`;
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return 'failed to verify id token signature';
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return 'oidc: id token signed with unsupported algorithm, expected ["RS256"]';
    default:
      return `oidc: malformed jwt: ${detail}`;
  }
}
