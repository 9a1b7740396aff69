// One Stryker run over one module of the reference: the command test runner starts
// run-mutant.mjs per mutant, which runs the module's mapped rules (mutation/modules.json).
// Afterwards the verdicts run-mutant.mjs wrote (outcomes.jsonl) are folded into Stryker's report:
// the mutants no rule reaches become NoCoverage, those left undecided (ERROR twice) stay Survived
// with the reason and are dropped from the incremental file so the next run judges them again.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INCREMENTAL_DIR, REPORTS_DIR, ROOT, moduleName, rulesFingerprint, type ModuleEntry } from './module-map.ts';
import type { CostSummary, MutantOutcome, MutationReport, RecordInfo, ReportMutant } from './report-shape.ts';

/**
 * Stryker's timeout of a mutant is its dry run's time times the factor plus the constant. The dry
 * run is every rule of every dialect together and then each rule alone (run-mutant.mjs), so it is
 * already longer than a mutant's runs with their second try of an ERROR.
 */
const TIMEOUT_FACTOR = 1.5;
const TIMEOUT_MS = 60_000;

export const UNDECIDED_PREFIX = 'undecided:';

function readJsonLines(file: string): MutantOutcome[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as MutantOutcome);
}

/** The statuses run-mutant.mjs could not tell Stryker through an exit code, folded into a report. */
function applyOutcomes(report: MutationReport, outcomes: Map<string, MutantOutcome>): MutationReport {
  for (const file of Object.values(report.files)) {
    for (const m of file.mutants) {
      const o = outcomes.get(m.id);
      if (!o) continue;
      if (o.status === 'uncovered') {
        m.status = 'NoCoverage';
        m.statusReason = 'no mapped rule reached this code in the dry run';
      } else if (o.status === 'undecided') {
        m.statusReason = `${UNDECIDED_PREFIX} no FAIL, and ERROR twice: ${o.undecided.map((u) => `${u.rule} (${u.dialect}): ${u.message}`).join('; ')}`;
      } else if (o.status === 'killed') {
        m.statusReason = o.error ? `ERROR ${o.rule} (${o.dialect}) twice: ${o.error}` : o.rule ? `FAIL ${o.rule} (${o.dialect})` : `the reference crashed (${o.dialect}): ${o.crash ?? ''}`;
      } else {
        m.statusReason = o.rules
          ? `every mapped rule that reaches it passed (${o.dialects.join(', ')}): ${o.rules.length <= 6 ? o.rules.join(', ') : `${o.rules.slice(0, 6).join(', ')} and ${o.rules.length - 6} more`}`
          : `every mapped rule passed (${o.dialects.join(', ')})`;
      }
    }
  }
  return report;
}

/** What is kept of Stryker's report: the files and their mutants; no machine paths, no options. */
function strip(report: MutationReport): MutationReport {
  return { schemaVersion: report.schemaVersion, thresholds: report.thresholds, files: report.files, testFiles: report.testFiles };
}

function costSummary(outcomes: MutantOutcome[]): CostSummary {
  const ms = outcomes
    .filter((o) => o.status !== 'uncovered')
    .map((o) => o.ms)
    .sort((a, b) => a - b);
  if (ms.length === 0) return { judged: 0 };
  return { judged: ms.length, meanMs: Math.round(ms.reduce((s, x) => s + x, 0) / ms.length), medianMs: ms[Math.floor(ms.length / 2)], maxMs: ms[ms.length - 1] };
}

/** The 1-based line spans of Stryker mutate patterns `file:<a>-<b>` or `file:<a>:<col>-<b>:<col>`. */
function lineSpans(ranges: string[]): [number, number][] {
  return ranges.map((r) => {
    const m = /:(\d+)(?::\d+)?-(\d+)(?::\d+)?$/.exec(r);
    if (!m) throw new Error(`not a line range: ${r}`);
    return [Number(m[1]), Number(m[2])];
  });
}

function isUndecided(m: { statusReason?: string }): boolean {
  return (m.statusReason ?? '').startsWith(UNDECIDED_PREFIX);
}

export interface MutateOptions {
  /** Stryker mutate patterns (file:line:col-line:col) instead of the whole file: the CI slice. */
  ranges?: string[];
  /** Incremental mode, and the report and incremental file written under mutation/ (default true). */
  record?: boolean;
  /** Judge every mutant again, not only what changed. */
  force?: boolean;
  concurrency?: number;
  log?: (line: string) => void;
  /** Stryker's own log level (default info). */
  logLevel?: 'off' | 'error' | 'warn' | 'info' | 'debug';
}

export interface MutateResult {
  report: MutationReport & { stackproof: RecordInfo };
  outcomes: MutantOutcome[];
}

/** Mutation-tests one mapped module with StrykerJS. */
export async function mutateModule(entry: ModuleEntry, options: MutateOptions = {}): Promise<MutateResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const record = options.record ?? true;
  const name = moduleName(entry.file);
  const state = mkdtempSync(join(tmpdir(), `stackproof-mutate-${name}-`));
  const reportFile = join(REPORTS_DIR, `${name}.json`);
  const incrementalFile = join(INCREMENTAL_DIR, `${name}.json`);
  const fingerprint = rulesFingerprint(entry);
  const previous = record && existsSync(reportFile) ? (JSON.parse(readFileSync(reportFile, 'utf8')) as MutationReport) : undefined;
  const spans = options.ranges && record ? lineSpans(options.ranges) : undefined;
  if (spans && previous) {
    // The other lines' verdicts are kept only if they still hold for the code as it is now.
    const recorded = previous.files[entry.file]?.source;
    if (recorded !== undefined && recorded !== readFileSync(join(ROOT, entry.file), 'utf8')) {
      throw new Error(`${entry.file} changed since its record: judge the whole file (npm run mutate -- ${entry.file}), not some of its lines`);
    }
  }
  if (record && existsSync(incrementalFile) && !options.force) {
    // Stryker reuses every earlier verdict on unchanged code (the command runner reports no
    // coverage, so it cannot know which rules changed): what was not killed is judged again when
    // the rules changed, and what was left undecided always.
    const rulesChanged = previous?.stackproof?.fingerprint !== fingerprint;
    const incremental = JSON.parse(readFileSync(incrementalFile, 'utf8')) as MutationReport;
    let dropped = 0;
    for (const file of Object.values(incremental.files)) {
      // A run over some lines judges again only what lies on them: Stryker carries the other
      // mutants' verdicts over from this file, and dropping them here would lose them.
      const outside = (m: ReportMutant) => spans !== undefined && !spans.some(([a, b]) => m.location.start.line >= a && m.location.start.line <= b);
      const keep = file.mutants.filter((m) => outside(m) || (!isUndecided(m) && (!rulesChanged || m.status === 'Killed' || m.status === 'Timeout')));
      dropped += file.mutants.length - keep.length;
      file.mutants = keep;
    }
    writeFileSync(incrementalFile, `${JSON.stringify(incremental, null, 2)}\n`);
    if (dropped) log(`${entry.file}: ${dropped} mutant(s) to judge again (${rulesChanged ? 'the rules changed since the record: those not killed, and' : ''} those left undecided)`);
  }
  const started = performance.now();
  process.env.STACKPROOF_MUTATE_MODULE = JSON.stringify(entry);
  process.env.STACKPROOF_MUTATE_STATE = state;
  // Learning which rules reach which mutant costs a conform run per rule in the dry run: worth it
  // over a whole file, not for the few mutants of some lines (the CI slice).
  process.env.STACKPROOF_MUTATE_PER_RULE = options.ranges ? '0' : '1';
  const { Stryker } = await import('@stryker-mutator/core');
  const strykerOptions = {
    testRunner: 'command',
    commandRunner: { command: 'node scripts/mutation/run-mutant.mjs' },
    mutate: options.ranges ?? [entry.file],
    coverageAnalysis: 'off',
    concurrency: options.concurrency ?? 1,
    incremental: record,
    incrementalFile,
    force: options.force ?? false,
    reporters: ['json', 'clear-text', 'progress-append-only'],
    jsonReporter: { fileName: join(state, 'report.json') },
    clearTextReporter: { allowColor: false, logTests: false, reportMutants: true, reportScoreTable: true },
    tempDirName: join(state, 'stryker-tmp'),
    cleanTempDir: true,
    // The sandbox needs the CLI, the reference, the suites, the catalog and the spec: not these.
    ignorePatterns: ['/reports', '/bench', '/docs', '/load', '/test', '/mutation', '/dist', '/.scratch', '/.stackproof-tmp', '/.git'],
    timeoutFactor: TIMEOUT_FACTOR,
    timeoutMS: TIMEOUT_MS,
    // The per-rule dry runs of a module with a hundred rules take minutes on two cores.
    dryRunTimeoutMinutes: 60,
    thresholds: { high: 90, low: 80, break: null },
    checkers: [],
    plugins: [join(ROOT, 'scripts', 'mutation', 'fault-ignorer.mjs')],
    ignorers: ['stackproof-faults'],
    logLevel: options.logLevel ?? 'info',
    fileLogLevel: 'off',
    allowConsoleColors: false,
  };
  try {
    // The options object is Stryker's PartialStrykerOptions; its type lives in a package not depended on directly.
    await new Stryker(strykerOptions as ConstructorParameters<typeof Stryker>[0]).runMutationTest();
    const outcomesList = readJsonLines(join(state, 'outcomes.jsonl'));
    const outcomes = new Map(outcomesList.map((o) => [o.mutant, o]));
    const dryRunFile = join(state, 'dry-run.json');
    const dryRun = existsSync(dryRunFile) ? (JSON.parse(readFileSync(dryRunFile, 'utf8')) as { timings?: Record<string, number> }) : {};
    const report = applyOutcomes(JSON.parse(readFileSync(join(state, 'report.json'), 'utf8')) as MutationReport, outcomes);
    const stackproof: RecordInfo = {
      module: entry.file,
      system: entry.system,
      rules: entry.rules,
      dialects: entry.dialects,
      ...(entry.upstream ? { upstream: entry.upstream } : {}),
      profile: entry.profile,
      seed: entry.seed,
      // After a run over some lines, the other lines' verdicts are still those of the earlier rules:
      // the earlier fingerprint stays, so the next whole-file run judges them again if rules changed.
      fingerprint: spans && previous?.stackproof?.fingerprint ? previous.stackproof.fingerprint : fingerprint,
      strykerVersion: (JSON.parse(readFileSync(join(ROOT, 'node_modules', '@stryker-mutator', 'core', 'package.json'), 'utf8')) as { version: string }).version,
      judgedAt: new Date().toISOString(),
      wallMs: Math.round(performance.now() - started),
      dryRunMs: dryRun.timings ?? {},
      // A run that reused every verdict measured nothing: the last measurement stands.
      cost: outcomesList.some((o) => o.status !== 'uncovered') ? costSummary(outcomesList) : (previous?.stackproof?.cost ?? costSummary(outcomesList)),
    };
    if (record) {
      mkdirSync(REPORTS_DIR, { recursive: true });
      writeFileSync(reportFile, `${JSON.stringify({ ...strip(report), stackproof }, null, 2)}\n`);
      const incremental = applyOutcomes(JSON.parse(readFileSync(incrementalFile, 'utf8')) as MutationReport, outcomes);
      for (const file of Object.values(incremental.files)) file.mutants = file.mutants.filter((m) => !isUndecided(m));
      writeFileSync(incrementalFile, `${JSON.stringify(strip(incremental), null, 2)}\n`);
    }
    return { report: { ...report, stackproof }, outcomes: outcomesList };
  } finally {
    delete process.env.STACKPROOF_MUTATE_MODULE;
    delete process.env.STACKPROOF_MUTATE_STATE;
    delete process.env.STACKPROOF_MUTATE_PER_RULE;
    rmSync(state, { recursive: true, force: true });
  }
}
