import fc from 'fast-check';
import { expect } from 'vitest';
import { readResultSchema } from '../../src/client/schemas/secrets.ts';
import { kvKey, kvValue, runPrefix } from '../kit/generators/secrets.ts';
import type { RuleKit } from '../kit/rule-kit.ts';
import { ruleTest } from '../kit/rule-test.ts';

const run = runPrefix('ns');

/** Every way to cut `ns` + `rest` between the namespace header and the path, at segment boundaries. */
function splits(ns: string, rest: string): { header: string; path: string }[] {
  const parts = ns.split('/').filter(Boolean);
  return parts.map((_, i) => i).concat(parts.length).map((i) => ({ header: parts.slice(0, i).map((p) => `${p}/`).join(''), path: `${parts.slice(i).map((p) => `${p}/`).join('')}${rest}` }));
}

function deepest(kit: RuleKit): string {
  return [...kit.secretsTarget.namespaces].sort((a, b) => b.split('/').length - a.split('/').length)[0]!;
}

ruleTest('secrets.ns.header-path-equivalence', async (kit) => {
  const ns = deepest(kit);
  const mount = kit.secretsTarget.kv.v1Mount;
  const options = splits(ns, '');
  kit.note(`namespace ${ns}: ${options.length} ways to split it between header and path`);
  let n = 0;
  await kit.property(
    fc.tuple(kvKey, kvValue, fc.nat(), fc.nat(), fc.nat()),
    async ([key, value, w, r, l]) => {
      n += 1;
      const dir = `${mount}${run}/equiv/${n}/`;
      const all = splits(ns, `${dir}${key}`);
      const writeVia = all[w % all.length]!;
      const readVia = all[r % all.length]!;
      const write = await kit.secrets.write(writeVia.path, value, 'POST', { namespace: writeVia.header || undefined });
      expect(write.status, `write with header "${writeVia.header}" and path ${writeVia.path} succeeds`).toBeLessThan(300);
      const read = await kit.secrets.read(readVia.path, { namespace: readVia.header || undefined });
      expect(read.status, `read with header "${readVia.header}" and path ${readVia.path} finds what the other split wrote`).toBe(200);
      expect(read.parse(readResultSchema).data).toEqual(value);
      const lists = splits(ns, dir);
      const listVia = lists[l % lists.length]!;
      const list = await kit.secrets.list(listVia.path, 'verb', { namespace: listVia.header || undefined });
      expect(list.status, `LIST with header "${listVia.header}" and path ${listVia.path}`).toBe(200);
      const first = key.split('/')[0]!;
      const keys = (list.json() as { data: { keys: string[] } }).data.keys;
      expect(keys.includes(first) || keys.includes(`${first}/`), `the listing through another split shows ${first}`).toBe(true);
    },
    { numRuns: Math.min(kit.ctx.runs, 20) },
  );
});

ruleTest('secrets.ns.isolation', async (kit) => {
  const namespaces = kit.secretsTarget.namespaces;
  const mount = kit.secretsTarget.kv.v1Mount;
  // Pairs of distinct namespaces, the root namespace among them.
  const all = ['', ...namespaces];
  let n = 0;
  await kit.property(
    fc.tuple(kvKey, kvValue, fc.nat(), fc.nat()),
    async ([key, value, a, b]) => {
      n += 1;
      const from = all[a % all.length]!;
      let to = all[b % all.length]!;
      if (to === from) to = all[(b + 1) % all.length]!;
      const path = `${mount}${run}/iso/${n}/${key}`;
      const write = await kit.secrets.write(path, value, 'POST', { namespace: from || undefined });
      expect(write.status, `write in namespace "${from || '(root)'}" succeeds`).toBeLessThan(300);
      const other = await kit.secrets.read(path, { namespace: to || undefined });
      expect(other.status, `the same relative path in namespace "${to || '(root)'}" is not found`).toBe(404);
      const same = await kit.secrets.read(path, { namespace: from || undefined });
      expect(same.status, `it is found in "${from || '(root)'}"`).toBe(200);
    },
    { numRuns: Math.min(kit.ctx.runs, 20) },
  );
});
