import fc from 'fast-check';
import { expect } from 'vitest';
import { listResultSchema, readResultSchema } from '../../src/client/schemas/secrets.ts';
import type { SecretsApi } from '../../src/client/secrets-api.ts';
import { kvKey, kvValue, runPrefix } from '../kit/generators/secrets.ts';
import { expectShape } from '../kit/expect-shape.ts';
import { ruleTest } from '../kit/rule-test.ts';

const run = runPrefix('kv');

/** The names directly under `dir` among `keys`: secrets, and sub-directories with a trailing '/'. */
function keysAt(keys: Iterable<string>, dir: string): string[] {
  const out = new Set<string>();
  for (const key of keys) {
    if (!key.startsWith(dir)) continue;
    const rest = key.slice(dir.length);
    const slash = rest.indexOf('/');
    out.add(slash < 0 ? rest : rest.slice(0, slash + 1));
  }
  return [...out].sort();
}

/**
 * Keys from a small pool (2 segments, at most 2 deep: 6 keys), so a generated sequence writes,
 * deletes and reads the same keys and directories often; one segment has a dot, a dash and
 * non-ASCII characters.
 */
const pooledKey = fc.array(fc.constantFrom('a', 'é-🔑.'), { minLength: 1, maxLength: 2 }).map((s) => s.join('/'));

/** Stateful properties need enough sequences to reach interesting states, whatever --runs says. */
const modelRuns = (runs: number) => Math.max(runs, 20);

ruleTest('secrets.kv.list-keys-at-path', async (kit) => {
  const mount = kit.secretsTarget.kv.v1Mount;
  let n = 0;
  await kit.property(fc.uniqueArray(kvKey, { minLength: 1, maxLength: 8 }), async (keys) => {
    n += 1;
    const base = `${mount}${run}/tree/${n}/`;
    for (const key of keys) expect((await kit.secrets.write(`${base}${key}`, { k: key })).status).toBeLessThan(300);
    const dirs = new Set(['']);
    for (const key of keys) {
      const parts = key.split('/');
      for (let i = 1; i < parts.length; i++) dirs.add(`${parts.slice(0, i).join('/')}/`);
    }
    // Each secret listed as if it were a directory: "listing is allowed on directories only", so
    // a secret with nothing beneath it lists nothing (the empty LIST answer, 404).
    for (const key of keys) dirs.add(`${key}/`);
    for (const dir of dirs) {
      const res = await kit.secrets.list(`${base}${dir}`, 'verb');
      if (keysAt(keys, dir).length === 0) {
        expect(res.status, `LIST ${base}${dir}, a secret with nothing beneath it, lists nothing: 404 (${res.text.slice(0, 120)})`).toBe(404);
        continue;
      }
      expect(res.status, `LIST ${base}${dir} answers 200`).toBe(200);
      const listed = res.parse(listResultSchema).data.keys.slice().sort();
      expect(listed, `LIST ${base}${dir} returns exactly the keys at that path`).toEqual(keysAt(keys, dir));
    }
  });
});

interface Real {
  api: SecretsApi;
  base: string;
}
type Model = Map<string, Record<string, string>>;

class Write implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly key: string,
    readonly value: Record<string, string>,
    readonly method: 'POST' | 'PUT',
  ) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const res = await r.api.write(`${r.base}${this.key}`, this.value, this.method);
    expect(res.status, `${this.toString()} succeeds`).toBeLessThan(300);
    m.set(this.key, this.value);
  }
  toString = () => `${this.method} ${this.key} ${JSON.stringify(this.value)}`;
}

/**
 * GET of a key: 404 when the model has nothing there, else 200 with what was last written.
 * `shown` names the key in a counterexample and `fields` takes the secret's fields out of the
 * read's data (data.data for version 2).
 */
class Read implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly key: string,
    readonly shown = key,
    readonly fields: (data: Record<string, unknown>) => unknown = (data) => data,
  ) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const res = await r.api.read(`${r.base}${this.key}`);
    const expected = m.get(this.key);
    if (expected === undefined) {
      expect(res.status, `${this.toString()}: deleted or never written in the model, so 404`).toBe(404);
      return;
    }
    expect(res.status, `${this.toString()}: the model holds it, so 200`).toBe(200);
    expect(this.fields(res.parse(readResultSchema).data) ?? null, `${this.toString()} returns what was last written`).toEqual(expected);
  }
  toString = () => `GET ${this.shown}`;
}

/** DELETE of a key; `shown` is how the key is named in a counterexample (data/<key> for version 2). */
class Delete implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly key: string,
    readonly shown = key,
  ) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const res = await r.api.delete(`${r.base}${this.key}`);
    expect(res.status, `${this.toString()} succeeds`).toBeLessThan(300);
    m.delete(this.key);
  }
  toString = () => `DELETE ${this.shown}`;
}

class List implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly key: string,
    readonly depth: number,
    readonly via: 'verb' | 'query',
  ) {}
  get dir(): string {
    const parts = this.key.split('/');
    const d = Math.min(this.depth, parts.length - 1);
    return d === 0 ? '' : `${parts.slice(0, d).join('/')}/`;
  }
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const res = await r.api.list(`${r.base}${this.dir}`, this.via);
    const expected = keysAt(m.keys(), this.dir);
    if (expected.length === 0) {
      expect(res.status, `${this.toString()}: nothing there in the model, so 404`).toBe(404);
      return;
    }
    expect(res.status, `${this.toString()} answers 200`).toBe(200);
    expect(res.parse(listResultSchema).data.keys.slice().sort(), `${this.toString()} lists the model's keys at that path`).toEqual(expected);
  }
  toString = () => `${this.via === 'verb' ? 'LIST' : 'GET ?list=true'} ${this.dir || '(base)'}`;
}

const v1Commands = [
  fc.tuple(pooledKey, kvValue, fc.constantFrom<'POST' | 'PUT'>('POST', 'PUT')).map(([k, v, m]) => new Write(k, v, m)),
  pooledKey.map((k) => new Read(k)),
  pooledKey.map((k) => new Delete(k)),
  fc.tuple(pooledKey, fc.nat(2), fc.constantFrom<'verb' | 'query'>('verb', 'query')).map(([k, d, via]) => new List(k, d, via)),
];

ruleTest('secrets.kv.v1-model', async (kit) => {
  const mount = kit.secretsTarget.kv.v1Mount;
  // One sequence on every run, whatever is generated: the model reads back the last write, so a
  // field only an earlier write had is gone (a merging write passed when no sequence hit it), and
  // a read after DELETE answers 404.
  for (const method of ['POST', 'PUT'] as const) {
    const replaced = [new Write('k', { a: '1', b: '2' }, method), new Write('k', { a: '3' }, method), new Read('k'), new Delete('k'), new Read('k')];
    await fc.asyncModelRun(() => ({ model: new Map(), real: { api: kit.secrets, base: `${mount}${run}/model/0-${method}/` } }), replaced);
  }
  let n = 0;
  await kit.property(fc.commands(v1Commands, { maxCommands: 30, size: 'large' }), async (cmds) => {
    n += 1;
    const real: Real = { api: kit.secrets, base: `${mount}${run}/model/${n}/` };
    await fc.asyncModelRun(() => ({ model: new Map(), real }), cmds);
  }, { numRuns: modelRuns(kit.ctx.runs) });
});

ruleTest('secrets.kv.v2-data-path', async (kit) => {
  const mount = kit.secretsTarget.kv.v2Mount!;
  await kit.property(
    fc.tuple(kvKey, kvValue),
    async ([key, value]) => {
      const path = `${mount}data/${run}/v2/${key}`;
      const write = await kit.secrets.write(path, { data: value });
      expect(write.status, `POST /v1/${path} with {data:{...}} succeeds`).toBeLessThan(300);
      const read = await kit.secrets.read(path);
      expect(read.status, `GET /v1/${path} answers 200`).toBe(200);
      const body = expectShape(read, readResultSchema, `GET /v1/${path}`);
      expect(body.data.data, 'the fields are read back under data.data').toEqual(value);
    },
    { numRuns: Math.min(kit.ctx.runs, 10) },
  );
});

class V2Write implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly key: string,
    readonly value: Record<string, string>,
  ) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const res = await r.api.write(`${r.base}${this.key}`, { data: this.value });
    expect(res.status, `${this.toString()} succeeds`).toBeLessThan(300);
    m.set(this.key, this.value);
  }
  toString = () => `POST data/${this.key} {data:${JSON.stringify(this.value)}}`;
}

ruleTest('secrets.kv.v2-model', async (kit) => {
  const mount = kit.secretsTarget.kv.v2Mount!;
  const commands = [
    fc.tuple(pooledKey, kvValue).map(([k, v]) => new V2Write(k, v)),
    pooledKey.map((k) => new Read(k, `data/${k}`, (data) => data.data)),
    pooledKey.map((k) => new Delete(k, `data/${k}`)),
  ];
  // One sequence on every run, whatever is generated: a read after DELETE answers 404.
  const deleted = [new V2Write('k', { a: '1' }), new Delete('k', 'data/k'), new Read('k', 'data/k', (data) => data.data)];
  await fc.asyncModelRun(() => ({ model: new Map(), real: { api: kit.secrets, base: `${mount}data/${run}/model/0/` } }), deleted);
  let n = 0;
  await kit.property(fc.commands(commands, { maxCommands: 30, size: 'large' }), async (cmds) => {
    n += 1;
    await fc.asyncModelRun(() => ({ model: new Map(), real: { api: kit.secrets, base: `${mount}data/${run}/model/${n}/` } }), cmds);
  }, { numRuns: modelRuns(kit.ctx.runs) });
});
