import { meshStatements } from './mesh.ts';
import { schedulerStatements } from './scheduler.ts';
import { secretsCloudauthStatements } from './secrets-cloudauth.ts';
import { secretsCoreStatements } from './secrets-core.ts';
import { secretsOidcStatements } from './secrets-oidc.ts';
import type { StatementMap } from './types.ts';

/** The statement map of the three specs, one part per area. */
export const STATEMENT_MAPS: readonly StatementMap[] = [secretsCoreStatements, secretsOidcStatements, secretsCloudauthStatements, meshStatements, schedulerStatements];
