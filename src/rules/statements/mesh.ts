import type { StatementMap } from './types.ts';

/** The testable statements of the connect endpoints (spec 001), each with the rules that assert it or why none can. */
export const meshStatements: StatementMap = {
  system: 'mesh',
  part: 'connect endpoints (spec 001)',
  statements: [],
};
