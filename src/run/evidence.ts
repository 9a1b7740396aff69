import type { Exchange } from '../client/exchange.ts';

/** A cross-cutting check made on an exchange while another rule's test ran (e.g. the error body). */
export interface Observation {
  rule: string;
  ok: boolean;
  detail: string;
}

/** A fast-check failure: enough to show and to replay the case. */
export interface Counterexample {
  value: string;
  seed: number;
  path: string;
  numRuns: number;
  shrinks: number;
}

/** What a rule's test leaves behind for the report, already redacted. */
export interface RuleEvidence {
  ruleId: string;
  exchanges: Exchange[];
  /** Exchanges recorded beyond the cap are counted, not kept. */
  droppedExchanges: number;
  observations: Observation[];
  counterexample?: Counterexample;
  skipReason?: string;
  notes: string[];
}

declare module 'vitest' {
  interface TaskMeta {
    stackproof?: RuleEvidence;
  }
}
