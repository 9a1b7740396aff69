import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../src/reference/reference.ts';
import { findConsul, startConsulAgent, type ConsulAgent } from './support/consul-agent.ts';

/**
 * The reference's Consul KV store (src/reference/mesh/kv-endpoints.ts), which a run writes its CA
 * configuration record to: one sequence of requests, with the answers real Consul 1.8.7 gave them
 * (`consul agent -dev`, ACLs on, default deny). The same sequence runs against the real agent too
 * when one is found (CONSUL, consul on PATH, ../shared/bin/consul), so the table stays true.
 */
interface Step {
  method: string;
  path: string;
  body?: string;
  /** 'none': no token; 'bogus': a token no ACL has; default: the management token. */
  token?: 'none' | 'bogus';
  status: number;
  /** The body: JSON (indexes shown as "N"), or the exact text of a plain answer. */
  answer: unknown;
}

const entry = (Key: string, Value: string | null, Flags = 0) => ({ LockIndex: 0, Key, Flags, Value, CreateIndex: 'N', ModifyIndex: 'N' });

const STEPS: Step[] = [
  { method: 'GET', path: '/v1/kv/?keys', status: 200, answer: [] },
  { method: 'GET', path: '/v1/kv/?recurse', status: 404, answer: '' },
  { method: 'GET', path: '/v1/kv/', status: 400, answer: 'Missing key name' },
  { method: 'PUT', path: '/v1/kv/', body: 'x', status: 400, answer: 'Missing key name' },
  { method: 'DELETE', path: '/v1/kv/', status: 400, answer: 'Missing key name' },
  { method: 'PUT', path: '/v1/kv/t/b?cas=5', body: 'x', status: 200, answer: false },
  { method: 'DELETE', path: '/v1/kv/t/b?cas=5', status: 200, answer: true },
  { method: 'PUT', path: '/v1/kv/t/b', body: '', status: 200, answer: true },
  { method: 'GET', path: '/v1/kv/t/b', status: 200, answer: [entry('t/b', null)] },
  { method: 'PUT', path: '/v1/kv/t/c?flags=42', body: 'hello', status: 200, answer: true },
  { method: 'GET', path: '/v1/kv/t/c', status: 200, answer: [entry('t/c', 'aGVsbG8=', 42)] },
  { method: 'PUT', path: '/v1/kv/t/c?cas=0', body: 'again', status: 200, answer: false },
  { method: 'GET', path: '/v1/kv/t/c?raw', status: 200, answer: 'hello' },
  { method: 'PUT', path: '/v1/kv/t/d/e', body: 'deep', status: 200, answer: true },
  { method: 'GET', path: '/v1/kv/t?keys&separator=/', status: 200, answer: ['t/'] },
  { method: 'GET', path: '/v1/kv/t/?keys&separator=/', status: 200, answer: ['t/b', 't/c', 't/d/'] },
  { method: 'GET', path: '/v1/kv/t?recurse', status: 200, answer: [entry('t/b', null), entry('t/c', 'aGVsbG8=', 42), entry('t/d/e', 'ZGVlcA==')] },
  { method: 'PUT', path: '/v1/kv/t/c?cas=1&acquire=x', body: 'v', status: 400, answer: 'Conflicting flags: acquire=x&cas=1' },
  { method: 'PUT', path: '/v1/kv/t/c?flags=zz', body: 'v', status: 500, answer: 'strconv.ParseUint: parsing "zz": invalid syntax' },
  { method: 'DELETE', path: '/v1/kv/t?recurse&cas=1', status: 400, answer: 'Conflicting flags: cas=1&recurse=' },
  { method: 'GET', path: '/v1/kv/t/c', token: 'none', status: 403, answer: 'Permission denied' },
  { method: 'PUT', path: '/v1/kv/t/c', body: 'v', token: 'none', status: 403, answer: 'Permission denied' },
  { method: 'DELETE', path: '/v1/kv/t/c', token: 'none', status: 403, answer: 'Permission denied' },
  { method: 'DELETE', path: '/v1/kv/t?recurse', token: 'none', status: 403, answer: 'Permission denied' },
  { method: 'GET', path: '/v1/kv/t/c', token: 'bogus', status: 403, answer: 'ACL not found' },
  // What the token may not read is left out of a listing: nothing left is a 404.
  { method: 'GET', path: '/v1/kv/t?keys', token: 'none', status: 404, answer: '' },
  { method: 'GET', path: '/v1/kv/t?recurse', token: 'none', status: 404, answer: '' },
  { method: 'POST', path: '/v1/kv/t/c', body: 'v', status: 405, answer: 'method POST not allowed' },
  { method: 'DELETE', path: '/v1/kv/t/c?cas=1', status: 200, answer: false },
  { method: 'DELETE', path: '/v1/kv/t?recurse', status: 200, answer: true },
  { method: 'GET', path: '/v1/kv/t?keys', status: 404, answer: '' },
  { method: 'GET', path: '/v1/kv/t/c', status: 404, answer: '' },
  { method: 'DELETE', path: '/v1/kv/t/c', status: 200, answer: true },
  { method: 'PUT', path: '/v1/kv/big', body: 'x'.repeat(512 * 1024 + 1), status: 413, answer: 'Request body(524289 bytes) too large, max size: 524288 bytes. See https://www.consul.io/docs/agent/options.html#kv_max_value_size.' },
  { method: 'PUT', path: '/v1/kv/big', body: 'x'.repeat(512 * 1024), status: 200, answer: true },
  { method: 'DELETE', path: '/v1/kv/big', status: 200, answer: true },
];

const indexesAsN = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (k, val: unknown) => (k === 'CreateIndex' || k === 'ModifyIndex' ? 'N' : val)));

async function runSteps(url: string, token: string): Promise<{ step: Step; status: number; answer: unknown }[]> {
  const out = [];
  for (const step of STEPS) {
    const headers: Record<string, string> = step.token === 'none' ? {} : { 'x-consul-token': step.token === 'bogus' ? '00000000-0000-0000-0000-0000000000aa' : token };
    const res = await fetch(`${url}${step.path}`, { method: step.method, headers, body: step.body });
    const text = await res.text();
    let answer: unknown = text.trim();
    if ((res.headers.get('content-type') ?? '').startsWith('application/json')) answer = indexesAsN(JSON.parse(text));
    out.push({ step, status: res.status, answer });
  }
  return out;
}

const label = (s: Step) => `${s.method} ${s.path.slice(0, 60)}${s.token ? ` (token: ${s.token})` : ''}`;

describe('the KV store of the hashicorp dialect answers as Consul 1.8.7 does', () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startReference({ dialect: 'hashicorp', behavior: 'upstream' });
  });
  afterAll(async () => ref?.stop());

  it('the reference: every step of the sequence', async () => {
    for (const { step, status, answer } of await runSteps(ref.mesh.url, ref.mesh.token)) {
      expect({ status, answer }, label(step)).toEqual({ status: step.status, answer: step.answer });
    }
  });

  it('indexes: CreateIndex stays, ModifyIndex moves on a write, and X-Consul-Index is the entry\'s ModifyIndex', async () => {
    const h = { 'x-consul-token': ref.mesh.token };
    await fetch(`${ref.mesh.url}/v1/kv/idx/a`, { method: 'PUT', headers: h, body: '1' });
    const first = await fetch(`${ref.mesh.url}/v1/kv/idx/a`, { headers: h });
    const [a] = (await first.json()) as { CreateIndex: number; ModifyIndex: number }[];
    expect(Number(first.headers.get('x-consul-index'))).toBe(a!.ModifyIndex);
    const cas = await fetch(`${ref.mesh.url}/v1/kv/idx/a?cas=${a!.ModifyIndex}`, { method: 'PUT', headers: h, body: '2' });
    expect(await cas.text()).toBe('true');
    const [b] = (await (await fetch(`${ref.mesh.url}/v1/kv/idx/a`, { headers: h })).json()) as { CreateIndex: number; ModifyIndex: number; Value: string }[];
    expect(b!.CreateIndex).toBe(a!.CreateIndex);
    expect(b!.ModifyIndex).toBeGreaterThan(a!.ModifyIndex);
    expect(Buffer.from(b!.Value, 'base64').toString()).toBe('2');
    const stale = await fetch(`${ref.mesh.url}/v1/kv/idx/a?cas=${a!.ModifyIndex}`, { method: 'PUT', headers: h, body: '3' });
    expect(await stale.text(), 'a CAS with an old index writes nothing').toBe('false');
  });

  it('ACL key rules: key_prefix write grants read and write under the prefix only', async () => {
    const h = { 'x-consul-token': ref.mesh.token };
    const policy = (await (await fetch(`${ref.mesh.url}/v1/acl/policy`, { method: 'PUT', headers: h, body: JSON.stringify({ Name: 'kv-writer', Rules: 'key_prefix "mine/" { policy = "write" }' }) })).json()) as { ID: string };
    const token = (await (await fetch(`${ref.mesh.url}/v1/acl/token`, { method: 'PUT', headers: h, body: JSON.stringify({ Policies: [{ ID: policy.ID }] }) })).json()) as { SecretID: string };
    const t = { 'x-consul-token': token.SecretID };
    expect((await fetch(`${ref.mesh.url}/v1/kv/mine/a`, { method: 'PUT', headers: t, body: 'x' })).status).toBe(200);
    expect((await fetch(`${ref.mesh.url}/v1/kv/mine/a`, { headers: t })).status).toBe(200);
    expect((await fetch(`${ref.mesh.url}/v1/kv/theirs/a`, { method: 'PUT', headers: t, body: 'x' })).status).toBe(403);
    await fetch(`${ref.mesh.url}/v1/kv/theirs/a`, { method: 'PUT', headers: h, body: 'x' });
    const keys = await fetch(`${ref.mesh.url}/v1/kv/?keys`, { headers: t });
    expect(await keys.json(), 'a listing shows only what the token may read').toEqual(['mine/a']);
  });
});

const consul = findConsul();
describe.skipIf(!consul.path)(`the same sequence against a real Consul (${consul.why})`, () => {
  let agent: ConsulAgent | undefined;
  beforeAll(async () => {
    agent = await startConsulAgent(consul.path!);
  }, 40_000);
  afterAll(async () => agent?.stop());

  it('answers every step as the table says', async () => {
    for (const { step, status, answer } of await runSteps(agent!.url, agent!.token)) {
      expect({ status, answer }, label(step)).toEqual({ status: step.status, answer: step.answer });
    }
  }, 30_000);
});
if (!consul.path) console.log(`reference-consul-kv: the real-Consul comparison is skipped: ${consul.why}`);
