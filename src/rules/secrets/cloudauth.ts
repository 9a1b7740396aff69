import type { Rule } from '../types.ts';
import { SPEC_FILES } from '../spec-files.ts';

const file = SPEC_FILES.secrets;
const CONFIG = 'Resources and their fields > Cloud-identity auth config';
const ROLE = 'Resources and their fields > Cloud-identity role';
const LOGIN = 'Resources and their fields > Login response';
const ENDPOINTS = 'Endpoints > Cloud-identity auth method (mounted at auth/cloudauth; the mount path may differ)';
const CAP = 'cloudIdentity';
const rule = (r: Omit<Rule, 'system' | 'level' | 'capability'> & { level?: Rule['level'] }): Rule => ({ system: 'secrets', level: 'MUST', capability: CAP, ...r });
const verifies = { file, section: ENDPOINTS, quote: 'Login verifies the JWT signature to authenticate the entity, then authorizes it against the role.' };

/** Spec 000: the cloud-identity auth method. */
export const secretsCloudAuthRules: Rule[] = [
  rule({
    id: 'secrets.cloudauth.config-roundtrip',
    title: 'The config written reads back with tenant_id, resource and the credentials client_id and client_secret',
    sources: [{ file, section: ENDPOINTS, quote: 'GET | auth/cloudauth/config | none | {data:{tenant_id, resource, client_id, client_secret}} (credentials are included)' }],
  }),
  rule({
    id: 'secrets.cloudauth.config-required-fields',
    title: 'A config without tenant_id or without resource is refused',
    sources: [
      { file, section: CONFIG, quote: 'tenant_id | string | yes | Tenant of the cloud directory organization' },
      { file, section: CONFIG, quote: 'resource | string | yes | URL configured for the registered application' },
    ],
  }),
  rule({
    id: 'secrets.cloudauth.config-environment',
    title: 'environment accepts CloudPublic, CloudUSGovernment, CloudChina and CloudGerman, and nothing else',
    sources: [{ file, section: CONFIG, quote: "Default 'CloudPublic'. Allowed: CloudPublic, CloudUSGovernment, CloudChina, CloudGerman" }],
  }),
  rule({
    id: 'secrets.cloudauth.config-delete',
    title: 'DELETE of the config removes it and its credentials, and logins stop working',
    sources: [{ file, section: ENDPOINTS, quote: 'DELETE | auth/cloudauth/config | none | Removes config and credentials' }],
  }),
  rule({
    id: 'secrets.cloudauth.role-roundtrip',
    title: 'Every documented role field written reads back (TTLs as seconds, lists as lists)',
    sources: [{ file, section: ENDPOINTS, quote: 'GET | auth/cloudauth/role/:name | none | {data:{role settings}}' }],
  }),
  rule({
    id: 'secrets.cloudauth.role-defaults',
    title: 'A role written with one bound reads back every other field at its documented default',
    sources: [
      { file, section: ROLE, quote: 'bound_service_principal_ids | array | [] | Login restricted to these service principal IDs' },
      { file, section: ROLE, quote: "token_type | string | '' | 'service', 'batch' or 'default'" },
      { file, section: 'Limits', quote: 'Default role token_num_uses | 0 (unlimited)' },
    ],
  }),
  rule({
    id: 'secrets.cloudauth.role-ttl-forms',
    title: 'Role TTL fields given as integer seconds or duration strings read back as integer seconds',
    sources: [{ file, section: ROLE, quote: 'token_ttl | integer or string | 0 or \'\' | Incremental lifetime of generated tokens' }],
  }),
  rule({
    id: 'secrets.cloudauth.role-list-forms',
    title: 'token_policies and token_bound_cidrs given as arrays or as comma-delimited strings read back as the same lists',
    sources: [
      { file, section: ROLE, quote: 'token_policies | array or comma-delimited string' },
      { file, section: ROLE, quote: 'token_bound_cidrs | array or comma-delimited string' },
    ],
  }),
  rule({
    id: 'secrets.cloudauth.role-list',
    title: 'LIST of roles returns the names of the roles',
    sources: [{ file, section: ENDPOINTS, quote: 'LIST | auth/cloudauth/role | none | {data:{keys}}' }],
  }),
  rule({
    id: 'secrets.cloudauth.role-delete',
    title: 'DELETE of a role removes it',
    sources: [{ file, section: ENDPOINTS, quote: 'DELETE | auth/cloudauth/role/:name | none | Removes the role' }],
  }),
  rule({
    id: 'secrets.cloudauth.role-bad-input',
    title: 'Gibberish TTLs, CIDRs, token types and use counts in a role are refused with 400 and the error body',
    sources: [{ file, section: 'Errors', quote: '400 | Invalid request, missing or invalid data' }],
  }),
  rule({
    id: 'secrets.cloudauth.login-no-token',
    title: 'Login succeeds without a client token',
    sources: [
      { file, section: ENDPOINTS, quote: 'Login needs no token.' },
      { file, section: 'Authentication', quote: 'Each auth method has one or more login endpoints reachable without authentication' },
    ],
  }),
  rule({
    id: 'secrets.cloudauth.login-bounds',
    title: 'For generated machines and roles, login succeeds exactly when every non-empty bound contains the machine\'s value; the refusal names the failing bound',
    sources: [verifies, { file, section: ROLE, quote: 'bound_group_ids | array | [] | Group IDs' }],
  }),
  rule({
    id: 'secrets.cloudauth.login-empty-bounds',
    title: 'An empty bound does not constrain: a role whose bounds are all empty admits any machine with a good token',
    sources: [{ file, section: ROLE, quote: 'bound_locations | array | [] | Locations' }],
  }),
  rule({
    id: 'secrets.cloudauth.login-vmss-over-vm',
    title: 'vm_name is ignored when vmss_name is given, and the scale-set bound applies to vmss_name',
    sources: [
      { file, section: ENDPOINTS, quote: "vm_name | string | no | Default ''. Ignored when vmss_name is given" },
      { file, section: ROLE, quote: 'bound_scale_sets | array | [] | Scale set names' },
    ],
  }),
  rule({ id: 'secrets.cloudauth.login-bad-signature', title: 'A token signed by another key is refused', sources: [verifies] }),
  rule({ id: 'secrets.cloudauth.login-wrong-audience', title: 'A token whose audience is not the configured resource is refused', sources: [verifies, { file, section: CONFIG, quote: 'URL configured for the registered application' }] }),
  rule({ id: 'secrets.cloudauth.login-wrong-issuer', title: 'A token from another issuer or another tenant is refused', sources: [verifies, { file, section: CONFIG, quote: 'Tenant of the cloud directory organization' }] }),
  rule({ id: 'secrets.cloudauth.login-expired', title: 'An expired token is refused', sources: [verifies] }),
  rule({ id: 'secrets.cloudauth.login-not-yet-valid', title: 'A token that is not valid yet (nbf in the future) is refused', sources: [verifies] }),
  rule({ id: 'secrets.cloudauth.login-alg-none', title: "An unsigned token (alg 'none') is refused", sources: [verifies, { file, section: ENDPOINTS, quote: 'jwt | string | yes | Signed JWT from the managed identity of the machine' }] }),
  rule({
    id: 'secrets.cloudauth.login-other-machine',
    title: "A good token for a machine outside a role's bounds is refused by that role",
    sources: [verifies],
  }),
  rule({
    id: 'secrets.cloudauth.login-bad-input',
    title: 'Login without role, jwt, subscription_id or resource_group_name, with a jwt that is not a JWT, or with an unknown role, is refused with a 4xx and the error body',
    sources: [
      { file, section: ENDPOINTS, quote: 'subscription_id | string | yes | Subscription of the machine' },
      { file, section: ENDPOINTS, quote: 'resource_group_name | string | yes | Resource group of the machine' },
      { file, section: 'Errors', quote: '400 | Invalid request, missing or invalid data' },
    ],
  }),
  rule({
    id: 'secrets.cloudauth.login-response',
    title: 'The login response has auth.client_token, accessor, token_policies, lease_duration and renewable',
    sources: [{ file, section: LOGIN, quote: "Object 'auth' with client_token (string), accessor (string), token_policies (array of string), lease_duration (integer seconds), renewable (boolean)." }],
  }),
  rule({
    id: 'secrets.cloudauth.login-default-policy',
    title: "token_policies are the role's policies plus 'default', unless token_no_default_policy",
    sources: [{ file, section: ROLE, quote: "token_no_default_policy | bool | false | If true the 'default' policy is not added to the token" }],
  }),
  rule({
    id: 'secrets.cloudauth.login-lease-duration',
    title: "lease_duration is the role's token_ttl",
    sources: [{ file, section: ROLE, quote: 'Incremental lifetime of generated tokens; current value used at renewal' }],
  }),
  rule({
    id: 'secrets.cloudauth.login-num-uses',
    title: 'A token from a role with token_num_uses N works N times, then is refused',
    sources: [{ file, section: ROLE, quote: 'Max uses of a token; 0 is unlimited' }],
  }),
  rule({
    id: 'secrets.cloudauth.login-bound-cidrs',
    title: 'Login from an address outside token_bound_cidrs is refused; from inside it succeeds',
    sources: [{ file, section: ROLE, quote: 'If set, only addresses in these CIDR blocks may authenticate and the token is tied to them' }],
  }),
  rule({
    id: 'secrets.cloudauth.token-bound-cidrs',
    title: 'A token from a role with token_bound_cidrs is refused when used from an address outside them',
    sources: [{ file, section: ROLE, quote: 'the token is tied to them' }],
  }),
  rule({
    id: 'secrets.cloudauth.token-works',
    title: 'The token login returns works as a client token on the rest of the service',
    sources: [{ file, section: 'Authentication', quote: 'The token is then sent in either header.' }],
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
  }),
  rule({
    id: 'secrets.upstream.cloudauth-cidr-403',
    level: 'UPSTREAM',
    title: 'Login from outside token_bound_cidrs answers 403',
    sources: [{ file, section: 'Errors', quote: 'Which condition of each individual OIDC or login operation yields which status: not shown.' }],
    upstream: { product: 'vault-plugin-auth-azure', source: 'hashicorp/vault-plugin-auth-azure path_login.go', note: `token_bound_cidrs miss → 403 permission denied (${notes})` },
  }),
];
