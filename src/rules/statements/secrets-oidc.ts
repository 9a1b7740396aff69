import type { StatementMap } from './types.ts';

/** The testable statements of the OIDC provider (spec 000), each with the rules that assert it or why none can. */
export const secretsOidcStatements: StatementMap = {
  system: 'secrets',
  part: 'OIDC provider (spec 000)',
  statements: [],
};
