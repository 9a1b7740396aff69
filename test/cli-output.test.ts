import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { RULES } from '../src/rules/catalog.ts';
import { BIN, ROOT, runCli } from './support/run-cli.ts';
import { serveInChild } from './support/serve-child.ts';

/** Issue 35, part 5: `rules` reads as a list, and a closed pipe ends a command quietly. */
describe('stackproof rules', () => {
  it('prints one line per rule by default: id, level, title', async () => {
    const res = await runCli(['rules', '--systems', 'mesh', '--profile', 'strict']);
    expect(res.code).toBe(0);
    const mesh = RULES.filter((r) => r.system === 'mesh');
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(mesh.length + 1);
    for (const [i, r] of mesh.entries()) expect(lines[i]).toMatch(new RegExp(`^${r.id.replaceAll('.', '\\.')} +${r.level} +${r.title.slice(0, 20).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    expect(lines.at(-1)).toBe(`${mesh.length} rule(s); --long for citations and faults, --json for all of it`);
  });

  it('--long gives each rule in full, with its spec citation and the faults that break it', async () => {
    const res = await runCli(['rules', '--rules', 'mesh.roots.no-acl', '--long']);
    expect(res.stdout).toMatch(/^mesh\.roots\.no-acl {2}\[mesh, MUST\]\n {2}CA roots answers without any ACL token\n {2}spec: 001_\S+ § .*\n[\s\S]* {2}faults: \S+/);
  });

  it('--help lists only the options rules takes', async () => {
    const res = await runCli(['rules', '--help']);
    const options = [...res.stdout.matchAll(/^ {2}(--[a-z-]+|-h, --help)/gm)].map((m) => m[1]);
    expect(options).toEqual(['--systems', '--rules', '--profile', '--long', '--json', '--wrong-ways', '-h, --help']);
  });
});

describe('serve and conform share flag names', () => {
  it('serve takes --reference-dialect and --reference-fault as conform does, and still its old --dialect and --fault', async () => {
    for (const flags of [['--reference-dialect', 'hashicorp', '--reference-fault', 'mesh.roots-require-token'], ['--dialect', 'hashicorp', '--fault', 'mesh.roots-require-token']]) {
      const served = await serveInChild(flags);
      try {
        expect(served.targets.mesh?.dialect).toBe('hashicorp');
        expect(served.output()).toMatch(/dialect hashicorp, faults mesh\.roots-require-token/);
      } finally {
        served.child.kill('SIGKILL');
      }
    }
  }, 90_000);

  it('serve refuses a --reference-dialect and a --dialect that disagree (exit 2)', async () => {
    const res = await runCli(['serve', '--reference-dialect', 'hashicorp', '--dialect', 'spec'], { timeoutMs: 30_000 });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/--reference-dialect hashicorp and its alias --dialect spec disagree/);
  });
});

describe('a closed pipe', () => {
  it('ends the command quietly with exit 0 (stackproof rules --json | head -c 100)', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const k of Object.keys(env)) if (k.startsWith('VITEST') || k === 'TEST' || k === 'NODE_ENV') delete env[k];
    const child = spawn(process.execPath, [BIN, 'rules', '--json', '--profile', 'strict'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    // The reader takes one chunk and leaves, as head does.
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
