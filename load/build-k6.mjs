// Bundles each k6 scenario script (load/k6/<scenario>.ts, one per scenario of the catalog) into
// load/dist/<scenario>.js with settings k6's JavaScript engine accepts: k6 modules left external, no
// Node built-ins (platform neutral), syntax lowered to ES2017.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const entries = readdirSync(join(here, 'k6')).filter((f) => f.endsWith('.ts'));

export async function buildK6Bundles() {
  // Bundles of scripts that no longer exist must not linger where k6 or a ConfigMap could pick them up.
  mkdirSync(join(here, 'dist'), { recursive: true });
  for (const f of readdirSync(join(here, 'dist'))) if (f.endsWith('.js') && !entries.includes(f.replace(/\.js$/, '.ts'))) rmSync(join(here, 'dist', f));
  const result = await build({
    entryPoints: entries.map((f) => join(here, 'k6', f)),
    outdir: join(here, 'dist'),
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2017',
    external: ['k6', 'k6/*'],
    logLevel: 'warning',
    metafile: true,
  });
  return Object.keys(result.metafile.outputs);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outputs = await buildK6Bundles();
  for (const o of outputs) console.log(`built ${o}`);
}
