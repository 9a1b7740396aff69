import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The import graph of the project's sources: for each file (a path relative to the root, with
 * forward slashes), the specifiers it imports. A relative specifier is resolved to the file it
 * names (a root-relative path); anything else (a package, a node: builtin) stays as written and is
 * marked `package`.
 */
export type ImportGraph = Map<string, ImportEdge[]>;

export interface ImportEdge {
  specifier: string;
  /** Root-relative path of the imported file, for a relative specifier. */
  target?: string;
  package: boolean;
}

const SOURCE_FILE = /\.(?:ts|mts|mjs|js)$/;

function sourceFiles(root: string, dir: string): string[] {
  const abs = join(root, dir);
  if (!existsSync(abs)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(abs, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...sourceFiles(root, rel));
    else if (entry.isFile() && SOURCE_FILE.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** The file a relative specifier names: as written, a `.js` written for its `.ts`, or with `.ts` or `/index.ts` added. */
function resolveRelative(root: string, importer: string, specifier: string): string {
  const base = resolve(root, dirname(importer), specifier.split('?')[0]!);
  const candidates = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), `${base}.ts`, join(base, 'index.ts')];
  const found = candidates.find((c) => existsSync(c) && statSync(c).isFile()) ?? base;
  return relative(root, found).replaceAll('\\', '/');
}

/**
 * Every `import … from`, `import '…'`, `export … from`, `import type`, `import('…')` (a dynamic
 * import or an import type) and `require('…')` with a string literal, read by TypeScript's own
 * pre-processor (comments and strings that merely look like imports are not counted). A dynamic
 * import of a computed specifier names no file and is not counted.
 */
export function importsOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/** Reads the import graph of every .ts/.mjs/.js file under the given directories (node_modules left out). */
export function readImportGraph(root: string, dirs: readonly string[]): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of dirs.flatMap((d) => sourceFiles(root, d))) {
    const edges = importsOf(readFileSync(join(root, file), 'utf8')).map((specifier): ImportEdge =>
      specifier.startsWith('./') || specifier.startsWith('../') ? { specifier, target: resolveRelative(root, file, specifier), package: false } : { specifier, package: true },
    );
    graph.set(file, edges);
  }
  return graph;
}

/** A path matches a pattern ending in `/` when it lies under that folder, and any other pattern when it is that file. */
export function matches(path: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => (p.endsWith('/') ? path.startsWith(p) : path === p));
}

export interface BoundaryPolicy {
  /** The reference's own folder, e.g. `src/reference/`. */
  reference: string;
  /** (a) What a reference file may import besides packages (its own folder included). */
  referenceMayImport: readonly string[];
  /** (a) The harness: no reference file may reach these, directly or through files outside the reference. */
  harness: readonly string[];
  /** (b) The reference's starting interface: the only reference files others may import. */
  startingInterface: readonly string[];
  /** (b) The only files outside the reference that may import its starting interface. */
  mayStartReference: readonly string[];
}

/**
 * Both ways of the boundary between the reference and the harness. Each violation reads
 * "importer -> imported"; one the reference reaches through files outside it names the way:
 * "importer -> imported (through a -> b -> imported)".
 */
export function boundaryViolations(graph: ImportGraph, policy: BoundaryPolicy): string[] {
  const violations = new Set<string>();
  const inReference = (p: string) => p.startsWith(policy.reference);

  // (a) The reference never imports the harness.
  for (const [importer, edges] of graph) {
    if (!inReference(importer)) continue;
    for (const edge of edges) {
      if (edge.package || !edge.target || inReference(edge.target)) continue;
      if (!matches(edge.target, policy.referenceMayImport) || matches(edge.target, policy.harness)) {
        violations.add(`${importer} -> ${edge.target}`);
        continue;
      }
      // An allowed file outside the reference must not lead to the harness either: walk what it
      // imports, outside the reference (the reference's own files are checked on their own).
      const seen = new Set<string>([edge.target]);
      const queue: string[][] = [[edge.target]];
      while (queue.length) {
        const way = queue.shift()!;
        for (const next of graph.get(way.at(-1)!) ?? []) {
          if (next.package || !next.target || inReference(next.target) || seen.has(next.target)) continue;
          seen.add(next.target);
          if (matches(next.target, policy.harness)) violations.add(`${importer} -> ${next.target} (through ${[...way, next.target].join(' -> ')})`);
          else queue.push([...way, next.target]);
        }
      }
    }
  }

  // (b) The harness never imports the reference except to start it.
  for (const [importer, edges] of graph) {
    if (inReference(importer)) continue;
    for (const edge of edges) {
      if (edge.package || !edge.target || !inReference(edge.target)) continue;
      if (!matches(edge.target, policy.startingInterface) || !matches(importer, policy.mayStartReference)) violations.add(`${importer} -> ${edge.target}`);
    }
  }
  return [...violations].sort();
}
