import type { StatementMap } from './types.ts';

/** The testable statements of the cloud-identity auth method (spec 000), each with the rules that assert it or why none can. */
export const secretsCloudauthStatements: StatementMap = {
  system: 'secrets',
  part: 'cloud-identity auth method (spec 000)',
  statements: [],
};
