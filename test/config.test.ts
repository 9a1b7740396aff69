import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config/load-config.ts';

function configFile(content: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'stackproof-config-'));
  const file = join(dir, 'stackproof.config.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('config loading', () => {
  it('uses defaults when nothing is given', () => {
    const c = loadConfig({});
    expect(c.profile).toBe('default');
    expect(c.runs).toBe(25);
    expect(c.systems).toEqual(['secrets', 'mesh', 'scheduler']);
    expect(c.targets).toEqual({});
  });

  it('layers file, then environment, then flags, field by field', () => {
    const file = configFile({
      runs: 5,
      targets: { secrets: { url: 'http://127.0.0.1:8200', token: 'from-file-token', dialect: 'hashicorp' } },
    });
    const c = loadConfig({
      file,
      env: { STACKPROOF_SECRETS_TOKEN: 'from-env-token', STACKPROOF_RUNS: '7', STACKPROOF_MESH_URL: 'http://127.0.0.1:8500', STACKPROOF_MESH_TOKEN: 'mesh-token' },
      flags: { runs: 9, targets: { secrets: { url: 'http://127.0.0.1:9999' } } },
    });
    expect(c.runs).toBe(9);
    expect(c.targets.secrets).toMatchObject({ url: 'http://127.0.0.1:9999', token: 'from-env-token', dialect: 'hashicorp' });
    expect(c.targets.mesh).toMatchObject({ url: 'http://127.0.0.1:8500', token: 'mesh-token', dialect: 'spec' });
  });

  it('names the field and where it came from when a value is invalid', () => {
    expect(() => loadConfig({ env: { STACKPROOF_SECRETS_URL: 'not a url', STACKPROOF_SECRETS_TOKEN: 'abcdefgh' } })).toThrow(
      /targets\.secrets\.url: .*\(from environment variable STACKPROOF_SECRETS_URL\)/,
    );
    const file = configFile({ targets: { mesh: { url: 'http://127.0.0.1:8500', tokn: 'x' } } });
    let message = '';
    try {
      loadConfig({ file });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      message = (err as Error).message;
    }
    // The missing token names its variable; the file that set the URL is not blamed for it.
    expect(message).toMatch(/targets\.mesh\.token: missing: set STACKPROOF_MESH_TOKEN in the environment/);
    expect(message).toMatch(/targets\.mesh: Unrecognized key: "tokn"/);
    expect(() => loadConfig({ flags: { runs: 'lots' } })).toThrow(/runs: .*number.*\(from command-line flag\)/);
  });

  it('reports unreadable and non-JSON files clearly', () => {
    expect(() => loadConfig({ file: '/nonexistent/stackproof.json' })).toThrow(/cannot be read \(ENOENT\)/);
    expect(() => loadConfig({ file: configFile('{ nope') })).toThrow(/not valid JSON/);
  });
});
