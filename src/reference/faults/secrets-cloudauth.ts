import type { Fault } from './types.ts';

const f = (id: string, breaks: string[], description: string): Fault => ({ id: `secrets.${id}`, system: 'secrets', breaks, description });

/** Faults of the cloudauth area added with the statement map (issue 18); the older ones are in secrets.ts. */
export const secretsCloudauthFaults: Fault[] = [
  f('cloudauth-cidr-read-as-written', ['secrets.upstream.cloudauth-cidr-text'], 'token_bound_cidrs read back exactly as written: a host block keeps its /32 or /128, an entry its spaces, where Vault and OpenBao print go-sockaddr\'s text'),
  f('cloudauth-config-open', ['secrets.cloudauth.token-required'], "The method's open-path pattern takes config as well as login: the config, credentials included, is read and changed without a token"),
  f('cloudauth-roles-open', ['secrets.cloudauth.token-required'], 'Every path under role/ is open: roles are read, listed, written and deleted without a token'),
  f('cloudauth-policies-unchecked', ['secrets.cloudauth.policy-required'], "Any valid token manages the method: a token whose policies grant nothing reads the config's credentials and changes roles"),
  f('cloudauth-max-ttl-ignored', ['secrets.cloudauth.login-ttl-caps'], "token_max_ttl does not cap the login token's lifetime"),
  f('cloudauth-explicit-max-ttl-ignored', ['secrets.cloudauth.login-ttl-caps'], "token_explicit_max_ttl does not cap the login token's lifetime"),
  f('cloudauth-num-uses-zero-single', ['secrets.cloudauth.login-num-uses'], 'token_num_uses 0 gives a token of one use instead of unlimited uses'),
  f('cloudauth-config-credentials-required', ['secrets.cloudauth.config-optional-fields'], 'A config without client_id is refused'),
  f('cloudauth-batch-type-refused', ['secrets.cloudauth.role-token-types'], "A role's token_type 'batch' is refused (only service and default are taken)"),
  f('cloudauth-vm-name-required', ['secrets.cloudauth.login-machine-name-optional'], 'Login without vm_name and without vmss_name is refused'),
  // Issue 47: breaks one attribute away from the granted scope, which the access rules ask from.
  f('cloudauth-cidr-by-bytes', ['secrets.cloudauth.login-cidr-bits'], 'token_bound_cidrs prefixes are rounded down to whole bytes: 127.0.0.0/31 admits a login from 127.0.0.2'),
  f('cloudauth-claimed-group-substring', ['secrets.cloudauth.login-bound-neighbours'], "A login's resource_group_name is taken when it is a prefix of the token's own resource group (spec dialect: the resource id checked without the closing slash; hashicorp: the machine looked up in the token's group, the claim matched as a substring), so a role bound to the shorter name admits a machine of another group (audit 07)"),
  f('cloudauth-bound-prefix-match', ['secrets.cloudauth.login-bound-neighbours'], 'A bound_resource_groups value admits every resource group whose name begins with it'),
  f('cloudauth-role-cached', ['secrets.cloudauth.login-role-change'], 'A role is read at its first login and kept: later writes to it do not change who may log in'),
  f('cloudauth-period-uncapped', ['secrets.cloudauth.login-period-caps'], "A role's token_period is the token's lifetime even above token_max_ttl and token_explicit_max_ttl"),
];
