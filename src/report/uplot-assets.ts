import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export interface ChartLibrary {
  /** uPlot's browser build, safe to put inside a <script> element. */
  script: string;
  style: string;
  version: string;
}

let loaded: ChartLibrary | undefined;

/**
 * uPlot, read from its npm package and inlined, so a report stays one file that draws its charts
 * offline (a CI artifact opened with no network).
 */
export function chartLibrary(): ChartLibrary {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  const file = (name: string) => readFileSync(require.resolve(`uplot/dist/${name}`), 'utf8');
  const version = (JSON.parse(readFileSync(require.resolve('uplot/package.json'), 'utf8')) as { version: string }).version;
  loaded = { script: inlineScript(file('uPlot.iife.min.js')), style: file('uPlot.min.css'), version };
  return loaded;
}

/** Text that can sit inside <script>…</script>: the only sequence that ends it early is `</script`. */
export function inlineScript(code: string): string {
  return code.replace(/<\/(script)/gi, '<\\/$1');
}

/** JSON for a `<script type="application/json">` element: `<` escaped so no string in it closes the element. */
export function inlineJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}
