import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The stackproof package folder, so the suites are found whatever the user's working directory. */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
