import type { Statement, StatementMap } from './types.ts';

const SVC = 'What the service does';
const FRAME = 'Resources and their fields > Event frame';
const NODE = 'Resources and their fields > Node (payload of node topics)';
const META = 'Resources and their fields > Node metadata response';
const CSTATS = 'Resources and their fields > Client stats response';
const ASTATS = 'Resources and their fields > Allocation stats response';
const INFO = 'Resources and their fields > File info';
const SFRAME = 'Resources and their fields > Stream frame (file stream and log stream)';
const EP = 'Endpoints';
const ESP = 'Endpoints > Event stream parameters';
const AUTH = 'Authentication';
const EV = 'Events';

const SERVER_SIDE = "the servers' copy of the node is read through /v1/node/:node_id, which this spec names but does not describe (no response shape, no parameters): a run against the client endpoints has nothing of it to parse";

/** One statement per row of the endpoint table's ACL column: the rule tries every grant on every endpoint. */
const aclRow = (name: string, row: string, claim: string, more: Pick<Statement, 'neighbours' | 'wrongWays'> & { rules?: string[] } = {}): Statement => ({
  id: `scheduler.acl.${name}`,
  section: EP,
  quote: row,
  claim,
  rules: ['scheduler.acl.client-endpoints', ...(more.rules ?? [])],
  ...(more.neighbours ? { neighbours: more.neighbours } : {}),
  ...(more.wrongWays ? { wrongWays: more.wrongWays } : {}),
});

/** The neighbours of a namespaced row, asked by scheduler.acl.namespace-neighbours on its endpoint (judged against suites/models/scheduler-acl.ts). */
const namespaceNeighbours = (endpoint: string, capability: string): Pick<Statement, 'neighbours'> & { rules: string[] } => ({
  rules: ['scheduler.acl.namespace-neighbours'],
  neighbours: [
    { scope: 'another namespace of the run (one whose name the granted one is a prefix of, and one apart)', rule: 'scheduler.acl.namespace-neighbours', example: `a token with ${capability} in namespace <base>-a calls ${endpoint} on the allocations of <base>-a (granted), <base>-ab and <base>-b (refused)` },
    { scope: 'another capability in the same namespace', rule: 'scheduler.acl.namespace-neighbours', example: `a token and its neighbour differing in one capability of one block call ${endpoint}: each answered as the model says` },
    { scope: '?namespace= naming another namespace', rule: 'scheduler.acl.namespace-neighbours', example: `a token with ${capability} in <base>-b only calls ${endpoint} on <base>-a's allocation with ?namespace=<base>-b: refused` },
    { scope: 'a glob, prefix or shorthand block beside an exact one', rule: 'scheduler.upstream.acl-namespace-patterns', example: `namespace "*" { policy = "write" } with namespace "<base>-a" { capabilities = ["read-job"] }: ${endpoint} on <base>-a answered only as read-job allows, on <base>-b as write allows (strict profile)` },
    { scope: 'a closer glob beside a farther one, and equally close globs', rule: 'scheduler.upstream.acl-namespace-patterns', example: `namespace "<base>-*" { capabilities = ["read-fs"] } with namespace "*<base-ab without its first character>" { capabilities = ["read-job"] }: ${endpoint} on <base>-ab answered as the second (closer, though listed second and smaller) allows; with "*<base-a without its first character>" instead, a tie on <base>-a that the greatest name, <base>-*, wins (strict profile)` },
    ...otherPolicyNeighbours(endpoint, capability),
  ],
});

/** Neighbours of every client row asked by the upstream rule: a token's several policies on one block, and every other capability. */
const otherPolicyNeighbours = (endpoint: string, capability: string): NonNullable<Statement['neighbours']> => [
  { scope: "a token's other policy on the same block, in both orders", rule: 'scheduler.upstream.acl-namespace-patterns', example: `policies [namespace "<base>-a" { policy = "deny" }] and [namespace "<base>-a" { policy = "write" }] on one token, listed either way: ${endpoint} on <base>-a refused (a deny wins; strict profile)` },
  { scope: `every namespace capability but ${capability}, and each shorthand word`, rule: 'scheduler.upstream.acl-namespace-patterns', example: `one token per capability in <base>-b (alloc-lifecycle, list-jobs, dispatch-job, ... and the spec's others) and per word (read, write, deny): ${endpoint} on <base>-b granted only where ${capability} is held (strict profile)` },
];

/** The node rows' neighbours: a token's node policies in several policies. */
const nodeNeighbours = (endpoint: string): Pick<Statement, 'neighbours'> & { rules: string[] } => ({
  rules: ['scheduler.upstream.acl-namespace-patterns'],
  neighbours: [
    { scope: "a token's other policy with another node policy, in both orders", rule: 'scheduler.upstream.acl-namespace-patterns', example: `policies [node { policy = "deny" }] and [node { policy = "write" }] on one token, listed either way: ${endpoint} refused (deny over write; strict profile)` },
  ],
});

/** The testable statements of the event stream and client endpoints (spec 002), each with the rules that assert it or why none can. */
export const schedulerStatements: StatementMap = {
  system: 'scheduler',
  part: 'event stream and client endpoints (spec 002)',
  statements: [
    // What the service does
    { id: 'scheduler.events.backlog-then-live', section: SVC, quote: "The event stream sends a server's backlog of events and then new events as they occur, until the connection closes.", rules: ['scheduler.events.backlog-then-live'] },
    { id: 'scheduler.node.both-roles', section: SVC, quote: 'Both clients and servers handle them.', untestable: 'a run talks to the one agent of its profile and cannot tell whether it is a client, a server or both; the client endpoints are judged on that agent by the rules below' },
    { id: 'scheduler.node.node-id-through-server', section: SVC, quote: 'When accessed through a server and the node is ambiguous from the URL, the query parameter node_id must be given.', claim: 'Through a server, a request without node_id is refused; on the node itself it is answered (asserted through the operations’ node_id parameter)', rules: ['scheduler.metadata.node-id-default'] },
    { id: 'scheduler.node.direct-access-preferred', section: SVC, quote: 'For high-volume use, especially file streaming, direct access to the node is preferred.', untestable: 'advice to the caller, with no behaviour of the service attached' },
    { id: 'scheduler.ids.full-only', section: SVC, quote: 'Node IDs and allocation IDs in these endpoints must be full IDs, not the short 8-character form.', rules: ['scheduler.ids.full-only', 'scheduler.fs.refusal-status'] },
    // Event frame
    { id: 'scheduler.frame.index', section: FRAME, quote: 'Index | integer | Index of the frame', rules: ['scheduler.events.frame-shape'] },
    { id: 'scheduler.frame.events', section: FRAME, quote: 'Events | array of event', rules: ['scheduler.events.frame-shape'] },
    { id: 'scheduler.frame.event-fields', section: FRAME, quote: 'Event: Topic (string), Type (string), Key (string), Namespace (string), FilterKeys (null or list), Index (integer), Payload (object keyed by the object kind, e.g. Node).', rules: ['scheduler.events.frame-shape', 'scheduler.events.topic-payload'] },
    // Node payload
    { id: 'scheduler.node-payload.fields', section: NODE, quote: 'Top-level fields: ID, Datacenter, Name, HTTPAddr (strings); TLSEnabled (boolean); Attributes (map string to string);', rules: ['scheduler.events.node-payload'] },
    { id: 'scheduler.node-payload.networks', section: NODE, quote: 'Network entries: Mode, Device, CIDR, IP (strings), MBits (integer), DNS, ReservedPorts, DynamicPorts.', rules: ['scheduler.events.node-payload'] },
    // Node metadata response
    { id: 'scheduler.metadata.meta-merge', section: META, quote: 'Meta | object string to string | Merge of Static and Dynamic', rules: ['scheduler.metadata.merge', 'scheduler.metadata.null-unsets'] },
    { id: 'scheduler.metadata.servers-after-delay', section: META, quote: 'registered with servers and used by the scheduler after up to 10 seconds of batching delay', untestable: SERVER_SIDE },
    { id: 'scheduler.metadata.static', section: META, quote: 'Static | object | Set in the agent configuration; loaded only at agent start', rules: ['scheduler.metadata.static', 'scheduler.metadata.write-neighbours'],
      neighbours: [{ scope: 'a static key beside the dynamic ones', rule: 'scheduler.metadata.write-neighbours', example: 'a static key made for it (stackproof.*) set to null through the API: Static unchanged, Meta holds it unset or static, nothing else of Meta changes' }] },
    { id: 'scheduler.metadata.dynamic-null', section: META, quote: "Dynamic | object | Set through the API; values may be null to mean unset, distinct from ''", rules: ['scheduler.metadata.null-unsets'] },
    // Client stats
    { id: 'scheduler.stats.alloc-dir', section: CSTATS, quote: 'AllocDirStats | disk stat object', rules: ['scheduler.stats.fields'] },
    { id: 'scheduler.stats.cpu', section: CSTATS, quote: 'CPU | array of {CPU string, Idle, System, Total, User numbers}', rules: ['scheduler.stats.cpu'] },
    { id: 'scheduler.stats.cpu-ticks', section: CSTATS, quote: 'CPUTicksConsumed | number', rules: ['scheduler.stats.fields'] },
    { id: 'scheduler.stats.device-stats', section: CSTATS, quote: 'DeviceStats | array of {Name, Type, Vendor strings;', rules: ['scheduler.stats.device-stats'] },
    { id: 'scheduler.stats.disk-stats', section: CSTATS, quote: 'DiskStats | array of disk stat object', rules: ['scheduler.stats.fields'] },
    { id: 'scheduler.stats.memory', section: CSTATS, quote: 'Memory | {Available, Free, Total, Used} integers', rules: ['scheduler.stats.fields'] },
    { id: 'scheduler.stats.timestamp', section: CSTATS, quote: 'Timestamp | integer', rules: ['scheduler.stats.fields'] },
    { id: 'scheduler.stats.uptime', section: CSTATS, quote: 'Uptime | integer', rules: ['scheduler.stats.fields'] },
    { id: 'scheduler.stats.disk-stat-object', section: CSTATS, quote: 'Disk stat object: Available (integer), Device (string), InodesUsedPercent (number), Mountpoint (string), Size (integer), Used (integer), UsedPercent (number).', rules: ['scheduler.stats.fields'] },
    // Allocation stats
    { id: 'scheduler.alloc-stats.resource-usage', section: ASTATS, quote: 'ResourceUsage | {CpuStats, MemoryStats}', rules: ['scheduler.alloc-stats.fields'] },
    { id: 'scheduler.alloc-stats.tasks', section: ASTATS, quote: 'Tasks | map task name to {Pids, ResourceUsage, Timestamp}', rules: ['scheduler.alloc-stats.fields'] },
    { id: 'scheduler.alloc-stats.timestamp', section: ASTATS, quote: 'Timestamp | integer', rules: ['scheduler.alloc-stats.fields'] },
    { id: 'scheduler.alloc-stats.cpu-stats', section: ASTATS, quote: 'CpuStats: Measured (array of string), Percent, SystemMode, ThrottledPeriods, ThrottledTime, TotalTicks, UserMode (numbers).', rules: ['scheduler.alloc-stats.fields'] },
    { id: 'scheduler.alloc-stats.memory-stats', section: ASTATS, quote: 'MemoryStats: Cache, KernelMaxUsage, KernelUsage, MaxUsage, RSS, Swap (integers), Measured (array of string).', rules: ['scheduler.alloc-stats.fields'] },
    // File info
    { id: 'scheduler.file-info.name', section: INFO, quote: 'Name | string', rules: ['scheduler.fs.ls-stat'] },
    { id: 'scheduler.file-info.is-dir', section: INFO, quote: 'IsDir | boolean', rules: ['scheduler.fs.ls-stat', 'scheduler.fs.stat-default-path'] },
    { id: 'scheduler.file-info.size', section: INFO, quote: 'Size | integer', rules: ['scheduler.fs.ls-stat'] },
    { id: 'scheduler.file-info.file-mode', section: INFO, quote: 'FileMode | string (permission string)', rules: ['scheduler.fs.ls-stat'] },
    { id: 'scheduler.file-info.mod-time', section: INFO, quote: 'ModTime | string timestamp', rules: ['scheduler.fs.ls-stat'] },
    // Stream frame
    { id: 'scheduler.stream-frame.file', section: SFRAME, quote: 'File | string | File being streamed', rules: ['scheduler.fs.stream'] },
    { id: 'scheduler.stream-frame.offset', section: SFRAME, quote: 'Offset | integer | Offset into the stream', rules: ['scheduler.fs.stream-follow', 'scheduler.fs.logs-follow', 'scheduler.fs.stream-file-events'] },
    { id: 'scheduler.stream-frame.data', section: SFRAME, quote: 'Data | string | Base64 of the streamed bytes', rules: ['scheduler.fs.stream', 'scheduler.fs.logs'] },
    { id: 'scheduler.stream-frame.file-event', section: SFRAME, quote: "FileEvent | string | 'file deleted' or 'file truncated'; an event that may change the stream position", rules: ['scheduler.fs.stream-file-events'] },
    // Endpoints: the table
    { id: 'scheduler.endpoints.no-blocking', section: EP, quote: 'For every endpoint blocking queries are not supported.', claim: 'A blocking-query index (and wait) on a client endpoint does not hold the answer back', rules: ['scheduler.endpoints.no-blocking'] },
    { id: 'scheduler.endpoints.produces', section: EP, quote: "'Produces' is as listed for each endpoint.", claim: "Each endpoint answers with the Content-Type of its row's Produces column", rules: ['scheduler.endpoints.produces'] },
    { id: 'scheduler.acl.event-stream', section: EP, quote: 'GET | /v1/event/stream | application/json | per topic (see Events)', claim: 'The event stream needs the per-topic permissions', rules: ['scheduler.events.acl'] },
    aclRow('metadata-read', 'GET | /v1/client/metadata | application/json | node:read', 'Reading metadata needs node:read: refused to tokens with only namespace capabilities', {
      ...nodeNeighbours('GET /v1/client/metadata'),
      wrongWays: [
        { kind: 'first-item-only', how: "A token's node policies are ranked by permission only: node deny in one policy loses to node write in another, so the token reads the node's metadata.", rule: 'scheduler.upstream.acl-namespace-patterns', example: 'policies [node { policy = "deny" }] and [node { policy = "write" }] on one token, in either order: GET /v1/client/metadata, GET /v1/client/stats and POST /v1/client/metadata refused', fault: 'scheduler.acl-node-deny-loses-to-write' },
      ],
    }),
    aclRow('metadata-update', 'POST | /v1/client/metadata | application/json | node:write', 'Updating metadata needs node:write: refused to node:read and namespace capabilities', {
      rules: ['scheduler.metadata.write-neighbours'],
      neighbours: [
        { scope: 'the node policy one step down (node:read beside node:write)', rule: 'scheduler.metadata.write-neighbours', example: "a node:read token and a node:write token write the run's key: the first refused and the key unchanged, the second set" },
        { scope: 'another node (node_id)', rule: 'scheduler.metadata.write-neighbours', example: "the same write with a node_id of no node: refused, this node's metadata unchanged; with this node's ID: set" },
      ],
    }),
    aclRow('stats', 'GET | /v1/client/stats | application/json | node:read', 'Client stats need node:read', nodeNeighbours('GET /v1/client/stats')),
    aclRow('alloc-stats', 'GET | /v1/client/allocation/:alloc_id/stats | application/json | namespace:read-job', "Allocation stats need read-job in the allocation's namespace", namespaceNeighbours('allocation stats', 'read-job')),
    aclRow('cat', 'GET | /v1/client/fs/cat/:alloc_id | text/plain | namespace:read-fs', "cat needs read-fs in the allocation's namespace"),
    aclRow('readat', 'GET | /v1/client/fs/readat/:alloc_id | text/plain | namespace:read-fs', "readat needs read-fs in the allocation's namespace"),
    aclRow('stream', 'GET | /v1/client/fs/stream/:alloc_id | text/plain | namespace:read-fs', "stream needs read-fs in the allocation's namespace"),
    aclRow('logs', 'GET | /v1/client/fs/logs/:alloc_id | text/plain | namespace:read-logs or namespace:read-fs', "logs need read-logs or read-fs in the allocation's namespace", namespaceNeighbours('logs', 'read-logs')),
    aclRow('ls', 'GET | /v1/client/fs/ls/:alloc_id | text/plain | namespace:read-fs', "ls needs read-fs in the allocation's namespace"),
    aclRow('stat', 'GET | /v1/client/fs/stat/:alloc_id | text/plain | namespace:read-fs', "stat needs read-fs in the allocation's namespace", namespaceNeighbours('stat', 'read-fs')),
    aclRow('gc-alloc', 'GET | /v1/client/allocation/:alloc_id/gc | application/json | namespace:submit-job', "GC of an allocation needs submit-job in the allocation's namespace", {
      rules: ['scheduler.upstream.acl-namespace-patterns'],
      neighbours: [
        { scope: "another namespace's allocation (the prefix's sibling, and one apart)", rule: 'scheduler.upstream.acl-namespace-patterns', example: 'a token with submit-job in <base>-a asks GC of the allocations of <base>-ab and <base>-b: refused, their files stay (strict profile)' },
        ...otherPolicyNeighbours('allocation GC', 'submit-job'),
      ],
      wrongWays: [
        { kind: 'read-vs-write', how: 'A neighbouring capability is taken for the one the row names: alloc-lifecycle (stopping, restarting) accepted for collecting the allocation.', rule: 'scheduler.upstream.acl-namespace-patterns', example: 'one token per namespace capability but submit-job in <base>-b asks GC of its allocation: each refused with 403, the files stay', fault: 'scheduler.gc-alloc-lifecycle-suffices' },
        { kind: 'first-item-only', how: "A token's policies are not merged: a later policy's block for the namespace replaces the earlier one, so a deny listed first is lost to a write after it.", rule: 'scheduler.upstream.acl-namespace-patterns', example: 'policies [namespace "<base>-a" { policy = "deny" }] then [namespace "<base>-a" { policy = "write" }] on one token: every endpoint on <base>-a refused, and in the reverse order too', fault: 'scheduler.acl-later-policy-replaces-namespace' },
      ],
    }),
    aclRow('gc-all', 'GET | /v1/client/gc | text/plain | node:write', 'GC of all needs node:write'),
    // Endpoints: operations
    { id: 'scheduler.metadata.node-id', section: EP, quote: 'Parameter node_id (string, optional): full node ID; required through a server, defaults to the receiving node otherwise; given as query parameter.', rules: ['scheduler.metadata.node-id', 'scheduler.metadata.node-id-default'] },
    { id: 'scheduler.metadata.read-response', section: EP, quote: 'Response: node metadata response.', rules: ['scheduler.metadata.merge', 'scheduler.metadata.null-unsets'] },
    { id: 'scheduler.metadata.node-servers-view', section: EP, quote: 'The /v1/node/:node_id endpoint returns only Meta, and dynamic changes may take up to 10 seconds to appear there; the scheduler uses that version.', untestable: SERVER_SIDE },
    { id: 'scheduler.metadata.node-id-body', section: EP, quote: 'Parameters: NodeID in the body or node_id in the query (string, optional, same rules).', rules: ['scheduler.metadata.node-id-default'] },
    { id: 'scheduler.metadata.only-listed-keys', section: EP, quote: 'Body field Meta (object, required) holds keys to update; only listed keys change.', rules: ['scheduler.metadata.merge'] },
    { id: 'scheduler.metadata.null-unsets', section: EP, quote: "Each value is a string, or null to mark the key unset ('' is a valid, distinct value).", rules: ['scheduler.metadata.null-unsets'] },
    { id: 'scheduler.metadata.dotted-keys', section: EP, quote: 'Keys must be valid dotted identifiers (a dotted name is valid; a name with a slash is not).', rules: ['scheduler.metadata.invalid-keys'] },
    { id: 'scheduler.metadata.update-response', section: EP, quote: 'Response is the same as the GET.', rules: ['scheduler.metadata.null-unsets'] },
    { id: 'scheduler.stats.node-id', section: EP, quote: 'Parameter node_id (string, optional; required through a server).', claim: 'Stats and GC of all take node_id (full IDs only) and answer for the receiving node without it', rules: ['scheduler.metadata.node-id-default', 'scheduler.ids.full-only'] },
    { id: 'scheduler.stats.served-by-client', section: EP, quote: 'Served by the client whose usage is wanted.', untestable: "whose machine the figures describe cannot be told from outside: any real machine's figures are plausible, and the rules check they are a real machine's" },
    { id: 'scheduler.stats.response', section: EP, quote: 'Response: client stats response.', rules: ['scheduler.stats.fields'] },
    { id: 'scheduler.alloc-stats.alloc-id', section: EP, quote: 'Path parameter alloc_id (string, required).', rules: ['scheduler.alloc-stats.fields', 'scheduler.ids.full-only'] },
    { id: 'scheduler.alloc-stats.response', section: EP, quote: 'Response: allocation stats response.', rules: ['scheduler.alloc-stats.fields'] },
    { id: 'scheduler.fs.cat-path', section: EP, quote: "Parameters: alloc_id (path, required); path (string, default '/', relative to the allocation directory root).", rules: ['scheduler.fs.cat', 'scheduler.fs.path-escape', 'scheduler.fs.refusal-status'] },
    { id: 'scheduler.fs.cat-response', section: EP, quote: 'Response: file content.', rules: ['scheduler.fs.cat'] },
    { id: 'scheduler.fs.readat-params', section: EP, quote: "Parameters: alloc_id; path (default '/'); offset (integer, required, byte offset); limit (integer, required, number of bytes).", rules: ['scheduler.fs.readat'] },
    { id: 'scheduler.fs.readat-response', section: EP, quote: 'Response: up to limit bytes from offset.', rules: ['scheduler.fs.readat', 'scheduler.fs.readat-limit-zero'] },
    { id: 'scheduler.fs.stream-params', section: EP, quote: "follow (bool, default true, tail the file); offset (integer, required); origin (string, 'start' or 'end', relative base of offset).", rules: ['scheduler.fs.stream', 'scheduler.fs.stream-follow', 'scheduler.fs.follow-defaults'] },
    { id: 'scheduler.fs.stream-response', section: EP, quote: 'Response: stream of frames.', rules: ['scheduler.fs.stream'] },
    { id: 'scheduler.fs.logs-params', section: EP, quote: "Parameters: alloc_id; task (string, required); follow (bool, default false); type (string, 'stderr' or 'stdout'); offset (integer, default 0); origin ('start' or 'end', default 'start'); plain (bool, default false; plain text without framing).", rules: ['scheduler.fs.logs', 'scheduler.fs.logs-follow', 'scheduler.fs.follow-defaults', 'scheduler.fs.logs-defaults'] },
    { id: 'scheduler.fs.logs-response', section: EP, quote: 'Response: stream of frames, or plain text when plain is true.', rules: ['scheduler.fs.logs', 'scheduler.fs.logs-defaults'] },
    { id: 'scheduler.fs.logs-disabled', section: EP, quote: 'Status 404 when logging is disabled for the task.', rules: ['scheduler.fs.logs-disabled-404'] },
    { id: 'scheduler.fs.ls-default-path', section: EP, quote: "List files (ls). Parameters: alloc_id; path (default '/').", rules: ['scheduler.fs.default-path'] },
    { id: 'scheduler.fs.ls-response', section: EP, quote: 'Response: array of file info.', rules: ['scheduler.fs.ls-stat'] },
    { id: 'scheduler.fs.stat-default-path', section: EP, quote: "Stat file. Parameters: alloc_id; path (default '/').", rules: ['scheduler.fs.stat-default-path'] },
    { id: 'scheduler.fs.stat-response', section: EP, quote: 'Response: file info.', rules: ['scheduler.fs.ls-stat'] },
    { id: 'scheduler.gc.alloc-id', section: EP, quote: 'GC allocation. Parameter alloc_id.', rules: ['scheduler.gc.alloc', 'scheduler.ids.full-only'] },
    { id: 'scheduler.gc.alloc', section: EP, quote: 'Forces garbage collection of one stopped allocation on the node', claim: "The stopped allocation's files are gone from the node; a running allocation's stay", rules: ['scheduler.gc.alloc'] },
    { id: 'scheduler.gc.alloc-kept-on-server', section: EP, quote: 'the allocation still exists on the server and appears in server responses', untestable: "the server's responses about allocations (/v1/allocation/:alloc_id) are outside this spec, which gives them no shape" },
    { id: 'scheduler.gc.all', section: EP, quote: 'Collects all stopped allocations on the node.', rules: ['scheduler.gc.all'] },
    // Event stream parameters
    { id: 'scheduler.events.index', section: ESP, quote: 'index | integer | 0 | Index to start from. If no longer in the buffer, streaming starts at the next available index', rules: ['scheduler.events.matching', 'scheduler.events.index-start', 'scheduler.events.index-evicted'],
      wrongWays: [
        { kind: 'position-ignored', how: 'The server replays its whole buffer whatever the index; a client that keeps only its window of frames never sees it.', rule: 'scheduler.events.index-start', example: "a job registered twice, a subscription from the second registration's index: no frame below it arrives, judged on the server's frames before any client-side window", fault: 'scheduler.events-index-ignored' },
      ] },
    { id: 'scheduler.events.namespace', section: ESP, quote: "namespace | string | 'default' | Namespace filter; '*' means all namespaces for event types that support them", rules: ['scheduler.events.namespace'] },
    { id: 'scheduler.events.namespace-star-acl', section: ESP, quote: 'needs a management token or a policy applying to all namespaces', rules: ['scheduler.events.namespace-star-acl'],
      neighbours: [
        { scope: "a token of 'default' only beside a token whose policy applies to namespace '*'", rule: 'scheduler.events.namespace-star-acl', example: "both subscribe to Job with namespace=*: the '*' token receives the run's jobs of several namespaces, the 'default' token nothing" },
        { scope: "namespace=* beside another named namespace", rule: 'scheduler.events.namespace-star-acl', example: "the 'default' token asks for a namespace whose Job event the '*' token receives: nothing" },
      ],
      wrongWays: [
        { kind: 'other-namespace', how: "namespace=* is checked as if it were 'default'.", rule: 'scheduler.events.namespace-star-acl', example: "a read-job token of 'default' asks for namespace=*: nothing", fault: 'scheduler.events-namespace-star-open' },
        { kind: 'other-namespace', how: "Every namespace is checked as 'default', so read-job there reads any other.", rule: 'scheduler.events.namespace-star-acl', example: "a read-job token of 'default' asks for another namespace, whose Job event a namespace-'*' token receives: nothing", fault: 'scheduler.events-acl-namespace-as-default' },
      ] },
    { id: 'scheduler.events.topic', section: ESP, quote: "topic | 'topic:filter_key' (repeatable) | '*:*' | Subscribes to a topic with optional filter key after a colon. Several topic parameters may be given. 'Node' and 'Node:*' are both valid. Omitting topic subscribes to all topics", rules: ['scheduler.events.matching', 'scheduler.events.topic-star-equivalence', 'scheduler.events.topic-union', 'scheduler.events.no-topic-all'] },
    // Authentication
    { id: 'scheduler.acl.uses-acls', section: AUTH, quote: 'Access control uses ACLs; required permissions are in the endpoint table.', rules: ['scheduler.acl.client-endpoints', 'scheduler.events.acl', 'scheduler.acl.namespace-neighbours'],
      neighbours: [
        { scope: "the allocation's namespace beside a namespace whose name extends it and a third one", rule: 'scheduler.acl.namespace-neighbours', example: 'a token with the capability in <base>-a calls alloc stats, stat and logs on allocations in <base>-a (answered), <base>-ab and <base>-b (refused)' },
        { scope: 'one capability less on the same namespace', rule: 'scheduler.acl.namespace-neighbours', example: 'read-fs beside read-logs beside read-job: each endpoint answers exactly the token whose capability its row names' },
        { scope: '?namespace= naming another namespace', rule: 'scheduler.acl.namespace-neighbours', example: "stat and logs asked with ?namespace= set to each other namespace: a token lacking the capability in the allocation's namespace is refused whatever the parameter says" },
      ],
      wrongWays: [
        { kind: 'read-vs-write', how: 'node:read is taken for node:write.', rule: 'scheduler.acl.client-endpoints', example: 'tokens with node:read update metadata and GC all: refused; node:write may', fault: 'scheduler.client-acl-node-read-writes' },
        { kind: 'wrong-subject', how: 'namespace:read-job is taken for read-fs.', rule: 'scheduler.acl.client-endpoints', example: 'a read-job token reads allocation files: refused', fault: 'scheduler.client-acl-read-job-reads-fs' },
        { kind: 'other-namespace', how: "A capability held in any namespace is accepted, not only in the allocation's.", rule: 'scheduler.acl.client-endpoints', example: "a token with every capability in another namespace calls each endpoint: refused", fault: 'scheduler.client-acl-namespace-ignored' },
        { kind: 'route-or-verb-unchecked', how: 'Any known token passes whatever it may do.', rule: 'scheduler.acl.client-endpoints', example: 'each endpoint with a token lacking its capability: refused', fault: 'scheduler.client-acl-unchecked' },
        { kind: 'allowed-refused', how: 'The check asks for a stronger capability than the row (read-fs where read-logs is enough).', rule: 'scheduler.acl.client-endpoints', example: 'a read-logs token reads logs: answered', fault: 'scheduler.client-acl-logs-needs-read-fs' },
      ],
    },
    {
      id: 'scheduler.acl.event-topics',
      section: AUTH,
      quote: "Event stream permissions per topic: '*' (all topics, which is the default when no topic is given): management; ACLToken, ACLPolicy: management; Job, Allocation, Deployment, Evaluation: namespace:read-job; Node: node:read.",
      rules: ['scheduler.events.acl', 'scheduler.events.acl-neighbours'],
      neighbours: [
        { scope: "another namespace than the token's", rule: 'scheduler.events.acl-neighbours', example: 'a token with read-job in <base>-a subscribes to Job and to Evaluation in <base>-a (the job\'s event arrives) and in <base>-b (nothing)' },
        { scope: "topic '*' beside a granted topic", rule: 'scheduler.events.acl-neighbours', example: "the same token without a topic: nothing" },
        { scope: "topic '*' with node:read, beside Node's permission", rule: 'scheduler.events.acl-neighbours', example: "a token with read-job in <base>-a and node:read subscribes without a topic: nothing (management only)" },
        { scope: 'the other read-job topics beside Job', rule: 'scheduler.events.acl-neighbours', example: "the same token subscribes to Job, Allocation, Deployment and Evaluation at once in <base>-a: the job's event arrives" },
        { scope: 'the same token after its policy changed', rule: 'scheduler.events.acl-neighbours', example: 'read-job moved from <base>-a to <base>-b between subscriptions: the next subscription follows the new policy (fc.commands)' },
      ],
      wrongWays: [
        { kind: 'first-item-only', how: 'The check looks at the first topic of the subscription; a permitted one listed first opens the rest.', rule: 'scheduler.events.acl', example: 'a node:read token subscribes to Node and Job, a read-job token to Job and Node, in one request each: no event of the forbidden topic', fault: 'scheduler.events-acl-first-topic-only' },
        { kind: 'mixed-in-one-request', how: 'A subscription is checked as a whole against any one of its topics.', rule: 'scheduler.events.acl', example: 'the same two mixed subscriptions', fault: 'scheduler.events-acl-first-topic-only' },
        { kind: 'read-vs-write', how: 'The ACL topics are treated as readable by any token that reads something.', rule: 'scheduler.events.acl', example: 'node:read and read-job tokens subscribe to ACLToken and ACLPolicy: nothing; the management token receives both', fault: 'scheduler.events-acl-topics-open' },
      ],
    },
    // Events
    { id: 'scheduler.events.frames', section: EV, quote: 'The event stream delivers the frames described above.', rules: ['scheduler.events.frame-shape'] },
    { id: 'scheduler.events.topic-outputs', section: EV, quote: 'Topics and the object they output:', rules: ['scheduler.events.topic-payload'] },
    { id: 'scheduler.events.output-acl-token', section: EV, quote: 'ACLToken | ACLToken', rules: ['scheduler.events.topic-payload'] },
    { id: 'scheduler.events.output-acl-policy', section: EV, quote: 'ACLPolicy | ACLPolicy', rules: ['scheduler.events.topic-payload'] },
    { id: 'scheduler.events.output-allocation', section: EV, quote: 'Allocation | Allocation (no job information)', rules: ['scheduler.events.allocation-no-job', 'scheduler.events.topic-payload'] },
    { id: 'scheduler.events.output-job', section: EV, quote: 'Job | Job', rules: ['scheduler.events.topic-payload'] },
    { id: 'scheduler.events.output-evaluation', section: EV, quote: 'Evaluation | Evaluation', rules: ['scheduler.events.topic-payload'] },
    { id: 'scheduler.events.output-deployment', section: EV, quote: 'Deployment | Deployment', claim: 'Deployment events carry Payload.Deployment', gap: 'a deployment needs a service job with an update block and a health check that passes; the fixture job is a batch job, which makes no deployment' },
    { id: 'scheduler.events.output-node', section: EV, quote: '| Node | Node |', rules: ['scheduler.events.node-payload', 'scheduler.events.topic-payload'] },
    { id: 'scheduler.events.output-node-drain', section: EV, quote: 'NodeDrain | Node', claim: 'NodeDrain-topic events carry Payload.Node', gap: 'a drain stops every allocation on the node, the other tests\' and anyone else\'s: a run may not do that to a shared node (a rule would need a profile switch like gcAll); Nomad publishes drains on the Node topic with Type NodeDrain and has no NodeDrain topic, so the rule would also carry a Nomad deviation' },
    { id: 'scheduler.events.types', section: EV, quote: 'Event types: ACLTokenUpserted, ACLTokenDeleted, ACLPolicyUpserted, ACLPolicyDeleted, AllocationCreated, AllocationUpdated, AllocationUpdateDesiredStatus, DeploymentStatusUpdate, DeploymentPromotion, DeploymentAllocHealth, EvaluationUpdated, JobRegistered, JobDeregistered, JobBatchDeregistered, NodeRegistration, NodeDeregistration, NodeEligibility, NodeDrain, NodeEvent, PlanResult.', rules: ['scheduler.events.types'] },
    // Errors, limits, versioning
    { id: 'scheduler.errors.logs-disabled-404', section: 'Errors', quote: 'Log streaming answers 404 when logging is disabled for the task.', rules: ['scheduler.fs.logs-disabled-404'] },
    { id: 'scheduler.limits.metadata-delay', section: 'Limits', quote: 'Delay before dynamic node metadata reaches the servers | up to 10 seconds', untestable: SERVER_SIDE },
    { id: 'scheduler.versioning.v1', section: 'Versioning', quote: 'All paths carry the prefix /v1.', claim: 'Every endpoint is served under /v1 (every rule calls it there)', rules: ['scheduler.stats.fields', 'scheduler.events.frame-shape'] },
  ],
  nonStatements: [
    { section: SVC, quote: 'Client endpoints interact with client agents (nodes).', why: 'describes what the endpoints are for' },
    { section: SVC, quote: 'Node information from the servers is served by the separate /v1/node endpoints.', why: 'points to endpoints this spec does not describe' },
    { section: 'States and transitions', quote: 'Only sample values of node Status and SchedulingEligibility appear, with no moves between states.', why: 'says the spec gives no states' },
    { section: EP, quote: 'Read dynamic node metadata (GET /v1/client/metadata).', why: "the operation's name; its parameters and response are statements of their own" },
    { section: EP, quote: 'Update dynamic node metadata (POST /v1/client/metadata).', why: "the operation's name" },
    { section: EP, quote: 'Read stats (GET /v1/client/stats).', why: "the operation's name" },
    { section: EP, quote: 'Allocation stats.', why: "the operation's name" },
    { section: EP, quote: 'Read file (cat).', why: "the operation's name" },
    { section: EP, quote: 'Read at offset (readat).', why: "the operation's name" },
  ],
};
