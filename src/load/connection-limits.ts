import type { Targets } from '../config/schema.ts';

/** What the open model keeps in flight at most when the product sets no lower limit. */
export const DEFAULT_MAX_IN_FLIGHT = 256;

/**
 * How many concurrent HTTP connections the product accepts from one client address by default, where
 * it limits them: a load generator that opens more has its extra connections reset, and counts the
 * product's own limit as the product's errors. Consul: `limits.http_max_conns_per_client`, 200
 * (the 1.8.7 binary in ../shared/bin answered 200 of 230 simultaneous connections and reset 30).
 * Nomad: the same setting, 100 (nomad/structs/config/limits.go, DefaultLimits, at v1.9.0). Vault
 * has no such limit. The spec dialect is stackproof's own: no limit.
 */
export function perClientConnectionLimit(system: keyof Targets, dialect: 'spec' | 'hashicorp'): { limit: number; why: string } | undefined {
  if (dialect !== 'hashicorp') return undefined;
  if (system === 'mesh') return { limit: 200, why: "Consul's per-client limit, limits.http_max_conns_per_client" };
  if (system === 'scheduler') return { limit: 100, why: "Nomad's per-client limit, limits.http_max_conns_per_client" };
  return undefined;
}

/**
 * The generator's share of a product's per-client limit: the run keeps other connections to the
 * same agent open beside the generator's (the scenario's setup client, the provisioner's, keep-alive
 * connections not yet closed), and the agent counts them all. Measured against Consul 1.8.7 at
 * 6,000/s: with the whole 200 to the generator, 4 to 8 of its connections were reset per run.
 */
const GENERATOR_SHARE = 0.9;

/** How many connections a load engine opens at most against this target (one per request in flight). */
export function maxInFlightFor(system: keyof Targets, dialect: 'spec' | 'hashicorp'): number {
  const limit = perClientConnectionLimit(system, dialect)?.limit;
  return limit === undefined ? DEFAULT_MAX_IN_FLIGHT : Math.min(DEFAULT_MAX_IN_FLIGHT, Math.floor(limit * GENERATOR_SHARE));
}
