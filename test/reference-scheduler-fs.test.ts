import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SchedulerTarget } from '../src/config/schema.ts';
import { NomadSchedulerFixtures } from '../src/provision/nomad-scheduler-fixtures.ts';
import { newRunPrefix } from '../src/provision/run-prefix.ts';
import { schedulerControlHttpFor, schedulerHttpFor } from '../src/provision/scheduler-provisioner.ts';
import { startReference, type ReferenceWithControl } from '../src/reference/reference.ts';
import { findNomad, startNomadAgent, type NomadAgent } from './support/nomad-agent.ts';

/**
 * What the client file endpoints refuse, and how, in the hashicorp dialect: the same requests sent
 * to the reference and, where ../shared/bin has them, to real Nomad 2.0.5 and 1.6.1, each answer
 * compared with what Nomad's source says that release answers (nomadAnswer below). The reference
 * answers as the release it claims (1.9.0 by default; 2.0.5 when started so), with behaviour spec
 * giving the status Nomad means (and logs), and behaviour upstream the status Nomad's wire carries.
 */

interface Target {
  url: string;
  token: string;
  version: string;
  /** Nomad's wire: cat and readat refusals come as 200 (command/agent/http.go wrapUntrustedContent). */
  wire: boolean;
  /** Where allocations' directories are: <allocRoot>/<alloc id>. */
  allocRoot: string;
  fixtures: NomadSchedulerFixtures;
}

interface Ids {
  /** A complete allocation: app wrote local/data.txt ("hello\n"); quiet has logging disabled. */
  done: string;
  /** A complete allocation garbage-collected before the probes. */
  collected: string;
  nodeId: string;
  /** A token whose policy grants read-job, not read-fs, in the allocations' namespace. */
  readJob: string;
}

const atLeast = (version: string, since: string) => {
  const [a, b] = [version, since].map((v) => v.split('.').map(Number));
  for (let i = 0; i < 3; i++) if (a![i] !== b![i]) return a![i]! > b![i]!;
  return true;
};

/** One request, and what Nomad answers to it: the status it means (it logs) and its text, <dir> for an allocation's directory. */
interface Probe {
  name: string;
  path: (ids: Ids) => string;
  token?: (ids: Ids) => string;
  answer: (version: string, ids: Ids) => { status: number; text: string };
}

const UNKNOWN = '0e6c7f7a-1111-4222-8333-944445555666';

/** The offset client/allocdir/alloc_dir.go ReadAt cannot seek to: %q (a rune, U+FFFD) before v2.0.1, %d since. */
const seekOffset = (version: string) => (atLeast(version, '2.0.1') ? '-1' : "'\u{fffd}'");

const PROBES: Probe[] = [
  // A missing file: the Stat of client/fs_endpoint.go stream (400) for cat, readat and stream; os.ReadDir and os.Stat (404) for ls and stat.
  { name: 'cat of a missing file', path: (i) => `/v1/client/fs/cat/${i.done}?path=app/local/nope.txt`, answer: (_, i) => ({ status: 400, text: `stat <dir:${i.done}>/app/local/nope.txt: no such file or directory` }) },
  { name: 'readat of a missing file', path: (i) => `/v1/client/fs/readat/${i.done}?path=app/local/nope.txt&offset=0&limit=10`, answer: (_, i) => ({ status: 400, text: `stat <dir:${i.done}>/app/local/nope.txt: no such file or directory` }) },
  { name: 'stream of a missing file', path: (i) => `/v1/client/fs/stream/${i.done}?path=app/local/nope.txt&offset=0&follow=false`, answer: (_, i) => ({ status: 400, text: `stat <dir:${i.done}>/app/local/nope.txt: no such file or directory` }) },
  { name: 'ls of a missing directory', path: (i) => `/v1/client/fs/ls/${i.done}?path=app/local/nope`, answer: (_, i) => ({ status: 404, text: `open <dir:${i.done}>/app/local/nope: no such file or directory` }) },
  // A file listed as a directory: os.ReadDir's open (O_DIRECTORY) fails, not as a missing file, so 500 (DirectoryListRequest).
  { name: 'ls of a file', path: (i) => `/v1/client/fs/ls/${i.done}?path=app/local/data.txt`, answer: (_, i) => ({ status: 500, text: `open <dir:${i.done}>/app/local/data.txt: not a directory` }) },
  { name: 'stat of a missing file', path: (i) => `/v1/client/fs/stat/${i.done}?path=app/local/nope.txt`, answer: (_, i) => ({ status: 404, text: `stat <dir:${i.done}>/app/local/nope.txt: no such file or directory` }) },
  // Bad offsets and limits: command/agent/fs_endpoint.go parses them with strconv (fmt.Errorf: 500 for readat and stream, CodedError 400 for logs).
  { name: 'readat with offset abc', path: (i) => `/v1/client/fs/readat/${i.done}?path=app/local/data.txt&offset=abc&limit=10`, answer: () => ({ status: 500, text: 'error parsing offset: strconv.ParseInt: parsing "abc": invalid syntax' }) },
  { name: 'readat without offset', path: (i) => `/v1/client/fs/readat/${i.done}?path=app/local/data.txt&limit=10`, answer: () => ({ status: 500, text: 'error parsing offset: strconv.ParseInt: parsing "": invalid syntax' }) },
  { name: 'readat with limit abc', path: (i) => `/v1/client/fs/readat/${i.done}?path=app/local/data.txt&offset=0&limit=abc`, answer: () => ({ status: 500, text: 'error parsing limit: strconv.ParseInt: parsing "abc": invalid syntax' }) },
  { name: 'readat with an offset past int64', path: (i) => `/v1/client/fs/readat/${i.done}?path=app/local/data.txt&offset=9223372036854775808&limit=1`, answer: () => ({ status: 500, text: 'error parsing offset: strconv.ParseInt: parsing "9223372036854775808": value out of range' }) },
  { name: 'readat with offset -1', path: (i) => `/v1/client/fs/readat/${i.done}?path=app/local/data.txt&offset=-1&limit=10`, answer: (v, i) => ({ status: 500, text: `can't seek to offset ${seekOffset(v)}: seek <dir:${i.done}>/app/local/data.txt: invalid argument` }) },
  { name: 'stream with offset abc', path: (i) => `/v1/client/fs/stream/${i.done}?path=app/local/data.txt&offset=abc&follow=false`, answer: () => ({ status: 500, text: 'error parsing offset: strconv.ParseInt: parsing "abc": invalid syntax' }) },
  { name: 'stream with offset -1', path: (i) => `/v1/client/fs/stream/${i.done}?path=app/local/data.txt&offset=-1&follow=false`, answer: (v, i) => ({ status: 500, text: `can't seek to offset ${seekOffset(v)}: seek <dir:${i.done}>/app/local/data.txt: invalid argument` }) },
  { name: 'stream with follow=maybe', path: (i) => `/v1/client/fs/stream/${i.done}?path=app/local/data.txt&offset=0&follow=maybe`, answer: () => ({ status: 500, text: 'failed to parse follow field to boolean: strconv.ParseBool: parsing "maybe": invalid syntax' }) },
  { name: 'logs with offset abc', path: (i) => `/v1/client/fs/logs/${i.done}?task=app&type=stdout&offset=abc`, answer: () => ({ status: 400, text: 'error parsing offset: strconv.ParseInt: parsing "abc": invalid syntax' }) },
  { name: 'logs with plain=maybe', path: (i) => `/v1/client/fs/logs/${i.done}?task=app&type=stdout&plain=maybe`, answer: () => ({ status: 400, text: 'failed to parse plain field to boolean: strconv.ParseBool: parsing "maybe": invalid syntax' }) },
  // Logging disabled: no log file, client/fs_endpoint.go findClosest notFoundErr (404).
  { name: 'logs of a task with logging disabled', path: (i) => `/v1/client/fs/logs/${i.done}?task=quiet&type=stdout`, answer: () => ({ status: 404, text: 'log entry for task "quiet" and log type "stdout" not found' }) },
  { name: 'plain logs of a task with logging disabled', path: (i) => `/v1/client/fs/logs/${i.done}?task=quiet&type=stderr&plain=true`, answer: () => ({ status: 404, text: 'log entry for task "quiet" and log type "stderr" not found' }) },
  { name: 'logs of an unknown task', path: (i) => `/v1/client/fs/logs/${i.done}?task=nope&type=stdout`, answer: () => ({ status: 400, text: 'unknown task name "nope"' }) },
  // Paths and names.
  { name: 'cat of a path outside the allocation', path: (i) => `/v1/client/fs/cat/${i.done}?path=../x`, answer: () => ({ status: 400, text: 'Path escapes the alloc directory' }) },
  { name: 'ls of a path outside the allocation', path: (i) => `/v1/client/fs/ls/${i.done}?path=../`, answer: () => ({ status: 500, text: 'Path escapes the alloc directory' }) },
  { name: 'cat of a directory', path: (i) => `/v1/client/fs/cat/${i.done}?path=app/local`, answer: () => ({ status: 400, text: 'file "app/local" is a directory' }) },
  { name: 'cat without a path', path: (i) => `/v1/client/fs/cat/${i.done}`, answer: () => ({ status: 400, text: 'must provide a file name' }) },
  // IDs: one the local client does not hold goes to the server's state store (go-memdb UUIDFieldIndex), 500.
  { name: 'cat with the short allocation ID', path: (i) => `/v1/client/fs/cat/${i.done.slice(0, 8)}?path=app/local/data.txt`, answer: () => ({ status: 500, text: 'alloc lookup failed: index error: UUID must be 36 characters' }) },
  { name: 'ls with the short allocation ID', path: (i) => `/v1/client/fs/ls/${i.done.slice(0, 8)}`, answer: () => ({ status: 500, text: 'alloc lookup failed: index error: UUID must be 36 characters' }) },
  { name: 'ls with an allocation ID that is not hex', path: () => `/v1/client/fs/ls/${UNKNOWN.slice(0, -1)}g`, answer: () => ({ status: 500, text: "alloc lookup failed: index error: Invalid UUID: encoding/hex: invalid byte: U+0067 'g'" }) },
  { name: 'cat of an unknown allocation', path: () => `/v1/client/fs/cat/${UNKNOWN}?path=app/local/data.txt`, answer: () => ({ status: 404, text: `Unknown allocation "${UNKNOWN}"` }) },
  { name: 'stats with the short node ID', path: (i) => `/v1/client/stats?node_id=${i.nodeId.slice(0, 8)}`, answer: () => ({ status: 500, text: 'node lookup failed: index error: UUID must be 36 characters' }) },
  // A collected allocation: since 1.9.0 FileSystem.stream and logs refuse a destroyed runner (404); before, the files are missing.
  { name: 'cat of a collected allocation', path: (i) => `/v1/client/fs/cat/${i.collected}?path=app/local/data.txt`, answer: (v, i) => (atLeast(v, '1.9.0') ? { status: 404, text: `state for allocation ${i.collected} not found on client` } : { status: 400, text: `stat <dir:${i.collected}>/app/local/data.txt: no such file or directory` }) },
  { name: 'stream of a collected allocation', path: (i) => `/v1/client/fs/stream/${i.collected}?path=app/local/data.txt&follow=false`, answer: (v, i) => (atLeast(v, '1.9.0') ? { status: 404, text: `state for allocation ${i.collected} not found on client` } : { status: 400, text: `stat <dir:${i.collected}>/app/local/data.txt: no such file or directory` }) },
  { name: 'ls of a collected allocation', path: (i) => `/v1/client/fs/ls/${i.collected}`, answer: (_, i) => ({ status: 404, text: `open <dir:${i.collected}>: no such file or directory` }) },
  // client/allocdir/alloc_dir.go ReadAt: a file under a task's secrets/ (the test writes one there), once Stat has passed: a plain error, 500.
  { name: 'readat of a file in a secrets directory', path: (i) => `/v1/client/fs/readat/${i.done}?path=app/secrets/x.txt&offset=0&limit=10`, answer: () => ({ status: 500, text: 'Reading secret file prohibited: app/secrets/x.txt' }) },
  { name: 'stream of a file in a secrets directory', path: (i) => `/v1/client/fs/stream/${i.done}?path=app/secrets/x.txt&offset=0&follow=false`, answer: () => ({ status: 500, text: 'Reading secret file prohibited: app/secrets/x.txt' }) },
  // A token without read-fs (client/fs_endpoint.go: 403 structs.ErrPermissionDenied).
  { name: 'cat with a read-job token', path: (i) => `/v1/client/fs/cat/${i.done}?path=app/local/data.txt`, token: (i) => i.readJob, answer: () => ({ status: 403, text: 'Permission denied' }) },
  { name: 'readat with a read-job token', path: (i) => `/v1/client/fs/readat/${i.done}?path=app/local/data.txt&offset=0&limit=1`, token: (i) => i.readJob, answer: () => ({ status: 403, text: 'Permission denied' }) },
];

/** What goes over the wire: cat and readat refusals as 200 with the text (wrapUntrustedContent, since 0.10.5). */
function onWire(probe: Probe, answer: { status: number; text: string }, ids: Ids): { status: number; text: string } {
  const catOrReadat = /^\/v1\/client\/fs\/(cat|readat)\//.test(probe.path(ids));
  return catOrReadat ? { status: 200, text: answer.text } : answer;
}

async function setUp(t: Omit<Target, 'fixtures'> & { nodeId: string; http: ReturnType<typeof schedulerHttpFor> }): Promise<{ target: Target; ids: Ids }> {
  const runPrefix = newRunPrefix();
  const fixtures = new NomadSchedulerFixtures(t.http, { nodeId: t.nodeId, runPrefix });
  const tasks = [{ name: 'app', stdout: 'out\n', files: { 'data.txt': 'hello\n' } }, { name: 'quiet', logsDisabled: true }];
  const [done, collected] = await Promise.all([fixtures.allocation(`${runPrefix}-done`, tasks, 'complete'), fixtures.allocation(`${runPrefix}-collected`, tasks, 'complete')]);
  const gc = await request(`${t.url}/v1/client/allocation/${collected.id}/gc`, { headers: { 'x-nomad-token': t.token } });
  await gc.body.dump();
  expect(gc.statusCode, 'GC of the allocation to collect').toBe(200);
  writeFileSync(join(t.allocRoot, done.id, 'app', 'secrets', 'x.txt'), 'secret\n');
  const readJob = (await fixtures.token(`${runPrefix}-readjob`, { namespaces: { default: ['read-job'] } })).secret;
  return { target: { ...t, fixtures }, ids: { done: done.id, collected: collected.id, nodeId: t.nodeId, readJob } };
}

function checkAll(name: string, get: () => { target: Target; ids: Ids }) {
  it.each(PROBES.map((p) => [p.name, p] as const))(`${name}: %s`, async (_, probe) => {
    const { target, ids } = get();
    const meant = probe.answer(target.version, ids);
    const want = target.wire ? onWire(probe, meant, ids) : meant;
    const res = await request(`${target.url}${probe.path(ids)}`, { headers: { 'x-nomad-token': probe.token ? probe.token(ids) : target.token }, headersTimeout: 10_000, bodyTimeout: 10_000 });
    const text = (await res.body.text()).trim();
    const expected = want.text.replace(/<dir:([0-9a-f-]+)>/g, (_m, id: string) => `${target.allocRoot}/${id}`);
    expect({ status: res.statusCode, text }).toEqual({ status: want.status, text: expected });
    if (target.wire && want.status === 200) expect(res.headers['content-type'], 'the type noxssrw sniffed from nothing').toBe('text/plain; charset=utf-8');
  });
}

describe.each([
  { behavior: 'spec' as const, version: undefined },
  { behavior: 'upstream' as const, version: undefined },
  { behavior: 'upstream' as const, version: '2.0.5' },
])('the reference, hashicorp dialect, behaviour $behavior, as Nomad $version', ({ behavior, version }) => {
  let ref: ReferenceWithControl;
  let state: { target: Target; ids: Ids };
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp', behavior, ...(version ? { nomadVersion: version } : {}) });
    const http = schedulerControlHttpFor({ controlUrl: ref.control.url, controlToken: ref.control.token });
    const self = (await (await request(`${ref.scheduler.url}/v1/agent/self`, { headers: { 'x-nomad-token': ref.scheduler.token } })).body.json()) as { config: { Version: { Version: string } } };
    state = await setUp({ url: ref.scheduler.url, token: ref.scheduler.token, version: self.config.Version.Version, wire: behavior === 'upstream', allocRoot: ref.scheduler.allocRoot, nodeId: ref.scheduler.nodeId, http });
  }, 60_000);
  afterAll(async () => ref?.stop());

  it('answers as the release it claims in /v1/agent/self', () => {
    expect(state.target.version).toBe(version ?? '1.9.0');
  });
  checkAll('answers', () => state);
});

for (const which of ['current', '1.6.1'] as const) {
  const found = findNomad(which);
  describe.skipIf(!found.path)(`real Nomad (${which === 'current' ? '2.0.5' : '1.6.1'})`, () => {
    let agent: NomadAgent;
    let state: { target: Target; ids: Ids };
    beforeAll(async () => {
      agent = await startNomadAgent(found.path!);
      const http = schedulerHttpFor({ url: agent.url, token: agent.token, dialect: 'hashicorp' } as SchedulerTarget);
      state = await setUp({ url: agent.url, token: agent.token, version: agent.version, wire: true, allocRoot: `${agent.dataDir}/alloc`, nodeId: agent.nodeId, http });
    }, 120_000);
    afterAll(async () => agent?.stop(), 60_000);
    checkAll(`answers (Nomad's wire)`, () => state);
  });
  if (!found.path) console.log(`reference-scheduler-fs: no Nomad ${which} binary (${found.why}): the real-product comparison is skipped`);
}

