import type { StatementMap } from './types.ts';

/** The testable statements of the event stream and client endpoints (spec 002), each with the rules that assert it or why none can. */
export const schedulerStatements: StatementMap = {
  system: 'scheduler',
  part: 'event stream and client endpoints (spec 002)',
  statements: [],
};
