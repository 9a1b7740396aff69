import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain-JavaScript script of the repo, without declarations
import { packAndInstall } from '../scripts/pack-install.mjs';
import { RULES } from '../src/rules/catalog.ts';
import { ROOT, runCli } from './support/run-cli.ts';

/**
 * The package as npm would publish it, installed into an empty project with the lock file's
 * versions (it ships them as npm-shrinkwrap.json): a file the package forgets, a path that only
 * resolves inside the clone, or a module only a clone can load fails here, not on a user's machine.
 */
describe('the npm package, installed outside the repository', () => {
  let dest: string;
  let installed: { tarball: string; app: string; files: string[]; bin: string };
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> };
  const cli = (args: string[], timeoutMs = 60_000) => runCli(args, { cwd: installed.app, bin: join(installed.app, 'node_modules', 'stackproof', 'bin', 'stackproof.js'), timeoutMs });

  beforeAll(() => {
    dest = mkdtempSync(join(tmpdir(), 'stackproof-pack-'));
    installed = packAndInstall(dest);
  }, 240_000);
  afterAll(() => rmSync(dest, { recursive: true, force: true }));

  it('ships the compiled CLI, the suites, the specs and the schemas, and none of the repository\'s own tests or tools', () => {
    for (const file of ['bin/stackproof.js', 'dist/cli/main.js', 'dist/cli/fanout-worker.mjs', 'dist/index.js', 'dist/types/package-exports.d.ts', 'stackproof.schema.json', 'npm-shrinkwrap.json', 'suites/mesh/authorize.suite.ts', 'expectations/vault.json', 'load/dist/mesh-authorize.js', 'README.md']) {
      expect(installed.files, file).toContain(file);
    }
    expect(installed.files.filter((f) => f.startsWith('spec/'))).toHaveLength(3);
    expect(installed.files.filter((f) => /^(test|bench|scripts|\.ci|node_modules|reports)\//.test(f))).toEqual([]);
  });

  it('installs the dependency versions of the lock file', () => {
    for (const name of ['vitest', 'zod', 'undici', 'jose']) {
      const version = (JSON.parse(readFileSync(join(installed.app, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
      expect(version, name).toBe(lock.packages[`node_modules/${name}`]!.version);
    }
  });

  it('answers --version, --help and rules --json from the compiled CLI', async () => {
    const version = await cli(['--version']);
    expect(version.stdout.trim()).toBe(pkg.version);
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['conform', 'load', 'faults', 'rules', 'serve', 'coverage', 'schema', 'init']) expect(help.stdout).toContain(command);
    const rules = await cli(['rules', '--json']);
    expect(rules.code, rules.stderr).toBe(0);
    expect((JSON.parse(rules.stdout) as { id: string }[]).map((r) => r.id).sort()).toEqual(RULES.map((r) => r.id).sort());
  });

  it('runs the mesh suites against the embedded reference and writes results that the package\'s own parser reads', async () => {
    const run = await cli(['conform', '--systems', 'mesh', '--runs', '3', '--no-load-smoke', '--reports-dir', 'out'], 180_000);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/PASSED: \d+ pass, 0 fail, 0 error/);
    // A consumer's script: the package's export reads results.json through its schema.
    const summary = execFileSync(process.execPath, ['--input-type=module', '-e', "import { readResults } from 'stackproof'; const r = await readResults('out/results.json'); console.log(JSON.stringify(r.summary.byOutcome), r.rules.length)"], { cwd: installed.app, encoding: 'utf8' });
    const [byOutcome, count] = summary.trim().split(' ');
    expect(Number(count)).toBeGreaterThan(20);
    expect(JSON.parse(byOutcome!)).toMatchObject({ PASS: Number(count) });
  }, 200_000);

  it('runs coverage, a short load, and a fault matrix whose shards start the installed CLI again', async () => {
    const coverage = await cli(['coverage', '--json', '--reports-dir', 'cov']);
    expect(coverage.code, coverage.stderr).toBe(0);
    expect(coverage.stdout.length).toBeGreaterThan(1000);
    const load = await cli(['load', '--scenario', 'mesh-roots', '--duration', '1s', '--rate', '20', '--reports-dir', 'load-out'], 60_000);
    expect(load.code, `${load.stdout}\n${load.stderr}`).toBe(0);
    expect(load.stdout).toMatch(/PASSED: 1 load scenario/);
    const faults = await cli(['faults', '--systems', 'mesh', '--rules', 'mesh.roots.rotation', '--jobs', '2', '--runs', '2'], 120_000);
    expect(faults.code, `${faults.stdout}\n${faults.stderr}`).toBe(0);
    expect(faults.stdout).toMatch(/faults caught; baseline all PASS/);
  }, 200_000);

  it('gives a TypeScript consumer the results types', () => {
    writeFileSync(
      join(installed.app, 'consumer.ts'),
      "import { parseResults, type RunResults } from 'stackproof';\nconst r: RunResults = parseResults('{}');\nconst failed: number = r.summary.byOutcome.FAIL ?? 0;\n// @ts-expect-error: not a field of results.json\nr.summary.nope;\nexport { failed };\n",
    );
    writeFileSync(join(installed.app, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: ['consumer.ts'] }));
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', installed.app], { cwd: installed.app, encoding: 'utf8' });
  }, 60_000);

  it('prints the config file\'s JSON Schema, the same one the package ships', async () => {
    const printed = await cli(['schema']);
    expect(printed.code, printed.stderr).toBe(0);
    const shipped = readFileSync(join(installed.app, 'node_modules', 'stackproof', 'stackproof.schema.json'), 'utf8');
    expect(JSON.parse(printed.stdout)).toEqual(JSON.parse(shipped));
  });
});
