import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProductName } from '../config/schema.ts';
import { PRODUCTS } from '../config/schema.ts';
import { ConfigError } from '../config/load-config.ts';
import { PACKAGE_ROOT } from '../run/package-root.ts';
import { expectationFileSchema, type ExpectationFile } from './schema.ts';

/** Where the shipped expectation files live: `expectations/<product>.json` in the package. */
export const EXPECTATIONS_DIR = join(PACKAGE_ROOT, 'expectations');

/** Reads one product's expectation file; a malformed file is a usage error naming the field. */
export function readExpectationFile(product: ProductName, dir = EXPECTATIONS_DIR): ExpectationFile {
  const file = join(dir, `${product}.json`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`expectation file ${file}: cannot be read as JSON (${(err as Error).message})`);
  }
  const parsed = expectationFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(`expectation file ${file}:\n${parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`);
  }
  if (parsed.data.product !== product) throw new ConfigError(`expectation file ${file}: product is ${parsed.data.product}, expected ${product}`);
  return parsed.data;
}

export function readExpectationFiles(products: readonly ProductName[] = PRODUCTS, dir = EXPECTATIONS_DIR): ExpectationFile[] {
  return [...new Set(products)].map((p) => readExpectationFile(p, dir));
}
