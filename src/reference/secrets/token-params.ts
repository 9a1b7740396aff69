import { parseCidr } from './cidr.ts';
import { parseDuration } from './durations.ts';
import { FieldError, stringList } from './named-collection.ts';

/** The token settings every Vault auth method's users or roles carry (sdk/helper/tokenutil TokenParams). */
export interface TokenParams {
  token_policies: string[];
  token_bound_cidrs: string[];
  /** Seconds. */
  token_ttl: number;
  token_max_ttl: number;
  token_explicit_max_ttl: number;
  token_period: number;
  token_num_uses: number;
  token_no_default_policy: boolean;
  /** 'default', 'service' or 'batch'. */
  token_type: string;
}

export function defaultTokenParams(): TokenParams {
  return { token_policies: [], token_bound_cidrs: [], token_ttl: 0, token_max_ttl: 0, token_explicit_max_ttl: 0, token_period: 0, token_num_uses: 0, token_no_default_policy: false, token_type: 'default' };
}

/** A field given under its deprecated name is read when the new name is absent (tokenutil UpgradeValue). */
const DEPRECATED: Record<string, string> = { token_policies: 'policies', token_ttl: 'ttl', token_max_ttl: 'max_ttl', token_bound_cidrs: 'bound_cidrs' };

function field(data: Record<string, unknown>, name: string): unknown {
  return data[name] ?? (DEPRECATED[name] ? data[DEPRECATED[name]] : undefined);
}

/** Reads the token fields of a write over the previous values (tokenutil ParseTokenFields); throws FieldError. */
export function parseTokenParams(data: Record<string, unknown>, previous: TokenParams): TokenParams {
  const p = { ...previous };
  p.token_policies = stringList(field(data, 'token_policies'), 'token_policies') ?? p.token_policies;
  p.token_bound_cidrs = stringList(field(data, 'token_bound_cidrs'), 'token_bound_cidrs') ?? p.token_bound_cidrs;
  for (const cidr of p.token_bound_cidrs) {
    try {
      parseCidr(cidr);
    } catch {
      throw new FieldError(`error parsing address "${cidr}": unable to convert "${cidr}" to an IPv4 or IPv6 address`);
    }
  }
  for (const name of ['token_ttl', 'token_max_ttl', 'token_explicit_max_ttl', 'token_period'] as const) {
    const raw = field(data, name);
    if (raw !== undefined && raw !== null) p[name] = raw === '' ? 0 : parseDuration(raw, name);
  }
  const uses = data.token_num_uses;
  if (uses !== undefined && uses !== null) {
    const n = Number(uses);
    if (!Number.isInteger(n) || String(uses).trim() === '') throw new FieldError('token_num_uses must be an integer');
    if (n < 0) throw new FieldError("'token_num_uses' cannot be negative");
    p.token_num_uses = n;
  }
  const noDefault = data.token_no_default_policy;
  if (noDefault !== undefined && noDefault !== null) {
    if (noDefault !== true && noDefault !== false && noDefault !== 'true' && noDefault !== 'false') throw new FieldError('token_no_default_policy must be a boolean');
    p.token_no_default_policy = noDefault === true || noDefault === 'true';
  }
  const type = data.token_type;
  if (type !== undefined && type !== null) {
    if (type === '' || type === 'default') p.token_type = 'default';
    else if (type === 'service' || type === 'batch') p.token_type = type;
    else throw new FieldError(`invalid 'token_type' value ${JSON.stringify(type)}`);
  }
  if (p.token_type === 'batch' && p.token_period !== 0) throw new FieldError("'token_type' cannot be 'batch' or 'default_batch' when set to generate periodic tokens");
  if (p.token_type === 'batch' && p.token_num_uses !== 0) throw new FieldError("'token_type' cannot be 'batch' or 'default_batch' when set to generate tokens with limited use count");
  if (p.token_ttl > 0 && p.token_max_ttl > 0 && p.token_ttl > p.token_max_ttl) throw new FieldError("'token_ttl' cannot be greater than 'token_max_ttl'");
  return p;
}

/** How the token fields read back (tokenutil PopulateTokenData). */
export function tokenParamsView(p: TokenParams): Record<string, unknown> {
  return { ...p, token_policies: [...p.token_policies], token_bound_cidrs: [...p.token_bound_cidrs] };
}

/** The lifetime of a login token: the period, else the TTL (or the system default), capped by the max TTLs. */
export function tokenLifetime(p: TokenParams, systemDefault: number): number {
  if (p.token_period > 0) return p.token_period;
  let ttl = p.token_ttl || systemDefault;
  for (const cap of [p.token_max_ttl, p.token_explicit_max_ttl]) if (cap > 0) ttl = Math.min(ttl, cap);
  return ttl;
}
