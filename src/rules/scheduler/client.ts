import type { Rule } from '../types.ts';
import { SPEC_FILES } from '../spec-files.ts';

const file = SPEC_FILES.scheduler;
const EP = 'Endpoints';
const ESP = 'Endpoints > Event stream parameters';
const FIX = 'schedulerFixtures';
const rule = (r: Omit<Rule, 'system' | 'level'> & { level?: Rule['level'] }): Rule => ({ system: 'scheduler', level: 'MUST', ...r });

/** Spec 002: the event stream. */
export const schedulerEventRules: Rule[] = [
  rule({
    id: 'scheduler.events.frame-shape',
    title: 'The stream sends frames {Index, Events} whose events have Topic, Type, Key, Namespace, FilterKeys, Index and Payload',
    sources: [
      { file, section: 'Resources and their fields > Event frame', quote: 'Event: Topic (string), Type (string), Key (string), Namespace (string), FilterKeys (null or list), Index (integer), Payload (object keyed by the object kind, e.g. Node).' },
    ],
  }),
  rule({
    id: 'scheduler.events.matching',
    title: 'For generated events and subscriptions (topics, filter keys, namespace, start index), the frames received carry exactly the matching events, in index order, without duplicates or gaps',
    capability: FIX,
    sources: [
      { file, section: ESP, quote: "Subscribes to a topic with optional filter key after a colon. Several topic parameters may be given." },
      { file, section: ESP, quote: 'Index to start from.' },
    ],
  }),
  rule({
    id: 'scheduler.events.backlog-then-live',
    title: 'A subscription from an earlier index gets the backlog first, then new events as they happen, on the same connection',
    capability: FIX,
    sources: [{ file, section: 'What the service does', quote: "The event stream sends a server's backlog of events and then new events as they occur, until the connection closes." }],
  }),
  rule({
    id: 'scheduler.events.topic-star-equivalence',
    title: "'Topic' and 'Topic:*' subscribe to the same events",
    capability: FIX,
    sources: [{ file, section: ESP, quote: "'Node' and 'Node:*' are both valid." }],
  }),
  rule({
    id: 'scheduler.events.no-topic-all',
    title: 'Without a topic parameter the stream carries events of every topic',
    capability: FIX,
    sources: [{ file, section: ESP, quote: 'Omitting topic subscribes to all topics' }],
  }),
  rule({
    id: 'scheduler.events.namespace',
    title: "Namespaced events are filtered to 'default' unless namespace is given; '*' carries every namespace",
    capability: FIX,
    sources: [{ file, section: ESP, quote: "namespace | string | 'default' | Namespace filter; '*' means all namespaces for event types that support them" }],
  }),
  rule({
    id: 'scheduler.events.index-evicted',
    title: 'An index no longer in the buffer starts the stream at the next available index',
    capability: FIX,
    sources: [{ file, section: ESP, quote: 'If no longer in the buffer, streaming starts at the next available index' }],
  }),
  rule({
    id: 'scheduler.events.acl',
    title: 'A token without the permission a topic needs does not receive it (node:read for Node, namespace:read-job for Job and Allocation, management for all topics and ACL topics)',
    capability: FIX,
    sources: [
      { file, section: 'Authentication', quote: "Event stream permissions per topic: '*' (all topics, which is the default when no topic is given): management; ACLToken, ACLPolicy: management; Job, Allocation, Deployment, Evaluation: namespace:read-job; Node: node:read." },
    ],
  }),
];

/** Spec 002: metadata, stats, files, logs, GC, IDs. */
export const schedulerClientRules: Rule[] = [
  rule({
    id: 'scheduler.metadata.merge',
    title: 'For generated updates of valid keys with string or null values, Meta is the merge of Static and Dynamic, and only the listed keys change',
    sources: [
      { file, section: EP, quote: 'Body field Meta (object, required) holds keys to update; only listed keys change.' },
      { file, section: 'Resources and their fields > Node metadata response', quote: 'Merge of Static and Dynamic' },
    ],
  }),
  rule({
    id: 'scheduler.metadata.invalid-keys',
    title: 'Keys that are not dotted identifiers (a slash, empty, other characters) are refused and change nothing',
    sources: [{ file, section: EP, quote: 'Keys must be valid dotted identifiers (a dotted name is valid; a name with a slash is not).' }],
  }),
  rule({
    id: 'scheduler.metadata.static',
    title: 'Static metadata is reported and is not changed through the API',
    sources: [{ file, section: 'Resources and their fields > Node metadata response', quote: 'Set in the agent configuration; loaded only at agent start' }],
  }),
  rule({
    id: 'scheduler.metadata.node-id',
    title: "node_id with the node's full ID reads its metadata; a node_id of no node is refused",
    sources: [{ file, section: EP, quote: 'Parameter node_id (string, optional): full node ID; required through a server, defaults to the receiving node otherwise; given as query parameter.' }],
  }),
  rule({
    id: 'scheduler.stats.fields',
    title: 'Client stats has every documented field with its type, with figures of a real machine',
    sources: [{ file, section: 'Resources and their fields > Client stats response', quote: 'Memory | {Available, Free, Total, Used} integers' }],
  }),
  rule({
    id: 'scheduler.alloc-stats.fields',
    title: 'Allocation stats has ResourceUsage, Tasks (one per task) and Timestamp',
    capability: FIX,
    sources: [{ file, section: 'Resources and their fields > Allocation stats response', quote: 'Tasks | map task name to {Pids, ResourceUsage, Timestamp}' }],
  }),
  rule({
    id: 'scheduler.fs.readat',
    title: 'For generated offsets and limits, readat returns exactly that slice of the file',
    capability: FIX,
    sources: [{ file, section: EP, quote: 'Read at offset (readat). Parameters: alloc_id; path (default \'/\'); offset (integer, required, byte offset); limit (integer, required, number of bytes). Response: up to limit bytes from offset.' }],
  }),
  rule({
    id: 'scheduler.fs.cat',
    title: 'cat returns the whole file',
    capability: FIX,
    sources: [{ file, section: EP, quote: "Read file (cat). Parameters: alloc_id (path, required); path (string, default '/', relative to the allocation directory root). Response: file content." }],
  }),
  rule({
    id: 'scheduler.fs.ls-stat',
    title: 'ls lists the files of a directory as file info; stat of each agrees with its ls entry and with its bytes',
    capability: FIX,
    sources: [
      { file, section: EP, quote: 'List files (ls). Parameters: alloc_id; path (default \'/\'). Response: array of file info.' },
      { file, section: 'Resources and their fields > File info', quote: 'Size | integer' },
    ],
  }),
  rule({
    id: 'scheduler.fs.default-path',
    title: "Without path, ls lists the allocation directory's root",
    capability: FIX,
    sources: [{ file, section: EP, quote: "List files (ls). Parameters: alloc_id; path (default '/')." }],
  }),
  rule({
    id: 'scheduler.fs.path-escape',
    title: 'A path that leaves the allocation directory (.., encoded) is refused with a 4xx and reads nothing outside it',
    capability: FIX,
    sources: [{ file, section: EP, quote: "path (string, default '/', relative to the allocation directory root)" }],
  }),
  rule({
    id: 'scheduler.fs.stream',
    title: "Decoded stream frames concatenate to the file's bytes from the requested offset and origin",
    capability: FIX,
    sources: [
      { file, section: EP, quote: "Stream file. Parameters: alloc_id; path (default '/'); follow (bool, default true, tail the file); offset (integer, required); origin (string, 'start' or 'end', relative base of offset)." },
      { file, section: 'Resources and their fields > Stream frame (file stream and log stream)', quote: 'Data | string | Base64 of the streamed bytes' },
    ],
  }),
  rule({
    id: 'scheduler.fs.stream-follow',
    title: 'A followed stream delivers bytes appended to the file after it started',
    capability: FIX,
    sources: [{ file, section: EP, quote: 'follow (bool, default true, tail the file)' }],
  }),
  rule({
    id: 'scheduler.fs.logs',
    title: "Decoded log frames concatenate to the task log's bytes from the requested offset and origin; plain logs equal the framed ones decoded",
    capability: FIX,
    sources: [{ file, section: EP, quote: "plain (bool, default false; plain text without framing)" }],
  }),
  rule({
    id: 'scheduler.fs.logs-follow',
    title: 'A followed log stream delivers lines the task writes after it started',
    capability: FIX,
    sources: [{ file, section: EP, quote: 'Stream logs. Parameters: alloc_id; task (string, required); follow (bool, default false)' }],
  }),
  rule({
    id: 'scheduler.fs.logs-disabled-404',
    title: 'Logs of a task with logging disabled answer 404',
    capability: FIX,
    sources: [
      { file, section: EP, quote: 'Status 404 when logging is disabled for the task.' },
      { file, section: 'Errors', quote: 'Log streaming answers 404 when logging is disabled for the task.' },
    ],
  }),
  rule({
    id: 'scheduler.gc.alloc',
    title: "After GC of an allocation its files are gone from the node",
    capability: FIX,
    sources: [{ file, section: EP, quote: 'Forces garbage collection of one stopped allocation on the node' }],
  }),
  rule({
    id: 'scheduler.gc.all',
    title: 'GC of all collects every stopped allocation on the node',
    capability: FIX,
    sources: [{ file, section: EP, quote: 'GC all. Parameter node_id (string, optional; required through a server). Collects all stopped allocations on the node.' }],
  }),
  rule({
    id: 'scheduler.ids.full-only',
    title: 'The short 8-character form of an allocation or node ID is refused where the full ID works',
    capability: FIX,
    sources: [{ file, section: 'What the service does', quote: 'Node IDs and allocation IDs in these endpoints must be full IDs, not the short 8-character form.' }],
  }),
];

const notes = 'shared/notes/upstream-behaviors.md § 3';
const nomad = (source: string, note: string) => ({ product: 'Nomad', source: `hashicorp/nomad ${source}`, note: `${note} (${notes})` });

export const schedulerUpstreamRules: Rule[] = [
  rule({
    id: 'scheduler.upstream.stream-heartbeat',
    level: 'UPSTREAM',
    title: 'The event stream sends a {} heartbeat at once',
    sources: [{ file, section: 'Events', quote: 'The event stream delivers the frames described above.' }],
    upstream: nomad('nomad/stream/ndjson.go', 'initial {} heartbeat sent immediately, then every 30 s'),
  }),
  rule({
    id: 'scheduler.upstream.bad-stream-params-400',
    level: 'UPSTREAM',
    title: 'A non-numeric index or a topic with two colons answers 400',
    sources: [{ file, section: 'Errors', quote: 'Other status codes and the error body format of these endpoints: not shown.' }],
    upstream: nomad('command/agent/event_endpoint.go', 'bad index → 400 "Unable to parse index"; >1 colon → 400 "Invalid topic query"'),
  }),
  rule({
    id: 'scheduler.upstream.fs-params-400',
    level: 'UPSTREAM',
    title: 'logs without task or with a bad type, and stream with an origin other than start or end, answer 400',
    capability: FIX,
    sources: [{ file, section: 'Errors', quote: 'Other status codes and the error body format of these endpoints: not shown.' }],
    upstream: nomad('command/agent/fs_endpoint.go', 'must provide task name / log type → 400; origin must be start or end → 400'),
  }),
];
