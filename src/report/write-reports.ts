import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Redactor } from '../client/redact.ts';
import { renderHtml } from './html.ts';
import { renderJunit } from './junit.ts';
import { runResultsSchema, type RunResults } from './results-model.ts';

export interface WrittenReports {
  json: string;
  junit: string;
  html: string;
}

/**
 * Writes results.json, junit.xml and index.html. The results are validated against the versioned
 * schema and passed through the redactor once more, so no secret reaches a file even if a test
 * forgot to register one.
 */
export async function writeReports(results: RunResults, dir: string, secrets: string[]): Promise<WrittenReports> {
  const redactor = new Redactor();
  for (const s of secrets) redactor.add(s);
  const clean = runResultsSchema.parse(redactor.value(results));
  const out = resolve(dir);
  await mkdir(out, { recursive: true });
  const paths = { json: join(out, 'results.json'), junit: join(out, 'junit.xml'), html: join(out, 'index.html') };
  await writeFile(paths.json, `${JSON.stringify(clean, null, 2)}\n`);
  await writeFile(paths.junit, renderJunit(clean));
  await writeFile(paths.html, renderHtml(clean));
  return paths;
}
