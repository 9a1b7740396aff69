import type { SystemName } from '../config/schema.ts';

/**
 * MUST/SHOULD/MAY follow the spec's wording; UPSTREAM marks what the spec leaves "not shown" and
 * the real upstream product does. UPSTREAM rules run only under the strict profile.
 */
export const LEVELS = ['MUST', 'SHOULD', 'MAY', 'UPSTREAM'] as const;
export type Level = (typeof LEVELS)[number];

/** The spec file, its section heading and the sentence a rule rests on, quoted verbatim. */
export interface SpecCitation {
  file: string;
  section: string;
  quote: string;
}

/** For UPSTREAM rules: where the upstream behaviour was read. */
export interface UpstreamCitation {
  product: string;
  source: string;
  note: string;
}

export interface Rule {
  id: string;
  system: SystemName;
  title: string;
  level: Level;
  sources: SpecCitation[];
  upstream?: UpstreamCitation;
  /** A declared capability the target must have, or the rule is SKIP. */
  capability?: string;
  /**
   * Its verdict also takes what every other test of its system saw on the wire (the secrets
   * conventions observer, suites/kit/observers): it is final only once all of them have run.
   */
  judgedOnEveryExchange?: true;
  /**
   * How the test was settled against the upstream products where the spec leaves a choice, each
   * with the upstream source read (repository, file, function).
   */
  notes?: string[];
}
