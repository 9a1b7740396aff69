import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONFIG_SCHEMA_REF, configJsonSchema } from '../src/config/config-json-schema.ts';
import { loadConfig } from '../src/config/load-config.ts';
import { configSchema } from '../src/config/schema.ts';
import { runSchemaCommand } from '../src/cli/commands/schema.ts';
import { KNOWN_KEYWORDS, keywordsOf, validate } from './support/json-schema-subset.ts';

const schema = configJsonSchema();
const TOKENS = { STACKPROOF_SECRETS_TOKEN: 't1', STACKPROOF_MESH_TOKEN: 't2', STACKPROOF_SCHEDULER_TOKEN: 't3' };

/** The zod verdict on a file's content, with the tokens the environment would add (the file may leave them out). */
const zodAccepts = (doc: unknown) => {
  const withTokens = structuredClone(doc) as { targets?: Record<string, Record<string, unknown> | undefined> };
  for (const t of Object.values(withTokens?.targets ?? {})) if (t && typeof t === 'object' && !('token' in t)) t.token = 'from-env';
  return configSchema.safeParse(withTokens).success;
};
const schemaAccepts = (doc: unknown) => validate(schema, doc).length === 0;

describe('the config JSON Schema', () => {
  it('is draft-07 with an id, a title, and descriptions carried from the zod schema', () => {
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.$id).toBe('urn:stackproof:config-schema');
    expect(schema.title).toBeTruthy();
    const props = schema.properties as Record<string, { description?: string; properties?: Record<string, { properties?: Record<string, { description?: string }> }> }>;
    expect(props.runs!.description).toMatch(/generated cases/);
    expect(props.targets!.properties!.secrets!.properties!.token!.description).toMatch(/STACKPROOF_SECRETS_TOKEN/);
    expect(props.targets!.properties!.secrets!.properties!.provisioner!.description).toMatch(/admin API/);
  });

  it('uses only keywords the test validator implements', () => {
    expect([...keywordsOf(schema)].filter((k) => !KNOWN_KEYWORDS.has(k))).toEqual([]);
  });

  it('accepts the repository example, which also loads with the tokens from the environment', () => {
    const example = JSON.parse(readFileSync('stackproof.config.example.json', 'utf8'));
    expect(example.$schema).toBe(CONFIG_SCHEMA_REF);
    expect(validate(schema, example)).toEqual([]);
    expect(loadConfig({ file: 'stackproof.config.example.json', env: TOKENS }).targets.mesh?.url).toBe('http://127.0.0.1:8500');
  });

  it('rejects an unknown key and a bad URL, as the loader does, and allows $schema', () => {
    const ok = { $schema: CONFIG_SCHEMA_REF, targets: { mesh: { url: 'http://127.0.0.1:8500' } } };
    const cases: [unknown, boolean][] = [
      [ok, true],
      [{}, true],
      [{ runz: 3 }, false],
      [{ targets: { mesh: { url: 'http://127.0.0.1:8500', colour: 'blue' } } }, false],
      [{ targets: { vault: { url: 'http://127.0.0.1:8200' } } }, false],
      [{ targets: { mesh: { url: 'not a url' } } }, false],
      [{ targets: { mesh: { url: 'ftp://127.0.0.1:8500' } } }, false],
      [{ targets: { mesh: { url: 'HTTPS://mesh.example:8501' } } }, true],
      [{ targets: { secrets: { url: 'http://v:8200', kv: { v1Mount: '/secret' } } } }, false],
      [{ runs: 0 }, false],
      [{ runs: 2.5 }, false],
      [{ maxSkipShare: 1.5 }, false],
      [{ systems: [] }, false],
      [{ path: '3:1:0' }, true],
    ];
    for (const [doc, expected] of cases) {
      expect(schemaAccepts(doc), JSON.stringify(doc)).toBe(expected);
      expect(zodAccepts(doc), JSON.stringify(doc)).toBe(expected);
    }
  });

  it('agrees with the zod schema on generated documents', () => {
    const url = fc.oneof(fc.constantFrom('http://127.0.0.1:8200', 'https://vault.example', 'ftp://x', 'nope', '', 'http://[::1]:1'), fc.webUrl());
    const target = fc.record(
      {
        url,
        dialect: fc.constantFrom('spec', 'hashicorp', 'vault'),
        rotateCa: fc.boolean(),
        extra: fc.string(),
      },
      { requiredKeys: [] },
    );
    const doc = fc.record(
      {
        $schema: fc.string(),
        runs: fc.oneof(fc.integer({ min: -2, max: 200_000 }), fc.double()),
        profile: fc.constantFrom('default', 'strict', 'loose'),
        systems: fc.array(fc.constantFrom('secrets', 'mesh', 'scheduler', 'queue'), { maxLength: 3 }),
        maxSkipShare: fc.double({ min: -1, max: 2, noNaN: true }),
        targets: fc.record({ mesh: target, scheduler: target }, { requiredKeys: [] }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(doc, (d) => {
        // rotateCa belongs to mesh only: on the scheduler it is an unknown key for both.
        expect(schemaAccepts(d), JSON.stringify(d)).toBe(zodAccepts(d));
      }),
      { numRuns: 400 },
    );
  });

  it('stackproof schema --out writes it', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'stackproof-schema-')), 'stackproof.schema.json');
    const stderr = process.stderr.write;
    process.stderr.write = (() => true) as typeof process.stderr.write;
    try {
      expect(await runSchemaCommand({ out })).toBe(0);
    } finally {
      process.stderr.write = stderr;
    }
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(schema);
  });
});
