import { expect } from 'vitest';
import type { StreamResult } from '../../src/client/http-client.ts';
import type { TokenGrants } from '../../src/provision/scheduler-fixtures.ts';
import type { RuleKit } from '../kit/rule-kit.ts';
import { uniqueName } from '../kit/run-names.ts';
import { refusalMs } from '../kit/bounds/scheduler.ts';
import { carriesBytesOf, isSuccess, shownBytes } from './file-bytes.ts';
import { unsetKey } from './run-metadata-keys.ts';

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

/** What an endpoint answered: its status, and what it showed (the body, with any stream frames decoded). */
export interface Answer {
  status: number;
  shown: Buffer;
}

export interface Endpoint {
  name: string;
  need: Need;
  /** Calls it with the token. */
  call: (secret: string) => Promise<Answer>;
  /**
   * For cat and readat, judged by what they deliver rather than by their status (file-bytes.ts
   * judgedByContent): the bytes of the file they read. Accepted, they deliver them; refused, none.
   */
  delivers?: Buffer;
}

/** An answer read whole. */
export const answerOf = (res: { status: number; body: Buffer }): Answer => ({ status: res.status, shown: res.body });

/** Every client endpoint of spec 002's table with its "ACL required" entry, GC ones apart (they change the node). */
export function readEndpoints(kit: RuleKit, allocId: string, task: string, file: string, bytes: Buffer): Endpoint[] {
  const s = kit.scheduler;
  const key = unsetKey(kit);
  const streamed = (res: StreamResult): Answer => ({ status: res.status, shown: shownBytes(res) });
  const fs = (op: 'cat' | 'readat' | 'ls' | 'stat', query: Record<string, string | number>) => async (token: string) => answerOf(await s.fs(op, allocId, query, { token }));
  const stream = (op: 'stream' | 'logs', query: Record<string, string | number | boolean>) => async (token: string) => streamed(await s.fsStream(op, allocId, query, { maxMs: refusalMs(kit), token }));
  return [
    { name: 'GET /v1/client/metadata', need: { node: 'read' }, call: async (token) => answerOf(await s.readMetadata({}, { token })) },
    // Unsetting the run's own key: accepted or not, nothing of the node's metadata changes.
    { name: 'POST /v1/client/metadata', need: { node: 'write' }, call: async (token) => answerOf(await s.updateMetadata({ [key]: null }, {}, { token })) },
    { name: 'GET /v1/client/stats', need: { node: 'read' }, call: async (token) => answerOf(await s.stats({}, { token })) },
    { name: 'GET /v1/client/allocation/:alloc_id/stats', need: { namespace: ['read-job'] }, call: async (token) => answerOf(await s.allocStats(allocId, { token })) },
    { name: 'GET /v1/client/fs/cat/:alloc_id', need: { namespace: ['read-fs'] }, call: fs('cat', { path: file }), delivers: bytes },
    { name: 'GET /v1/client/fs/readat/:alloc_id', need: { namespace: ['read-fs'] }, call: fs('readat', { path: file, offset: 0, limit: 64 }), delivers: bytes.subarray(0, 64) },
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

/**
 * A refusal is any answer that is not a success (the spec states no status for it; Nomad answers
 * 403). cat and readat (`delivers`) are judged by what they deliver: accepted, the file's bytes;
 * refused, none of them, whatever the status (Nomad answers their refusals 200 "Permission denied").
 */
export function expectVerdict(answer: Answer, want: boolean, what: string, delivers?: Buffer): void {
  const got = `got ${answer.status}: ${answer.shown.toString('utf8').slice(0, 80)}`;
  if (delivers) {
    if (want) expect(isSuccess(answer.status) && answer.shown.equals(delivers), `${what} is accepted and delivers the file (${got})`).toBe(true);
    else expect(carriesBytesOf(answer.shown, delivers), `${what} is refused: it delivers none of the file's bytes (${got})`).toBe(false);
    return;
  }
  if (want) expect(isSuccess(answer.status), `${what} is accepted (got ${answer.status})`).toBe(true);
  else expect(isSuccess(answer.status), `${what} is refused (got ${answer.status})`).toBe(false);
}
