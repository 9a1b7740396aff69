import { join } from 'node:path';
import type { ProductName } from '../config/schema.ts';
import { PRODUCTS } from '../config/schema.ts';
import { ConfigError } from '../config/load-config.ts';
import { readJsonFile } from '../config/read-json-file.ts';
import { PACKAGE_ROOT } from '../run/package-root.ts';
import { expectationFileSchema, type ExpectationFile } from './schema.ts';

/** Where the shipped expectation files live: `expectations/<product>.json` in the package. */
export const EXPECTATIONS_DIR = join(PACKAGE_ROOT, 'expectations');

/** Reads one product's expectation file; a malformed file is a usage error naming the field. */
export function readExpectationFile(product: ProductName, dir = EXPECTATIONS_DIR): ExpectationFile {
  const file = join(dir, `${product}.json`);
  const data = readJsonFile(file, expectationFileSchema, 'expectation file');
  if (data.product !== product) throw new ConfigError(`expectation file ${file}: product is ${data.product}, expected ${product}`);
  return data;
}

export function readExpectationFiles(products: readonly ProductName[] = PRODUCTS, dir = EXPECTATIONS_DIR): ExpectationFile[] {
  return [...new Set(products)].map((p) => readExpectationFile(p, dir));
}
