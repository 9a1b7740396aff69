// Builds what the npm package ships beside the TypeScript sources (run by `npm pack` through the
// prepack script; `npm run build` runs it alone):
// - dist/cli/: the CLI compiled by esbuild, one chunk per lazily loaded command, so `--help` loads
//   only commander and the program's definition;
// - dist/cli/fanout-worker.mjs: the event fan-out's worker thread, found beside the chunk that starts it;
// - dist/index.js and dist/types/: what `import ... from 'stackproof'` gets (the results.json schema);
// - stackproof.schema.json: the config file's JSON Schema, for editors (`$schema`);
// - load/dist/: the k6 scripts;
// - npm-shrinkwrap.json: the lock file's versions, so an install gets the dependency tree CI tested.
// Packages stay external: they are the package's dependencies.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const at = (...p) => join(root, ...p);
const common = { bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning', sourcemap: false, legalComments: 'none' };

export async function buildPackage() {
  rmSync(at('dist'), { recursive: true, force: true });
  await build({
    ...common,
    entryPoints: { main: at('src/cli/main.ts') },
    outdir: at('dist/cli'),
    splitting: true,
    // Flat: src/run/package-root.ts finds the package two levels above whichever chunk it lands in.
    chunkNames: '[name]-[hash]',
  });
  await build({ ...common, entryPoints: [at('src/load/fanout-worker.ts')], outfile: at('dist/cli/fanout-worker.mjs') });
  await build({ ...common, entryPoints: [at('src/package-exports.ts')], outfile: at('dist/index.js') });

  execFileSync(process.execPath, [at('node_modules/typescript/bin/tsc'), '-p', at('tsconfig.types.json')], { stdio: 'inherit' });
  // Declarations keep the sources' `.ts` specifiers; a consumer's compiler resolves `.js` to the `.d.ts` beside it.
  for (const file of walk(at('dist/types'))) {
    writeFileSync(file, readFileSync(file, 'utf8').replace(/(from\s+['"]\.{1,2}\/[^'"]+)\.ts(['"])/g, '$1.js$2'));
  }

  // The config's JSON Schema comes from the zod schema; bundle its module once to import it here.
  const schemaModule = at('dist', '.config-json-schema.mjs');
  await build({ ...common, entryPoints: [at('src/config/config-json-schema.ts')], outfile: schemaModule });
  const { configJsonSchema } = await import(pathToFileURL(schemaModule).href);
  rmSync(schemaModule);
  writeFileSync(at('stackproof.schema.json'), `${JSON.stringify(configJsonSchema(), null, 2)}\n`);

  const { buildK6Bundles } = await import(pathToFileURL(at('load/build-k6.mjs')).href);
  await buildK6Bundles();

  const lock = JSON.parse(readFileSync(at('package-lock.json'), 'utf8'));
  writeFileSync(at('npm-shrinkwrap.json'), `${JSON.stringify(lock, null, 2)}\n`);
  return readdirSync(at('dist/cli')).length;
}

/** Removes what buildPackage wrote, so a clone runs its sources again (the postpack script). */
export function cleanPackage() {
  for (const p of ['dist', 'stackproof.schema.json', 'npm-shrinkwrap.json']) rmSync(at(p), { recursive: true, force: true });
}

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else yield p;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === 'clean') cleanPackage();
  // stderr: `npm pack --json` prints its answer on stdout, after this script's output.
  else console.error(`built dist/ (${await buildPackage()} CLI files), stackproof.schema.json, load/dist/, npm-shrinkwrap.json`);
}
