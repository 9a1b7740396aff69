import { z } from 'zod';

/**
 * results.json: the source of truth of a run; the HTML and JUnit reports are rendered from it.
 * Versioned: a change that removes or retypes a field bumps SCHEMA_VERSION.
 */
export const SCHEMA_VERSION = 1;

/** EXPECTED: a FAIL that is a listed spec deviation of the product named with `--expect`. */
/**
 * INTERRUPTED: the rule's test was running when the run was stopped (Ctrl-C, SIGTERM). It has no
 * verdict, and is never counted as a failure.
 */
export const OUTCOMES = ['PASS', 'FAIL', 'SKIP', 'ERROR', 'WAIVED', 'EXPECTED', 'INTERRUPTED'] as const;
export type Outcome = (typeof OUTCOMES)[number];

const exchangeSchema = z.object({
  method: z.string(),
  url: z.string(),
  requestHeaders: z.record(z.string(), z.string()),
  requestBody: z.string().optional(),
  status: z.number().int().optional(),
  responseHeaders: z.record(z.string(), z.string()).optional(),
  responseBody: z.string().optional(),
  durationMs: z.number(),
  error: z.string().optional(),
});

const citationSchema = z.object({ file: z.string(), section: z.string(), quote: z.string() });

export const ruleResultSchema = z.object({
  id: z.string(),
  system: z.enum(['secrets', 'mesh', 'scheduler']),
  title: z.string(),
  level: z.enum(['MUST', 'SHOULD', 'MAY', 'UPSTREAM']),
  sources: z.array(citationSchema),
  upstream: z.object({ product: z.string(), source: z.string(), note: z.string() }).optional(),
  outcome: z.enum(OUTCOMES),
  durationMs: z.number(),
  /** Why it failed, errored or was skipped. */
  message: z.string().optional(),
  expected: z.string().optional(),
  actual: z.string().optional(),
  counterexample: z
    .object({ value: z.string(), seed: z.number(), path: z.string(), numRuns: z.number(), shrinks: z.number() })
    .optional(),
  /** The one command that replays this rule (and its counterexample) against the same target. */
  replay: z.string().optional(),
  exchanges: z.array(exchangeSchema),
  droppedExchanges: z.number().int(),
  observations: z.array(z.object({ rule: z.string(), ok: z.boolean(), detail: z.string() })),
  notes: z.array(z.string()),
  /** Faults in the reference's catalog that break this rule. */
  faults: z.array(z.string()),
  /** How the rule was settled against the upstream products (source files read). */
  ruleNotes: z.array(z.string()).optional(),
  /** For EXPECTED: the product's listed deviation that the failure matched. */
  expectation: z.object({ product: z.string(), behavior: z.string(), source: z.string(), versions: z.string(), range: z.string().optional() }).optional(),
});

export const targetSummarySchema = z.object({
  system: z.enum(['secrets', 'mesh', 'scheduler']),
  url: z.string(),
  dialect: z.enum(['spec', 'hashicorp']),
  embedded: z.boolean(),
  /** The product the provisioner found on the target and its version (absent in older runs and where nothing says). */
  product: z.object({ name: z.string(), version: z.string().optional(), how: z.string() }).optional(),
});

const percentilesSchema = z.object({
  p50: z.number(),
  p90: z.number(),
  p99: z.number(),
  p999: z.number(),
  max: z.number(),
  min: z.number(),
  mean: z.number(),
});

/** One side's CPU over a load row: in percent of one core, the cores it may use, and its busiest threads. */
const processCpuSchema = z.object({ percent: z.number(), cores: z.number().int().optional(), threads: z.array(z.object({ name: z.string(), percent: z.number() })) });

export const loadScenarioResultSchema = z.object({
  scenario: z.string(),
  engine: z.string(),
  model: z.enum(['open', 'closed']),
  targetRate: z.number().optional(),
  durationMs: z.number(),
  requests: z.number().int(),
  errors: z.number().int(),
  /** Requests the schedule could not start in time (open model). */
  dropped: z.number().int(),
  throughput: z.number(),
  latencyMs: percentilesSchema,
  /** Base64 HDR histogram, so runs from several machines merge exactly. */
  histogram: z.string(),
  /** Per-second series for charts (p90 and max are absent in results written before the charts drew them). */
  timeline: z.array(
    z.object({ t: z.number(), requests: z.number(), errors: z.number(), p50: z.number(), p99: z.number(), p90: z.number().optional(), max: z.number().optional() }),
  ),
  thresholds: z.array(z.object({ name: z.string(), limit: z.number(), actual: z.number(), ok: z.boolean() })),
  // The fields below are optional: results written before they existed still parse.
  /** Iterations run, where an iteration is several requests (k6 rows; requests are HTTP requests). */
  iterations: z.number().int().optional(),
  /** Iterations the schedule could not start (k6 rows; `dropped` counts their requests). */
  droppedIterations: z.number().int().optional(),
  /** k6 rows: the latency bucket counts the scripts keep (k6 has no histogram), and their layout; `histogram` is built from them. */
  k6Buckets: z.object({ minMs: z.number(), growth: z.number(), counts: z.array(z.number().int()) }).optional(),
  /** Why this row has no figures (k6 wrote no summary, or one that does not parse); such a row fails the run. */
  error: z.string().optional(),
  /**
   * Open-model rows: how arrivals were timed. At 'coarse' the wait for the next millisecond tick (up
   * to 1 ms of a start's lateness) is not in the latency; at 'fine' nothing is forgiven.
   */
  arrivalPrecision: z.enum(['fine', 'coarse']).optional(),
  /** Open-model rows: the errors by kind ("HTTP 429", "connection reset (ECONNRESET)", "wrong answer"), so a breach says what broke. */
  errorKinds: z.record(z.string(), z.number().int()).optional(),
  /** Why the scenario ended before the duration asked (the --max-requests cap), and when. */
  stoppedEarly: z.string().optional(),
  /**
   * The CPU used while the scenario ran, in percent of one core: the machine's, the target's process
   * (where it is on this machine's loopback), the generator's (all its threads, and k6) and its busiest threads.
   */
  cpu: z
    .object({
      windowMs: z.number(),
      /** What part of the run the figures cover, where not all of it (the seconds before the first stream ended). */
      about: z.string().optional(),
      cores: z.number().int(),
      machinePercent: z.number().optional(),
      target: processCpuSchema.extend({ pid: z.number().int(), name: z.string() }).optional(),
      targetUnmeasured: z.string().optional(),
      targetInGenerator: z.boolean().optional(),
      generator: processCpuSchema,
      othersPercent: z.number().optional(),
    })
    .optional(),
  /** Where the row lost arrivals or streams: whether the target or the generator ran out of CPU, and the figures that say so. */
  saturation: z.object({ verdict: z.enum(['target', 'generator', 'machine', 'neither', 'unknown']), explanation: z.string() }).optional(),
  /** The event fan-out's streams: what was published and delivered, and why each stream that ended early ended, grouped by cause. */
  streams: z
    .object({
      subscribers: z.number().int(),
      published: z.number().int(),
      missed: z.number().int(),
      duplicates: z.number().int(),
      /** Registrations not sent because too many were unanswered (the target was slower than the rate). */
      notStarted: z.number().int(),
      delivered: z.object({ min: z.number().int(), max: z.number().int() }),
      /** The target's event buffer, in events, where it says (Nomad's event_buffer_size in /v1/agent/self). */
      eventBufferSize: z.number().int().optional(),
      endedEarly: z.number().int(),
      endings: z.array(
        z.object({
          cause: z.enum(['server-closed', 'error-frame', 'status', 'reset', 'headers-timeout', 'refused', 'malformed', 'deadline']),
          count: z.number().int(),
          /** The subscribers (the first 20). */
          subscribers: z.array(z.number().int()),
          /** The first one's detail: the server's words where it gave any. */
          detail: z.string(),
          /** What the cause and the figures say together. */
          explanation: z.string(),
          atMs: z.object({ min: z.number(), max: z.number() }),
          delivered: z.object({ min: z.number().int(), max: z.number().int() }),
          behindIndexes: z.object({ min: z.number(), max: z.number() }).optional(),
          behindRegistrations: z.object({ min: z.number(), max: z.number() }).optional(),
        }),
      ),
    })
    .optional(),
});

export const runResultsSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  tool: z.object({ name: z.literal('stackproof'), version: z.string() }),
  run: z.object({
    id: z.string(),
    startedAt: z.string(),
    finishedAt: z.string(),
    durationMs: z.number(),
    profile: z.enum(['default', 'strict']),
    seed: z.number(),
    runs: z.number(),
    command: z.string(),
    faults: z.array(z.string()),
    /** How the embedded reference behaved (absent for external targets and older runs). */
    referenceBehavior: z.enum(['spec', 'upstream']).optional(),
    /** Products whose expectation files applied (`--expect`). */
    expect: z.array(z.string()).optional(),
    /** The prefix of every name the run gave to what it made on the targets (absent in older runs). */
    runPrefix: z.string().optional(),
    /** What the provisioners detected, made and removed, line by line. */
    provisioning: z.array(z.string()).optional(),
  }),
  targets: z.array(targetSummarySchema),
  summary: z.object({
    total: z.number().int(),
    // Partial: results written before an outcome existed still parse (as a --baseline, say).
    byOutcome: z.partialRecord(z.enum(OUTCOMES), z.number().int()),
    exitCode: z.number().int(),
    verdict: z.string(),
    // Optional, like every field added later: older results still parse.
    /** The SKIP rules grouped by reason, most common first. */
    skipReasons: z.array(z.object({ reason: z.string(), count: z.number().int(), rules: z.array(z.string()) })).optional(),
    /** How many of the counted rules got no verdict (UPSTREAM rules the default profile does not run are not counted), against --max-skip-share. */
    noVerdict: z
      .object({
        skipped: z.number().int(),
        counted: z.number().int(),
        share: z.number(),
        notCounted: z.number().int(),
        maxSkipShare: z.number().optional(),
        exceeded: z.boolean(),
      })
      .optional(),
    /** Capabilities not available on the targets (the token's rights, the product's version, the profile), each with the rules it cost. */
    capabilityCosts: z
      .array(z.object({ system: z.enum(['secrets', 'mesh', 'scheduler']), capability: z.string(), why: z.string(), rules: z.array(z.string()) }))
      .optional(),
    /** The run was stopped before its end: the rules still running are INTERRUPTED, the ones never started are listed here. */
    interrupted: z.object({ signal: z.string(), notRun: z.array(z.string()) }).optional(),
    /** --bail: the run stopped at this rule's FAIL; the rules cut short or never started are listed here and have no result. */
    bailed: z.object({ rule: z.string(), notRun: z.array(z.string()) }).optional(),
  }),
  rules: z.array(ruleResultSchema),
  load: z.array(loadScenarioResultSchema),
  /** Findings about the waiver file: expired waivers, waivers no longer needed. */
  waiverFindings: z.array(z.object({ rule: z.string(), kind: z.string(), message: z.string() })).optional(),
  /** Findings about the expectation files: deviations that no longer happen, failures other than the listed one. */
  expectationFindings: z.array(z.object({ rule: z.string(), product: z.string(), kind: z.string(), message: z.string() })).optional(),
  /** Which listed deviations applied, by the version found on the target (absent in older runs and without --expect). */
  expectationsApplied: z
    .array(z.object({ rule: z.string(), product: z.string(), range: z.string().optional(), version: z.string().optional(), applies: z.boolean(), why: z.string() }))
    .optional(),
  /** Rules whose outcome changed since the baseline run (stackproof conform --baseline). */
  baselineDiff: z.array(z.object({ rule: z.string(), before: z.string(), after: z.string() })).optional(),
  /** Load regressions against a baseline run (stackproof load --baseline). */
  regressions: z
    .array(z.object({ scenario: z.string(), engine: z.string(), metric: z.string(), baseline: z.number(), current: z.number(), change: z.number() }))
    .optional(),
});

export type RuleResult = z.infer<typeof ruleResultSchema>;
export type RunResults = z.infer<typeof runResultsSchema>;
export type LoadScenarioResult = z.infer<typeof loadScenarioResultSchema>;
export type TargetSummary = z.infer<typeof targetSummarySchema>;
