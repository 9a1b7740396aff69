import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonValues } from '../src/client/json-value-stream.ts';
import { placeAllocation } from './support/fixture-allocation.ts';
import { startReference, type ReferenceWithControl } from '../src/reference/reference.ts';

/**
 * The scheduler reference in the hashicorp dialect does what Nomad does where spec 002 leaves a
 * choice (each case names the Nomad source it follows), and the spec dialect keeps the spec's model.
 */
describe.each(['hashicorp', 'spec'] as const)('scheduler reference, %s dialect', (dialect) => {
  const nomad = dialect === 'hashicorp';
  let ref: ReferenceWithControl;
  let headers: Record<string, string>;
  const call = async (path: string, init: { method?: 'GET' | 'POST'; body?: unknown } = {}) => {
    const res = await request(`${ref.scheduler.url}${path}`, { method: init.method ?? 'GET', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body), headersTimeout: 5_000, bodyTimeout: 5_000 });
    return { status: res.statusCode, text: await res.body.text() };
  };
  /** Opens a stream, reads its first chunk, and closes it. */
  const firstChunk = async (path: string) => {
    const abort = new AbortController();
    const res = await request(`${ref.scheduler.url}${path}`, { headers, signal: abort.signal });
    res.body.on('error', () => undefined);
    const first = res.statusCode === 200 ? ((await res.body[Symbol.asyncIterator]().next()).value as Buffer).toString() : await res.body.text();
    abort.abort();
    return { status: res.statusCode, first };
  };
  const allocation = async (stopped: boolean) => placeAllocation(ref, [{ name: 'app', stdout: 'one ✓\n'.repeat(50), files: { 'a.txt': 'a'.repeat(100) }, holdMs: stopped ? 0 : 60_000 }], stopped ? 'complete' : 'running');

  beforeAll(async () => {
    ref = await startReference({ dialect });
    headers = nomad ? { 'x-nomad-token': ref.scheduler.token } : { authorization: `Bearer ${ref.scheduler.token}` };
  });
  afterAll(async () => ref.stop());

  it(`writes fs stream frames ${nomad ? 'back to back, like client/fs_endpoint.go' : 'one per line'}; the event stream stays NDJSON`, async () => {
    const id = await allocation(true);
    const res = await call(`/v1/client/fs/logs/${id}?task=app&type=stdout`);
    expect(res.status).toBe(200);
    expect(res.text.includes('\n'), 'a newline between frames').toBe(!nomad);
    const { values, malformed } = parseJsonValues(Buffer.from(res.text));
    expect(malformed).toEqual([]);
    expect(Buffer.concat(values.map((v) => Buffer.from((v as { Data?: string }).Data ?? '', 'base64'))).toString()).toBe('one ✓\n'.repeat(50));
    const { first } = await firstChunk('/v1/event/stream?topic=Job');
    expect(first.startsWith('{}\n'), 'the {} heartbeat on a line of its own first').toBe(true);
    for (const line of first.split('\n').slice(0, -1)) expect(() => JSON.parse(line), 'one JSON value per line').not.toThrow();
  });

  it(`${nomad ? 'accepts' : 'refuses'} an empty filter key (topic=Job:), as command/agent/event_endpoint.go parseTopic ${nomad ? 'does' : 'does not'}`, async () => {
    expect((await firstChunk('/v1/event/stream?topic=Job:')).status).toBe(nomad ? 200 : 400);
  });

  it(`answers a path out of the allocation with ${nomad ? '500 for ls and stat, 400 for cat' : '400'} (errCodeFromHandler)`, async () => {
    const id = await allocation(true);
    expect((await call(`/v1/client/fs/ls/${id}?path=../`)).status).toBe(nomad ? 500 : 400);
    expect((await call(`/v1/client/fs/stat/${id}?path=../`)).status).toBe(nomad ? 500 : 400);
    expect((await call(`/v1/client/fs/cat/${id}?path=../x`)).status).toBe(400);
  });

  it(`${nomad ? 'deletes a dynamic key set to null (client/meta_endpoint.go NodeMeta.Apply)' : 'keeps a dynamic key set to null as null'}`, async () => {
    expect((await call('/v1/client/metadata', { method: 'POST', body: { Meta: { 'sp.gone': 'x' } } })).status).toBe(200);
    const after = JSON.parse((await call('/v1/client/metadata', { method: 'POST', body: { Meta: { 'sp.gone': null } } })).text) as { Dynamic: Record<string, unknown>; Meta: Record<string, unknown> };
    expect(Object.hasOwn(after.Dynamic, 'sp.gone')).toBe(!nomad);
    expect(Object.hasOwn(after.Meta, 'sp.gone')).toBe(false);
    expect((await call('/v1/client/metadata', { method: 'POST', body: { Meta: {} } })).status, 'an empty Meta').toBe(nomad ? 400 : 200);
  });

  it('collects only stopped allocations: GC asked of a running one is refused and its files stay', async () => {
    const running = await allocation(false);
    const res = await call(`/v1/client/allocation/${running}/gc`);
    expect(res.status).toBe(nomad ? 500 : 400);
    expect((await call(`/v1/client/fs/cat/${running}?path=app/local/a.txt`)).status).toBe(200);
  });

  it(`reports ${nomad ? 'no task usage' : 'every task'} for a stopped allocation, and every task for a running one`, async () => {
    const stopped = JSON.parse((await call(`/v1/client/allocation/${await allocation(true)}/stats`)).text) as { Tasks: Record<string, unknown> };
    const running = JSON.parse((await call(`/v1/client/allocation/${await allocation(false)}/stats`)).text) as { Tasks: Record<string, unknown> };
    expect(Object.keys(stopped.Tasks)).toEqual(nomad ? [] : ['app']);
    expect(Object.keys(running.Tasks)).toEqual(['app']);
  });
});
