import type { SystemName } from '../../config/schema.ts';

/**
 * One testable statement of a spec: something a black-box HTTP client can observe an implementation
 * get wrong. Either rules whose tests assert it, or the reason nothing outside can observe it.
 */
export interface Statement {
  /** Stable and unique: `<system>.<area>.<short-name>`. */
  id: string;
  /** The spec's heading path, as rules cite it (`Endpoints > Core`). */
  section: string;
  /** Verbatim from that section (whitespace and table pipes normalised, as rule quotes are). */
  quote: string;
  /** The observable claim in plain words, when the quote alone does not say it (a table row, a list). */
  claim?: string;
  /** The rules whose tests assert it (MUST, SHOULD or MAY: what the default profile runs). */
  rules?: string[];
  /** Why a client cannot observe it; set instead of `rules`. */
  untestable?: string;
  /**
   * A testable statement no rule asserts yet, and why: a known gap, counted as not covered and shown
   * by `stackproof coverage`, never hidden as untestable.
   */
  gap?: string;
  /** Only targets with this capability can show it (e.g. Enterprise `namespaces`). */
  capability?: string;
  /**
   * For access-control and stream-position statements: the ways an implementation could get the
   * check wrong and still pass its easy side, each with the example that shows it and the fault
   * that proves the example is caught (issue 37).
   */
  wrongWays?: WrongWay[];
  /**
   * For access-control statements: the neighbouring scopes the decision is checked from (issue 47),
   * not only the granted one: another client, provider, namespace, token, policy, prefix, CIDR bit.
   */
  neighbours?: Neighbour[];
}

/**
 * One scope beside the granted one that an access decision is asked from: a pair of requests that
 * differ in exactly this attribute, one on each side of the boundary.
 */
export interface Neighbour {
  /** What differs, in a few words ("another client of the same provider", "the next CIDR bit"). */
  scope: string;
  /** The rule whose test asks from it. */
  rule: string;
  /** What the test sends from that scope and what the model says it must get. */
  example: string;
}

/** The kinds of wrong a check can be (the list). */
export type WrongWayKind =
  | 'exact-vs-prefix'
  | 'read-vs-write'
  | 'other-namespace'
  | 'mixed-in-one-request'
  | 'route-or-verb-unchecked'
  | 'first-item-only'
  | 'wrong-subject'
  | 'position-ignored'
  | 'older-index-blocks'
  | 'created-after'
  /** The check refuses what the rule allows (a stronger permission asked for than the spec names). */
  | 'allowed-refused';

export interface WrongWay {
  kind: WrongWayKind;
  /** How an implementation gets it wrong, in a sentence. */
  how: string;
  /** The rule whose test shows it, and what the test does (the explicit example). */
  rule: string;
  example: string;
  /** The reference fault that makes this mistake; the matrix shows it caught. */
  fault: string;
}

/**
 * A text of the spec that bears no statement (a description of the document, a heading-like line):
 * listed so that the map accounts for every rule-bearing unit of the spec.
 */
export interface NonStatement {
  section: string;
  quote: string;
  why: string;
}

export interface StatementMap {
  system: SystemName;
  /** The part of the spec this map covers, for the report. */
  part: string;
  statements: Statement[];
  nonStatements?: NonStatement[];
}
