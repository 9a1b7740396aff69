import { describe, expect, it } from 'vitest';
import { FLUSH_GAP_MS_PER_SUBSCRIBER as BENCH_GAP_PER_SUBSCRIBER, MAX_FLUSH_GAP_MS as BENCH_MAX_GAP } from '../bench/reference-flush-gap.ts';
import { FLUSH_GAP_MS_PER_SUBSCRIBER, MAX_FLUSH_GAP_MS } from '../src/reference/scheduler/stream-fanout.ts';
import { boundaryViolations, importsOf, readImportGraph, type BoundaryPolicy, type ImportGraph } from './support/import-graph.ts';
import { ROOT } from './support/run-cli.ts';

/** The folders whose files the graph reads (node_modules left out; test/ may import anything). */
const SCANNED = ['src', 'suites', 'bench', 'load'];

/**
 * The boundary between the embedded reference and the harness. A path ending in `/` is a folder
 * (everything under it); any other is one file.
 */
const POLICY: BoundaryPolicy = {
  reference: 'src/reference/',
  // (a) All a reference file may import, besides packages and node: builtins.
  referenceMayImport: [
    'src/reference/',
    'src/config/dialects.ts',
    'src/config/schema.ts', // SystemName and the like (type-only is fine)
    'src/crypto/',
    // The simulated cloud (Azure's directory and compute API): the reference's cloud-identity
    // method trusts it, and a run against a real product routes the product's Azure plugin to it
    // (src/provision). It belongs to neither side, so both may use it; (a) still checks that it
    // leads to no harness file.
    'src/cloud/',
    'src/cli/exit-codes.ts',
  ],
  // (a) The harness, which the reference must not reach even through the files above.
  harness: ['src/client/', 'src/provision/', 'suites/', 'src/run/', 'src/load/', 'src/report/', 'src/rules/'],
  // (b) The reference's starting interface: startReference with its options, types and errors.
  startingInterface: [
    'src/reference/reference.ts',
    'src/reference/behavior.ts',
    'src/reference/faults/catalog.ts', // the fault ids are options to start it with
    'src/reference/faults/types.ts',
  ],
  // (b) Who may start the reference.
  mayStartReference: [
    'src/run/',
    'src/load/run-load.ts',
    'src/cli/commands/',
    'src/config/schema.ts', // the behaviour names
    'bench/',
  ],
};

describe('the import boundary between the reference and the harness', () => {
  const graph = readImportGraph(ROOT, SCANNED);

  it('reads the whole graph', () => {
    // A guard against a reader that finds nothing and so passes: the sources have hundreds of files.
    expect(graph.size).toBeGreaterThan(200);
    expect(graph.get('src/reference/reference.ts')?.length).toBeGreaterThan(5);
    expect([...graph.keys()].some((f) => f.includes('node_modules') || f.startsWith('test/'))).toBe(false);
  });

  it('holds both ways: the reference never imports the harness, and the harness imports only its starting interface, only to start it', () => {
    const violations = boundaryViolations(graph, POLICY);
    if (violations.length) console.error(`import boundary violations (importer -> imported):\n${violations.map((v) => `  ${v}`).join('\n')}`);
    expect(violations, 'importer -> imported').toEqual([]);
  });

  it("keeps the bench's copy of the reference's fan-out flush gap equal to the reference's", () => {
    // bench/fanout.ts's floor writes as the reference batches; the bench may not import stream-fanout.ts.
    expect([BENCH_GAP_PER_SUBSCRIBER, BENCH_MAX_GAP]).toEqual([FLUSH_GAP_MS_PER_SUBSCRIBER, MAX_FLUSH_GAP_MS]);
  });
});

describe('the boundary checker itself', () => {
  const edge = (target: string) => (target.startsWith('src/') || target.startsWith('suites/') || target.startsWith('bench/') ? { specifier: target, target, package: false } : { specifier: target, package: true });
  const synthetic = (files: Record<string, string[]>): ImportGraph => new Map(Object.entries(files).map(([f, targets]) => [f, targets.map(edge)]));

  it('reads every kind of import, and not comments or strings that look like one', () => {
    const text = [
      "import a from './a.ts';",
      "import type { B } from './b.ts';",
      "export * from './c.ts';",
      "export { d } from './d.ts';",
      "const e = await import('./e.ts');",
      "let f: import('./f.ts').F;",
      "import './g.ts';",
      "// import x from './comment.ts';",
      "const s = \"import y from './string.ts'\";",
      "import { z } from 'zod';",
    ].join('\n');
    expect(importsOf(text)).toEqual(['./a.ts', './b.ts', './c.ts', './d.ts', './e.ts', './f.ts', './g.ts', 'zod']);
  });

  it('passes a graph that keeps the boundary', () => {
    const graph = synthetic({
      'src/reference/reference.ts': ['src/reference/mesh/service.ts', 'src/config/dialects.ts', 'src/cli/exit-codes.ts', 'node:http'],
      'src/reference/mesh/service.ts': ['src/crypto/x509.ts', 'src/config/schema.ts', 'zod'],
      'src/config/schema.ts': ['src/reference/behavior.ts', 'src/config/names.ts', 'zod'],
      'src/run/conform.ts': ['src/reference/reference.ts', 'src/client/http-client.ts'],
      'bench/context.ts': ['src/reference/faults/catalog.ts'],
    });
    expect(boundaryViolations(graph, POLICY)).toEqual([]);
  });

  it('catches each kind of violation and names it "importer -> imported"', () => {
    const graph = synthetic({
      // (a) directly into the harness, to a file outside the allowed list, and through an allowed file.
      'src/reference/reference.ts': ['src/client/fixture-job.ts', 'src/config/load-config.ts', 'src/config/schema.ts'],
      'src/config/schema.ts': ['src/config/names.ts'],
      'src/config/names.ts': ['src/rules/catalog.ts'],
      // (b) a harness file that may not start the reference, and a reference file that is not its starting interface.
      'src/client/mesh-api.ts': ['src/reference/reference.ts'],
      'bench/fanout.ts': ['src/reference/scheduler/stream-fanout.ts'],
      'suites/mesh/ca.suite.ts': ['src/reference/mesh/certificate-authority.ts'],
    });
    expect(boundaryViolations(graph, POLICY)).toEqual([
      'bench/fanout.ts -> src/reference/scheduler/stream-fanout.ts',
      'src/client/mesh-api.ts -> src/reference/reference.ts',
      'src/reference/reference.ts -> src/client/fixture-job.ts',
      'src/reference/reference.ts -> src/config/load-config.ts',
      'src/reference/reference.ts -> src/rules/catalog.ts (through src/config/schema.ts -> src/config/names.ts -> src/rules/catalog.ts)',
      'suites/mesh/ca.suite.ts -> src/reference/mesh/certificate-authority.ts',
    ]);
  });
});
