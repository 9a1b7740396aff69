// Bundles each k6 scenario script (load/k6/<scenario>.ts, one per scenario of the catalog) into
// load/dist/<scenario>.js with settings k6's JavaScript engine accepts: k6 modules left external, no
// Node built-ins (platform neutral), syntax lowered to ES2017.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);
const entries = readdirSync(join(here, 'k6')).filter((f) => f.endsWith('.ts'));

/**
 * Builds the bundles and writes only those whose bytes changed, so an installed package (whose
 * shipped bundles are this build's output) never writes into its own directory, which may be
 * read-only; a clone whose scripts changed gets them rebuilt. Returns the bundles' paths relative
 * to the package root.
 */
export async function buildK6Bundles() {
  const result = await build({
    entryPoints: entries.map((f) => join(here, 'k6', f)),
    outdir: join(here, 'dist'),
    // Paths in the bundles' comments are relative to this, not to wherever stackproof runs from.
    absWorkingDir: root,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2017',
    external: ['k6', 'k6/*'],
    logLevel: 'warning',
    write: false,
  });
  const outputs = result.outputFiles.map((f) => f.path);
  const stale = existing().filter((f) => !outputs.includes(f));
  const changed = result.outputFiles.filter((f) => !sameBytes(f.path, f.contents));
  try {
    if (changed.length) mkdirSync(join(here, 'dist'), { recursive: true });
    for (const f of changed) writeFileSync(f.path, f.contents);
    // Bundles of scripts that no longer exist must not linger where k6 or a ConfigMap could pick them up.
    for (const f of stale) rmSync(f);
  } catch (err) {
    throw new Error(`the k6 bundles in ${join(here, 'dist')} are out of date and could not be rewritten (${err.message}); run \`npm run build:k6\` where the package is writable`);
  }
  return outputs.map((f) => relative(root, f));
}

function existing() {
  try {
    return readdirSync(join(here, 'dist')).filter((f) => f.endsWith('.js')).map((f) => join(here, 'dist', f));
  } catch {
    return [];
  }
}

function sameBytes(path, contents) {
  try {
    return Buffer.compare(readFileSync(path), contents) === 0;
  } catch {
    return false;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outputs = await buildK6Bundles();
  for (const o of outputs) console.log(`built ${o}`);
}
