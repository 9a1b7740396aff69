import type { ProductName, SystemName } from '../config/names.ts';
import type { SweepReport } from '../provision/sweep-report.ts';
import type { Difference } from './compare.ts';
import type { Answer } from './normalise.ts';
import type { RequestClass } from './request-template.ts';
import type { SpecQuote } from './spec-word.ts';

/** One of the two targets a diff compares. */
export interface DiffSide {
  label: 'a' | 'b';
  /** How the report names it: `the reference`, `Nomad 2.0.5`. */
  name: string;
  url: string;
  reference: boolean;
  product?: { key?: ProductName; name: string; version?: string };
}

export interface DiffedDifference {
  difference: Difference;
  /** One line: what differs. */
  line: string;
  /** The row of docs/reference-fidelity.md that lists it. */
  listed?: { line: number; why: string };
  /** What the spec says about it. */
  spec: string;
}

export interface DiffedRequest {
  class: RequestClass;
  what: string;
  /** The request as sent, fixture values as their symbols. */
  request: string;
  a: Answer;
  b: Answer;
  differences: DiffedDifference[];
}

export interface DiffedEndpoint {
  method: string;
  path: string;
  /** What the spec states about this endpoint's answer. */
  spec: SpecQuote[];
  requests: DiffedRequest[];
}

export interface DiffCounts {
  requests: number;
  alike: number;
  differing: number;
  /** Requests whose every difference is listed. */
  listed: number;
  /** Requests with a difference no row lists. */
  unlisted: number;
  /** Requests that one target or both did not answer (a timeout, a reset, a preparation that failed). */
  unanswered: number;
}

export interface DiffRun {
  system: SystemName;
  seed: number;
  runs: number;
  prefix: string;
  startedAt: string;
  durationMs: number;
  a: DiffSide;
  b: DiffSide;
  /** Whether the listing applies: the reference on one side, a known product on the other. */
  listing: string;
  endpoints: DiffedEndpoint[];
  /** Endpoints or requests not compared, and why (a fixture one of the targets could not have, a change it could not undo). */
  skipped: { endpoint: string; why: string }[];
  counts: DiffCounts;
  /**
   * Rows of the known differences that apply to this product and version but that no difference
   * of this run matched: fixed since, or not reached by these requests (a row goes when its
   * difference is gone for good).
   */
  unseen: { line: number; row: string }[];
  cleanup: { a: SweepReport; b: SweepReport };
  /** Stopped by Ctrl-C before every request was sent. */
  interrupted?: boolean;
}

export function countRequests(endpoints: DiffedEndpoint[]): DiffCounts {
  const all = endpoints.flatMap((e) => e.requests);
  const differing = all.filter((r) => r.differences.length);
  const unlisted = differing.filter((r) => r.differences.some((d) => !d.listed));
  const unanswered = all.filter((r) => r.a.status === undefined || r.b.status === undefined).length;
  return { requests: all.length, alike: all.length - differing.length, differing: differing.length, listed: differing.length - unlisted.length, unlisted: unlisted.length, unanswered };
}
