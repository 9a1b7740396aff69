import type { IdentityFixtures } from '../../client/identity-fixtures.ts';
import type { Targets } from '../../config/schema.ts';
import type { MeshFixtures } from '../../provision/mesh-fixtures.ts';
import type { NomadSchedulerFixtures } from '../../provision/nomad-scheduler-fixtures.ts';

/** One request of a scenario, as the closed-model engine (autocannon) replays it. */
export interface FixedRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** A prepared scenario: the base URL it loads, one iteration for the open-model runner, and fixed requests for autocannon. */
export interface PreparedScenario {
  name: string;
  url: string;
  /** One iteration (one or more requests); resolves true when every answer was correct. */
  iterate: () => Promise<boolean>;
  /** HTTP requests one `iterate` sends (1 when absent): what --max-requests counts. */
  requestsPerIteration?: number;
  /** The requests autocannon repeats, when the iteration is a fixed request sequence. */
  fixed?: FixedRequest[];
  /**
   * Set when `fixed` is the whole iteration: how an answer is judged, so that the open model sends
   * `fixed` through its lean client (src/load/fixed-request-client.ts) rather than running `iterate`.
   */
  openFixed?: { accept: (status: number, body: Buffer | undefined) => boolean; keepBodies?: boolean };
  /**
   * Set when a right answer's body is known: autocannon counts an answer whose body it rejects as an
   * error, as the open model's `openFixed.accept` does (the k6 script imports the same definition).
   */
  acceptBody?: (body: string) => boolean;
  /** What the k6 script needs (URLs, tokens, names), passed to it as environment variables. */
  k6Env: Record<string, string>;
  /** Credentials the scenario made (an entity's token, a client's secret): redacted from the reports like the targets' tokens. */
  secrets?: string[];
  close: () => Promise<void>;
}

/** A hot path under load, defined once and run by every engine. */
export interface LoadScenario {
  name: string;
  system: keyof Targets;
  description: string;
  /** Sets up what the iterations need (a client, a leaf, an intention) through the API and the fixtures. */
  prepare: (targets: Targets, made?: LoadFixtures) => Promise<PreparedScenario>;
}

/** What the load run provisioned before the scenarios: fixtures made through the product's own API, under the run prefix. */
export interface LoadFixtures {
  runPrefix: string;
  /** The scheduler's fixtures (Nomad's API, or the control listener's copy of it); absent when none could be had, with the reason. */
  scheduler?: NomadSchedulerFixtures;
  schedulerMissing?: string;
  /** The mesh fixtures (Consul's API, or the reference's control listener) for intentions; absent with the reason. */
  mesh?: MeshFixtures;
  meshMissing?: string;
  /** Identity entities with tokens (Vault's admin API, the control listener, or the profile's list) for the OIDC code flow; absent with the reason. */
  entities?: IdentityFixtures;
  entitiesMissing?: string;
}
