import fc from 'fast-check';
import { satisfies } from '../../expectations/version-range.ts';
import type { DiffEndpoint, RequestTemplate, SymbolicRequest } from '../request-template.ts';
import { fixed, generated, MANAGEMENT, notAnInteger, notAnObject, notAString, tokenClasses, unknownField, unknownName, unknownUuid } from './catalog-kit.ts';

/**
 * The endpoints of spec 002 (scheduler client endpoints and event stream) and the requests the
 * diff sends to each. Fixture symbols (src/diff/fixtures/scheduler.ts): `node`, the node the
 * allocations run on; `alloc`, a running allocation of tasks `main` (local/hello.txt, known stdout
 * and stderr) and `quiet` (logs disabled); `done`, a completed allocation (collected by the GC
 * request, last); `job`, an unplaceable job (its events); `metaKey`, a node metadata key under the
 * run prefix. Tokens: `tokNone` (no grants), `tokNodeRead`, `tokReadJob` (read-job in default),
 * `tokOtherNs` (every namespace capability, in another namespace).
 */

const TEXT_STREAM = { maxMs: 3_000, frames: 2 };

const get = (path: string, query?: Record<string, string>, extra: Partial<SymbolicRequest> = {}): SymbolicRequest => ({ method: 'GET', path, ...(query ? { query } : {}), token: MANAGEMENT, ...extra });

/** The classes an allocation path parameter gets: an ID no node has, its short form, an escape. */
function allocIdClasses(path: (id: string) => string, query?: Record<string, string>, extra: Partial<SymbolicRequest> = {}): RequestTemplate<any>[] {
  return [
    generated('bad-id', 'an allocation ID no target has', unknownUuid, (id) => get(path(id), query, extra)),
    fixed('short-id', "the allocation's 8-character short ID", get(path('@{alloc:8}'), query, extra)),
    generated('unknown-name', 'an allocation ID that is not a UUID', unknownName, (n) => get(path(n), query, extra)),
  ];
}

/** The fs endpoints' path parameter: a missing file, an escape from the allocation directory. */
function fsPathClasses(path: string, query: Record<string, string>, extra: Partial<SymbolicRequest> = {}): RequestTemplate<any>[] {
  return [
    generated('unknown-name', 'a file that does not exist', unknownName, (n) => get(path, { ...query, path: `main/local/${n}.txt` }, extra)),
    generated('path-escape', 'a path that escapes the allocation directory', fc.constantFrom('../../../../etc/passwd', '/../../..', 'main/../../..', '../'), (p) => get(path, { ...query, path: p }, extra)),
  ];
}

const FILE = 'main/local/hello.txt';

/** Nomad releases whose client keeps a key set to null in the node's dynamic metadata, for good (fixed by hashicorp/nomad#18664). */
const NULL_KEYS_STAY = '>=1.5.0 <1.5.10 || >=1.6.0 <1.6.3';

/** A metadata write cannot be undone on those releases: the run's key would stay on the node as null. */
const metadataStays = (p: { key?: string; version?: string } | undefined) =>
  p?.key === 'nomad' && p.version && satisfies(p.version, NULL_KEYS_STAY)
    ? `Nomad ${p.version} keeps a metadata key set to null on the node for good (client/meta_endpoint.go before hashicorp/nomad#18664, fixed in 1.5.10, 1.6.3 and 1.7.0): the diff leaves a product as it found it, so it writes no key there`
    : undefined;

/** A POST of node metadata that writes the run's key when the target takes it. */
const writesKey = { notOn: metadataStays };

export const SCHEDULER_ENDPOINTS: DiffEndpoint[] = [
  {
    system: 'scheduler',
    method: 'GET',
    path: '/v1/client/metadata',
    statements: ['scheduler.metadata.node-id', 'scheduler.metadata.read-response', 'scheduler.metadata.meta-merge', 'scheduler.metadata.static', 'scheduler.metadata.dynamic-null', 'scheduler.acl.metadata-read'],
    requests: [
      fixed('ok', "the receiving node's metadata", get('/v1/client/metadata')),
      fixed('ok', 'the metadata of the node named by node_id', get('/v1/client/metadata', { node_id: '@{node}' })),
      generated('bad-id', 'a node ID no target has', unknownUuid, (id) => get('/v1/client/metadata', { node_id: id })),
      fixed('short-id', "the node's 8-character short ID", get('/v1/client/metadata', { node_id: '@{node:8}' })),
      ...tokenClasses(get('/v1/client/metadata'), { symbol: 'tokNone', what: 'a token without node:read' }),
      fixed('wrong-method', 'DELETE', { method: 'DELETE', path: '/v1/client/metadata', token: MANAGEMENT }),
    ],
  },
  {
    system: 'scheduler',
    method: 'POST',
    path: '/v1/client/metadata',
    statements: ['scheduler.metadata.node-id-body', 'scheduler.metadata.only-listed-keys', 'scheduler.metadata.null-unsets', 'scheduler.metadata.dotted-keys', 'scheduler.metadata.update-response', 'scheduler.acl.metadata-update'],
    requests: [
      generated('ok', 'a key under the run prefix set to a string', fc.stringMatching(/^[a-z0-9 ._-]{0,12}$/), (v) => ({ method: 'POST', path: '/v1/client/metadata', json: { Meta: { '@{metaKey}': v } }, token: MANAGEMENT }), writesKey),
      fixed('ok', 'the key unset (null)', { method: 'POST', path: '/v1/client/metadata', json: { Meta: { '@{metaKey}': null } }, token: MANAGEMENT }, writesKey),
      fixed('ok', 'the node named by NodeID in the body', { method: 'POST', path: '/v1/client/metadata', json: { NodeID: '@{node}', Meta: { '@{metaKey}': 'v' } }, token: MANAGEMENT }, writesKey),
      fixed('missing-field', 'no Meta', { method: 'POST', path: '/v1/client/metadata', json: {}, token: MANAGEMENT }),
      generated('unknown-field', 'a field the body does not take', unknownField, (f) => ({ method: 'POST', path: '/v1/client/metadata', json: { Meta: { '@{metaKey}': 'v' }, [f]: 1 }, token: MANAGEMENT }), writesKey),
      generated('wrong-type', 'Meta not an object', notAnObject, (v) => ({ method: 'POST', path: '/v1/client/metadata', json: { Meta: v }, token: MANAGEMENT })),
      generated('wrong-type', 'a value neither a string nor null', notAString.filter((v) => v !== null), (v) => ({ method: 'POST', path: '/v1/client/metadata', json: { Meta: { '@{metaKey}': v } }, token: MANAGEMENT })),
      fixed('wrong-type', 'a body that is not JSON', { method: 'POST', path: '/v1/client/metadata', body: 'Meta=x', headers: { 'content-type': 'application/json' }, token: MANAGEMENT }),
      generated('bad-value', 'a key with a slash', unknownName, (n) => ({ method: 'POST', path: '/v1/client/metadata', json: { Meta: { [`@{metaKey}/${n}`]: 'v' } }, token: MANAGEMENT }), writesKey),
      generated('bad-id', 'a NodeID no target has', unknownUuid, (id) => ({ method: 'POST', path: '/v1/client/metadata', json: { NodeID: id, Meta: { '@{metaKey}': 'v' } }, token: MANAGEMENT })),
      fixed('short-id', "the node's short ID as node_id", { method: 'POST', path: '/v1/client/metadata', query: { node_id: '@{node:8}' }, json: { Meta: { '@{metaKey}': 'v' } }, token: MANAGEMENT }),
      ...tokenClasses({ method: 'POST', path: '/v1/client/metadata', json: { Meta: { '@{metaKey}': 'v' } } }, { symbol: 'tokNodeRead', what: 'a token with node:read, not node:write' }),
    ],
  },
  {
    system: 'scheduler',
    method: 'GET',
    path: '/v1/client/stats',
    statements: ['scheduler.stats.node-id', 'scheduler.stats.response', 'scheduler.stats.alloc-dir', 'scheduler.stats.cpu', 'scheduler.stats.cpu-ticks', 'scheduler.stats.device-stats', 'scheduler.stats.disk-stats', 'scheduler.stats.memory', 'scheduler.stats.timestamp', 'scheduler.stats.uptime', 'scheduler.stats.disk-stat-object', 'scheduler.acl.stats'],
    requests: [
      fixed('ok', "the receiving node's stats", get('/v1/client/stats')),
      generated('bad-id', 'a node ID no target has', unknownUuid, (id) => get('/v1/client/stats', { node_id: id })),
      fixed('short-id', "the node's short ID", get('/v1/client/stats', { node_id: '@{node:8}' })),
      ...tokenClasses(get('/v1/client/stats'), { symbol: 'tokNone', what: 'a token without node:read' }),
      fixed('wrong-method', 'POST', { method: 'POST', path: '/v1/client/stats', token: MANAGEMENT }),
    ],
  },
  {
    system: 'scheduler',
    method: 'GET',
    path: '/v1/client/allocation/:alloc_id/stats',
    statements: ['scheduler.alloc-stats.alloc-id', 'scheduler.alloc-stats.response', 'scheduler.alloc-stats.resource-usage', 'scheduler.alloc-stats.tasks', 'scheduler.alloc-stats.timestamp', 'scheduler.alloc-stats.cpu-stats', 'scheduler.alloc-stats.memory-stats', 'scheduler.acl.alloc-stats', 'scheduler.ids.full-only'],
    requests: [
      fixed('ok', 'a running allocation', get('/v1/client/allocation/@{alloc}/stats')),
      ...allocIdClasses((id) => `/v1/client/allocation/${id}/stats`),
      ...tokenClasses(get('/v1/client/allocation/@{alloc}/stats'), { symbol: 'tokOtherNs', what: "a token with every capability in another namespace, none in the allocation's" }),
      fixed('wrong-method', 'POST', { method: 'POST', path: '/v1/client/allocation/@{alloc}/stats', token: MANAGEMENT }),
    ],
  },
  {
    system: 'scheduler',
    method: 'GET',
    path: '/v1/client/fs/cat/:alloc_id',
    statements: ['scheduler.fs.cat-path', 'scheduler.fs.cat-response', 'scheduler.acl.cat', 'scheduler.ids.full-only'],
    requests: [
      fixed('ok', 'a file of the task', get('/v1/client/fs/cat/@{alloc}', { path: FILE })),
      fixed('bad-value', 'a directory', get('/v1/client/fs/cat/@{alloc}', { path: 'main/local' })),
      ...fsPathClasses('/v1/client/fs/cat/@{alloc}', {}),
      ...allocIdClasses((id) => `/v1/client/fs/cat/${id}`, { path: FILE }),
      ...tokenClasses(get('/v1/client/fs/cat/@{alloc}', { path: FILE }), { symbol: 'tokReadJob', what: 'a token with read-job, not read-fs' }),
      fixed('wrong-method', 'POST', { method: 'POST', path: '/v1/client/fs/cat/@{alloc}', query: { path: FILE }, token: MANAGEMENT }),
    ],
  },
  {
    system: 'scheduler',
    method: 'GET',
    path: '/v1/client/fs/readat/:alloc_id',
    statements: ['scheduler.fs.readat-params', 'scheduler.fs.readat-response', 'scheduler.acl.readat', 'scheduler.ids.full-only'],
    requests: [
      generated('ok', 'bytes of a file from an offset', fc.record({ offset: fc.integer({ min: 0, max: 20 }), limit: fc.integer({ min: 0, max: 20 }) }), ({ offset, limit }) => get('/v1/client/fs/readat/@{alloc}', { path: FILE, offset: String(offset), limit: String(limit) })),
      fixed('missing-field', 'no offset', get('/v1/client/fs/readat/@{alloc}', { path: FILE, limit: '4' })),
      fixed('missing-field', 'no limit', get('/v1/client/fs/readat/@{alloc}', { path: FILE, offset: '0' })),
      generated('wrong-type', 'an offset that is not an integer', notAnInteger, (o) => get('/v1/client/fs/readat/@{alloc}', { path: FILE, offset: o, limit: '4' })),
      fixed('bad-value', 'a negative offset', get('/v1/client/fs/readat/@{alloc}', { path: FILE, offset: '-1', limit: '4' })),
      fixed('bad-value', 'an offset past the end of the file', get('/v1/client/fs/readat/@{alloc}', { path: FILE, offset: '4096', limit: '4' })),
      ...fsPathClasses('/v1/client/fs/readat/@{alloc}', { offset: '0', limit: '4' }),
      ...allocIdClasses((id) => `/v1/client/fs/readat/${id}`, { path: FILE, offset: '0', limit: '4' }),
      ...tokenClasses(get('/v1/client/fs/readat/@{alloc}', { path: FILE, offset: '0', limit: '4' }), { symbol: 'tokReadJob', what: 'a token with read-job, not read-fs' }),
    ],
  },
  {
    system: 'scheduler',
    method: 'GET',
    path: '/v1/client/fs/stream/:alloc_id',
    statements: ['scheduler.fs.stream-params', 'scheduler.fs.stream-response', 'scheduler.stream-frame.file', 'scheduler.stream-frame.offset', 'scheduler.stream-frame.data', 'scheduler.stream-frame.file-event', 'scheduler.acl.stream', 'scheduler.ids.full-only'],
    requests: [
      fixed('ok', 'a file from its start, not followed', get('/v1/client/fs/stream/@{alloc}', { path: FILE, offset: '0', origin: 'start', follow: 'false' }, { stream: TEXT_STREAM })),
      fixed('ok', 'the end of a file, from origin end', get('/v1/client/fs/stream/@{alloc}', { path: FILE, offset: '3', origin: 'end', follow: 'false' }, { stream: TEXT_STREAM })),
      generated('wrong-type', 'an offset that is not an integer', notAnInteger, (o) => get('/v1/client/fs/stream/@{alloc}', { path: FILE, offset: o, follow: 'false' }, { stream: TEXT_STREAM })),
      fixed('bad-value', 'an origin neither start nor end', get('/v1/client/fs/stream/@{alloc}', { path: FILE, offset: '0', origin: 'middle', follow: 'false' }, { stream: TEXT_STREAM })),
      fixed('bad-value', 'an offset past the end of the file', get('/v1/client/fs/stream/@{alloc}', { path: FILE, offset: '4096', origin: 'start', follow: 'false' }, { stream: TEXT_STREAM })),
      ...fsPathClasses('/v1/client/fs/stream/@{alloc}', { offset: '0', follow: 'false' }, { stream: TEXT_STREAM }),
      ...allocIdClasses((id) => `/v1/client/fs/stream/${id}`, { path: FILE, offset: '0', follow: 'false' }, { stream: TEXT_STREAM }),
      ...tokenClasses(get('/v1/client/fs/stream/@{alloc}', { path: FILE, offset: '0', follow: 'false' }, { stream: TEXT_STREAM }), { symbol: 'tokReadJob', what: 'a token with read-job, not read-fs' }),
    ],
  },
  {
    system: 'scheduler',
    method: 'GET',
    path: '/v1/client/fs/logs/:alloc_id',
    statements: ['scheduler.fs.logs-params', 'scheduler.fs.logs-response', 'scheduler.fs.logs-disabled', 'scheduler.stream-frame.file', 'scheduler.stream-frame.offset', 'scheduler.stream-frame.data', 'scheduler.acl.logs', 'scheduler.ids.full-only'],
    requests: [
      generated('ok', "a task's log, framed, not followed", fc.constantFrom('stdout', 'stderr'), (type) => get('/v1/client/fs/logs/@{alloc}', { task: 'main', type, origin: 'start', offset: '0', follow: 'false' }, { stream: TEXT_STREAM })),
      generated('ok', "a task's log as plain text", fc.constantFrom('stdout', 'stderr'), (type) => get('/v1/client/fs/logs/@{alloc}', { task: 'main', type, plain: 'true', follow: 'false' })),
      fixed('missing-field', 'no task', get('/v1/client/fs/logs/@{alloc}', { type: 'stdout', follow: 'false' }, { stream: TEXT_STREAM })),
      fixed('missing-field', 'no type', get('/v1/client/fs/logs/@{alloc}', { task: 'main', follow: 'false' }, { stream: TEXT_STREAM })),
      generated('unknown-name', 'a task the allocation does not have', unknownName, (t) => get('/v1/client/fs/logs/@{alloc}', { task: t, type: 'stdout', follow: 'false' }, { stream: TEXT_STREAM })),
      fixed('bad-value', 'a type neither stdout nor stderr', get('/v1/client/fs/logs/@{alloc}', { task: 'main', type: 'stdlog', follow: 'false' }, { stream: TEXT_STREAM })),
      fixed('bad-value', 'an origin neither start nor end', get('/v1/client/fs/logs/@{alloc}', { task: 'main', type: 'stdout', origin: 'middle', follow: 'false' }, { stream: TEXT_STREAM })),
      generated('wrong-type', 'an offset that is not an integer', notAnInteger, (o) => get('/v1/client/fs/logs/@{alloc}', { task: 'main', type: 'stdout', offset: o, follow: 'false' }, { stream: TEXT_STREAM })),
      fixed('wrong-type', 'follow that is not a boolean', get('/v1/client/fs/logs/@{alloc}', { task: 'main', type: 'stdout', follow: 'sometimes' }, { stream: TEXT_STREAM })),
      { ...fixed('bad-value', 'a task whose logging is disabled', get('/v1/client/fs/logs/@{alloc}', { task: 'quiet', type: 'stdout', follow: 'false' }, { stream: TEXT_STREAM })), stated: { status: [404], statement: 'scheduler.errors.logs-disabled-404' } },
      ...allocIdClasses((id) => `/v1/client/fs/logs/${id}`, { task: 'main', type: 'stdout', follow: 'false' }, { stream: TEXT_STREAM }),
      ...tokenClasses(get('/v1/client/fs/logs/@{alloc}', { task: 'main', type: 'stdout', follow: 'false' }, { stream: TEXT_STREAM }), { symbol: 'tokNodeRead', what: 'a token with node:read, neither read-logs nor read-fs' }),
    ],
  },
  {
    system: 'scheduler',
    method: 'GET',
    path: '/v1/client/fs/ls/:alloc_id',
    statements: ['scheduler.fs.ls-default-path', 'scheduler.fs.ls-response', 'scheduler.file-info.name', 'scheduler.file-info.is-dir', 'scheduler.file-info.size', 'scheduler.file-info.file-mode', 'scheduler.file-info.mod-time', 'scheduler.acl.ls', 'scheduler.ids.full-only'],
    requests: [
      fixed('ok', 'the allocation directory (no path)', get('/v1/client/fs/ls/@{alloc}')),
      fixed('ok', "a task's local directory", get('/v1/client/fs/ls/@{alloc}', { path: 'main/local' })),
      fixed('bad-value', 'a file, not a directory', get('/v1/client/fs/ls/@{alloc}', { path: FILE })),
      ...fsPathClasses('/v1/client/fs/ls/@{alloc}', {}),
      ...allocIdClasses((id) => `/v1/client/fs/ls/${id}`),
      ...tokenClasses(get('/v1/client/fs/ls/@{alloc}'), { symbol: 'tokReadJob', what: 'a token with read-job, not read-fs' }),
    ],
  },
  {
    system: 'scheduler',
    method: 'GET',
    path: '/v1/client/fs/stat/:alloc_id',
    statements: ['scheduler.fs.stat-default-path', 'scheduler.fs.stat-response', 'scheduler.file-info.name', 'scheduler.file-info.is-dir', 'scheduler.file-info.size', 'scheduler.file-info.file-mode', 'scheduler.file-info.mod-time', 'scheduler.acl.stat', 'scheduler.ids.full-only'],
    requests: [
      fixed('ok', 'a file', get('/v1/client/fs/stat/@{alloc}', { path: FILE })),
      fixed('ok', 'the allocation directory (no path)', get('/v1/client/fs/stat/@{alloc}')),
      ...fsPathClasses('/v1/client/fs/stat/@{alloc}', {}),
      ...allocIdClasses((id) => `/v1/client/fs/stat/${id}`, { path: FILE }),
      ...tokenClasses(get('/v1/client/fs/stat/@{alloc}', { path: FILE }), { symbol: 'tokReadJob', what: 'a token with read-job, not read-fs' }),
    ],
  },
  {
    system: 'scheduler',
    method: 'GET',
    path: '/v1/event/stream',
    statements: ['scheduler.events.frames', 'scheduler.frame.index', 'scheduler.frame.events', 'scheduler.frame.event-fields', 'scheduler.events.index', 'scheduler.events.namespace', 'scheduler.events.topic', 'scheduler.acl.event-stream', 'scheduler.acl.event-topics', 'scheduler.events.output-job'],
    requests: [
      fixed('ok', "the Job events of the run's job", get('/v1/event/stream', { topic: 'Job:@{job}' }, { stream: { maxMs: 4_000, frames: 1 } }), { once: true }),
      fixed('ok', "the Allocation events of the run's allocation", get('/v1/event/stream', { topic: 'Allocation:@{alloc}' }, { stream: { maxMs: 4_000, frames: 1 } }), { once: true }),
      generated('wrong-type', 'an index that is not an integer', notAnInteger, (i) => get('/v1/event/stream', { topic: 'Job:@{job}', index: i }, { stream: { maxMs: 2_000, frames: 1 } })),
      fixed('bad-value', 'a topic that does not exist', get('/v1/event/stream', { topic: 'Weather:*' }, { stream: { maxMs: 1_500, frames: 1 } }), { once: true }),
      fixed('forbidden', 'a token with node:read asks for Job events', get('/v1/event/stream', { topic: 'Job:@{job}' }, { token: { kind: 'fixture', symbol: 'tokNodeRead' }, stream: { maxMs: 2_000, frames: 1 } })),
      fixed('forbidden', 'a token with read-job asks for every namespace', get('/v1/event/stream', { topic: 'Job:@{job}', namespace: '*' }, { token: { kind: 'fixture', symbol: 'tokReadJob' }, stream: { maxMs: 2_000, frames: 1 } })),
      fixed('no-token', 'no token', get('/v1/event/stream', { topic: 'Job:@{job}' }, { token: { kind: 'none' }, stream: { maxMs: 2_000, frames: 1 } })),
      fixed('wrong-token', 'a token the target never issued', get('/v1/event/stream', { topic: 'Job:@{job}' }, { token: { kind: 'wrong' }, stream: { maxMs: 2_000, frames: 1 } })),
      fixed('wrong-method', 'POST', { method: 'POST', path: '/v1/event/stream', query: { topic: 'Job:@{job}' }, token: MANAGEMENT, stream: { maxMs: 2_000, frames: 1 } }),
    ],
  },
  {
    system: 'scheduler',
    method: 'GET',
    path: '/v1/client/gc',
    statements: ['scheduler.gc.all', 'scheduler.stats.node-id', 'scheduler.acl.gc-all'],
    // No well-formed request: it collects every stopped allocation on the node, others' too, and
    // the diff leaves a real product as it found it.
    requests: [
      generated('bad-id', 'a node ID no target has', unknownUuid, (id) => get('/v1/client/gc', { node_id: id })),
      fixed('short-id', "the node's short ID", get('/v1/client/gc', { node_id: '@{node:8}' })),
      ...tokenClasses(get('/v1/client/gc'), { symbol: 'tokNodeRead', what: 'a token with node:read, not node:write' }),
    ],
  },
  {
    system: 'scheduler',
    method: 'GET',
    path: '/v1/client/allocation/:alloc_id/gc',
    statements: ['scheduler.gc.alloc-id', 'scheduler.gc.alloc', 'scheduler.acl.gc-alloc', 'scheduler.ids.full-only'],
    requests: [
      fixed('bad-value', 'an allocation that is still running', get('/v1/client/allocation/@{alloc}/gc')),
      ...allocIdClasses((id) => `/v1/client/allocation/${id}/gc`),
      ...tokenClasses(get('/v1/client/allocation/@{done}/gc'), { symbol: 'tokReadJob', what: 'a token with read-job, not submit-job' }),
      // Last: it removes the completed allocation's directory.
      fixed('ok', 'a completed allocation', get('/v1/client/allocation/@{done}/gc'), { once: true }),
    ],
  },
];
