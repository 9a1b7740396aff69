import fc from 'fast-check';
import { expect } from 'vitest';
import type { StreamResult } from '../../src/client/http-client.ts';
import { allocStatsSchema, clientStatsSchema, fileInfoSchema, fileListSchema, streamFrameSchema } from '../../src/client/scheduler-api.ts';
import { expectShape } from '../kit/expect-shape.ts';
import type { RuleKit } from '../kit/rule-kit.ts';
import { ruleTest } from '../kit/rule-test.ts';

// All tests that touch allocations are in this one file: GC of all would remove another file's
// allocations mid-test.

/** Text with multi-byte characters, so byte offsets and character offsets differ. */
function content(lines: number, tag: string): string {
  return Array.from({ length: lines }, (_, i) => `${tag} ${i} — äöü ✓ ${'x'.repeat(i % 17)}\n`).join('');
}

interface Fixture {
  id: string;
  files: Record<string, Buffer>;
  stdout: Buffer;
  stderr: Buffer;
}

async function allocation(kit: RuleKit): Promise<Fixture> {
  const data = content(300, 'data');
  const conf = '{"listen": ":8080"}\n';
  const stdout = content(500, 'stdout');
  const stderr = content(20, 'stderr');
  const id = await kit.schedulerControl.allocation([
    { name: 'app', stdout, stderr, files: { 'data.txt': data, 'conf/app.json': conf } },
    { name: 'quiet', logsDisabled: true },
  ]);
  return { id, files: { 'app/local/data.txt': Buffer.from(data), 'app/local/conf/app.json': Buffer.from(conf) }, stdout: Buffer.from(stdout), stderr: Buffer.from(stderr) };
}

/** The bytes carried by stream frames, decoded from base64, in order. */
function decoded(res: StreamResult): Buffer {
  expect(res.malformed, 'every stream line is JSON').toEqual([]);
  const parts: Buffer[] = [];
  for (const line of res.lines) {
    const frame = streamFrameSchema.safeParse(line);
    if (!frame.success) expect.fail(`a stream line is not a frame: ${JSON.stringify(line).slice(0, 200)}`);
    if (frame.data.Data === undefined) continue;
    expect(frame.data.Data, 'Data is base64').toMatch(/^[A-Za-z0-9+/]*={0,2}$/);
    parts.push(Buffer.from(frame.data.Data, 'base64'));
  }
  return Buffer.concat(parts);
}

ruleTest('scheduler.stats.fields', async (kit) => {
  const stats = expectShape(await kit.scheduler.stats(), clientStatsSchema, 'client stats');
  expect(stats.CPU.length, 'one entry per CPU').toBeGreaterThan(0);
  expect(stats.Memory.Total, 'the machine has memory').toBeGreaterThan(0);
  expect(stats.Memory.Used + stats.Memory.Free, 'Used and Free add up to Total').toBeLessThanOrEqual(stats.Memory.Total + 1);
  expect(stats.Uptime, 'the machine has been up').toBeGreaterThan(0);
});

ruleTest('scheduler.alloc-stats.fields', async (kit) => {
  const fx = await allocation(kit);
  const stats = expectShape(await kit.scheduler.allocStats(fx.id), allocStatsSchema, 'allocation stats');
  expect(Object.keys(stats.Tasks).sort(), 'Tasks has one entry per task').toEqual(['app', 'quiet']);
});

ruleTest('scheduler.fs.readat', async (kit) => {
  const fx = await allocation(kit);
  const path = 'app/local/data.txt';
  const bytes = fx.files[path]!;
  await kit.property(
    fc.tuple(fc.nat(bytes.length + 10), fc.nat(bytes.length + 10)),
    async ([offset, limit]) => {
      const res = await kit.scheduler.fs('readat', fx.id, { path, offset, limit });
      expect(res.status, `readat offset ${offset} limit ${limit} answers 200`).toBe(200);
      expect(res.body.equals(bytes.subarray(offset, offset + limit)), `readat offset ${offset} limit ${limit} returns exactly that slice (${res.body.length} bytes)`).toBe(true);
    },
    { examples: [[0, 1], [1, 5], [bytes.length - 1, 10], [bytes.length, 4]] as [number, number][] },
  );
});

ruleTest('scheduler.fs.cat', async (kit) => {
  const fx = await allocation(kit);
  for (const [path, bytes] of Object.entries(fx.files)) {
    const res = await kit.scheduler.fs('cat', fx.id, { path });
    expect(res.status).toBe(200);
    expect(res.body.equals(bytes), `cat ${path} returns the whole file (${res.body.length} of ${bytes.length} bytes)`).toBe(true);
  }
});

ruleTest('scheduler.fs.ls-stat', async (kit) => {
  const fx = await allocation(kit);
  const list = expectShape(await kit.scheduler.fs('ls', fx.id, { path: 'app/local' }), fileListSchema, 'ls');
  expect(list.map((e) => e.Name).sort(), 'ls lists the directory').toEqual(['conf', 'data.txt']);
  for (const entry of list) {
    const stat = expectShape(await kit.scheduler.fs('stat', fx.id, { path: `app/local/${entry.Name}` }), fileInfoSchema, 'stat');
    expect({ Name: stat.Name, IsDir: stat.IsDir, Size: stat.Size }, `stat of ${entry.Name} agrees with ls`).toEqual({ Name: entry.Name, IsDir: entry.IsDir, Size: entry.Size });
    if (!entry.IsDir) expect(entry.Size, `the size of ${entry.Name} is its byte length`).toBe(fx.files[`app/local/${entry.Name}`]!.length);
  }
});

ruleTest('scheduler.fs.default-path', async (kit) => {
  const fx = await allocation(kit);
  const res = await kit.scheduler.fs('ls', fx.id);
  expect(res.status, `ls without path answers 200 (${res.text.slice(0, 120)})`).toBe(200);
  const list = expectShape(res, fileListSchema, 'ls without path');
  expect(list.map((e) => e.Name), 'without path, ls lists the allocation root (its task directories)').toEqual(expect.arrayContaining(['app', 'quiet']));
});

ruleTest('scheduler.fs.path-escape', async (kit) => {
  const fx = await allocation(kit);
  for (const path of ['../', '../../../../etc/passwd', '/../../etc/hostname', 'app/../../', 'app/local/../../../x', '%2e%2e/%2e%2e/etc/passwd']) {
    for (const op of ['cat', 'ls', 'stat'] as const) {
      const res = await kit.scheduler.fs(op, fx.id, { path });
      expect(res.status, `${op} ${path} is refused with a 4xx (got ${res.status})`).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(/root:|localhost|"Name"/.test(res.text), `${op} ${path} shows nothing from outside the allocation`).toBe(false);
    }
  }
});

ruleTest('scheduler.fs.stream', async (kit) => {
  const fx = await allocation(kit);
  const path = 'app/local/data.txt';
  const bytes = fx.files[path]!;
  await kit.property(
    fc.tuple(fc.nat(bytes.length), fc.constantFrom<'start' | 'end'>('start', 'end')),
    async ([offset, origin]) => {
      const res = await kit.scheduler.fsStream('stream', fx.id, { path, offset, origin, follow: false }, { maxMs: 3_000 });
      expect(res.status).toBe(200);
      const from = origin === 'start' ? offset : Math.max(0, bytes.length - offset);
      expect(decoded(res).equals(bytes.subarray(from)), `stream offset ${offset} origin ${origin}: frames decode to the bytes from ${from}`).toBe(true);
    },
    { numRuns: Math.min(kit.ctx.runs, 12), examples: [[0, 'start'], [10, 'end']] as [number, 'start' | 'end'][] },
  );
});

ruleTest('scheduler.fs.stream-follow', async (kit) => {
  const fx = await allocation(kit);
  const path = 'app/local/data.txt';
  const appended = `appended ${Date.now()} ✓\n`;
  let sent = false;
  const res = await kit.scheduler.fsStream('stream', fx.id, { path, offset: 0, origin: 'end' }, {
    maxMs: 5_000,
    until: (s) => {
      if (!sent) {
        sent = true;
        void kit.schedulerControl.append(fx.id, { path }, appended);
      }
      return decodedQuiet(s.lines).includes(appended);
    },
  });
  expect(res.status).toBe(200);
  expect(decoded(res).toString(), 'the followed stream delivers the appended bytes').toContain(appended);
});

function decodedQuiet(lines: unknown[]): string {
  return lines.map((l) => (typeof (l as { Data?: unknown }).Data === 'string' ? Buffer.from((l as { Data: string }).Data, 'base64').toString() : '')).join('');
}

ruleTest('scheduler.fs.logs', async (kit) => {
  const fx = await allocation(kit);
  await kit.property(
    fc.tuple(fc.constantFrom<'stdout' | 'stderr'>('stdout', 'stderr'), fc.nat(2000), fc.constantFrom<'start' | 'end'>('start', 'end')),
    async ([type, rawOffset, origin]) => {
      const bytes = type === 'stdout' ? fx.stdout : fx.stderr;
      const offset = rawOffset % (bytes.length + 1);
      const query = { task: 'app', type, offset, origin };
      const framed = await kit.scheduler.fsStream('logs', fx.id, query, { maxMs: 3_000 });
      expect(framed.status).toBe(200);
      const from = origin === 'start' ? offset : Math.max(0, bytes.length - offset);
      const fromFrames = decoded(framed);
      expect(fromFrames.equals(bytes.subarray(from)), `${type} logs offset ${offset} origin ${origin}: frames decode to the log's bytes from ${from}`).toBe(true);
      const plain = await kit.scheduler.fs('logs', fx.id, { ...query, plain: true });
      expect(plain.status).toBe(200);
      expect(plain.body.equals(fromFrames), 'plain logs equal the framed ones decoded').toBe(true);
    },
    { numRuns: Math.min(kit.ctx.runs, 10) },
  );
});

ruleTest('scheduler.fs.logs-follow', async (kit) => {
  const fx = await allocation(kit);
  const line = `late line ${Date.now()} ✓\n`;
  let sent = false;
  const res = await kit.scheduler.fsStream('logs', fx.id, { task: 'app', type: 'stdout', follow: true, origin: 'end', offset: 0 }, {
    maxMs: 5_000,
    until: (s) => {
      if (!sent) {
        sent = true;
        void kit.schedulerControl.append(fx.id, { task: 'app', type: 'stdout' }, line);
      }
      return decodedQuiet(s.lines).includes(line);
    },
  });
  expect(decoded(res).toString(), 'the followed log stream delivers the line written after it started').toContain(line);
});

ruleTest('scheduler.fs.logs-disabled-404', async (kit) => {
  const fx = await allocation(kit);
  for (const type of ['stdout', 'stderr']) {
    const res = await kit.scheduler.fs('logs', fx.id, { task: 'quiet', type });
    expect(res.status, `${type} logs of a task with logging disabled answer 404`).toBe(404);
  }
});

ruleTest('scheduler.gc.alloc', async (kit) => {
  const fx = await allocation(kit);
  expect((await kit.scheduler.fs('ls', fx.id)).status, 'before GC the allocation has files').toBe(200);
  expect((await kit.scheduler.gcAlloc(fx.id)).status, 'GC of the allocation answers 200').toBe(200);
  for (const [op, query] of [['ls', {}], ['cat', { path: 'app/local/data.txt' }]] as const) {
    const res = await kit.scheduler.fs(op, fx.id, query);
    expect(res.status, `after GC, ${op} finds nothing`).toBeGreaterThanOrEqual(400);
    expect(res.body.includes(fx.files['app/local/data.txt']!.subarray(0, 20)), 'no file content remains').toBe(false);
  }
});

ruleTest('scheduler.gc.all', async (kit) => {
  const a = await allocation(kit);
  const b = await allocation(kit);
  expect((await kit.scheduler.gcAll()).status, 'GC of all answers 200').toBe(200);
  for (const fx of [a, b]) expect((await kit.scheduler.fs('ls', fx.id)).status, `stopped allocation ${fx.id} is collected`).toBeGreaterThanOrEqual(400);
});

ruleTest('scheduler.ids.full-only', async (kit) => {
  const fx = await allocation(kit);
  expect((await kit.scheduler.fs('ls', fx.id)).status, 'the full allocation ID works').toBe(200);
  const short = fx.id.slice(0, 8);
  for (const res of [await kit.scheduler.fs('ls', short), await kit.scheduler.allocStats(short), await kit.scheduler.fs('cat', short, { path: 'app/local/data.txt' })]) {
    expect(res.status, `${res.exchange.url} with the short ID ${short} is refused`).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  }
  const nodeId = kit.ctx.targets.scheduler?.nodeId;
  if (nodeId) {
    const res = await kit.scheduler.readMetadata({ node_id: nodeId.slice(0, 8) });
    expect(res.status, 'the short node ID is refused').toBeGreaterThanOrEqual(400);
  }
});

ruleTest('scheduler.upstream.fs-params-400', async (kit) => {
  const fx = await allocation(kit);
  for (const query of [{ type: 'stdout' }, { task: 'app', type: 'both' }, { task: 'app' }]) {
    expect((await kit.scheduler.fs('logs', fx.id, query)).status, `logs ${JSON.stringify(query)} answers 400`).toBe(400);
  }
  expect((await kit.scheduler.fs('stream', fx.id, { path: 'app/local/data.txt', offset: 0, origin: 'middle', follow: false })).status, 'origin=middle answers 400').toBe(400);
});
