import type { StatementMap } from './types.ts';

const CONFIG = 'Resources and their fields > Cloud-identity auth config';
const ROLE = 'Resources and their fields > Cloud-identity role';
const LOGIN = 'Resources and their fields > Login response';
const EP = 'Endpoints > Cloud-identity auth method (mounted at auth/cloudauth; the mount path may differ)';
/** Logins need machine tokens signed by a cloud the method trusts: the stackproof simulator. */
const SIM = 'cloudIdentity';

/** Every rule that sends a login token the method must refuse, or a machine it must not admit. */
const VERIFICATION = [
  'secrets.cloudauth.login-bad-signature',
  'secrets.cloudauth.login-wrong-audience',
  'secrets.cloudauth.login-wrong-issuer',
  'secrets.cloudauth.login-expired',
  'secrets.cloudauth.login-not-yet-valid',
  'secrets.cloudauth.login-alg-none',
];

/** The testable statements of the cloud-identity auth method (spec 000), each with the rules that assert it or why none can. */
export const secretsCloudauthStatements: StatementMap = {
  system: 'secrets',
  part: 'cloud-identity auth method (spec 000)',
  statements: [
    // Sentences of the general sections about this method.
    {
      id: 'secrets.cloudauth.exchanges-jwt-for-token',
      section: 'What the service does',
      quote: 'The cloud-identity auth method exchanges a signed JWT from a managed identity of a cloud virtual machine for a client token, after checking role constraints.',
      claim: "A good machine token within the role's bounds gives a client token that works; a bad token or a machine outside the bounds gives none.",
      rules: ['secrets.cloudauth.login-bounds', 'secrets.cloudauth.token-works', ...VERIFICATION],
      capability: SIM,
    },
    {
      id: 'secrets.cloudauth.token-required',
      section: 'What the service does',
      quote: 'Once the service is unsealed, nearly every operation requires a client token (see Authentication).',
      claim: "Every config and role operation under auth/cloudauth (config read, which returns the credentials, write and delete; role read, write, list and delete) is refused without a token or with one the service never issued, and changes nothing; only login is exempt.",
      rules: ['secrets.cloudauth.token-required'],
      neighbours: [
        { scope: 'login beside config and role under the same mount', rule: 'secrets.cloudauth.token-required', example: 'without a token login is answered while every config and role operation is refused, nothing changed' },
        { scope: 'a token the service never issued beside none', rule: 'secrets.cloudauth.token-required', example: 'the same operations with a forged token: refused, credentials not shown' },
      ],
      wrongWays: [
        { kind: 'exact-vs-prefix', how: "The method's open-path pattern (login) also matches config.", rule: 'secrets.cloudauth.token-required', example: 'config read, write and delete without a token: refused, credentials not shown, nothing changed', fault: 'secrets.cloudauth-config-open' },
        { kind: 'route-or-verb-unchecked', how: 'Every path under role/ is open.', rule: 'secrets.cloudauth.token-required', example: 'role read, list, write and delete without a token: refused, nothing changed', fault: 'secrets.cloudauth-roles-open' },
      ],
    },
    {
      id: 'secrets.cloudauth.policies-decide',
      section: 'Authentication',
      quote: 'Permission policies decide access per path; a path the caller may not see can answer 404.',
      claim: "A token whose policies grant nothing (one policy that does not exist, no 'default') is refused (403 or 404) on every config and role operation of the method, sees none of the config's credentials and changes nothing.",
      rules: ['secrets.cloudauth.policy-required'],
      neighbours: [
        { scope: 'an issued token whose policies grant nothing beside the token that manages the method', rule: 'secrets.cloudauth.policy-required', example: 'the login token of a role with one unknown policy and no default: every config and role operation refused; the same operations with the run token succeed' },
      ],
      wrongWays: [
        { kind: 'read-vs-write', how: 'Any valid token manages the method, whatever its policies grant.', rule: 'secrets.cloudauth.policy-required', example: 'a token whose one policy does not exist reads, writes and deletes config and roles: refused, credentials not shown, nothing changed', fault: 'secrets.cloudauth-policies-unchecked' },
      ],
      capability: SIM,
    },
    {
      id: 'secrets.cloudauth.invalid-400',
      section: 'Errors',
      quote: '| 400 | Invalid request, missing or invalid data |',
      claim: 'A role with a TTL, CIDR block, token type, use count or boolean that is not one is refused with 400; a config missing tenant_id or resource, or naming an unknown environment, is refused with a 4xx.',
      rules: ['secrets.cloudauth.role-bad-input', 'secrets.cloudauth.config-required-fields', 'secrets.cloudauth.config-environment'],
    },
    {
      id: 'secrets.cloudauth.limit-num-uses',
      section: 'Limits',
      quote: '| Default role token_num_uses | 0 (unlimited) |',
      claim: 'A role written without token_num_uses reads back 0, and its login tokens are not used up.',
      rules: ['secrets.cloudauth.role-defaults', 'secrets.cloudauth.login-num-uses'],
    },

    // Resources and their fields > Cloud-identity auth config
    {
      id: 'secrets.cloudauth.config-tenant-id',
      section: CONFIG,
      quote: '| tenant_id | string | yes | Tenant of the cloud directory organization |',
      claim: "A config without tenant_id is refused; a machine token of another tenant does not log in.",
      rules: ['secrets.cloudauth.config-required-fields', 'secrets.cloudauth.login-wrong-issuer'],
    },
    {
      id: 'secrets.cloudauth.config-resource',
      section: CONFIG,
      quote: '| resource | string | yes | URL configured for the registered application |',
      claim: 'A config without resource is refused; a machine token whose audience is not the resource does not log in.',
      rules: ['secrets.cloudauth.config-required-fields', 'secrets.cloudauth.login-wrong-audience', 'secrets.cloudauth.login-bound-neighbours'],
      neighbours: [
        { scope: 'an audience one character longer or shorter than the resource', rule: 'secrets.cloudauth.login-bound-neighbours', example: "the base machine's token for '<resource>0' or the resource without its last character is refused by a role that admits its token for the resource" },
      ],
    },
    {
      id: 'secrets.cloudauth.config-environment-optional',
      section: CONFIG,
      quote: '| environment | string | no |',
      claim: 'A config without environment is accepted.',
      rules: ['secrets.cloudauth.config-optional-fields'],
    },
    {
      id: 'secrets.cloudauth.config-environment-default',
      section: CONFIG,
      quote: "Default 'CloudPublic'.",
      untestable:
        'The config read the spec shows carries no environment ({data:{tenant_id, resource, client_id, client_secret}}), and which cloud a login then reaches is not visible to a client: a target that trusts the stackproof simulator reaches it under every environment.',
    },
    {
      id: 'secrets.cloudauth.config-environment-allowed',
      section: CONFIG,
      quote: 'Allowed: CloudPublic, CloudUSGovernment, CloudChina, CloudGerman',
      claim: 'Each of the four names is accepted, and any other is refused.',
      rules: ['secrets.cloudauth.config-environment'],
    },
    {
      id: 'secrets.cloudauth.config-client-id-default',
      section: CONFIG,
      quote: "| client_id | string | no | Default ''.",
      claim: "A config without client_id is accepted and reads back client_id ''.",
      rules: ['secrets.cloudauth.config-optional-fields'],
    },
    {
      id: 'secrets.cloudauth.config-client-id-permission',
      section: CONFIG,
      quote: 'Credential for querying the cloud APIs; read permission on compute resources needed',
      untestable:
        "A requirement on the credential an operator gives, enforced by the cloud's API, not by the service: the stackproof simulator answers every compute read, and the spec shows no status for a login the cloud refuses.",
    },
    {
      id: 'secrets.cloudauth.config-client-secret-default',
      section: CONFIG,
      quote: "| client_secret | string | no | Default '' |",
      claim: "A config without client_secret is accepted and reads back client_secret ''.",
      rules: ['secrets.cloudauth.config-optional-fields'],
    },

    // Resources and their fields > Cloud-identity role
    {
      id: 'secrets.cloudauth.role-name',
      section: ROLE,
      quote: '| name | string (URL) | required | Role name |',
      claim: 'A role is named by its URL segment: written, read, listed and deleted under that name.',
      rules: ['secrets.cloudauth.role-roundtrip', 'secrets.cloudauth.role-list', 'secrets.cloudauth.role-delete'],
    },
    {
      id: 'secrets.cloudauth.role-bound-service-principals',
      section: ROLE,
      quote: '| bound_service_principal_ids | array | [] | Login restricted to these service principal IDs |',
      claim: "A login is admitted only if the machine's service principal is in a non-empty bound; the bound defaults to [].",
      rules: ['secrets.cloudauth.login-bounds', 'secrets.cloudauth.role-defaults', 'secrets.cloudauth.role-roundtrip', 'secrets.cloudauth.login-bound-neighbours'],
      neighbours: [
        { scope: 'a machine whose service principal ID is one character off (or differs only in case)', rule: 'secrets.cloudauth.login-bound-neighbours', example: 'a role bounding it to [other, the base machine\'s value] admits the base machine and refuses the neighbour; case alone may go either way' },
        { scope: 'another role that leaves this bound empty', rule: 'secrets.cloudauth.login-bound-neighbours', example: 'the neighbour machine is admitted by the roles of the other fields' },
      ],
    },
    {
      id: 'secrets.cloudauth.role-bound-groups',
      section: ROLE,
      quote: '| bound_group_ids | array | [] | Group IDs |',
      claim: "A login is admitted only if one of the machine's groups is in a non-empty bound; the bound defaults to [].",
      rules: ['secrets.cloudauth.login-bounds', 'secrets.cloudauth.role-defaults', 'secrets.cloudauth.role-roundtrip', 'secrets.cloudauth.login-bound-neighbours'],
      neighbours: [
        { scope: 'a machine whose group is one character off (or differs only in case)', rule: 'secrets.cloudauth.login-bound-neighbours', example: 'a role bounding it to [other, the base machine\'s value] admits the base machine and refuses the neighbour; case alone may go either way' },
        { scope: 'another role that leaves this bound empty', rule: 'secrets.cloudauth.login-bound-neighbours', example: 'the neighbour machine is admitted by the roles of the other fields' },
      ],
    },
    {
      id: 'secrets.cloudauth.role-bound-locations',
      section: ROLE,
      quote: '| bound_locations | array | [] | Locations |',
      claim: "A login is admitted only if the machine's location is in a non-empty bound; an empty bound admits any location.",
      rules: ['secrets.cloudauth.login-bounds', 'secrets.cloudauth.login-empty-bounds', 'secrets.cloudauth.role-defaults', 'secrets.cloudauth.login-bound-neighbours'],
      neighbours: [
        { scope: 'a machine whose location is one character off (or differs only in case)', rule: 'secrets.cloudauth.login-bound-neighbours', example: 'a role bounding it to [other, the base machine\'s value] admits the base machine and refuses the neighbour; case alone may go either way' },
        { scope: 'another role that leaves this bound empty', rule: 'secrets.cloudauth.login-bound-neighbours', example: 'the neighbour machine is admitted by the roles of the other fields' },
      ],
    },
    {
      id: 'secrets.cloudauth.role-bound-subscriptions',
      section: ROLE,
      quote: '| bound_subscription_ids | array | [] | Subscription IDs |',
      claim: "A login is admitted only if the machine's subscription is in a non-empty bound.",
      rules: ['secrets.cloudauth.login-bounds', 'secrets.cloudauth.login-other-machine', 'secrets.cloudauth.role-defaults', 'secrets.cloudauth.login-bound-neighbours'],
      neighbours: [
        { scope: 'a machine whose subscription ID is one character off (or differs only in case)', rule: 'secrets.cloudauth.login-bound-neighbours', example: 'a role bounding it to [other, the base machine\'s value] admits the base machine and refuses the neighbour; case alone may go either way' },
        { scope: 'another role that leaves this bound empty', rule: 'secrets.cloudauth.login-bound-neighbours', example: 'the neighbour machine is admitted by the roles of the other fields' },
      ],
    },
    {
      id: 'secrets.cloudauth.role-bound-resource-groups',
      section: ROLE,
      quote: '| bound_resource_groups | array | [] | Resource groups |',
      claim: "A login is admitted only if the machine's resource group is in a non-empty bound.",
      rules: ['secrets.cloudauth.login-bounds', 'secrets.cloudauth.login-other-machine', 'secrets.cloudauth.role-defaults', 'secrets.cloudauth.login-bound-neighbours'],
      wrongWays: [
        { kind: 'exact-vs-prefix', how: 'A bound value admits every value it begins.', rule: 'secrets.cloudauth.login-bound-neighbours', example: "a bound ['rg-a'] admits a machine in 'rg-a_'", fault: 'secrets.cloudauth-bound-prefix-match' },
      ],
      neighbours: [
        { scope: 'a machine whose resource group is one character off (or differs only in case)', rule: 'secrets.cloudauth.login-bound-neighbours', example: 'a role bounding it to [other, the base machine\'s value] admits the base machine and refuses the neighbour; case alone may go either way' },
        { scope: 'another role that leaves this bound empty', rule: 'secrets.cloudauth.login-bound-neighbours', example: 'the neighbour machine is admitted by the roles of the other fields' },
      ],
    },
    {
      id: 'secrets.cloudauth.role-bound-scale-sets',
      section: ROLE,
      quote: '| bound_scale_sets | array | [] | Scale set names |',
      claim: 'A login is admitted only if the scale set named by vmss_name is in a non-empty bound.',
      rules: ['secrets.cloudauth.login-bounds', 'secrets.cloudauth.login-vmss-over-vm', 'secrets.cloudauth.role-defaults', 'secrets.cloudauth.login-bound-neighbours'],
      neighbours: [
        { scope: 'a machine whose scale set name is one character off (or differs only in case)', rule: 'secrets.cloudauth.login-bound-neighbours', example: 'a role bounding it to [other, the base machine\'s value] admits the base machine and refuses the neighbour; case alone may go either way' },
        { scope: 'another role that leaves this bound empty', rule: 'secrets.cloudauth.login-bound-neighbours', example: 'the neighbour machine is admitted by the roles of the other fields' },
      ],
    },
    {
      id: 'secrets.cloudauth.role-token-ttl',
      section: ROLE,
      quote: "| token_ttl | integer or string | 0 or '' | Incremental lifetime of generated tokens;",
      claim: "token_ttl is taken as seconds or a duration and read back in seconds; a login token's lease_duration is token_ttl (within the caps).",
      rules: ['secrets.cloudauth.role-ttl-forms', 'secrets.cloudauth.login-lease-duration', 'secrets.cloudauth.login-ttl-caps', 'secrets.cloudauth.role-defaults'],
    },
    {
      id: 'secrets.cloudauth.role-ttl-renewal',
      section: ROLE,
      quote: 'current value used at renewal',
      claim: 'A renewal uses the role\'s token_ttl and token_max_ttl as they are then.',
      untestable: 'The spec shows no renewal operation (no token endpoint is part of it), so no client can renew a login token through the spec\'s API.',
    },
    {
      id: 'secrets.cloudauth.role-token-max-ttl',
      section: ROLE,
      quote: "| token_max_ttl | integer or string | 0 or '' | Maximum lifetime;",
      claim: "A login token's lease_duration never exceeds a set token_max_ttl; the field is taken as seconds or a duration.",
      rules: ['secrets.cloudauth.login-ttl-caps', 'secrets.cloudauth.role-ttl-forms', 'secrets.cloudauth.login-period-caps'],
    },
    {
      id: 'secrets.cloudauth.role-token-policies',
      section: ROLE,
      quote: "| token_policies | array or comma-delimited string | [] or '' | Policies put on generated tokens; may be supplemented |",
      claim: "A login token carries the role's policies (plus 'default'); the field is taken as an array or a comma-delimited string.",
      rules: ['secrets.cloudauth.login-default-policy', 'secrets.cloudauth.role-list-forms', 'secrets.cloudauth.role-defaults'],
    },
    {
      id: 'secrets.cloudauth.role-token-bound-cidrs',
      section: ROLE,
      quote: "| token_bound_cidrs | array or comma-delimited string | [] or '' | If set, only addresses in these CIDR blocks may authenticate and the token is tied to them |",
      claim: 'A login from outside the blocks is refused, one from inside admitted; the token is refused from outside them; the field is taken as an array or a comma-delimited string.',
      rules: ['secrets.cloudauth.login-bound-cidrs', 'secrets.cloudauth.token-bound-cidrs', 'secrets.cloudauth.role-list-forms', 'secrets.cloudauth.login-cidr-bits', 'secrets.cloudauth.login-role-change', 'secrets.cloudauth.role-cidr-neighbours'],
      wrongWays: [
        { kind: 'exact-vs-prefix', how: 'Prefixes are rounded down to whole bytes.', rule: 'secrets.cloudauth.login-cidr-bits', example: '127.0.0.0/31 admits a login from 127.0.0.2', fault: 'secrets.cloudauth-cidr-by-bytes' },
      ],
      neighbours: [
        { scope: 'the other client address, one bit past the block', rule: 'secrets.cloudauth.login-cidr-bits', example: '127.0.0.0/31 (127.0.0.1 is its broadcast address) admits a login from 127.0.0.1 and refuses one from 127.0.0.2; its token works from 127.0.0.1 only' },
        { scope: 'the block one bit longer, and the next block of the same size', rule: 'secrets.cloudauth.login-cidr-bits', example: '127.0.0.0/30 admits both addresses, 127.0.0.2/31 only 127.0.0.2, 127.0.0.4/30 neither; /27 and /23 around them admit both' },
        { scope: 'the role as it was before a write', rule: 'secrets.cloudauth.login-role-change', example: 'after token_bound_cidrs is rewritten to the other address, a login that was admitted is refused' },
        { scope: 'a bare address, and the next address', rule: 'secrets.cloudauth.login-cidr-bits', example: 'the bound 127.0.0.1 (no prefix) admits a login from 127.0.0.1 and refuses one from 127.0.0.2; the bound 127.0.0.2 the other way round' },
        { scope: 'the entry text one place away (a letter or a space in the prefix, one past the bits, a group out of range)', rule: 'secrets.cloudauth.role-cidr-neighbours', example: '10.0.0.0/8 is kept and reads back as 10.0.0.0/8, 10.0.0.0/x8 is refused with 400; fd00::/8 kept, fd00::/129 refused; 0.0.0.0/0 kept beside 0.0.0.0/x0; ::1 kept beside ::10000' },
      ],
    },
    {
      id: 'secrets.cloudauth.role-token-explicit-max-ttl',
      section: ROLE,
      quote: "| token_explicit_max_ttl | integer or string | 0 or '' | Hard cap on lifetime even if renewal would otherwise be allowed |",
      claim: "A login token's lease_duration never exceeds a set token_explicit_max_ttl, even when token_ttl or token_period is longer (renewal itself is not part of the spec).",
      rules: ['secrets.cloudauth.login-ttl-caps', 'secrets.cloudauth.role-ttl-forms', 'secrets.cloudauth.login-period-caps'],
      neighbours: [
        { scope: 'the same role with a token_period, and without it', rule: 'secrets.cloudauth.login-period-caps', example: 'token_period 3600 and token_explicit_max_ttl 600: lease_duration in 1..600; without the period and token_ttl 600: exactly 600' },
      ],
    },
    {
      id: 'secrets.cloudauth.role-token-no-default-policy',
      section: ROLE,
      quote: "| token_no_default_policy | bool | false | If true the 'default' policy is not added to the token |",
      rules: ['secrets.cloudauth.login-default-policy', 'secrets.cloudauth.role-defaults'],
    },
    {
      id: 'secrets.cloudauth.role-token-num-uses',
      section: ROLE,
      quote: '| token_num_uses | integer | 0 | Max uses of a token; 0 is unlimited;',
      claim: 'A login token of a role with token_num_uses N works N times, then is refused; with 0 it is not used up.',
      rules: ['secrets.cloudauth.login-num-uses', 'secrets.cloudauth.role-defaults'],
    },
    {
      id: 'secrets.cloudauth.role-num-uses-child-tokens',
      section: ROLE,
      quote: 'must be 0 if the token must create child tokens',
      untestable: 'Creating child tokens is not part of the spec (no token-creation endpoint is shown), so no client can see a use-limited token fail to make one.',
    },
    {
      id: 'secrets.cloudauth.role-token-period',
      section: ROLE,
      quote: "| token_period | integer or string | 0 or '' |",
      claim: 'token_period is taken as seconds or a duration and read back in seconds.',
      rules: ['secrets.cloudauth.role-ttl-forms', 'secrets.cloudauth.role-roundtrip', 'secrets.cloudauth.role-defaults'],
    },
    {
      id: 'secrets.cloudauth.role-period-on-token',
      section: ROLE,
      quote: 'Period set on the token',
      untestable:
        "The login response the spec shows has no period, the spec shows no token lookup, and it does not say what a period does to a token's lifetime: a client cannot see the period on the token.",
    },
    {
      id: 'secrets.cloudauth.role-token-type',
      section: ROLE,
      quote: "| token_type | string | '' | 'service', 'batch' or 'default'",
      claim: "A role takes 'service', 'batch' and 'default' and reads each back; another value is refused; unset it reads '' (or 'default').",
      rules: ['secrets.cloudauth.role-token-types', 'secrets.cloudauth.role-defaults', 'secrets.cloudauth.role-bad-input'],
    },
    {
      id: 'secrets.cloudauth.role-token-type-mount-default',
      section: ROLE,
      quote: "(the mount's tuned default, normally service)",
      untestable: "Tuning a mount is not part of the spec, and the login response the spec shows carries no token type: what 'default' resolves to cannot be seen.",
    },
    {
      id: 'secrets.cloudauth.role-token-store-types',
      section: ROLE,
      quote: "Token-store roles also allow 'default-service' and 'default-batch'",
      untestable: "About the token store's roles, whose endpoints are not part of this spec.",
    },

    // Resources and their fields > Login response
    {
      id: 'secrets.cloudauth.login-response-fields',
      section: LOGIN,
      quote: "Object 'auth' with client_token (string), accessor (string), token_policies (array of string), lease_duration (integer seconds), renewable (boolean).",
      rules: ['secrets.cloudauth.login-response', 'secrets.cloudauth.login-default-policy', 'secrets.cloudauth.login-lease-duration'],
      capability: SIM,
    },

    // Endpoints > Cloud-identity auth method
    {
      id: 'secrets.cloudauth.config-write',
      section: EP,
      quote: '| POST | auth/cloudauth/config | config fields | see above |',
      rules: ['secrets.cloudauth.config-roundtrip', 'secrets.cloudauth.config-optional-fields'],
    },
    {
      id: 'secrets.cloudauth.config-read',
      section: EP,
      quote: '| GET | auth/cloudauth/config | none | {data:{tenant_id, resource, client_id, client_secret}} (credentials are included) |',
      claim: 'The config reads back with its credentials, to a caller that may see them (and only to one).',
      rules: ['secrets.cloudauth.config-roundtrip', 'secrets.cloudauth.token-required', 'secrets.cloudauth.policy-required'],
    },
    { id: 'secrets.cloudauth.config-delete', section: EP, quote: '| DELETE | auth/cloudauth/config | none | Removes config and credentials |', rules: ['secrets.cloudauth.config-delete'] },
    {
      id: 'secrets.cloudauth.role-write',
      section: EP,
      quote: '| POST | auth/cloudauth/role/:name | role fields | see above |',
      rules: ['secrets.cloudauth.role-roundtrip', 'secrets.cloudauth.login-role-change'],
      wrongWays: [
        { kind: 'created-after', how: 'A role is read at its first login and kept.', rule: 'secrets.cloudauth.login-role-change', example: 'a bound rewritten to a near miss of the machine\'s value still admits it', fault: 'secrets.cloudauth-role-cached' },
      ],
      neighbours: [
        { scope: 'the role as it was before the last write', rule: 'secrets.cloudauth.login-role-change', example: 'a resource-group bound rewritten from the machine\'s value to a near miss: the login admitted before is refused after' },
      ],
    },
    { id: 'secrets.cloudauth.role-read', section: EP, quote: '| GET | auth/cloudauth/role/:name | none | {data:{role settings}} |', rules: ['secrets.cloudauth.role-roundtrip'] },
    { id: 'secrets.cloudauth.role-list', section: EP, quote: '| LIST | auth/cloudauth/role | none | {data:{keys}} |', rules: ['secrets.cloudauth.role-list'] },
    { id: 'secrets.cloudauth.role-delete', section: EP, quote: '| DELETE | auth/cloudauth/role/:name | none | Removes the role |', rules: ['secrets.cloudauth.role-delete'] },
    { id: 'secrets.cloudauth.login', section: EP, quote: '| POST | auth/cloudauth/login | see below | login response |', rules: ['secrets.cloudauth.login-response'], capability: SIM },
    {
      id: 'secrets.cloudauth.login-role-field',
      section: EP,
      quote: '| role | string | yes | Role to log in against |',
      claim: 'A login without role, or naming a role that does not exist, is refused with no token.',
      rules: ['secrets.cloudauth.login-bad-input'],
      capability: SIM,
    },
    {
      id: 'secrets.cloudauth.login-jwt-field',
      section: EP,
      quote: '| jwt | string | yes | Signed JWT from the managed identity of the machine |',
      claim: 'A login without jwt, with one that is no JWT, or with an unsigned one, is refused with no token.',
      rules: ['secrets.cloudauth.login-bad-input', 'secrets.cloudauth.login-alg-none'],
      capability: SIM,
    },
    {
      id: 'secrets.cloudauth.login-subscription-field',
      section: EP,
      quote: '| subscription_id | string | yes | Subscription of the machine |',
      claim: 'A login without subscription_id is refused (SHOULD: the spec states no refusal).',
      rules: ['secrets.cloudauth.login-machine-fields-required', 'secrets.cloudauth.login-bound-neighbours'],
      neighbours: [{ scope: "the machine's own token with a subscription_id one hex digit off (or only its case changed)", rule: 'secrets.cloudauth.login-bound-neighbours', example: "a role whose bound lists the claimed values, and a role bound to the machine's own location: refused; case alone may go either way" }],
      capability: SIM,
    },
    {
      id: 'secrets.cloudauth.login-resource-group-field',
      section: EP,
      quote: '| resource_group_name | string | yes | Resource group of the machine |',
      claim: 'A login without resource_group_name is refused (SHOULD: the spec states no refusal).',
      rules: ['secrets.cloudauth.login-machine-fields-required', 'secrets.cloudauth.login-bound-neighbours'],
      neighbours: [{ scope: "the machine's own token with a resource_group_name that is a prefix, a suffix, one character longer at either end, one character off or another case of its own", rule: 'secrets.cloudauth.login-bound-neighbours', example: "a role bounding resource groups to the claimed values, and a role bound to the machine's own location: refused; case alone may go either way" }],
      capability: SIM,
    },
    {
      id: 'secrets.cloudauth.login-vm-name-optional',
      section: EP,
      quote: "| vm_name | string | no | Default ''.",
      claim: 'A login without vm_name (and without vmss_name) is admitted when no bound needs the machine name.',
      rules: ['secrets.cloudauth.login-machine-name-optional'],
      capability: SIM,
    },
    {
      id: 'secrets.cloudauth.login-vm-name-ignored',
      section: EP,
      quote: 'Ignored when vmss_name is given',
      claim: 'With vmss_name given, a vm_name that names another machine changes nothing: the scale set decides.',
      rules: ['secrets.cloudauth.login-vmss-over-vm'],
      capability: SIM,
    },
    {
      id: 'secrets.cloudauth.login-vmss-name',
      section: EP,
      quote: "| vmss_name | string | no | Default ''. Scale set name |",
      claim: 'vmss_name may be left out; given, it names the scale set the scale-set bound is checked against.',
      rules: ['secrets.cloudauth.login-machine-name-optional', 'secrets.cloudauth.login-vmss-over-vm', 'secrets.cloudauth.login-bounds'],
      capability: SIM,
    },
    {
      id: 'secrets.cloudauth.login-verifies',
      section: EP,
      quote: 'Login verifies the JWT signature to authenticate the entity, then authorizes it against the role.',
      claim: 'A token signed by another key, for another audience, from another issuer or tenant, expired, not yet valid or unsigned gives no client token; a good token of a machine outside the role gives none either.',
      rules: [...VERIFICATION, 'secrets.cloudauth.login-bounds', 'secrets.cloudauth.login-other-machine', 'secrets.cloudauth.login-bound-neighbours'],
      capability: SIM,
    },
    { id: 'secrets.cloudauth.login-no-token', section: EP, quote: 'Login needs no token.', rules: ['secrets.cloudauth.login-no-token'], capability: SIM },
  ],
  nonStatements: [
    { section: LOGIN, quote: 'Other top-level fields may follow.', why: 'A permission: extra fields never make a login response wrong (the suites parse it with a schema that lets them through).' },
    { section: EP, quote: 'Login request fields:', why: 'Introduces the table of login fields, whose rows are statements of their own.' },
  ],
};
