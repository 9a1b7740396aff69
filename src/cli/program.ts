import { ConfigError } from '../config/load-config.ts';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ENV_VARIABLES } from '../config/env-variables.ts';
import { PRODUCTS, SYSTEMS } from '../config/names.ts';
import { TOOL_VERSION } from '../run/tool-version.ts';
import { EXIT } from './exit-codes.ts';
import { isExitingError } from './exiting-error.ts';

// Each command's module is imported when that command runs, never before: `stackproof --help` and
// `stackproof rules` must not pay for loading vitest, the reference or the load engines.

function addSelectionOptions(cmd: Command): Command {
  return cmd
    .option('--systems <list>', `comma-separated systems to check (${SYSTEMS.join(',')})`)
    .option('--rules <list>', 'comma-separated rule id prefixes or globs, e.g. secrets.core or mesh.*.leaf-*')
    .option('--runs <n>', 'generated cases per property (default 25)')
    .option('--seed <n>', 'seed for generated cases; a failure prints the seed that replays it')
    .option('--profile <name>', 'default (the spec only) or strict (adds UPSTREAM rules)');
}

function addTargetOptions(cmd: Command): Command {
  for (const system of SYSTEMS) {
    cmd.option(`--${system}-url <url>`, `base URL of the ${system} target`);
    cmd.option(`--${system}-token <token>`, `token for the ${system} target (prefer STACKPROOF_${system.toUpperCase()}_TOKEN)`);
    cmd.addOption(new Option(`--${system}-dialect <dialect>`, `header and mount names of the ${system} target`).choices(['spec', 'hashicorp']));
  }
  return cmd.option('--scheduler-node-id <id>', 'full node ID, for a scheduler reached through a server');
}

export function buildProgram(): Command {
  const program = new Command('stackproof')
    .description('Conformance and load-test harness for a secrets service, a service-mesh agent and a scheduler')
    .version(TOOL_VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();

  const conformCmd = program
    .command('conform')
    .description('run the conformance suites (against the embedded reference unless targets are configured) and write reports')
    .option('--config <file>', 'JSON target profile; environment variables and flags override it');
  addSelectionOptions(conformCmd);
  addTargetOptions(conformCmd);
  conformCmd
    .option('--path <path>', 'fast-check replay path, printed with a counterexample')
    .option('--reports-dir <dir>', 'where to write results.json, junit.xml and index.html (default reports)')
    .option('--request-timeout <ms>', 'deadline of every request (default 10000)')
    .option('--time-scale <factor>', 'multiply every bound a rule waits under for the product (and the request and rule deadlines) by this factor, 1 to 100, for slow targets (default 1)')
    .addOption(new Option('--reference-dialect <dialect>', 'dialect the embedded reference serves').choices(['spec', 'hashicorp']))
    .addOption(new Option('--reference-behavior <behavior>', 'spec, or upstream: the hashicorp reference also reproduces the products\' listed spec deviations').choices(['spec', 'upstream']))
    .option('--expect <products>', `comma-separated products whose listed spec deviations are EXPECTED, not FAIL (${PRODUCTS.join(',')})`)
    .option('--reference-fault <id>', 'start the embedded reference with this fault (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .addOption(new Option('--fail-on <level>', 'lowest level whose FAIL or ERROR fails the run (default MUST)').choices(['MUST', 'SHOULD', 'MAY']))
    .option('--waivers <file>', 'JSON file of expected failures: {"waivers":[{rule, owner, reason, expires}]}')
    .option('--strict-waivers', 'expired waivers and waivers of passing rules fail the run')
    .option('--strict-expectations', 'an expected deviation (--expect) that no longer happens fails the run')
    .option('--max-skip-share <share>', 'fail the run when more than this share (0..1) of the rules get no verdict (SKIP); UPSTREAM rules the default profile does not run are not counted')
    .option('--baseline <results.json>', 'report the rules whose outcome changed since that run')
    .option('--rerun-failed <results.json>', 'run only the rules that were FAIL or ERROR in that run')
    .option('--bail', 'stop at the first rule that FAILs: the rules still running or not started get no verdict (listed as not run); exit 1 (the mutation tests use it)')
    .option('--one-at-a-time', 'run the rules one after another instead of several side by side (slower; for a target that answers differently under concurrent requests)')
    .option('--no-load-smoke', 'skip the short load smoke after the suites')
    .option('--load-smoke', 'run the load smoke against configured targets too')
    .action(async (opts) => {
      const { runConformCommand } = await import('./commands/conform.ts');
      process.exitCode = await runConformCommand(opts, process.argv.slice(2).join(' '));
    });

  const loadCmd = program
    .command('load')
    .description('bounded load on the hot paths (embedded reference unless targets are configured), with thresholds and a baseline')
    .option('--config <file>', 'JSON target profile')
    .option('--engine <list>', 'open (arrival rate, HDR latency from intended start), autocannon (closed model), k6', 'open')
    .option('--scenario <list>', 'oidc-code-flow, mesh-authorize, mesh-leaf, mesh-leaf-blocking, mesh-roots, scheduler-logs, scheduler-event-fanout (default: all)')
    .option('--rate <n>', 'open model: iterations started per second', '200')
    .option('--arrival-precision <auto|fine|coarse>', 'open model: fine starts each arrival within ~0.1 ms of its time (a timing thread, one wake-up per arrival); coarse wakes on millisecond timers and starts every due arrival, for about half the generator CPU per request at high rates; auto (the default) is fine up to 1,000/s and coarse above. Latency is measured from the intended start; at coarse precision the wait for the next millisecond tick (up to 1 ms) is not counted, lateness beyond it is', 'auto')
    .option('--duration <d>', 'how long each scenario runs (10s, 2m)', '5s')
    .option('--max-requests <n>', 'exact cap on HTTP requests per scenario and engine, whatever the duration (an OIDC code flow is 3); a scenario the cap ends early says so', '100000')
    .option('--progress-interval <d>', 'how often a running scenario prints where it is (rate held, errors, p99 so far)', '5s')
    .option('--connections <n>', 'closed model: connections', '16')
    .option('--subscribers <n>', 'event fan-out: concurrent stream subscribers', '20')
    .option('--event-rate <n>', 'event fan-out: events per second the scheduler produces', '200')
    .option('--p99 <ms>', 'threshold: p99 latency in ms (open model and fan-out)')
    .option('--max-error-rate <fraction>', 'threshold: share of failed iterations', '0')
    .option('--max-dropped-rate <fraction>', 'threshold: share of scheduled iterations not started', '0.01')
    .option('--baseline <results.json>', 'compare with an earlier run; regressions fail the run')
    .option('--tolerance <fraction>', 'regression tolerance', '0.25')
    .option('--allow-remote', 'allow load on targets that are not loopback addresses')
    .option('--from-prometheus <url>', "send nothing: build the reports of a k6-operator test run from what its runners sent to this Prometheus (k6's remote-write output, latencies as native histograms; docs/distributed-load.md), with the thresholds applied to the whole run")
    .option('--testrun <name>', 'with --from-prometheus: the TestRun name (the testrun_name tag of its series)')
    .option('--since <d>', 'with --from-prometheus: how far back the run may have started (30m, 6h, 2d)', '24h')
    .option('--reports-dir <dir>', 'where to write the reports (default reports)');
  addTargetOptions(loadCmd).action(async (opts) => {
    const { runLoadCommand } = await import('./commands/load.ts');
      process.exitCode = await runLoadCommand(opts, process.argv.slice(2).join(' '));
  });

  const cleanupCmd = program
    .command('cleanup')
    .description('list, or remove, what interrupted runs left on the configured targets (everything a run makes is named under its run prefix)')
    .option('--config <file>', 'JSON target profile; environment variables and flags override it')
    .option('--prefix <run prefix>', "remove one run's leftovers (the prefix a run prints, e.g. sp-mwr2cgztnj)")
    .option('--all', "remove every stackproof run's leftovers (make sure no run is going on)");
  addTargetOptions(cleanupCmd).action(async (opts) => {
    const { runCleanupCommand } = await import('./commands/cleanup.ts');
      process.exitCode = await runCleanupCommand(opts);
  });

  program
    .command('diff')
    .description("send the same generated requests to two targets of one system (the embedded reference and a product, or two product versions) and report every difference in status, error and field set by endpoint, with the spec's word on each")
    .option('--a <url|reference>', 'the first target: its URL (token in STACKPROOF_DIFF_A_TOKEN), or "reference" for the embedded reference in the hashicorp dialect')
    .option('--b <url|reference>', 'the second target (token in STACKPROOF_DIFF_B_TOKEN)')
    .addOption(new Option('--system <system>', 'which API to compare').choices([...SYSTEMS]))
    .option('--runs <n>', 'generated cases per request template (default 2)')
    .option('--seed <n>', 'seed of the generated cases (printed; the same seed sends the same requests)')
    .option('--only <text>', 'only the endpoints whose "METHOD /path" contains this text')
    .option('--json', 'print the whole diff as JSON instead of the summary')
    .option('--reports-dir <dir>', 'where to write diff-<system>.md and diff-<system>.json (default reports)')
    .option('--request-timeout <ms>', 'deadline of every request (default 10000)')
    .option('--no-fail-on-unlisted', 'exit 0 even when a difference is not listed in docs/reference-fidelity.md')
    .addHelpText('after', '\nExit codes: 0 no difference the known-differences table of docs/reference-fidelity.md does not list; 1 one it does not list (or something the diff made could not be removed); 2 usage; 3 a target does not answer as its product, or refuses its token.\nTokens: STACKPROOF_DIFF_A_TOKEN, STACKPROOF_DIFF_B_TOKEN (management tokens: the diff makes its fixtures under a run prefix and removes them).')
    .action(async (opts) => {
      const { runDiffCommand } = await import('./commands/diff.ts');
      process.exitCode = await runDiffCommand(opts);
    });

  program
    .command('coverage')
    .description('every rule-bearing sentence and table row of the specs, and the rules that cover it')
    .option('--json', 'print JSON')
    .option('--reports-dir <dir>', 'where to write coverage.json and coverage.html (default reports)')
    .action(async (opts) => {
      const { runCoverageCommand } = await import('./commands/coverage.ts');
      process.exitCode = await runCoverageCommand(opts);
    });

  program
    .command('expectations')
    .description("the products' known spec deviations that --expect reports as EXPECTED: rule, what the product does, upstream source")
    .option('--product <list>', `only these products (${PRODUCTS.join(',')})`)
    .option('--json', 'print JSON')
    .action(async (opts) => {
      const { runExpectationsCommand } = await import('./commands/expectations.ts');
      process.exitCode = await runExpectationsCommand(opts);
    });

  program
    .command('merge')
    .description('merge the load results of several runners (results.json, or k6 summaries) by histogram')
    .argument('<files...>', 'results files')
    .option('--json', 'print the merged figures as JSON (no reports written)')
    .option('--p99 <ms>', 'threshold on the merged run: p99 latency in ms')
    .option('--max-error-rate <fraction>', 'threshold on the merged run: share of failed requests')
    .option('--max-dropped-rate <fraction>', 'threshold on the merged run: share of scheduled requests not started')
    .option('--reports-dir <dir>', 'where to write the merged run\'s reports (default reports)')
    .action(async (files: string[], opts) => {
      const { runMergeCommand } = await import('./commands/merge.ts');
      process.exitCode = await runMergeCommand(files, opts, process.argv.slice(2).join(' '));
    });

  program
    .command('report')
    .description('one HTML page over many runs: rule counts per system, the rules that changed outcome and when, load figures and thresholds run by run')
    .requiredOption('--history <dir>', 'a directory of results.json files, at any depth (a nightly job keeps one folder a run)')
    .option('--out <file>', 'where to write the page', 'reports/history.html')
    .action(async (opts) => {
      const { runReportCommand } = await import('./commands/report.ts');
      process.exitCode = await runReportCommand(opts);
    });

  program
    .command('serve')
    .description('start the embedded reference and print its URLs, tokens and target profile until Ctrl-C')
    // The same flag names as conform's for the same things; --dialect and --fault stay as aliases.
    .addOption(new Option('--reference-dialect <dialect>', 'header and mount names to serve (default spec)').choices(['spec', 'hashicorp']))
    .addOption(new Option('--dialect <dialect>', 'alias of --reference-dialect').choices(['spec', 'hashicorp']))
    .addOption(new Option('--reference-behavior <behavior>', 'spec, or upstream (hashicorp dialect): also reproduce the products\' listed spec deviations').choices(['spec', 'upstream']).default('spec'))
    .option('--reference-fault <id>', 'start with this fault on (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--fault <id>', 'alias of --reference-fault', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .addOption(new Option('--host <address>', 'loopback address to listen on').choices(['127.0.0.1', '::1']).default('127.0.0.1'))
    .option('--profile-out <file>', 'also write the complete target profile (for conform --config) to this file, mode 0600: it holds tokens')
    .option('--no-control', 'start without the control listener, as a real product would be: no fixtures the spec does not show how to make')
    .option('--no-raw-exec', "run no tasks: the scheduler's node answers as a Nomad whose raw_exec driver is not detected")
    .addOption(new Option('--max-allocations <n>', 'at most this many allocations run at once; more wait in a blocked evaluation').argParser((v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a whole number of 1 or more');
      return n;
    }).default(64))
    .action(async (opts) => {
      const { runServeCommand } = await import('./commands/serve.ts');
      const { referenceDialect, referenceFault, ...rest } = opts as { referenceDialect?: string; referenceFault: string[]; dialect?: string; fault: string[] };
      if (referenceDialect && rest.dialect && referenceDialect !== rest.dialect) throw new ConfigError(`--reference-dialect ${referenceDialect} and its alias --dialect ${rest.dialect} disagree`);
      process.exitCode = await runServeCommand({ ...rest, dialect: referenceDialect ?? rest.dialect ?? 'spec', fault: [...referenceFault, ...rest.fault] } as Parameters<typeof runServeCommand>[0]);
    });

  program
    .command('rules')
    .description('list the rule catalog: one line per rule (id, level, title); --long adds the spec citations, upstream sources and the faults that break each rule')
    .option('--systems <list>', `comma-separated systems (${SYSTEMS.join(',')})`)
    .option('--rules <list>', 'comma-separated rule id prefixes or globs, e.g. secrets.core or mesh.*.leaf-*')
    .option('--profile <name>', 'default (the spec only) or strict (adds UPSTREAM rules; the default here)')
    .option('--long', 'every rule in full: citations, upstream sources, how it was judged, faults')
    .option('--json', 'every rule in full, as JSON')
    .option('--wrong-ways', 'for every rule, how an implementation could get it wrong and still pass, and the example or fault that closes it (markdown; docs/wrong-ways.md)')
    .action(async (opts) => {
    const { runRulesCommand } = await import('./commands/rules.ts');
      process.exitCode = await runRulesCommand(opts);
  });

  program
    .command('schema')
    .description('print the JSON Schema of stackproof.config.json (for its $schema field; the package ships it as stackproof.schema.json)')
    .option('--out <file>', 'write it to this file instead of stdout')
    .action(async (opts) => {
      const { runSchemaCommand } = await import('./commands/schema.ts');
      process.exitCode = await runSchemaCommand(opts);
    });

  program
    .command('init')
    .description('write a commented starting stackproof.config.json: what the given targets answer without a token (reachable, dialect, edition), never a token')
    .option('--secrets-url <url>', 'the secrets service to probe, e.g. http://127.0.0.1:8200')
    .option('--mesh-url <url>', 'the service-mesh agent to probe, e.g. http://127.0.0.1:8500')
    .option('--scheduler-url <url>', 'the scheduler to probe, e.g. http://127.0.0.1:4646')
    .option('--out <file>', 'where to write the config', 'stackproof.config.json')
    .option('--force', 'overwrite the file if it exists')
    .action(async (opts) => {
      const { runInitCommand } = await import('./commands/init.ts');
      process.exitCode = await runInitCommand(opts);
    });

  addSelectionOptions(
    program
      .command('faults')
      .description('run the fault matrix: the reference with each fault on, and whether the suites catch it')
      .option('--json', 'print JSON')
      .option('--fault <id>', 'only this fault (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
      .addOption(new Option('--dialect <dialect>', 'dialect the reference serves').choices(['spec', 'hashicorp']).default('spec'))
      .option('--jobs <n>', 'processes to run the matrix in side by side (default: 2, or 1 on a single core)')
      .option('--no-baseline', 'skip the run with no fault (used by the shards of a parallel matrix)')
      .addOption(new Option('--fixtures <who>', 'who makes the secrets and mesh fixtures: the control listener, or the upstream provisioners through the admin APIs (hashicorp dialect)').choices(['control', 'upstream']).default('control')),
  ).action(async (opts) => {
    const { runFaultsCommand } = await import('./commands/faults.ts');
      process.exitCode = await runFaultsCommand(opts);
  });

  program.addHelpText(
    'after',
    `
Exit codes: 0 every MUST rule passed; 1 a MUST rule FAIL or ERROR (or a fault not caught, or
more SKIP than --max-skip-share); 2 usage or configuration error; 3 a target does not answer, is not the product of its dialect, or refuses its token;
4 a load threshold breached; 130 stopped by Ctrl-C (what the run made was removed).
Environment: ${ENV_VARIABLES.join(', ')}.`,
  );
  return program;
}

/** The exit code of an error a command ends with on purpose (bad usage, unreachable target, Ctrl-C), after printing it. */
export function usageFailure(err: unknown): number | undefined {
  if (!isExitingError(err)) return undefined;
  // Exit 3: one line per target that is not what the profile says (unreachable, another product, a refused token).
  const consequence = (err as { consequence?: string }).consequence ?? 'no verdict';
  process.stderr.write(err.exitCode === EXIT.UNREACHABLE ? `stackproof: ${consequence}, a target is not what the profile says:\n${err.message.split('\n').map((l) => `  ${l}`).join('\n')}\n` : `stackproof: ${err.message}\n`);
  return err.exitCode;
}

export async function runCli(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return Number(process.exitCode ?? 0);
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : EXIT.USAGE;
    const code = usageFailure(err);
    if (code !== undefined) return code;
    process.stderr.write(`stackproof: unexpected failure: ${(err as Error)?.stack ?? String(err)}\n`);
    return EXIT.RULES_FAILED;
  }
}
