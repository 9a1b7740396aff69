import { randomBytes } from 'node:crypto';
import { SCHEMA_VERSION, type RunResults } from './results-model.ts';
import { TOOL_VERSION } from '../run/tool-version.ts';

/** The parts of results.json every run has: schema, tool, and the run's id and times. */
export function runHeader(started: Date, finished: Date, run: Omit<RunResults['run'], 'id' | 'startedAt' | 'finishedAt' | 'durationMs'>): Pick<RunResults, 'schemaVersion' | 'tool' | 'run'> {
  return {
    schemaVersion: SCHEMA_VERSION,
    tool: { name: 'stackproof', version: TOOL_VERSION },
    run: {
      id: `${started.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${randomBytes(3).toString('hex')}`,
      startedAt: started.toISOString(),
      finishedAt: finished.toISOString(),
      durationMs: finished.getTime() - started.getTime(),
      ...run,
    },
  };
}
