import fc from 'fast-check';
import { z } from 'zod';
import { expect } from 'vitest';
import type { HttpResponse } from '../../src/client/http-client.ts';
import { readResultSchema } from '../../src/client/schemas/secrets.ts';
import { NAMESPACE_GONE_MS } from '../../src/provision/secrets-sweep.ts';
import { childKeys, fits, readOutcome, type NamespaceIncarnation, type ReadOutcome, type StoredSecret } from '../models/secrets-namespaces.ts';
import { SkipRule, type RuleKit } from '../kit/rule-kit.ts';
import { uniqueName } from '../kit/run-names.ts';
import { ruleTest } from '../kit/rule-test.ts';
import { KIT_MARGINS } from '../kit/bounds/bound.ts';

// Worlds of namespaces that are each other's neighbours: a namespace `a`, one whose name begins
// like it (`ab`), a child `a/c`, and the root. Every request the rules send is judged against the
// model (suites/models/secrets-namespaces.ts), and each is sent beside a neighbour that differs
// from it in exactly one attribute: the namespace one character longer, the header/path cut one
// character over, the header's trailing slash, the token of the parent, child or prefix-named
// sibling.

interface World {
  /** The namespaces made, children after parents; with the root (''). */
  live: NamespaceIncarnation[];
  secrets: StoredSecret[];
  /** The relative path of each namespace's secret (mount and key). */
  rest: string;
  /** The namespaces the rule made, to remove at the end, children first. */
  made: string[];
}

function ok(res: HttpResponse, what: string): void {
  if (res.status >= 300) throw new Error(`${what}: answered ${res.status} ${res.text.slice(0, 200)}`);
}

/**
 * A namespace below `parent` with a version 1 key-value engine at the profile's kv.v1Mount. The
 * spec does not show how namespaces are made: through sys/namespaces where the target serves it
 * (Vault Enterprise, OpenBao 2.3+, the reference's hashicorp dialect), else through the reference's
 * control interface where the profile names one; SKIP elsewhere.
 */
async function makeNamespace(kit: RuleKit, parent: string, name: string): Promise<string> {
  const path = `${parent}${name}/`;
  const res = await kit.secrets.write(`sys/namespaces/${name}`, {}, 'POST', { namespace: parent || undefined });
  if (res.status === 404 || res.status === 405) {
    const control = kit.secretsControl;
    if (!control) throw new SkipRule(`the rule makes neighbour namespaces through sys/namespaces, which answered ${res.status}, and the profile names no control interface (the spec does not show how namespaces are made)`);
    const made = await control.post('/v1/control/secrets/namespaces', { path });
    ok(made, `make namespace ${path} through the control interface`);
    return path;
  }
  ok(res, `make namespace ${path}`);
  const mount = kit.secretsTarget.kv.v1Mount.replace(/\/$/, '');
  ok(await kit.secrets.write(`sys/mounts/${mount}`, { type: 'kv', options: { version: '1' } }, 'POST', { namespace: path }), `mount a version 1 key-value engine in ${path}`);
  return path;
}

/** Removes a namespace the rule made and waits until it is gone (OpenBao deletes in the background, and lists it until then). */
async function removeNamespace(kit: RuleKit, path: string): Promise<void> {
  const parts = path.split('/').filter(Boolean);
  const name = parts.pop()!;
  const parent = parts.map((p) => `${p}/`).join('');
  const deadline = Date.now() + NAMESPACE_GONE_MS;
  for (;;) {
    const res = await kit.secrets.delete(`sys/namespaces/${name}`, { namespace: parent || undefined });
    if (res.status === 404 || res.status === 405) {
      const control = kit.secretsControl;
      if (control) ok(await control.request({ method: 'DELETE', path: `/v1/control/secrets/namespaces/${path}` }), `remove namespace ${path} through the control interface`);
      return;
    }
    // Only a refusal that says the children are still there passes with time (OpenBao deletes them in
    // the background); any other refusal is the answer, not a wait.
    if (res.status >= 400 && !/child namespaces/i.test(res.text)) throw new Error(`remove namespace ${path}: DELETE answered ${res.status} ${res.text.slice(0, 200)}`);
    const list = await kit.secrets.list('sys/namespaces', 'verb', { namespace: parent || undefined });
    const keys = list.status === 200 ? ((list.json() as { data?: { keys?: string[] } }).data?.keys ?? []) : [];
    if (res.status < 300 && !keys.includes(`${name}/`)) return;
    if (Date.now() > deadline) throw new Error(`namespace ${path} still listed ${NAMESPACE_GONE_MS / 1000} s after its deletion (last DELETE: ${res.status})`);
    await new Promise((r) => setTimeout(r, KIT_MARGINS.changePoll.ms));
  }
}

async function buildWorld(kit: RuleKit): Promise<World> {
  const a = uniqueName('nsa');
  // The child's name is the run's own: the deletion check below makes a root namespace of that name.
  const c = uniqueName('nsc');
  const world: World = { live: [{ path: '', generation: 0 }], secrets: [], rest: `${kit.secretsTarget.kv.v1Mount}${uniqueName('nss')}`, made: [] };
  for (const [parent, name] of [
    ['', a],
    ['', `${a}b`],
    [`${a}/`, c],
  ] as const) {
    const path = await makeNamespace(kit, parent, name);
    world.made.unshift(path);
    world.live.push({ path, generation: 0 });
  }
  for (const ns of world.live) await writeSecret(kit, world, ns);
  return world;
}

async function writeSecret(kit: RuleKit, world: World, ns: NamespaceIncarnation): Promise<void> {
  const value = { in: ns.path || '(root)', generation: String(ns.generation) };
  ok(await kit.secrets.write(world.rest, value, 'POST', { namespace: ns.path || undefined }), `write the secret of ${ns.path || '(root)'}`);
  world.secrets.push({ namespace: ns, rest: world.rest, value });
}

async function tearDown(kit: RuleKit, world: World | undefined): Promise<void> {
  if (!world) return;
  // Only the root namespace's secret stays otherwise: the others go with their namespaces.
  await kit.secrets.delete(world.rest);
  for (const path of world.made) await removeNamespace(kit, path);
}

/** A read request: the namespace header (undefined: none) and the path after /v1/. */
interface ReadRequest {
  header: string | undefined;
  path: string;
}

/** The request for `full` (namespace part + rest) cut after `cut` characters of it, the header with or without its trailing slash. */
function cutRequest(full: string, cut: number, dropSlash: boolean): ReadRequest {
  // A cut right before a slash gives the slash to the header: a path never starts with one (the spec
  // does not say what '/v1//…' means).
  const at = full[cut] === '/' ? cut + 1 : cut;
  const header = full.slice(0, at);
  return { header: header === '' ? undefined : dropSlash ? header.replace(/\/$/, '') : header, path: full.slice(at) };
}

function show(r: ReadRequest): string {
  return `header ${r.header === undefined ? '(none)' : JSON.stringify(r.header)} path ${JSON.stringify(r.path)}`;
}

function showOutcome(o: ReadOutcome): string {
  return o.kind === 'value' ? `the value ${JSON.stringify(o.value)}` : o.kind === 'absent' ? 'not found (404)' : 'refused (403 or 404)';
}

/** Sends a read, judges it against the model; returns a line when the answer does not fit. */
async function judge(kit: RuleKit, world: World, req: ReadRequest, token?: { ns: NamespaceIncarnation; secret: string }): Promise<string | undefined> {
  const d = kit.secrets.dialect.secrets;
  const options = token ? { bare: true, headers: { [d.tokenHeader]: token.secret, [d.requestHeader]: 'true' } } : {};
  const res = await kit.secrets.read(req.path, { ...options, namespace: req.header });
  const outcome = readOutcome({ live: world.live, secrets: world.secrets, header: req.header, path: req.path, token: token?.ns });
  const data = res.status === 200 ? readResultSchema.safeParse(res.json()).data?.data : undefined;
  if (fits(outcome, res.status, data)) return undefined;
  return `${show(req)}${token ? ` with a token of ${token.ns.path || '(root)'}` : ''}: the model allows ${showOutcome(outcome)}, got ${res.status} ${res.text.slice(0, 160)}`;
}

/** The namespace parts a request may name: each namespace of the world, and the near misses between them. */
function namespaceParts(world: World): string[] {
  const made = world.live.map((n) => n.path);
  const [, a, ab, ac] = made;
  const c = ac!.split('/').at(-2)!;
  // 'a/b/' is 'ab/' cut in the wrong place; 'ab/c/' is 'a/c/' under the prefix-named sibling.
  return [...made, `${a}b/`, `${ab}${c}/`];
}

/** The namespace path with one character less at its end (a one-character last segment goes whole: the parent). */
function shorter(ns: string): string {
  const parts = ns.split('/').filter(Boolean);
  const last = parts.pop();
  if (last && last.length > 1) parts.push(last.slice(0, -1));
  return parts.map((p) => `${p}/`).join('');
}

// First in the file: with --bail (mutation runs) its quick refusals of a broken namespace admin API end the run before the
// neighbour rule's teardown waits out a namespace that is never removed.
ruleTest('secrets.upstream.ns-admin-tree', async (kit) => {
  const a = uniqueName('nsadm');
  const hashicorp = kit.secrets.dialect.name === 'hashicorp';
  // Children first, for the teardown.
  const made: string[] = [];
  const wrong: string[] = [];
  const check = (cond: boolean, what: string) => {
    if (!cond) wrong.push(what);
  };
  const ns = (path: string) => ({ namespace: path || undefined });
  let rootEntity: string | undefined;
  try {
    const first = await kit.secrets.write(`sys/namespaces/${a}`, { custom_metadata: { made: 'first' } }, 'POST');
    if (first.status === 404 || first.status === 405) {
      // Vault Enterprise says so in sys/health ("enterprise": true) and always serves sys/namespaces;
      // elsewhere (the spec dialect, Vault CE, OpenBao before 2.3) there may be no admin API of namespaces.
      const health = hashicorp ? await kit.secrets.read('sys/health') : undefined;
      const enterprise = health?.status === 200 && z.object({ enterprise: z.boolean().optional() }).loose().safeParse(health.json()).data?.enterprise === true;
      if (!enterprise) {
        if (!kit.secretsControl) throw new SkipRule(`sys/namespaces answered ${first.status}: the spec does not show how namespaces are made, and this rule asks Vault's admin API of them`);
        kit.note(`sys/namespaces answered ${first.status}: only the namespace header written with extra slashes is asked, in a namespace made through the control interface`);
        return await headerSlashes(kit, a);
      }
    }
    expect(first.status, `POST sys/namespaces/${a}: a target whose sys/health says "enterprise": true makes namespaces through sys/namespaces (Vault Enterprise); ${first.text.slice(0, 160)}`).toBe(200);
    made.unshift(`${a}/`);
    const aView = first.parse(namespaceRead).data;
    check(aView.path === `${a}/` && sameMetadata(aView.custom_metadata, { made: 'first' }), `POST sys/namespaces/${a} answers the namespace it made (path ${a}/, custom_metadata {made: first}): got ${JSON.stringify(aView)}`);
    const ab = await kit.secrets.write(`sys/namespaces/${a}b`, {}, 'POST');
    expect(ab.status, `POST sys/namespaces/${a}b: ${ab.text.slice(0, 160)}`).toBe(200);
    made.unshift(`${a}b/`);
    const child = await kit.secrets.write('sys/namespaces/c', {}, 'POST', ns(`${a}/`));
    expect(child.status, `POST sys/namespaces/c in ${a}/: ${child.text.slice(0, 160)}`).toBe(200);
    made.unshift(`${a}/c/`);
    const cView = child.parse(namespaceRead).data;
    check(cView.path === `${a}/c/` && sameMetadata(cView.custom_metadata, {}), `POST sys/namespaces/c in ${a}/ makes ${a}/c/ with no custom_metadata: got ${JSON.stringify(cView)}`);

    // Written again with new metadata: the same namespace (same id) with the new metadata.
    const again = await kit.secrets.write(`sys/namespaces/${a}`, { custom_metadata: { made: 'again' } }, 'POST');
    const againView = again.status === 200 ? again.parse(namespaceRead).data : undefined;
    check(againView?.id === aView.id && againView.path === `${a}/` && sameMetadata(againView.custom_metadata, { made: 'again' }), `POST sys/namespaces/${a} again with custom_metadata {made: again} updates it in place (id ${aView.id}): got ${again.status} ${again.text.slice(0, 200)}`);

    // Reads: a namespace by its name in its parent, never by a path of names nor from another parent.
    const readA = await kit.secrets.read(`sys/namespaces/${a}`);
    const readAView = readA.status === 200 ? readA.parse(namespaceRead).data : undefined;
    check(readAView?.id === aView.id && readAView.path === `${a}/` && sameMetadata(readAView.custom_metadata, { made: 'again' }), `GET sys/namespaces/${a}: got ${readA.status} ${readA.text.slice(0, 200)}`);
    const readC = await kit.secrets.read('sys/namespaces/c', ns(`${a}/`));
    check(readC.status === 200 && readC.parse(namespaceRead).data.id === cView.id, `GET sys/namespaces/c in ${a}/ reads ${a}/c/ (id ${cView.id}): got ${readC.status} ${readC.text.slice(0, 200)}`);
    const readCSlashes = await kit.secrets.read('sys/namespaces/c', ns(`//${a}//`));
    check(readCSlashes.status === 200 && readCSlashes.parse(namespaceRead).data.id === cView.id, `GET sys/namespaces/c with header "//${a}//" (extra slashes) reads ${a}/c/: got ${readCSlashes.status} ${readCSlashes.text.slice(0, 200)}`);
    const readASlash = await kit.secrets.read(`sys/namespaces/${a}`, ns('/'));
    check(readASlash.status === 200 && readASlash.parse(namespaceRead).data.id === aView.id, `GET sys/namespaces/${a} with header "/" (the root) reads ${a}/: got ${readASlash.status} ${readASlash.text.slice(0, 200)}`);
    for (const [path, header, why] of [
      ['sys/namespaces/c', '', `c exists only in ${a}/`],
      [`sys/namespaces/${a}/c`, '', 'a name holds no "/" (OpenBao 400, the reference 404)'],
      [`sys/namespaces/${a}x`, '', 'no such namespace'],
    ] as const) {
      const res = await kit.secrets.read(path, ns(header));
      check(res.status === 404 || res.status === 400, `GET ${path} in ${header || '(root)'} is 404 or 400 (${why}): got ${res.status} ${res.text.slice(0, 160)}`);
    }
    for (const [what, res] of [
      ['GET sys/namespaces (no name)', await kit.secrets.read('sys/namespaces')],
      [`LIST sys/namespaces/${a} (a name)`, await kit.secrets.list(`sys/namespaces/${a}`, 'verb')],
    ] as const) {
      check(res.status === 405 && errorsOf(res).join(' ').includes('unsupported operation'), `${what} is an operation the path does not have: 405 "unsupported operation" (Vault's logical.ErrUnsupportedOperation), got ${res.status} ${res.text.slice(0, 160)}`);
    }

    // The id sys/namespaces gives is the one the namespace's identity store reports (OpenBao and Vault: an entity's namespace_id; "root" in the root).
    for (const [where, want] of [['', 'root'], [`${a}/`, aView.id]] as const) {
      const made = await kit.secrets.write('identity/entity', { name: uniqueName('nsent') }, 'POST', ns(where));
      const id = made.status === 200 ? z.object({ data: z.object({ id: z.string() }).loose() }).loose().parse(made.json()).data.id : undefined;
      if (id && where === '') rootEntity = id;
      const read = id ? await kit.secrets.read(`identity/entity/id/${id}`, ns(where)) : undefined;
      const got = read?.status === 200 ? z.object({ data: z.object({ namespace_id: z.string() }).loose() }).loose().safeParse(read.json()).data?.data.namespace_id : undefined;
      check(got === want, `an entity made in ${where || 'the root'} reports namespace_id ${want}: got ${made.status} ${read?.status ?? ''} ${got ?? made.text.slice(0, 160)}`);
    }

    // The path beside sys/namespaces is no admin API: Vault's system backend answers it as any path it lacks (logical.ErrUnsupportedPath).
    const beside = await kit.secrets.read('sys/namespacesx');
    const besideErrors = beside.status === 404 ? errorsOf(beside) : [];
    check(besideErrors.join(' ').includes('unsupported path'), `GET sys/namespacesx is 404 "unsupported path", as OpenBao and Vault answer a system path they lack: got ${beside.status} ${beside.text.slice(0, 160)}`);

    // Lists: the namespaces directly below the request's namespace (OpenBao handleNamespacesList: ListNamespaces non-recursive, keys trimmed of the parent).
    const made3 = [`${a}/`, `${a}b/`, `${a}/c/`];
    const listIn = async (parent: string, how: 'header' | 'path') => {
      const res = how === 'header' ? await kit.secrets.list('sys/namespaces', 'verb', ns(parent)) : await kit.secrets.list(`${parent}sys/namespaces`, 'verb');
      return res.status === 200 ? { status: 200, ...res.parse(namespaceList).data } : { status: res.status, keys: [] as string[], key_info: {} as Record<string, z.infer<typeof namespaceView>> };
    };
    const root = await listIn('', 'header');
    const rootMine = root.keys.filter((k) => k.startsWith(a));
    check(root.status === 200 && sameSet(rootMine, childKeys(made3, '').filter((k) => k.startsWith(a))), `LIST sys/namespaces in the root lists ${a}/ and ${a}b/ and not ${a}/c/: got ${root.status} ${JSON.stringify(rootMine)}`);
    check(root.keys.every((k) => /^[^/]+\/$/.test(k)), `every key LIST sys/namespaces gives in the root is one segment (a direct child): ${JSON.stringify(root.keys.filter((k) => !/^[^/]+\/$/.test(k)))}`);
    check(root.key_info[`${a}/`]?.id === aView.id && root.key_info[`${a}/`]?.path === `${a}/`, `key_info of ${a}/ in the root's list: ${JSON.stringify(root.key_info[`${a}/`])}`);
    for (const how of ['header', 'path'] as const) {
      const inA = await listIn(`${a}/`, how);
      check(inA.status === 200 && sameSet(inA.keys, childKeys(made3, `${a}/`)), `LIST sys/namespaces in ${a}/ (namespace in the ${how}) lists exactly c/: got ${inA.status} ${JSON.stringify(inA.keys)}`);
      check(inA.key_info['c/']?.id === cView.id && inA.key_info['c/']?.path === `${a}/c/`, `key_info of c/ in ${a}/ (by ${how}): ${JSON.stringify(inA.key_info['c/'])}`);
    }
    for (const leaf of [`${a}/c/`, `${a}b/`]) {
      const res = await listIn(leaf, 'header');
      check(res.status === 404, `LIST sys/namespaces in ${leaf}, which has no children, is 404 (spec: "When the result is empty the status is 404"): got ${res.status} ${JSON.stringify(res.keys)}`);
    }

    // Refused names and bodies: nothing is made.
    for (const [name, body, why] of [
      ['e/f', {}, 'a name holds no "/"'],
      ['*q', {}, 'a wildcard at the start'],
      ['q*', {}, 'a wildcard at the end'],
      ['q', { custom_metadata: 'not a map' }, 'custom_metadata is not a map'],
    ] as const) {
      const res = await kit.secrets.write(`sys/namespaces/${name}`, body, 'POST', ns(`${a}/`));
      if (res.status < 300) made.unshift(`${a}/${name.replace(/\/.*/, '')}/`);
      const errors = errorsOf(res);
      check(res.status === 400 && errors.some((e) => e.trim() !== '') && (name !== 'q' || errors.join(' ').includes('custom_metadata')), `POST sys/namespaces/${name} in ${a}/ (${why}) is 400 with a message${name === 'q' ? ' naming the field custom_metadata' : ''}: got ${res.status} ${res.text.slice(0, 160)}`);
    }
    // A namespace may not take the first segment of a mount of its parent; the last segment of one is free.
    const mounted = await kit.secrets.write('sys/mounts/x/y', { type: 'kv', options: { version: '1' } }, 'POST', ns(`${a}/`));
    expect(mounted.status, `mount a version 1 key-value engine at x/y/ in ${a}/: ${mounted.text.slice(0, 160)}`).toBeLessThan(300);
    const overMount = await kit.secrets.write('sys/namespaces/x', {}, 'POST', ns(`${a}/`));
    if (overMount.status < 300) made.unshift(`${a}/x/`);
    check(overMount.status === 400 && errorsOf(overMount).some((e) => e.trim() !== ''), `POST sys/namespaces/x in ${a}/, where the mount x/y/ is, is 400 (OpenBao: "new namespace conflicts with existing mount"): got ${overMount.status} ${overMount.text.slice(0, 160)}`);
    const besideMount = await kit.secrets.write('sys/namespaces/y', {}, 'POST', ns(`${a}/`));
    if (besideMount.status < 300) made.unshift(`${a}/y/`);
    check(besideMount.status === 200, `POST sys/namespaces/y in ${a}/ (y is only the last segment of the mount x/y/) is 200: got ${besideMount.status} ${besideMount.text.slice(0, 160)}`);
    const inAAfter = await listIn(`${a}/`, 'header');
    check(sameSet(inAAfter.keys, childKeys([...made3, `${a}/y/`], `${a}/`)), `after the refused names, LIST in ${a}/ lists exactly c/ and y/: got ${JSON.stringify(inAAfter.keys)}`);

    // Deletes: a namespace with children is refused and stays; a name with "/" is refused; a missing one is not an error.
    const delParent = await kit.secrets.delete(`sys/namespaces/${a}`);
    check(delParent.status === 400 && errorsOf(delParent).some((e) => e.trim() !== ''), `DELETE sys/namespaces/${a}, which has children, is 400 (OpenBao: "unable to delete namespace containing child namespaces"): got ${delParent.status} ${delParent.text.slice(0, 160)}`);
    const stillA = await kit.secrets.read(`sys/namespaces/${a}`);
    const stillC = await listIn(`${a}/`, 'header');
    check(stillA.status === 200 && stillC.keys.includes('c/'), `after the refused DELETE, ${a}/ and its child c/ are still there: GET ${stillA.status}, LIST ${JSON.stringify(stillC.keys)}`);
    const delSlash = await kit.secrets.delete(`sys/namespaces/${a}/c`);
    check(delSlash.status === 400 && errorsOf(delSlash).some((e) => e.trim() !== ''), `DELETE sys/namespaces/${a}/c (a name holds no "/") is 400: got ${delSlash.status} ${delSlash.text.slice(0, 160)}`);
    const delMissing = await kit.secrets.delete('sys/namespaces/missing', ns(`${a}/`));
    check(delMissing.status === 200 || delMissing.status === 204, `DELETE of a namespace that does not exist succeeds (OpenBao 200 with a warning, the reference 204): got ${delMissing.status} ${delMissing.text.slice(0, 160)}`);
    await removeNamespace(kit, `${a}/y/`);
    made.splice(made.indexOf(`${a}/y/`), 1);
    const gone = await kit.secrets.read('sys/namespaces/y', ns(`${a}/`));
    check(gone.status === 404, `GET sys/namespaces/y in ${a}/ after its deletion is 404: got ${gone.status} ${gone.text.slice(0, 160)}`);
    expect(wrong, `sys/namespaces answers as Vault Enterprise and OpenBao do:\n${wrong.join('\n')}`).toEqual([]);
  } finally {
    if (rootEntity) await kit.secrets.delete(`identity/entity/id/${rootEntity}`);
    for (const path of made) await removeNamespace(kit, path);
  }
});

ruleTest('secrets.ns.neighbour-paths', async (kit) => {
  let world: World | undefined;
  try {
    world = await buildWorld(kit);
    const w = world;
    const parts = namespaceParts(w);
    kit.note(`namespaces ${w.live.map((n) => n.path || '(root)').join(', ')}; near misses asked too: ${parts.filter((p) => !w.live.some((n) => n.path === p)).join(', ')}`);
    // A request names a namespace part and the secret's rest, cut anywhere in the namespace part;
    // its neighbour moves the cut one character, or names the namespace one character longer or
    // shorter, or drops the header's trailing slash.
    const request = fc.record({ part: fc.nat(), cut: fc.nat(), dropSlash: fc.boolean(), neighbour: fc.constantFrom('cut', 'longer', 'shorter', 'slash') });
    const examples = [
      // ab/ asked as header 'a' and path 'b/...': a/b/, never ab/.
      { part: 2, cut: w.live[1]!.path.length - 1, dropSlash: false, neighbour: 'cut' as const },
      { part: 1, cut: w.live[1]!.path.length, dropSlash: true, neighbour: 'longer' as const },
      { part: 3, cut: 0, dropSlash: false, neighbour: 'shorter' as const },
    ];
    const mismatches: string[] = [];
    let asked = 0;
    await kit.property(
      request,
      async ({ part, cut, dropSlash, neighbour }) => {
        const ns = parts[part % parts.length]!;
        const at = cut % (ns.length + 1);
        const base = cutRequest(ns + w.rest, at, dropSlash);
        const other =
          neighbour === 'cut'
            ? ns === ''
              ? { header: '', path: w.rest }
              : cutRequest(ns + w.rest, at === ns.length ? at - 1 : at + 1, dropSlash)
            : neighbour === 'longer'
              ? cutRequest(`${ns.replace(/\/$/, '')}b/` + w.rest, Math.min(at, ns.length - 1), dropSlash)
              : neighbour === 'shorter'
                ? cutRequest(shorter(ns) + w.rest, Math.min(at, shorter(ns).length), dropSlash)
                : cutRequest(ns + w.rest, at, !dropSlash);
        for (const r of [base, other]) {
          asked += 1;
          const wrong = await judge(kit, w, r);
          if (wrong) mismatches.push(`${wrong} (asked beside ${show(r === base ? other : base)}, which differs in the ${neighbour === 'slash' ? "header's trailing slash" : neighbour === 'cut' ? 'header/path cut' : 'namespace name by one character'})`);
        }
        expect(mismatches.length, `every answer fits the namespace model:\n${mismatches.join('\n')}`).toBe(0);
      },
      { numRuns: Math.min(Math.max(kit.ctx.runs, 12), 40), examples },
    );
    kit.note(`${asked} reads judged against the model`);
  } finally {
    await tearDown(kit, world);
  }
});

/**
 * A client token of a namespace: an entity's token from the identity fixtures where the profile has
 * them (the embedded reference enforces no policies), else, on a product whose admin API the
 * upstream provisioner drives, a token made in the namespace's token store with a policy of that
 * namespace that reads everything below it, so that only the namespace boundary decides.
 */
async function tokenIn(kit: RuleKit, ns: string): Promise<string> {
  if (kit.ctx.provisioned?.secrets?.provisioner === 'upstream') {
    const policy = uniqueName('nsread');
    ok(await kit.secrets.write(`sys/policies/acl/${policy}`, { policy: 'path "*" {\n  capabilities = ["read", "list"]\n}\n' }, 'POST', { namespace: ns }), `write a read policy in ${ns}`);
    const res = await kit.secrets.write('auth/token/create', { policies: [policy], ttl: '15m' }, 'POST', { namespace: ns });
    ok(res, `make a token in ${ns}`);
    const token = (res.json() as { auth: { client_token: string } }).auth.client_token;
    kit.secret(token);
    return token;
  }
  return (await kit.fixtures.entity({ name: uniqueName('nsent'), namespace: ns })).token;
}

ruleTest('secrets.upstream.ns-token-reach', async (kit) => {
  let world: World | undefined;
  try {
    world = await buildWorld(kit);
    const w = world;
    const scoped = w.live.filter((n) => n.path !== '');
    const tokens = await Promise.all(scoped.map(async (ns) => ({ ns, secret: await tokenIn(kit, ns.path) })));
    const mismatches: string[] = [];
    // Every token asks every namespace through one generated split: its own, its parent, its child
    // and its prefix-named sibling are each the neighbour of another.
    await kit.property(
      fc.record({ cut: fc.nat(), dropSlash: fc.boolean() }),
      async ({ cut, dropSlash }) => {
        for (const token of tokens) {
          for (const target of w.live) {
            const full = target.path + w.rest;
            const wrong = await judge(kit, w, cutRequest(full, cut % (target.path.length + 1), dropSlash), token);
            if (wrong) mismatches.push(wrong);
          }
        }
        expect(mismatches.length, `every token reaches its own namespace and those below it, and no other:\n${mismatches.join('\n')}`).toBe(0);
      },
      { numRuns: Math.min(Math.max(kit.ctx.runs, 2), 4), examples: [{ cut: 0, dropSlash: false }] },
    );

    // A namespace deleted and made again is a new one: the old token and the old secret are gone.
    const child = scoped.find((n) => n.path.split('/').length === 3)!;
    const oldToken = tokens.find((t) => t.ns.path === child.path)!;
    await removeNamespace(kit, child.path);
    const [parent, name] = [child.path.replace(/[^/]+\/$/, ''), child.path.split('/').at(-2)!];
    w.live = w.live.filter((n) => n !== child);
    w.made = w.made.filter((p) => p !== child.path);
    await makeNamespace(kit, parent, name);
    const reborn = { path: child.path, generation: 1 };
    w.live.push(reborn);
    w.made.unshift(child.path);
    const req = { header: child.path, path: w.rest };
    for (const line of [await judge(kit, w, req), await judge(kit, w, req, oldToken)]) if (line) mismatches.push(`after ${child.path} was deleted and made again: ${line}`);
    await writeSecret(kit, w, reborn);
    const newToken = { ns: reborn, secret: await tokenIn(kit, child.path) };
    for (const line of [await judge(kit, w, req, newToken), await judge(kit, w, req, oldToken)]) if (line) mismatches.push(`after ${child.path} was made again and written: ${line}`);
    expect(mismatches.length, `a recreated namespace holds nothing of the old one, and the old tokens reach nothing in it:\n${mismatches.join('\n')}`).toBe(0);

    // A deletion takes the tokens of the namespace and those below it, not those of a namespace
    // elsewhere whose path ends like its own: the root namespace named like the child goes, the child's token stays.
    const twin = await makeNamespace(kit, '', name);
    w.made.unshift(twin);
    await tokenIn(kit, twin);
    await removeNamespace(kit, twin);
    w.made = w.made.filter((p) => p !== twin);
    for (const token of [...tokens.filter((t) => t.ns.path !== child.path), newToken]) {
      const line = await judge(kit, w, { header: token.ns.path, path: w.rest }, token);
      if (line) mismatches.push(`after ${twin} (named like ${child.path}'s last segment) was deleted: ${line}`);
    }
    expect(mismatches.length, `deleting a namespace leaves the tokens of every other namespace working:\n${mismatches.join('\n')}`).toBe(0);
  } finally {
    await tearDown(kit, world);
  }
});

const namespaceView = z.object({ id: z.string().min(1), path: z.string(), custom_metadata: z.record(z.string(), z.string()).nullish() }).loose();
const namespaceRead = z.object({ data: namespaceView }).loose();
const namespaceList = z.object({ data: z.object({ keys: z.array(z.string()), key_info: z.record(z.string(), namespaceView) }).loose() }).loose();

/** The same string map, in any order; a missing one is the empty map (OpenBao stores none as {}, Vault Enterprise may leave it out). */
function sameMetadata(got: Record<string, string> | null | undefined, want: Record<string, string>): boolean {
  const g = got ?? {};
  return Object.keys(g).length === Object.keys(want).length && Object.entries(want).every(([k, v]) => g[k] === v);
}


/**
 * Where there is no sys/namespaces but a control interface makes namespaces (the reference's spec
 * dialect): a secret of the namespace read with the header written as "//a//", and one of the root
 * with the header "/", as OpenBao canonicalises them and the model's normalizeNamespace reads them.
 */
async function headerSlashes(kit: RuleKit, name: string): Promise<void> {
  const path = await makeNamespace(kit, '', name);
  const rest = `${kit.secretsTarget.kv.v1Mount}${uniqueName('nss')}`;
  try {
    const wrong: string[] = [];
    for (const [where, header] of [[path, `//${name}//`], ['', '/']] as const) {
      ok(await kit.secrets.write(rest, { in: where || '(root)' }, 'POST', { namespace: where || undefined }), `write the secret of ${where || '(root)'}`);
      const read = await kit.secrets.read(rest, { namespace: header });
      const value = read.status === 200 ? readResultSchema.safeParse(read.json()).data?.data : undefined;
      if (!fits({ kind: 'value', value: { in: where || '(root)' } }, read.status, value)) wrong.push(`header ${JSON.stringify(header)} reads ${where || 'the root'}'s secret: got ${read.status} ${read.text.slice(0, 160)}`);
    }
    expect(wrong, `a namespace header with extra slashes names the same namespace:\n${wrong.join('\n')}`).toEqual([]);
  } finally {
    await kit.secrets.delete(rest);
    await removeNamespace(kit, path);
  }
}

/** The error messages of an error answer ([] when the body is not the error shape). */
function errorsOf(res: HttpResponse): string[] {
  return z.object({ errors: z.array(z.string()) }).safeParse(res.json()).data?.errors ?? [];
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
}
