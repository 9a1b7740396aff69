// What the package offers to code that imports it (`import { parseResults } from 'stackproof'`):
// the shape of results.json and of the config file, for CI tooling that reads a run's results.
// The CLI is the bin; nothing here starts a run.
import { readFile } from 'node:fs/promises';
import { runResultsSchema, type RunResults } from './report/results-model.ts';

export {
  SCHEMA_VERSION,
  OUTCOMES,
  runResultsSchema,
  ruleResultSchema,
  loadScenarioResultSchema,
  targetSummarySchema,
  type Outcome,
  type RunResults,
  type RuleResult,
  type LoadScenarioResult,
  type TargetSummary,
} from './report/results-model.ts';
export { configSchema, type StackproofConfig, type Targets } from './config/schema.ts';
export { EXIT } from './cli/exit-codes.ts';

/** Parses a results.json text; throws a ZodError naming each field that does not match. */
export function parseResults(text: string): RunResults {
  return runResultsSchema.parse(JSON.parse(text));
}

/** Reads and parses a results.json file (what `stackproof conform` and `stackproof load` write). */
export async function readResults(file: string): Promise<RunResults> {
  return parseResults(await readFile(file, 'utf8'));
}
