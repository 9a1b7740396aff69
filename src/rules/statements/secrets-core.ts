import type { StatementMap } from './types.ts';

/** The testable statements of the core conventions, errors, limits (spec 000), each with the rules that assert it or why none can. */
export const secretsCoreStatements: StatementMap = {
  system: 'secrets',
  part: 'core conventions, errors, limits (spec 000)',
  statements: [],
};
