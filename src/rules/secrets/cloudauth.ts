import type { Rule } from '../types.ts';
import { SPEC_FILES } from '../spec-files.ts';

const file = SPEC_FILES.secrets;
const CONFIG = 'Resources and their fields > Cloud-identity auth config';
const ROLE = 'Resources and their fields > Cloud-identity role';
const LOGIN = 'Resources and their fields > Login response';
const ENDPOINTS = 'Endpoints > Cloud-identity auth method (mounted at auth/cloudauth; the mount path may differ)';
const CAP = 'cloudIdentity';
/**
 * Config and role rules need only a mounted auth method (one the profile names, or one the
 * provisioner enables on a real Vault): the suite's kit decides, so they carry no capability.
 * Every other rule logs in, which needs machine tokens from a simulator the method trusts.
 */
const MOUNT_ONLY = /^secrets\.(cloudauth\.(config-(roundtrip|required-fields|environment|optional-fields)|role-|token-required$)|upstream\.cloudauth-cidr-text$)/;
const rule = (r: Omit<Rule, 'system' | 'level' | 'capability'> & { level?: Rule['level'] }): Rule => ({ system: 'secrets', level: 'MUST', ...(MOUNT_ONLY.test(r.id) ? {} : { capability: CAP }), ...r });
const verifies = { file, section: ENDPOINTS, quote: 'Login verifies the JWT signature to authenticate the entity, then authorizes it against the role.' };

// What settled each rule against the upstream product (hashicorp/vault-plugin-auth-azure, read at
// 75528dc, v0.24.0; hashicorp/vault sdk and core). Shared notes first.
const PLUGIN = 'hashicorp/vault-plugin-auth-azure';
const ROLE_NEEDS_BOUND = `Every role the suite writes names a bound: Vault refuses a role without one (400 "must have at least one bound constraint when creating/updating a role", ${PLUGIN} path_role.go pathRoleCreateUpdate), validation the spec is silent on.`;
const TTL_NOT_OVER_MAX = `Roles keep token_ttl <= token_max_ttl: Vault refuses a larger token_ttl (400 "'token_ttl' cannot be greater than 'token_max_ttl'", hashicorp/vault sdk/helper/tokenutil/tokenutil.go ParseTokenFields), validation the spec is silent on.`;
const IDENTITY_BOUND = `Every role a login goes through names bound_service_principal_ids or bound_group_ids: since plugin v0.21.0 (PR 219) Vault refuses every login of a role with neither (${PLUGIN} path_login.go additionalClaims.verifyRole), a requirement the spec is silent on; each bound on its own may still be empty.`;
const REFUSAL = `A refused login is any status but 2xx, with the spec's error body {errors:[...]} when it is >= 400, and no client token: the spec shows no status per login condition ("Which condition of each individual OIDC or login operation yields which status: not shown"), and Vault answers 500 for every failed verification or bound (${PLUGIN} path_login.go pathLogin returns plain errors; hashicorp/vault sdk/logical/response_util.go RespondErrorCommon makes those 500), 400 for missing input and 403 outside token_bound_cidrs.`;
const CIDRS_AS_NETWORKS = 'CIDR blocks compare as networks: Vault reads a host block back without its suffix ("10.0.0.5/32" as "10.0.0.5"; hashicorp/vault sdk/helper/tokenutil PopulateTokenData prints go-sockaddr SockAddrMarshaler, whose IPv4Addr.String drops a /32: hashicorp/go-sockaddr ipv4addr.go).';
const READABLE = 'The role also names an ACL policy that lets its tokens read the probe secret, made through the admin API where the upstream provisioner works: Vault and OpenBao enforce policies, and the spec says "Permission policies decide access per path" but shows neither their language nor how they are made. Elsewhere the role names none (the embedded reference enforces no policies).';
const ANY_ORDER = 'Lists read back compare in any order: the spec gives none (Vault happens to keep the order written).';
const ENVIRONMENT_NAMES = `Environment names go through the dialect: the hashicorp dialect sends AzurePublicCloud, AzureUSGovernmentCloud, AzureChinaCloud, AzureGermanCloud for CloudPublic, CloudUSGovernment, CloudChina, CloudGerman (${PLUGIN} azure.go cloudConfigFromName, compared upper-cased).`;

/** Spec 000: the cloud-identity auth method. */
export const secretsCloudAuthRules: Rule[] = [
  rule({
    id: 'secrets.cloudauth.config-roundtrip',
    title: 'The config written reads back with tenant_id, resource and the credentials client_id and client_secret',
    sources: [{ file, section: ENDPOINTS, quote: 'GET | auth/cloudauth/config | none | {data:{tenant_id, resource, client_id, client_secret}} (credentials are included)' }],
    notes: [ENVIRONMENT_NAMES, `Vault never returns client_secret (${PLUGIN} path_config.go pathConfigRead): listed in expectations/vault.json.`],
  }),
  rule({
    id: 'secrets.cloudauth.config-required-fields',
    title: 'A config without tenant_id or without resource is refused',
    sources: [
      { file, section: CONFIG, quote: 'tenant_id | string | yes | Tenant of the cloud directory organization' },
      { file, section: CONFIG, quote: 'resource | string | yes | URL configured for the registered application' },
    ],
    notes: [`A refusal is a 4xx (Errors: "400 | Invalid request, missing or invalid data"; config is no login or OIDC operation). Vault answers 500 (${PLUGIN} path_config.go pathConfigWrite returns azure.go getAzureSettings' plain error "tenant_id is required"): listed in expectations/vault.json.`],
  }),
  rule({
    id: 'secrets.cloudauth.config-environment',
    title: 'environment accepts CloudPublic, CloudUSGovernment, CloudChina and CloudGerman, and nothing else',
    sources: [{ file, section: CONFIG, quote: "Default 'CloudPublic'. Allowed: CloudPublic, CloudUSGovernment, CloudChina, CloudGerman" }],
    notes: [
      ENVIRONMENT_NAMES,
      `Vault has no German cloud any more: cloudConfigFromName knows no AzureGermanCloud since plugin v0.13.0 (${PLUGIN} azure.go, commit c3d37bb4 "Remove go-autorest dependency"), and an unknown name is a plain error, 500 (azure.go getAzureSettings): both listed in expectations/vault.json. Generated bad names exclude every dialect's names case-insensitively, as the plugin compares upper-cased.`,
    ],
  }),
  rule({
    id: 'secrets.cloudauth.config-optional-fields',
    title: "A config of tenant_id and resource alone is accepted, and reads back client_id and client_secret as ''",
    sources: [
      { file, section: CONFIG, quote: "client_id | string | no | Default ''." },
      { file, section: CONFIG, quote: "client_secret | string | no | Default '' |" },
    ],
    notes: [`Vault reads back client_id '' but never returns client_secret (${PLUGIN} path_config.go pathConfigRead): listed in expectations/vault.json. The config written leaves out environment too (optional); which cloud a login then reaches is not asserted (see the statement map).`],
  }),
  rule({
    id: 'secrets.cloudauth.token-required',
    title: 'Every config and role operation of the method (config read, write, delete; role read, write, list by either verb, delete) is refused without a token and with a token the service never issued: no credentials shown, nothing changed',
    sources: [
      { file, section: 'What the service does', quote: 'Once the service is unsealed, nearly every operation requires a client token (see Authentication).' },
      { file, section: ENDPOINTS, quote: 'GET | auth/cloudauth/config | none | {data:{tenant_id, resource, client_id, client_secret}} (credentials are included)' },
      { file, section: 'Errors', quote: '403 | Forbidden: wrong authentication' },
    ],
    notes: [
      'A refusal is 403 or 404 with the error body: "a path the caller may not see can answer 404" (Authentication). Vault answers 403 "permission denied" to each (hashicorp/vault vault/request_handling.go CheckToken).',
      'Every operation is tried with each kind of missing credential, so the whole (small) domain is enumerated, not sampled; the forged token is random per run.',
      'Only login is exempt: "Login needs no token."',
    ],
  }),
  rule({
    id: 'secrets.cloudauth.policy-required',
    title: "A token whose policies grant nothing on the method (a login token with one made-up policy and no 'default') cannot read the config's credentials, nor read, list, write or delete roles",
    sources: [
      { file, section: 'Authentication', quote: 'Permission policies decide access per path; a path the caller may not see can answer 404.' },
      { file, section: ENDPOINTS, quote: 'GET | auth/cloudauth/config | none | {data:{tenant_id, resource, client_id, client_secret}} (credentials are included)' },
    ],
    notes: [
      IDENTITY_BOUND,
      "The token is the method's own login token from a role with token_policies [a name the run never writes] and token_no_default_policy: the spec's policy language is not shown, but a policy that does not exist grants nothing, and without 'default' the token carries nothing else. Vault refuses such a token with 403 \"permission denied\" (hashicorp/vault vault/acl.go AllowOperation finds no rule).",
      'A refusal is 403 or 404 with the error body ("a path the caller may not see can answer 404").',
    ],
  }),
  rule({
    id: 'secrets.cloudauth.config-delete',
    title: 'DELETE of the config removes it and its credentials, and logins stop working',
    sources: [{ file, section: ENDPOINTS, quote: 'DELETE | auth/cloudauth/config | none | Removes config and credentials' }],
    notes: [IDENTITY_BOUND, REFUSAL, `After the delete Vault answers a read 404 and a login 500 "tenant_id is required" (${PLUGIN} path_config.go pathConfigDelete, azure.go getAzureSettings).`],
  }),
  rule({
    id: 'secrets.cloudauth.role-roundtrip',
    title: 'Every documented role field written reads back (TTLs as seconds, lists as lists)',
    sources: [{ file, section: ENDPOINTS, quote: 'GET | auth/cloudauth/role/:name | none | {data:{role settings}}' }],
    notes: [CIDRS_AS_NETWORKS, ANY_ORDER, TTL_NOT_OVER_MAX],
  }),
  rule({
    id: 'secrets.cloudauth.role-defaults',
    title: 'A role written with one bound reads back every other field at its documented default',
    sources: [
      { file, section: ROLE, quote: 'bound_service_principal_ids | array | [] | Login restricted to these service principal IDs' },
      { file, section: ROLE, quote: "token_type | string | '' | 'service', 'batch' or 'default'" },
      { file, section: 'Limits', quote: 'Default role token_num_uses | 0 (unlimited)' },
    ],
    notes: [
      `Vault reads a bound never written back as null (${PLUGIN} path_role.go pathRoleRead returns the role's nil slices): listed in expectations/vault.json. token_policies and token_bound_cidrs read [] (hashicorp/vault sdk/helper/tokenutil PopulateTokenData), token_type 'default' (logical.TokenTypeDefault), which the spec's "'default' (the mount's tuned default)" allows.`,
    ],
  }),
  rule({
    id: 'secrets.cloudauth.role-ttl-forms',
    title: 'Role TTL fields given as integer seconds or duration strings read back as integer seconds',
    sources: [{ file, section: ROLE, quote: 'token_ttl | integer or string | 0 or \'\' | Incremental lifetime of generated tokens' }],
    notes: [ROLE_NEEDS_BOUND, TTL_NOT_OVER_MAX, 'Vault parses durations with go-secure-stdlib parseutil ParseDurationSecond: integer seconds, Go durations such as 1h30m, or days as Nd.'],
  }),
  rule({
    id: 'secrets.cloudauth.role-list-forms',
    title: 'token_policies and token_bound_cidrs given as arrays or as comma-delimited strings read back as the same lists',
    sources: [
      { file, section: ROLE, quote: 'token_policies | array or comma-delimited string' },
      { file, section: ROLE, quote: 'token_bound_cidrs | array or comma-delimited string' },
    ],
    notes: [ROLE_NEEDS_BOUND, CIDRS_AS_NETWORKS, ANY_ORDER, 'Vault keeps token_policies as given on the role (tokenutil ParseTokenFields; sorting happens only on the login token).'],
  }),
  rule({
    id: 'secrets.cloudauth.role-token-types',
    title: "A role takes each token_type the spec lists ('service', 'batch', 'default') and reads it back",
    sources: [{ file, section: ROLE, quote: "token_type | string | '' | 'service', 'batch' or 'default'" }],
    notes: [ROLE_NEEDS_BOUND, 'The roles leave token_num_uses and token_period at 0: Vault refuses a batch type with either (hashicorp/vault sdk/helper/tokenutil ParseTokenFields), validation the spec is silent on.', "Vault reads each back as written (tokenutil PopulateTokenData prints logical.TokenType's String: 'service', 'batch', 'default')."],
  }),
  rule({
    id: 'secrets.cloudauth.role-list',
    title: 'LIST of roles returns the names of the roles',
    sources: [{ file, section: ENDPOINTS, quote: 'LIST | auth/cloudauth/role | none | {data:{keys}}' }],
    notes: [ROLE_NEEDS_BOUND, `Role names are lower-case: Vault stores them lower-cased (${PLUGIN} path_role.go azureAuthBackend.role) and lists the stored keys.`],
  }),
  rule({
    id: 'secrets.cloudauth.role-delete',
    title: 'DELETE of a role removes it',
    sources: [{ file, section: ENDPOINTS, quote: 'DELETE | auth/cloudauth/role/:name | none | Removes the role' }],
    notes: [ROLE_NEEDS_BOUND],
  }),
  rule({
    id: 'secrets.cloudauth.role-bad-input',
    title: 'Gibberish TTLs, CIDRs, token types and use counts in a role are refused with 400 and the error body',
    sources: [{ file, section: 'Errors', quote: '400 | Invalid request, missing or invalid data' }],
    notes: [
      `Each bad role names a valid bound, so that the bad field is the only reason to refuse it (Vault refuses a role without a bound anyway: ${PLUGIN} path_role.go pathRoleCreateUpdate).`,
      'Vault takes a token_bound_cidrs entry that is no address but contains "/" as a Unix socket path, so it keeps "10.0.0.0/33" (hashicorp/vault sdk/helper/tokenutil ParseTokenFields -> go-secure-stdlib parseutil.ParseAddrs -> hashicorp/go-sockaddr sockaddr.go NewSockAddr): listed in expectations/vault.json. The other bad values are 400 there (sdk/framework FieldData validation, ParseTokenFields).',
    ],
  }),
  rule({
    id: 'secrets.cloudauth.login-no-token',
    title: 'Login succeeds without a client token',
    sources: [
      { file, section: ENDPOINTS, quote: 'Login needs no token.' },
      { file, section: 'Authentication', quote: 'Each auth method has one or more login endpoints reachable without authentication' },
    ],
    notes: [IDENTITY_BOUND],
  }),
  rule({
    id: 'secrets.cloudauth.login-bounds',
    title: 'For generated machines and roles, login succeeds exactly when every non-empty bound contains the machine\'s value; the refusal names the failing bound',
    sources: [verifies, { file, section: ROLE, quote: 'bound_group_ids | array | [] | Group IDs' }],
    notes: [IDENTITY_BOUND, REFUSAL, `When the generated bounds leave both identity bounds empty the group bound is set to match, so the identity bound never decides alone. Bounds compare case-insensitively upstream (${PLUGIN} util.go strListContains).`],
  }),
  rule({
    id: 'secrets.cloudauth.login-empty-bounds',
    title: 'An empty bound does not constrain: a role whose bounds are all empty admits any machine with a good token',
    sources: [{ file, section: ROLE, quote: 'bound_locations | array | [] | Locations' }],
    notes: [IDENTITY_BOUND, 'The role names only a group bound every generated machine is in; every other bound is empty.'],
  }),
  rule({
    id: 'secrets.cloudauth.login-vmss-over-vm',
    title: 'vm_name is ignored when vmss_name is given, and the scale-set bound applies to vmss_name',
    sources: [
      { file, section: ENDPOINTS, quote: "vm_name | string | no | Default ''. Ignored when vmss_name is given" },
      { file, section: ROLE, quote: 'bound_scale_sets | array | [] | Scale set names' },
    ],
    notes: [IDENTITY_BOUND, REFUSAL, `Vault checks the scale set when vmss_name is given and ignores vm_name (${PLUGIN} path_login.go verifyResource).`],
  }),
  rule({ id: 'secrets.cloudauth.login-bad-signature', title: 'A token signed by another key is refused', sources: [verifies], notes: [IDENTITY_BOUND, REFUSAL] }),
  rule({
    id: 'secrets.cloudauth.login-wrong-audience',
    title: 'A token whose audience is not the configured resource is refused',
    sources: [verifies, { file, section: CONFIG, quote: 'URL configured for the registered application' }],
    notes: [IDENTITY_BOUND, REFUSAL],
  }),
  rule({
    id: 'secrets.cloudauth.login-wrong-issuer',
    title: 'A token from another issuer or another tenant is refused',
    sources: [verifies, { file, section: CONFIG, quote: 'Tenant of the cloud directory organization' }],
    notes: [IDENTITY_BOUND, REFUSAL],
  }),
  rule({ id: 'secrets.cloudauth.login-expired', title: 'An expired token is refused', sources: [verifies], notes: [IDENTITY_BOUND, REFUSAL] }),
  rule({ id: 'secrets.cloudauth.login-not-yet-valid', title: 'A token that is not valid yet (nbf in the future) is refused', sources: [verifies], notes: [IDENTITY_BOUND, REFUSAL, `Vault checks nbf itself (${PLUGIN} path_login.go additionalClaims.verifyRole).`] }),
  rule({
    id: 'secrets.cloudauth.login-alg-none',
    title: "An unsigned token (alg 'none') is refused",
    sources: [verifies, { file, section: ENDPOINTS, quote: 'jwt | string | yes | Signed JWT from the managed identity of the machine' }],
    notes: [IDENTITY_BOUND, REFUSAL],
  }),
  rule({
    id: 'secrets.cloudauth.login-other-machine',
    title: "A good token for a machine outside a role's bounds is refused by that role",
    sources: [verifies],
    notes: [IDENTITY_BOUND, REFUSAL, 'The role\'s identity bound is a group both machines are in, so only the subscription and resource-group bounds tell them apart.'],
  }),
  rule({
    id: 'secrets.cloudauth.login-bad-input',
    title: 'Login without role or jwt, with a jwt that is not a JWT, or with an unknown role, is refused with the error body and no token',
    sources: [
      verifies,
      { file, section: ENDPOINTS, quote: 'role | string | yes | Role to log in against' },
      { file, section: ENDPOINTS, quote: 'jwt | string | yes | Signed JWT from the managed identity of the machine' },
      { file, section: 'Errors', quote: 'For status >= 400 the body is {errors:[<message>, ...]}.' },
    ],
    notes: [
      REFUSAL,
      `No 4xx is asserted: the spec shows no status per login condition, and Vault answers 400 without role or jwt or for an unknown role but 500 for a jwt that is no JWT (${PLUGIN} path_login.go pathLogin; go-oidc's verifier error).`,
      'Missing subscription_id or resource_group_name moved to secrets.cloudauth.login-machine-fields-required (SHOULD): the spec marks them required but states no refusal.',
    ],
  }),
  rule({
    id: 'secrets.cloudauth.login-machine-fields-required',
    level: 'SHOULD',
    title: 'Login without subscription_id or without resource_group_name is refused',
    sources: [
      { file, section: ENDPOINTS, quote: 'subscription_id | string | yes | Subscription of the machine' },
      { file, section: ENDPOINTS, quote: 'resource_group_name | string | yes | Resource group of the machine' },
    ],
    notes: [
      'SHOULD: the spec marks both fields required but states no refusal for a missing one.',
      REFUSAL,
      `Vault reads them only for a role with bound_subscription_ids, bound_resource_groups, bound_locations or bound_scale_sets (${PLUGIN} path_login.go verifyResource returns early): with identity bounds only it logs the machine in without them. Listed in expectations/vault.json.`,
    ],
  }),
  rule({
    id: 'secrets.cloudauth.login-machine-name-optional',
    title: 'Login without vm_name and without vmss_name succeeds for a role that bounds only the service principal',
    sources: [
      { file, section: ENDPOINTS, quote: "vm_name | string | no | Default ''." },
      { file, section: ENDPOINTS, quote: "vmss_name | string | no | Default ''." },
    ],
    notes: [
      IDENTITY_BOUND,
      'The role bounds only the service principal, so no bound needs the machine name. Vault looks at the machine (and needs vm_name, vmss_name or a resource id) only for a role with a subscription, resource-group, location or scale-set bound (hashicorp/vault-plugin-auth-azure path_login.go verifyResource returns early otherwise).',
    ],
  }),
  rule({
    id: 'secrets.cloudauth.login-response',
    title: 'The login response has auth.client_token, accessor, token_policies, lease_duration and renewable',
    sources: [{ file, section: LOGIN, quote: "Object 'auth' with client_token (string), accessor (string), token_policies (array of string), lease_duration (integer seconds), renewable (boolean)." }],
    notes: [IDENTITY_BOUND],
  }),
  rule({
    id: 'secrets.cloudauth.login-default-policy',
    title: "For generated policy lists, token_policies are the role's policies plus 'default', unless token_no_default_policy",
    sources: [
      { file, section: ROLE, quote: "token_no_default_policy | bool | false | If true the 'default' policy is not added to the token" },
      { file, section: ROLE, quote: 'Policies put on generated tokens; may be supplemented' },
    ],
    notes: [IDENTITY_BOUND, "Lists of 0 to 4 names (never 'default' or 'root'), as arrays or comma-delimited strings, with and without token_no_default_policy; both settings are explicit examples. The corner of no names with token_no_default_policy (a token with no policy at all, whose token_policies must be []) is checked on its own after the property, so that a target that leaves the empty list out fails there on every seed and hides nothing else.", 'Compared as sets: Vault returns token_policies sorted, de-duplicated and lower-cased (hashicorp/vault vault/request_handling.go LoginCreateToken -> sdk/helper/policyutil SanitizePolicies), and the spec gives no order.'],
  }),
  rule({
    id: 'secrets.cloudauth.login-lease-duration',
    title: "lease_duration is the role's token_ttl",
    sources: [{ file, section: ROLE, quote: 'Incremental lifetime of generated tokens; current value used at renewal' }],
    notes: [IDENTITY_BOUND],
  }),
  rule({
    id: 'secrets.cloudauth.login-num-uses',
    title: 'A token from a role with token_num_uses N works N times, then is refused; with 0 (the default) it is not used up',
    sources: [
      { file, section: ROLE, quote: 'Max uses of a token; 0 is unlimited' },
      { file, section: 'Limits', quote: 'Default role token_num_uses | 0 (unlimited)' },
    ],
    notes: [IDENTITY_BOUND, 'N is generated (0 to 4), with 0 and 1 among the explicit examples; a token of unlimited uses is used N + 4 times.', READABLE],
  }),
  rule({
    id: 'secrets.cloudauth.login-ttl-caps',
    title: "For generated token_ttl, token_max_ttl and token_explicit_max_ttl, lease_duration is token_ttl capped by each cap that is set, and never above a set cap when token_ttl is unset",
    sources: [
      { file, section: ROLE, quote: 'token_max_ttl | integer or string | 0 or \'\' | Maximum lifetime' },
      { file, section: ROLE, quote: 'token_explicit_max_ttl | integer or string | 0 or \'\' | Hard cap on lifetime even if renewal would otherwise be allowed' },
      { file, section: LOGIN, quote: 'lease_duration (integer seconds)' },
    ],
    notes: [
      IDENTITY_BOUND,
      TTL_NOT_OVER_MAX,
      'Without token_ttl the lifetime is the target\'s default, which the spec does not give: only "at most each cap, and more than 0" is asserted then. token_period stays 0: the spec says only that it is "set on the token", not what it does to the lifetime.',
      'Vault: handleLoginRequest (hashicorp/vault vault/request_handling.go) runs sdk/framework/lease.go CalculateTTL, which caps the TTL by the least of the mount maximum, token_max_ttl and token_explicit_max_ttl.',
      'The caps the faults need (a token_max_ttl under the default lifetime, a token_explicit_max_ttl under token_ttl) are explicit examples.',
    ],
  }),
  rule({
    id: 'secrets.cloudauth.login-bound-cidrs',
    title: 'Login from an address outside token_bound_cidrs is refused; from inside it succeeds',
    sources: [{ file, section: ROLE, quote: 'If set, only addresses in these CIDR blocks may authenticate and the token is tied to them' }],
    notes: [
      IDENTITY_BOUND,
      REFUSAL,
      'Where the product keeps an entry that is no block beside a block (Vault and OpenBao keep "10.0.0.0/33" as a Unix socket path: a listed deviation of secrets.cloudauth.role-bad-input), a login from an address in the block still succeeds: the block admits it, the other entry admits no network peer (hashicorp/vault sdk/helper/cidrutil RemoteAddrIsOk asks each entry in turn). A product that refuses the entry (400) is not asked this.',
    ],
  }),
  rule({
    id: 'secrets.cloudauth.token-bound-cidrs',
    title: 'A token from a role with token_bound_cidrs is refused when used from an address outside them',
    sources: [{ file, section: ROLE, quote: 'the token is tied to them' }],
    notes: [IDENTITY_BOUND, READABLE],
  }),
  rule({
    id: 'secrets.cloudauth.token-works',
    title: 'The token login returns works as a client token on the rest of the service',
    sources: [{ file, section: 'Authentication', quote: 'The token is then sent in either header.' }],
    notes: [IDENTITY_BOUND, READABLE],
  }),
  rule({
    id: 'secrets.cloudauth.login-bound-neighbours',
    title:
      "For generated worlds of machines that each differ from one base machine in one bound's value (one character more, less or changed, or only its case) and roles that each bound one field to a list holding the base machine's value, every login is judged against the model, with a machine whose token names no group among them; so is the base machine's token for an audience one character away from the resource, and the base machine's (and a VM's) own token with one login field (subscription_id, resource_group_name, vmss_name, vm_name) a near miss of the machine's value (a prefix, a suffix, one character more at either end, one changed, another case), for a role whose bound lists the claimed values and one bound to the machine's location",
    sources: [
      verifies,
      { file, section: ROLE, quote: 'bound_service_principal_ids | array | [] | Login restricted to these service principal IDs' },
      { file, section: ROLE, quote: 'bound_scale_sets | array | [] | Scale set names' },
      { file, section: CONFIG, quote: 'resource | string | yes | URL configured for the registered application' },
    ],
    notes: [
      IDENTITY_BOUND,
      REFUSAL,
      `Judged against suites/models/cloud-identity-access.ts: a bound admits a value it lists, and refuses one that differs in any character; a value that differs from the listed one only in letter case may go either way, as the spec says nothing of case (Vault compares case-insensitively: ${PLUGIN} util.go strListContains). A VM has no scale set, so a scale-set bound refuses it.`,
      "The login's fields are the machine's (\"Subscription of the machine\", \"Resource group of the machine\"): where a bound is judged from the machine, a field that is not the machine's own must not pass. A role with no subscription, resource-group, location or scale-set bound judges nothing by them and the model lets such a login pass (the plugin's verifyResource returns early then: listed for secrets.cloudauth.login-machine-fields-required). A near-miss name never names a machine of the world: one that shares the token's identity may be taken for it, as the plugin does.",
      'The roles that bound neither identity field name a group every machine of the world is in; the pairs are the base machine and each neighbour against each role (the neighbour differs in the role\'s own field, or in another that role leaves empty), and each role against the base machine and the neighbour.',
    ],
  }),
  rule({
    id: 'secrets.cloudauth.login-cidr-bits',
    title:
      'For token_bound_cidrs blocks at every prefix length around the two client addresses (a /31 whose broadcast address is one client and whose next block starts at the other, /32, a bare address and the next one, /27, /23, /1, /0 and the rest), a login from each address is admitted exactly when the address is in a block, and its token works from exactly those addresses',
    sources: [{ file, section: ROLE, quote: 'If set, only addresses in these CIDR blocks may authenticate and the token is tied to them' }],
    notes: [
      IDENTITY_BOUND,
      REFUSAL,
      READABLE,
      'An address is in a block when its first prefix-length bits equal the block\'s (suites/models/cloud-identity-access.ts); each block is asked from both addresses and beside the block one bit longer and the block of the same size right after it. Some lists carry a documentation block (192.0.2.0/24, 2001:db8::/64) before the deciding one. Needs the profile\'s two client addresses (cloudIdentity.clientAddresses).',
    ],
  }),
  rule({
    id: 'secrets.cloudauth.role-cidr-neighbours',
    title:
      'For generated token_bound_cidrs entries in pairs that differ in one place (a block and the same text with a letter or a space in its prefix, a prefix one past the family\'s bits, an address with one group out of range; IPv4 and IPv6; /0, host blocks and bare addresses), a role write keeps the block, which reads back as the same network, and refuses its neighbour with 400 and the error body',
    sources: [
      { file, section: ROLE, quote: 'token_bound_cidrs | array or comma-delimited string | [] or \'\' | If set, only addresses in these CIDR blocks may authenticate and the token is tied to them' },
      { file, section: 'Errors', quote: '400 | Invalid request, missing or invalid data' },
    ],
    notes: [
      ROLE_NEEDS_BOUND,
      CIDRS_AS_NETWORKS,
      'Judged against suites/models/cloud-identity-access.ts isBlockText and sameNetwork: a block is an IPv4 or IPv6 address and a prefix of digits no larger than its bits, or a bare address (a host block). The neighbours with a "/" in them or a leading "." are asked last.',
      'Vault and OpenBao take an entry that is no address but contains "/" or starts with "." as a Unix socket path and keep it (hashicorp/vault sdk/helper/tokenutil ParseTokenFields -> go-secure-stdlib parseutil.ParseAddrs -> hashicorp/go-sockaddr sockaddr.go NewSockAddr): listed in expectations/vault.json and openbao.json. A neighbour without "/" (an address group out of range) is 400 there.',
    ],
  }),
  rule({
    id: 'secrets.cloudauth.login-role-change',
    title: 'For generated sequences of writes to one role (one bound admitting the machine or naming a near miss of its value, token_bound_cidrs around the login\'s address or another), each login is judged against the role as last written, not as it was at an earlier login',
    sources: [verifies, { file, section: ENDPOINTS, quote: 'POST | auth/cloudauth/role/:name | role fields | see above' }],
    notes: [
      IDENTITY_BOUND,
      REFUSAL,
      'Every bound and token_bound_cidrs are sent at each write ([] where unset): the spec does not say whether a write that leaves a field out keeps its old value (Vault\'s update does).',
    ],
  }),
  rule({
    id: 'secrets.cloudauth.login-period-caps',
    title: 'For generated roles with a token_period, lease_duration never exceeds a set token_max_ttl or token_explicit_max_ttl; the same role without the period or without the explicit cap is judged too',
    sources: [
      { file, section: ROLE, quote: "token_explicit_max_ttl | integer or string | 0 or '' | Hard cap on lifetime even if renewal would otherwise be allowed" },
      { file, section: ROLE, quote: "token_max_ttl | integer or string | 0 or '' | Maximum lifetime; current value used at renewal" },
      { file, section: ROLE, quote: "token_period | integer or string | 0 or '' | Period set on the token" },
      { file, section: LOGIN, quote: 'lease_duration (integer seconds)' },
    ],
    notes: [
      IDENTITY_BOUND,
      TTL_NOT_OVER_MAX,
      'The spec does not say how a period and token_ttl combine, so with a period any lifetime above 0 and within each set cap passes (suites/models/cloud-identity-access.ts leaseRange); without one, the lifetime is token_ttl capped by each set cap, as secrets.cloudauth.login-ttl-caps asserts. Vault and OpenBao give the period, capped by the least of the mount maximum, token_max_ttl and token_explicit_max_ttl (hashicorp/vault sdk/framework/lease.go CalculateTTL).',
    ],
  }),
];

const notes = 'shared/notes/upstream-behaviors.md § 1d';
export const secretsCloudAuthUpstreamRules: Rule[] = [
  rule({
    id: 'secrets.upstream.cloudauth-jwt-required',
    level: 'UPSTREAM',
    title: 'Login without a jwt answers 400 "jwt is required"',
    sources: [{ file, section: 'Errors', quote: 'Which condition of each individual OIDC or login operation yields which status: not shown.' }],
    upstream: { product: 'vault-plugin-auth-azure', source: 'hashicorp/vault-plugin-auth-azure path_login.go', note: `jwt empty → 400 "jwt is required" (${notes})` },
    notes: [ENVIRONMENT_NAMES, `pathLogin checks jwt first, before the role (${PLUGIN} path_login.go pathLogin): logical.ErrorResponse, 400.`],
  }),
  rule({
    id: 'secrets.upstream.cloudauth-cidr-forwarded',
    level: 'UPSTREAM',
    title: "token_bound_cidrs are judged by the address the request comes from, not by a forwarding header: a login from outside the blocks and the use of a bound token from outside them stay refused when X-Forwarded-For, Forwarded or X-Real-IP names an address inside, and the same headers do not refuse a request from inside",
    sources: [{ file, section: ROLE, quote: 'If set, only addresses in these CIDR blocks may authenticate and the token is tied to them' }],
    upstream: {
      product: 'Vault, OpenBao',
      source: 'hashicorp/vault http/handler.go (X-Forwarded-For is honoured only from x_forwarded_for_authorized_addrs, a listener setting with no default), sdk/helper/cidrutil RemoteAddrIsOk (the connection\'s address)',
      note: 'a listener with no x_forwarded_for_authorized_addrs, as in dev mode, takes the connection\'s address; asked of OpenBao 2.6.2 with its Azure plugin',
    },
    notes: [
      IDENTITY_BOUND,
      'Needs the profile\'s two client addresses (cloudIdentity.clientAddresses): the blocks hold the first, the requests come from the second with a header naming the first, and from the first with a header naming the second. A target whose listener trusts forwarding headers from the addresses the run comes from (Vault\'s x_forwarded_for_authorized_addrs) FAILs here by its configuration: run from an address it does not trust. Held-out audit 47b, miss 08.',
    ],
  }),
  rule({
    id: 'secrets.upstream.cloudauth-cidr-403',
    level: 'UPSTREAM',
    title: 'Login from outside token_bound_cidrs answers 403',
    sources: [{ file, section: 'Errors', quote: 'Which condition of each individual OIDC or login operation yields which status: not shown.' }],
    upstream: { product: 'vault-plugin-auth-azure', source: 'hashicorp/vault-plugin-auth-azure path_login.go', note: `token_bound_cidrs miss → 403 permission denied (${notes})` },
    notes: [ENVIRONMENT_NAMES, ROLE_NEEDS_BOUND, `pathLogin checks the role's CIDRs before the JWT (${PLUGIN} path_login.go pathLogin, cidrutil.RemoteAddrIsOk; logical.ErrPermissionDenied is 403), so this runs against a real Vault.`],
  }),
  rule({
    id: 'secrets.upstream.oidc-config-policy',
    level: 'UPSTREAM',
    title: "A login token whose role adds a policy granting read and list under identity/oidc/ reads and lists the OIDC configuration, while the token of a role alike but for that policy (default alone) is refused there",
    sources: [
      { file, section: 'Authentication', quote: 'Permission policies decide access per path; a path the caller may not see can answer 404.' },
      { file, section: ROLE, quote: "token_policies | array or comma-delimited string | [] or '' | Policies put on generated tokens; may be supplemented" },
    ],
    upstream: {
      product: 'Vault, OpenBao',
      source: 'hashicorp/vault vault/policy_store.go (defaultPolicy), vault/acl.go (AllowOperation), sdk/helper/tokenutil (default added to token_policies)',
      note: 'a policy path "identity/oidc/*" with read and list grants the configuration reads and lists; the default policy alone grants none of them (403)',
    },
    notes: [
      IDENTITY_BOUND,
      'The policy language is not shown ("The policy language and the capability required per endpoint: not shown"): the policy is written through the admin API where the upstream provisioner works (RuleKit.oidcConfigPolicy); elsewhere it is a name alone, the profile being taken to let a token with a policy other than default use these routes (the embedded reference evaluates no policy text). Two roles alike but for that policy, one machine, one login through each: the tokens read a scope, LIST the scopes (with and without a trailing slash) and GET ?list=true. Seen on OpenBao 2.6.2 with its Azure plugin.',
    ],
  }),
  rule({
    id: 'secrets.upstream.cloudauth-cidr-text',
    level: 'UPSTREAM',
    title: "In the hashicorp dialect a role's token_bound_cidrs read back as go-sockaddr prints them: a host block (/32, /128) as the bare address in each family, any other block as written, an entry with spaces around it trimmed",
    sources: [{ file, section: ROLE, quote: 'token_bound_cidrs | array or comma-delimited string | [] or \'\' | If set, only addresses in these CIDR blocks may authenticate and the token is tied to them' }],
    upstream: {
      product: 'Vault, OpenBao (Azure auth plugin)',
      source: 'hashicorp/vault sdk/helper/tokenutil (ParseTokenFields, PopulateTokenData), hashicorp/go-secure-stdlib parseutil ParseAddrs, hashicorp/go-sockaddr ipv4addr.go/ipv6addr.go String',
      note: 'ParseAddrs trims each entry; IPv4Addr.String and IPv6Addr.String print a host block without its prefix and keep any other block as written',
    },
    notes: [
      'The spec says which addresses a block admits, not how it is printed: secrets.cloudauth.role-roundtrip compares blocks as networks. This rule asks the text the products give, in the hashicorp dialect only (SKIP in the spec dialect): 10.0.0.5/32 reads back as 10.0.0.5 and ::1/128 as ::1, while 2001:db8::/32 (an IPv6 block whose prefix is the IPv4 host length) and 10.0.0.0/8 keep theirs; " 10.0.0.1" and "10.0.0.0/8 " (an array entry with spaces) are kept, trimmed. An entry the products keep as a Unix socket path ("10.0.0.0/33") reads back quoted twice: go-sockaddr UnixSock String quotes the path (%+q), and that text is JSON-encoded once more; a product that refuses that entry with 400 (as the spec rule secrets.cloudauth.role-bad-input asks) passes that part. Seen on OpenBao 2.6.2 with its Azure plugin (auth-azure v0.21.0).',
    ],
  }),
];
