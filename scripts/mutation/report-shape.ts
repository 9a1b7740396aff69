// The parts of Stryker's JSON report (mutation-testing-report-schema 3) that the scripts read and
// write, and the lines run-mutant.mjs leaves in outcomes.jsonl.

export interface Position {
  /** 1-based */
  line: number;
  /** 1-based */
  column: number;
}

export interface ReportMutant {
  id: string;
  mutatorName: string;
  replacement?: string;
  location: { start: Position; end: Position };
  status: 'Killed' | 'Survived' | 'NoCoverage' | 'CompileError' | 'RuntimeError' | 'Timeout' | 'Ignored' | 'Pending';
  statusReason?: string;
  [key: string]: unknown;
}

export interface MutationReport {
  schemaVersion: string;
  thresholds: unknown;
  files: Record<string, { language: string; source: string; mutants: ReportMutant[] }>;
  testFiles?: unknown;
  /** Added by mutate-module.ts: what the verdicts were made with. */
  stackproof?: RecordInfo;
}

export interface RecordInfo {
  module: string;
  system: string;
  rules: string[];
  dialects: string[];
  /** The run of the hashicorp dialect with --reference-behavior upstream, when the map asks for one. */
  upstream?: { rules: string[]; expect: string[] };
  profile: string;
  seed: number;
  fingerprint: string;
  strykerVersion: string;
  judgedAt: string;
  wallMs: number;
  dryRunMs: Record<string, number>;
  cost: CostSummary;
}

export interface CostSummary {
  /** Mutants that ran a process this time (the rest were reused, or reached by no rule). */
  judged: number;
  meanMs?: number;
  medianMs?: number;
  maxMs?: number;
}

/** One line of outcomes.jsonl (run-mutant.mjs). */
export type MutantOutcome = { mutant: string; ms: number } & (
  | { status: 'uncovered' }
  | { status: 'killed'; dialect: string; rule?: string; crash?: string; /** why an ERROR on both tries counted: a hang, or the same malformed answer */ error?: string }
  | { status: 'survived'; dialects: string[]; /** the rules that judged it, each with its run (absent in records made before per-rule coverage) */ rules?: string[] }
  | { status: 'undecided'; undecided: { dialect: string; rule: string; message: string }[] }
);
