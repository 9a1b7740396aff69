import { expect } from 'vitest';
import type { TokenGrants } from '../../src/provision/scheduler-fixtures.ts';
import { metadataKeyPrefix } from '../../src/provision/scheduler-provisioner.ts';
import type { RuleKit } from '../kit/rule-kit.ts';
import { uniqueName } from '../kit/run-names.ts';
import { refusalMs } from '../kit/bounds/scheduler.ts';

type Capability = 'read-job' | 'read-fs' | 'read-logs' | 'submit-job';

/** What spec 002's "ACL required" column asks of a token: a node policy, or any one of these capabilities in the allocation's namespace. */
type Need = { node: 'read' | 'write' } | { namespace: Capability[] };

/** A token made with exactly one grant, and what that grant is. */
interface Holder {
  who: string;
  grants: TokenGrants;
  node?: 'read' | 'write';
  /** Capabilities in the allocation's namespace. */
  capabilities: Capability[];
}

/**
 * The tokens of the matrix: one capability each, in the allocation's namespace; every capability
 * but in another namespace (the column is per namespace); and one granting nothing.
 */
export function holders(namespace: string, otherNamespace: string): Holder[] {
  const caps: Capability[] = ['read-job', 'read-fs', 'read-logs', 'submit-job'];
  return [
    { who: 'a node:read token', grants: { nodeRead: true }, node: 'read', capabilities: [] },
    { who: 'a node:write token', grants: { nodeWrite: true }, node: 'write', capabilities: [] },
    ...caps.map((c) => ({ who: `a namespace:${c} token (${namespace})`, grants: { namespaces: { [namespace]: [c] } }, capabilities: [c] })),
    { who: `a token with every capability in another namespace (${otherNamespace})`, grants: { namespaces: { [otherNamespace]: caps } }, capabilities: [] },
    { who: 'a token granting nothing', grants: {}, capabilities: [] },
  ];
}

/**
 * Whether the spec says the holder is accepted (true), refused (false), or leaves it open
 * (undefined): node:write on a node:read endpoint, since the spec does not say whether write
 * includes read (Nomad's does: nomad/acl/acl.go AllowNodeRead).
 */
export function accepted(h: Holder, need: Need): boolean | undefined {
  if ('node' in need) {
    if (need.node === 'read' && h.node === 'write') return undefined;
    return h.node === need.node;
  }
  return need.namespace.some((c) => h.capabilities.includes(c));
}

export interface Endpoint {
  name: string;
  need: Need;
  /** Calls it with the token; the status of the answer. */
  call: (secret: string) => Promise<number>;
}

/** Every client endpoint of spec 002's table with its "ACL required" entry, GC ones apart (they change the node). */
export function readEndpoints(kit: RuleKit, allocId: string, task: string, file: string): Endpoint[] {
  const s = kit.scheduler;
  const key = `${metadataKeyPrefix(kit.ctx.runPrefix)}acl`;
  const fs = (op: 'cat' | 'readat' | 'ls' | 'stat', query: Record<string, string | number>) => async (token: string) => (await s.fs(op, allocId, query, { token })).status;
  const stream = (op: 'stream' | 'logs', query: Record<string, string | number | boolean>) => async (token: string) => (await s.fsStream(op, allocId, query, { maxMs: refusalMs(kit), token })).status;
  return [
    { name: 'GET /v1/client/metadata', need: { node: 'read' }, call: async (token) => (await s.readMetadata({}, { token })).status },
    // Unsetting a key of the run's own: accepted or not, nothing of the node's metadata changes.
    { name: 'POST /v1/client/metadata', need: { node: 'write' }, call: async (token) => (await s.updateMetadata({ [key]: null }, {}, { token })).status },
    { name: 'GET /v1/client/stats', need: { node: 'read' }, call: async (token) => (await s.stats({}, { token })).status },
    { name: 'GET /v1/client/allocation/:alloc_id/stats', need: { namespace: ['read-job'] }, call: async (token) => (await s.allocStats(allocId, { token })).status },
    { name: 'GET /v1/client/fs/cat/:alloc_id', need: { namespace: ['read-fs'] }, call: fs('cat', { path: file }) },
    { name: 'GET /v1/client/fs/readat/:alloc_id', need: { namespace: ['read-fs'] }, call: fs('readat', { path: file, offset: 0, limit: 64 }) },
    { name: 'GET /v1/client/fs/stream/:alloc_id', need: { namespace: ['read-fs'] }, call: stream('stream', { path: file, offset: 0, origin: 'start', follow: false }) },
    { name: 'GET /v1/client/fs/logs/:alloc_id', need: { namespace: ['read-logs', 'read-fs'] }, call: stream('logs', { task, type: 'stdout', offset: 0, origin: 'start', follow: false }) },
    { name: 'GET /v1/client/fs/ls/:alloc_id', need: { namespace: ['read-fs'] }, call: fs('ls', { path: file.split('/').slice(0, -1).join('/') }) },
    { name: 'GET /v1/client/fs/stat/:alloc_id', need: { namespace: ['read-fs'] }, call: fs('stat', { path: file }) },
  ];
}

export const gcAllocNeed: Need = { namespace: ['submit-job'] };
export const gcAllNeed: Need = { node: 'write' };

/** One token per holder, made through the fixtures (a policy and a client token under the run prefix). */
export async function makeTokens(kit: RuleKit, list: Holder[]): Promise<(Holder & { secret: string })[]> {
  const out: (Holder & { secret: string })[] = [];
  for (const h of list) out.push({ ...h, secret: (await kit.schedulerFixtures.token(uniqueName('cacl'), h.grants)).secret });
  return out;
}

/** A refusal is any answer that is not a success (the spec states no status for it; Nomad answers 403). */
export function expectVerdict(status: number, want: boolean, what: string): void {
  if (want) expect(status >= 200 && status < 300, `${what} is accepted (got ${status})`).toBe(true);
  else expect(status >= 200 && status < 300, `${what} is refused (got ${status})`).toBe(false);
}
