/**
 * Who may log in through the cloud-identity auth method, from where, and for how long (spec 000,
 * "Cloud-identity role", "Cloud-identity auth method"), written from the spec's sentences. Where the
 * spec leaves a choice the functions return every allowed outcome, and each of them passes.
 */

// ---------------------------------------------------------------------------------------------
// CIDR blocks. Spec 000, Cloud-identity role, token_bound_cidrs: "If set, only addresses in these
// CIDR blocks may authenticate and the token is tied to them." A block is a network address and a
// prefix length in bits: an address is in it when its first `prefix` bits equal the network's.

export interface Block {
  family: 4 | 6;
  /** The address as a number, host bits included as written. */
  value: bigint;
  prefix: number;
}

const BITS = { 4: 32, 6: 128 } as const;

function ipv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((n, p) => (n << 8n) | BigInt(Number(p)), 0n);
}

function ipv6(text: string): bigint | undefined {
  if (!/^[0-9a-fA-F:]+$/.test(text) || text.split('::').length > 2) return undefined;
  const [head = '', tail] = text.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  if (groups.length !== 8 || groups.some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  return groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** An address ('10.0.0.1', '::1') as a number and its family; undefined for anything else. */
export function parseAddress(text: string): { family: 4 | 6; value: bigint } | undefined {
  const v4 = ipv4(text);
  if (v4 !== undefined) return { family: 4, value: v4 };
  const v6 = ipv6(text);
  return v6 === undefined ? undefined : { family: 6, value: v6 };
}

/** 'address/prefix' or a bare address (a host block); undefined for text that is no block. */
export function parseBlock(text: string): Block | undefined {
  const [address = '', prefixText, ...more] = text.split('/');
  const a = parseAddress(address);
  if (!a || more.length > 0) return undefined;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? BITS[a.family] : Number(prefixText);
  return prefix > BITS[a.family] ? undefined : { ...a, prefix };
}

/**
 * Whether a role write may keep the entry: spec 000, Cloud-identity role, "token_bound_cidrs |
 * array or comma-delimited string | ... | only addresses in these CIDR blocks"; Errors, "400 |
 * Invalid request, missing or invalid data". An entry that is no block (a prefix with a letter or a
 * space in it, longer than the family's bits) is invalid data: 400.
 */
export function isBlockText(text: string): boolean {
  return parseBlock(text) !== undefined;
}

/** Whether two entries name the same network: same family, prefix and network address (how a block read back is compared). */
export function sameNetwork(a: string, b: string): boolean {
  const x = parseBlock(a);
  const y = parseBlock(b);
  return x !== undefined && y !== undefined && x.family === y.family && x.prefix === y.prefix && (x.value & mask(x.family, x.prefix)) === (y.value & mask(y.family, y.prefix));
}

function mask(family: 4 | 6, prefix: number): bigint {
  const bits = BITS[family];
  return prefix === 0 ? 0n : ((1n << BigInt(prefix)) - 1n) << BigInt(bits - prefix);
}

/** Whether the address is in the block: same family, and the first `prefix` bits agree. */
export function inBlock(address: string, block: Block): boolean {
  const a = parseAddress(address);
  if (!a || a.family !== block.family) return false;
  const m = mask(block.family, block.prefix);
  return (a.value & m) === (block.value & m);
}

/** Whether the address is in any of the blocks. */
export function inAnyBlock(address: string, blocks: readonly string[]): boolean {
  return blocks.some((b) => {
    const block = parseBlock(b);
    return block !== undefined && inBlock(address, block);
  });
}

/** Writes an address of the family back as text (IPv6 as eight groups). */
export function formatAddress(family: 4 | 6, value: bigint): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 255n)).join('.');
  const groups: string[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(((value >> s) & 0xffffn).toString(16));
  return groups.join(':');
}

/** The block of `prefix` bits around the address, written with its network address. */
export function blockAround(address: string, prefix: number): string {
  const a = parseAddress(address)!;
  return `${formatAddress(a.family, a.value & mask(a.family, prefix))}/${prefix}`;
}

/** The block of the same size right after the one around the address (the first address one past the bound). */
export function nextBlock(address: string, prefix: number): string | undefined {
  const a = parseAddress(address)!;
  const size = 1n << BigInt(BITS[a.family] - prefix);
  const next = (a.value & mask(a.family, prefix)) + size;
  return next >> BigInt(BITS[a.family]) === 0n ? `${formatAddress(a.family, next)}/${prefix}` : undefined;
}

/** The network (first) and broadcast (last) addresses of a block. */
export function blockEnds(block: Block): { first: bigint; last: bigint } {
  const m = mask(block.family, block.prefix);
  const first = block.value & m;
  return { first, last: first | (((1n << BigInt(BITS[block.family])) - 1n) & ~m) };
}

// ---------------------------------------------------------------------------------------------
// Login. Spec 000, Cloud-identity auth method: "Login verifies the JWT signature to authenticate
// the entity, then authorizes it against the role." Each bound of the role restricts login to the
// values it lists, and an empty one ("Default []") does not restrict.

export const BOUND_FIELDS = ['bound_service_principal_ids', 'bound_group_ids', 'bound_locations', 'bound_subscription_ids', 'bound_resource_groups', 'bound_scale_sets'] as const;
export type BoundField = (typeof BOUND_FIELDS)[number];

/** The machine a login speaks for, as the cloud knows it. */
export interface Machine {
  kind: 'vm' | 'vmss';
  /** The VM's or the scale set's name. */
  name: string;
  subscription_id: string;
  resource_group: string;
  location: string;
  principal_id: string;
  groups: string[];
}

export interface LoginRole {
  bounds: Partial<Record<BoundField, string[]>>;
  token_bound_cidrs?: string[];
}

export interface LoginAttempt {
  machine: Machine;
  /** The address the login comes from. */
  source: string;
  /** The audience the token was minted for, and the resource the config names. */
  audience: string;
  resource: string;
  /**
   * What the login's fields name where they are not the machine's own: subscription_id ("Subscription
   * of the machine"), resource_group_name ("Resource group of the machine"), vm_name or vmss_name
   * (its name). Absent: the login names the machine as it is.
   */
  claimed?: Partial<Record<'subscription_id' | 'resource_group' | 'name', string>>;
}

/**
 * The machine's values each bound is checked against. Spec 000: "bound_service_principal_ids |
 * Login restricted to these service principal IDs"; "bound_scale_sets | Scale set names", and the
 * login's vm_name is "Ignored when vmss_name is given": only a scale-set machine has a scale set.
 */
export function machineValues(m: Machine): Record<BoundField, string[]> {
  return {
    bound_service_principal_ids: [m.principal_id],
    bound_group_ids: m.groups,
    bound_locations: [m.location],
    bound_subscription_ids: [m.subscription_id],
    bound_resource_groups: [m.resource_group],
    bound_scale_sets: m.kind === 'vmss' ? [m.name] : [],
  };
}

export type LoginOutcome = 'admitted' | 'refused';

/**
 * Every outcome the spec allows for one login. A value equal to one the bound lists passes it; one
 * that differs in any character but letter case fails it. The spec says nothing of letter case, so
 * a value that matches the bound only when case is ignored may go either way (Vault's plugin
 * compares case-insensitively: hashicorp/vault-plugin-auth-azure util.go strListContains).
 */
export function loginOutcomes(role: LoginRole, attempt: LoginAttempt): Set<LoginOutcome> {
  // token_bound_cidrs: "only addresses in these CIDR blocks may authenticate".
  if (role.token_bound_cidrs && role.token_bound_cidrs.length > 0 && !inAnyBlock(attempt.source, role.token_bound_cidrs)) return new Set(['refused']);
  // config resource: "URL configured for the registered application": the token is minted for it.
  if (attempt.audience !== attempt.resource) return new Set(['refused']);
  const values = machineValues(attempt.machine);
  let caseOnly = false;
  // The login's fields are those "of the machine" whose token it sends: where a bound is judged
  // from the machine (subscription, resource group, location, scale set), a value that is not the
  // machine's own (one character more or less, one changed) names another machine and must not
  // pass, whatever the bounds list. Letter case only: Azure's names do not depend on it, and the spec
  // is silent. A role with no such bound judges nothing by them, and the spec does not say the
  // fields are checked then (Vault's plugin does not look: vault-plugin-auth-azure path_login.go
  // verifyResource returns early), so either outcome passes.
  const byMachine = (['bound_subscription_ids', 'bound_resource_groups', 'bound_locations', 'bound_scale_sets'] as const).some((f) => (role.bounds[f] ?? []).length > 0);
  for (const [key, claim] of Object.entries(attempt.claimed ?? {})) {
    const own = attempt.machine[key as 'subscription_id' | 'resource_group' | 'name'];
    if (claim === own) continue;
    if (!byMachine || claim.toLowerCase() === own.toLowerCase()) caseOnly = true;
    else return new Set(['refused']);
  }
  for (const field of BOUND_FIELDS) {
    const bound = role.bounds[field] ?? [];
    if (bound.length === 0) continue;
    const mine = values[field];
    if (bound.some((b) => mine.includes(b))) continue;
    if (bound.some((b) => mine.some((v) => v.toLowerCase() === b.toLowerCase()))) caseOnly = true;
    else return new Set(['refused']);
  }
  return new Set(caseOnly ? ['admitted', 'refused'] : ['admitted']);
}

/**
 * Where a token issued by a role with token_bound_cidrs may be used: "the token is tied to them".
 * A token of a role without them is not tied to any address.
 */
export function tokenUsableFrom(role: LoginRole, source: string): boolean {
  return !role.token_bound_cidrs || role.token_bound_cidrs.length === 0 || inAnyBlock(source, role.token_bound_cidrs);
}

// ---------------------------------------------------------------------------------------------
// Token lifetime (seconds; 0 is unset).

export interface LifetimeFields {
  token_ttl: number;
  token_max_ttl: number;
  token_explicit_max_ttl: number;
  token_period: number;
}

/**
 * The lease_duration values a login may answer, as an inclusive range. From the spec's rows:
 * - token_max_ttl "Maximum lifetime" and token_explicit_max_ttl "Hard cap on lifetime even if
 *   renewal would otherwise be allowed": the lifetime is never above a set one, a period or not;
 * - token_ttl "Incremental lifetime of generated tokens": without a period it is the lifetime,
 *   unless a cap is lower;
 * - token_period "Period set on the token": the spec does not say how a period and token_ttl
 *   combine, nor what the lifetime is with neither ("Further role record fields ... not shown"), so
 *   any positive lifetime within the caps passes (Vault: the period, capped; sdk/framework/lease.go
 *   CalculateTTL).
 */
export function leaseRange(f: LifetimeFields): { min: number; max: number } {
  const caps = [f.token_max_ttl, f.token_explicit_max_ttl].filter((c) => c > 0);
  const cap = caps.length > 0 ? Math.min(...caps) : Number.POSITIVE_INFINITY;
  if (f.token_period === 0 && f.token_ttl > 0) {
    const exact = Math.min(f.token_ttl, cap);
    return { min: exact, max: exact };
  }
  return { min: 1, max: cap };
}
