import type { Rule } from '../types.ts';
import { SPEC_FILES } from '../spec-files.ts';

const file = SPEC_FILES.scheduler;
const EP = 'Endpoints';
const ESP = 'Endpoints > Event stream parameters';
const FIX = 'schedulerFixtures';
const rule = (r: Omit<Rule, 'system' | 'level'> & { level?: Rule['level'] }): Rule => ({ system: 'scheduler', level: 'MUST', ...r });

/** Upstream readings the rules below were settled on (hashicorp/nomad, main at aa026cc, 2.0.x; older tags named where they matter). */
const FRAMES_BACK_TO_BACK =
  'Nomad writes fs stream and log frames back to back with no newline between them: hashicorp/nomad client/fs_endpoint.go FileSystem.stream and FileSystem.logs encode each frame with structs.JsonHandle (nomad/structs/handlers.go, no TermWhitespace), and api/fs.go AllocFS.Stream reads them with a streaming json.Decoder. The suites read any stream as a sequence of JSON values however delimited (src/client/json-value-stream.ts).';

const WITNESS =
  "Events come from real actions made through the fixtures (Nomad's job, node and ACL API): a job registered or stopped, the node's eligibility toggled, ACL policies and tokens made and deleted. Each action returns the index of its frame, and its event is the one with that Index and the action's Key. The judged subscription is compared with a witness opened at the same time: a management subscription listing every topic (Job, Evaluation, Allocation, Deployment, Node, ACLToken, ACLPolicy) with namespace=*, over the same window of indexes; it must receive exactly the witness's events the spec's filter selects, so the rule holds whatever else the scheduler publishes meanwhile (evaluations, plan results, other tests' allocations).";

/** How the event rules read a window (suites/scheduler/event-reader.ts), from what real Nomad 1.6.1 and 2.0.5 do. */
const WINDOW =
  "The spec gives a frame an Index and nothing more, so several frames may share one: frames must come in non-decreasing index order, and no event may arrive twice (in two frames; a repeated frame is such a repeat). Nomad publishes a frame per state-store transaction, and a job registration or deregistration commits two at the raft log's index, the Job event's and then the Evaluation event's (hashicorp/nomad nomad/fsm.go applyUpsertJob and applyDeregisterJob; nomad/state/state_changes.go txn.Commit; v1.6.1 and v2.0.5). So a reader has every frame of the window's last index only once a later frame came: after its window each rule makes one more action the subscriptions it reads select. The target keeps a bounded buffer (Nomad: event_buffer_size, 100 frames by default), so the event rules run one at a time; a window that still leaves the buffer before it is read (the target no longer holds its index, as a management subscription from index 0 shows by its first frame, or it ended a stream that fell behind once the frames after it had left the buffer: Nomad's \"event dropped from buffer\") is no verdict: the rule makes its actions again, and after 3 lost windows it is an ERROR saying so.";

/** Spec 002: the event stream. */
export const schedulerEventRules: Rule[] = [
  rule({
    id: 'scheduler.events.frame-shape',
    title: 'The stream sends frames {Index, Events} whose events have Topic, Type, Key, Namespace, FilterKeys, Index and Payload; a job registration arrives as the frame of its index with the Job event of the job',
    capability: FIX,
    notes: ["The job is registered through the fixtures (an unplaceable batch job); Nomad: the register response's JobModifyIndex is the raft index of the frames with the Job and Evaluation events, two frames at that index (hashicorp/nomad nomad/state/events.go eventFromChange, table jobs and evals; nomad/fsm.go applyUpsertJob commits the job and then the evaluation). The Job event is looked for in every frame of the index."],
    sources: [
      { file, section: 'Resources and their fields > Event frame', quote: 'Event: Topic (string), Type (string), Key (string), Namespace (string), FilterKeys (null or list), Index (integer), Payload (object keyed by the object kind, e.g. Node).' },
    ],
  }),
  rule({
    id: 'scheduler.events.matching',
    title: 'For generated sequences of real actions and subscriptions (topics, filter keys, namespace, start index), a subscription receives exactly the events its filter selects, in non-decreasing index order, no event twice, without gaps',
    capability: FIX,
    notes: [
      WITNESS,
      WINDOW,
      "Up to 7 actions a case (job registrations and deregistrations in default and a namespace of the run, eligibility toggles, policy upserts), then one whose event the subscription selects, so the reader knows when the window is complete. Filter model: a topic's keys match the event's Key or any of its FilterKeys ('*' any); namespace filters namespaced topics only (Node and the ACL topics pass).",
      "Nomad appends an event once per subscribed key it matches, so an event whose Key and FilterKeys match two topic parameters appears twice in its frame (hashicorp/nomad nomad/stream/subscription.go filter, unchanged since 1.1). The spec says nothing about repeats within a frame: the test compares each frame's distinct events, and the hashicorp-dialect reference repeats them like Nomad.",
      "A topic given both bare (or with '*') and with a filter key is left out of the generated subscriptions: that case is scheduler.events.topic-union, where Nomad deviates.",
    ],
    sources: [
      { file, section: ESP, quote: "Subscribes to a topic with optional filter key after a colon. Several topic parameters may be given." },
      { file, section: ESP, quote: 'Index to start from.' },
    ],
  }),
  rule({
    id: 'scheduler.events.backlog-then-live',
    title: 'A subscription from an earlier index gets the backlog first, then new events as they happen, on the same connection',
    capability: FIX,
    notes: ['The job is registered again (with a changed meta: Nomad ignores an identical registration, nomad/job_endpoint.go Job.Register keeps the old JobModifyIndex when the spec did not change) only once the backlog frame has arrived on the open stream.'],
    sources: [{ file, section: 'What the service does', quote: "The event stream sends a server's backlog of events and then new events as they occur, until the connection closes." }],
  }),
  rule({
    id: 'scheduler.events.topic-star-equivalence',
    title: "'Topic' and 'Topic:*' subscribe to the same events: every Job event of the window, as a subscription to every topic sees them",
    capability: FIX,
    notes: [WITNESS, WINDOW],
    sources: [{ file, section: ESP, quote: "'Node' and 'Node:*' are both valid." }],
  }),
  rule({
    id: 'scheduler.events.topic-union',
    title: "Several topic parameters subscribe to all of them: 'Job' (or 'Job:*') beside 'Job:k', and '*:*' beside 'Job:k' or '*:k', receive every event of their topics; '*:k' alone receives the events of every topic keyed by k, and no other",
    capability: FIX,
    sources: [
      { file, section: ESP, quote: 'Subscribes to a topic with optional filter key after a colon. Several topic parameters may be given.' },
      { file, section: 'Authentication', quote: "'*' (all topics, which is the default when no topic is given)" },
    ],
    notes: [
      WITNESS,
      WINDOW,
      "The '*' topic's keys apply to every topic, beside the topic's own: '*:*' with 'Job:k' carries every event, '*:k' the events of any topic whose Key or FilterKeys hold k. Nomad does the same (hashicorp/nomad nomad/stream/subscription.go filter: '*:*' as the '*' topic's only key matches before any key is compared, \"*[*] always matches\"; otherwise the '*' topic's keys are prepended to the topic's own; v1.6.1 and v2.0.5). Those two subscriptions are asked first, so they are judged on Nomad as well.",
      "Nomad deviates (expectations/nomad.json): its filter treats '*' as any key only when it is the topic's only key; beside another key it is compared as a literal key, so 'Job' with 'Job:k' receives only k (hashicorp/nomad nomad/stream/subscription.go filter and eventMatchesKey; command/agent/event_endpoint.go parseTopic turns a bare 'Job' into the key '*'), and so does '*:*' beside '*:k'. The three are read before any is judged: a target that counts '*' as any key in some of them and not in others fails with a message of its own, apart from Nomad's listed reading (and from the upstream reference, which reproduces it).",
    ],
  }),
  rule({
    id: 'scheduler.events.no-topic-all',
    title: 'Without a topic parameter the stream carries events of every topic (Job, Evaluation, Node and the ACL topics of real actions among them)',
    capability: FIX,
    notes: [WITNESS, WINDOW, "The events of topics the witness does not list (Nomad also has NodePool, Service and others) are left out of the comparison. '*' needs a management token: the profile's token must be one (SKIP otherwise)."],
    sources: [{ file, section: ESP, quote: 'Omitting topic subscribes to all topics' }],
  }),
  rule({
    id: 'scheduler.events.namespace',
    title: "Namespaced events are filtered to 'default' unless namespace is given, and to exactly the namespace given, not one named like it; '*' carries every namespace",
    capability: FIX,
    notes: [WITNESS, WINDOW, 'The same job ID is registered in default and in three namespaces the run makes (Nomad Enterprise, or the reference): one, one it is a prefix of (<ns>-x) and one that ends like it (<another run name>-<ns>); each is asked alone. SKIP where the target has no namespaces.'],
    sources: [{ file, section: ESP, quote: "namespace | string | 'default' | Namespace filter; '*' means all namespaces for event types that support them" }],
  }),
  rule({
    id: 'scheduler.events.index-start',
    title: 'A subscription from an index still in the buffer starts there: the server sends no frame below the index',
    capability: FIX,
    notes: [
      "The job is registered twice (the second a change, so Nomad makes a new version); the subscription from the second registration's index, topic Job:<job>, is judged on the frames as the server sends them, before any client-side window: the first registration's frame, below the index and still buffered, must not come. Nomad: nomad/stream/event_buffer.go StartAtClosest starts at the item whose index equals the one asked for, or the next above it.",
    ],
    sources: [{ file, section: ESP, quote: 'index | integer | 0 | Index to start from.' }],
  }),
  rule({
    id: 'scheduler.events.index-evicted',
    title: 'An index no longer in the buffer (never published, or published and evicted) starts the stream at the next available index',
    capability: FIX,
    notes: [
      "The test registers a job, then registers it again (20 at a time, at most 3000) until a subscription from the first registration's index no longer starts there, and checks that the stream starts with the oldest Job events of that job still buffered (as a witness opened at the same time sees them), oldest first without a gap, not with live ones. Nomad: nomad/stream/event_broker.go EventBroker.Subscribe starts at eventBuffer.StartAtClosest, the buffer head when the index is older (nomad/stream/event_buffer.go); event_buffer_size defaults to 100 frames.",
      WINDOW,
    ],
    sources: [{ file, section: ESP, quote: 'If no longer in the buffer, streaming starts at the next available index' }],
  }),
  rule({
    id: 'scheduler.events.acl',
    title: 'A token without the permission a topic needs does not receive it (node:read for Node, namespace:read-job for Job and Allocation, management for all topics and ACL topics)',
    capability: FIX,
    notes: [
      "Tokens are made through the fixtures (an ACL policy with node { policy = \"read\" }, or namespace \"default\" with capabilities [\"read-job\"], and a client token with it); the management token is the profile's. Each refused subscription must show no event at all of the window; each allowed one exactly the witness's events of its topic. SKIP without ACLs, a management token or eligibility toggles (the Node events).",
      'ACLToken and ACLPolicy events come from real policy and token upserts, and a management token must receive them, so the ACL-topic checks can fail. A refusal is a 4xx or a stream without the events: Nomad 2.x hijacks the connection and writes 200 before the ACL check, so a denied subscription ends with no frames (hashicorp/nomad command/agent/event_endpoint.go EventStream; nomad/event_endpoint.go validateNsOp); Nomad 1.6 answers 500 (nomad/event_endpoint.go Event.stream: the refusal of SubscribeWithACLCheck is sent with code 500).',
      WITNESS,
      WINDOW,
    ],
    sources: [
      { file, section: 'Authentication', quote: "Event stream permissions per topic: '*' (all topics, which is the default when no topic is given): management; ACLToken, ACLPolicy: management; Job, Allocation, Deployment, Evaluation: namespace:read-job; Node: node:read." },
    ],
  }),
  rule({
    id: 'scheduler.events.namespace-star-acl',
    title: "namespace=* needs a management token or a policy applying to all namespaces: a token with read-job in one namespace receives nothing (nor from another namespace named alone), one whose read-job policy is for namespace '*' receives the Job events",
    capability: FIX,
    sources: [{ file, section: ESP, quote: "'*' means all namespaces for event types that support them; needs a management token or a policy applying to all namespaces" }],
    notes: [
      "The tokens are made through the fixtures: namespace \"default\" { capabilities = [\"read-job\"] }, and namespace \"*\" { capabilities = [\"read-job\"] } (Nomad's namespace glob). Nomad: nomad/event_endpoint.go Event.validateACL replaces '*' with every namespace that exists and checks read-job in each (validateNsOp, AllowNsOp), which a policy for the namespace glob \"*\" (or a management token) grants (acl/acl.go AllowNamespaceOperation looks the namespace up by exact name, then by glob); the filter then passes those namespaces only (nomad/stream/subscription.go filter, req.Namespaces). A refusal is a 4xx or a stream without the events, as in scheduler.events.acl.",
      "Nomad deviates before the fix of CVE-2025-0937 (expectations/nomad.json, range >=1.1.15 <1.2.0 || >=1.2.9 <1.3.0 || >=1.3.2 <1.7.18 || >=1.8.0 <1.8.10 || >=1.9.0 <1.9.6): nomad/stream/event_broker.go aclAllowsSubscription asks AllowNsOp(\"*\", read-job), which acl/acl.go grants when any namespace allows it, and the filter passes every namespace for '*'; so on 1.6.1 a token with read-job in default receives every namespace's Job events. Fixed by GH-25089 (Event.validateACL) in 1.9.6 and 1.10.0; 2.0.5 refuses it.",
    ],
  }),
  rule({
    id: 'scheduler.events.node-payload',
    title: "The Node event of an eligibility change carries the node with the spec's Node fields and their types, as it is after the change",
    capability: FIX,
    notes: [
      "The node is made ineligible through Nomad's API (POST /v1/node/:id/eligibility) and eligible again in any case. Nomad publishes the change as a Node event with Type NodeDrain whose Payload.Node is the whole node, sanitized (hashicorp/nomad nomad/state/events.go eventFromChange, table nodes, and MsgTypeEvents: NodeUpdateEligibilityRequestType → TypeNodeDrain; nomad/structs/structs.go Node). Fields whose type the spec leaves open must be there, with any value; Nomad sends null for an empty map or list, which passes where the spec gives no type. SKIP where eligibility may not be changed.",
      'Network entries (NodeResources.Networks) are checked with the types the spec gives (Mode, Device, CIDR, IP strings; MBits integer) where present: Nomad encodes NetworkResource with codec omitempty (hashicorp/nomad nomad/structs/structs.go NetworkResource), so an empty field may be left out.',
      'Nomad deviates (expectations/nomad.json, >=1.11.0): its Node has no Resources and no Reserved since 1.11.0 (PR 26951; nomad/structs/structs.go type Node; nomad/structs/extensions.go nodeExt adds back only Drain). Before, the client sends both (client/client.go setupNode; filled by the fingerprinters through 1.6), and 1.6.1 passes. Drain is there through nodeExt.',
    ],
    sources: [
      { file, section: 'Resources and their fields > Node (payload of node topics)', quote: 'Top-level fields: ID, Datacenter, Name, HTTPAddr (strings); TLSEnabled (boolean); Attributes (map string to string);' },
      { file, section: 'Events', quote: 'Node | Node' },
    ],
  }),
  rule({
    id: 'scheduler.events.types',
    title: "Every event of the run's real actions (job register and deregister with their evaluations, eligibility changes, ACL policy and token upserts and deletes) has one of the documented event types",
    capability: FIX,
    notes: [
      "The events of the actions' frames and those whose Key or FilterKeys name the run's job. Nomad's types for them are all listed: JobRegistered, JobDeregistered and EvaluationUpdated for jobs and their evaluations, NodeDrain for an eligibility change, ACLTokenUpserted, ACLTokenDeleted, ACLPolicyUpserted, ACLPolicyDeleted (hashicorp/nomad nomad/state/events.go MsgTypeEvents; nomad/structs/event.go Type constants). A node status change would be NodeStreamEvent, which the spec does not list, but no action of the run makes one.",
    ],
    sources: [{ file, section: 'Events', quote: 'Event types: ACLTokenUpserted, ACLTokenDeleted, ACLPolicyUpserted, ACLPolicyDeleted, AllocationCreated, AllocationUpdated, AllocationUpdateDesiredStatus, DeploymentStatusUpdate, DeploymentPromotion, DeploymentAllocHealth, EvaluationUpdated, JobRegistered, JobDeregistered, JobBatchDeregistered, NodeRegistration, NodeDeregistration, NodeEligibility, NodeDrain, NodeEvent, PlanResult.' }],
  }),
  rule({
    id: 'scheduler.events.allocation-no-job',
    title: 'The Allocation events of a placed job carry the allocation without its job (Payload.Allocation.Job absent or null)',
    capability: FIX,
    notes: [
      "A fixture job is placed and runs to completion; every Allocation event with its ID among the FilterKeys, from before its registration to its completion, is checked. Nomad copies the allocation and sets Job to nil (\"remove job info to help keep size of alloc event down\"), so the JSON has Job: null (hashicorp/nomad nomad/state/events.go eventFromChange, table allocs).",
    ],
    sources: [{ file, section: 'Events', quote: 'Allocation | Allocation (no job information)' }],
  }),
  rule({
    id: 'scheduler.events.topic-payload',
    title: "Each event's Payload is keyed by the object its topic outputs: Job → Payload.Job, Evaluation → Payload.Evaluation, Allocation → Payload.Allocation, Node → Payload.Node, ACLToken → Payload.ACLToken, ACLPolicy → Payload.ACLPolicy",
    capability: FIX,
    notes: [
      "Checked on every event of the run's real actions (a placed job's allocation among them), each of those topics at least once where the target allows the action. Nomad: JobEvent{Job}, EvaluationEvent{Evaluation}, AllocationEvent{Allocation}, NodeStreamEvent{Node}, ACLTokenEvent{ACLToken} (the secret left out), ACLPolicyEvent{ACLPolicy} (hashicorp/nomad nomad/structs/event.go; nomad/state/events.go eventFromChange).",
    ],
    sources: [
      { file, section: 'Resources and their fields > Event frame', quote: 'Payload (object keyed by the object kind, e.g. Node)' },
      { file, section: 'Events', quote: 'Topics and the object they output:' },
    ],
  }),
  rule({
    id: 'scheduler.events.acl-neighbours',
    title: "A token's read-job reaches the Job and Evaluation events of the namespace it names and not of a neighbour namespace, topic '*' stays refused, and after its policy changes the next subscription follows the new policy (generated sequences of policy changes and subscriptions, judged against the access model)",
    capability: FIX,
    sources: [
      { file, section: 'Authentication', quote: "Event stream permissions per topic: '*' (all topics, which is the default when no topic is given): management; ACLToken, ACLPolicy: management; Job, Allocation, Deployment, Evaluation: namespace:read-job; Node: node:read." },
      { file, section: ESP, quote: "namespace | string | 'default' | Namespace filter" },
    ],
    notes: [
      "The model is suites/models/scheduler-acl.ts (maySubscribe). A job is registered in each of two namespaces of the run; one client token (its own policy) subscribes from the first job's index with topic Job, Evaluation or none ('*') and the namespace of one job, and the policy is replaced between subscriptions (fc.commands: read-job in either namespace, both or neither, node:read or not; exact names only). Granted, the subscription must deliver that job's event; refused, no event of the window at all. Every case starts from read-job in the first namespace, so a first check precedes each change.",
      "Nomad resolves the token's policies at each subscription on the server (nomad/event_endpoint.go Event.stream, ResolveACL; the ACL cache is keyed by the policies' modify indexes, nomad/acl.go), so a changed policy takes effect at the next subscription. A refusal is a 4xx or a stream without the events, as in scheduler.events.acl: Nomad 2.0.5 leaves a refused subscription open and silent, so each costs the quiet bound (5 s); 1.6.1 answers 500 at once. namespace='*' is scheduler.events.namespace-star-acl's. The client endpoints are not asked after a policy change: a Nomad client caches a token's policies for acl.policy_ttl (30 s by default; client/acl.go resolvePolicies), which the spec does not show.",
    ],
  }),
];

const CAT_READAT_BY_CONTENT =
  "cat and readat are judged by what they deliver, not by their status: none of the file's bytes (any 16-byte run of it at a multiple of 16; an error text naming the path or the allocation never matches). Their status is scheduler.fs.refusal-status's: Nomad answers every cat and readat error with 200 and the error's text as the body (command/agent/http.go wrapUntrustedContent: helper/noxssrw's writer is closed before wrap writes the error, and its Write of the empty buffer commits a 200; since 0.10.5), which would otherwise FAIL every rule that refuses a read, hiding what else the rule checks.";

/** Spec 002: metadata, stats, files, logs, GC, IDs. */
export const schedulerClientRules: Rule[] = [
  rule({
    id: 'scheduler.metadata.merge',
    title: 'For generated updates of valid keys with string or null values, Meta is the merge of Static and Dynamic, only the listed keys change, and a key set to null is absent or null in Dynamic',
    sources: [
      { file, section: EP, quote: 'Body field Meta (object, required) holds keys to update; only listed keys change.' },
      { file, section: 'Resources and their fields > Node metadata response', quote: 'Merge of Static and Dynamic' },
    ],
    notes: [
      "Current Nomad deletes a key set to null from Dynamic unless the key is also static (hashicorp/nomad client/meta_endpoint.go NodeMeta.Apply, PR 18664: 1.5.10, 1.6.3 and 1.7.0 on); 1.5.0-1.5.9 and 1.6.0-1.6.2 keep it as null, and no API call removes it. Absent and null both pass. The updates draw from two keys of the run (per-run prefix: the key the metadata rules share, and a dotted key the seed picks), set to null again afterwards: on a Nomad that keeps nulls each key a run touches stays, so a run touches few (suites/scheduler/run-metadata-keys.ts), and the end-of-run cleanup says which stay.",
    ],
  }),
  rule({
    id: 'scheduler.metadata.invalid-keys',
    title: 'Keys that are not dotted identifiers (a slash, empty, other characters) are refused and change nothing',
    sources: [{ file, section: EP, quote: 'Keys must be valid dotted identifiers (a dotted name is valid; a name with a slash is not).' }],
    notes: ['The spec names no status for the refusal: any answer that is not a success passes (Nomad: 400, nomad/structs/node.go NodeMetaApplyRequest.Validate through client/meta_endpoint.go NodeMeta.Apply as a coded 400).'],
  }),
  rule({
    id: 'scheduler.metadata.static',
    title: 'Static metadata is reported and does not change when keys are set through the API',
    sources: [{ file, section: 'Resources and their fields > Node metadata response', quote: 'Set in the agent configuration; loaded only at agent start' }],
    notes: [
      'The test touches only keys it created (per-run prefix) and removes them afterwards: on Nomad, setting a static key to null "cleans up" nothing, it persists a null tombstone that hides the static value from Meta (hashicorp/nomad client/meta_endpoint.go NodeMeta.Apply keeps static null values so their removal is persisted).',
    ],
  }),
  rule({
    id: 'scheduler.metadata.node-id',
    title: "node_id with the node's full ID reads its metadata; a node_id of no node is refused",
    sources: [{ file, section: EP, quote: 'Parameter node_id (string, optional): full node ID; required through a server, defaults to the receiving node otherwise; given as query parameter.' }],
    notes: ['The spec names no status for the refusal: any answer that is not a success passes.'],
  }),
  rule({
    id: 'scheduler.stats.fields',
    title: 'Client stats has every documented field with its type, with figures of a real machine (the CPU entries and DeviceStats have rules of their own)',
    sources: [{ file, section: 'Resources and their fields > Client stats response', quote: 'Memory | {Available, Free, Total, Used} integers' }],
    notes: [
      "The CPU entries' fields and DeviceStats are checked by scheduler.stats.cpu and scheduler.stats.device-stats, where Nomad deviates, so that those deviations do not hide the rest of the answer.",
    ],
  }),
  rule({
    id: 'scheduler.stats.cpu',
    title: 'Each CPU entry of client stats has CPU (string) and Idle, System, Total, User (numbers)',
    sources: [{ file, section: 'Resources and their fields > Client stats response', quote: 'CPU | array of {CPU string, Idle, System, Total, User numbers}' }],
    notes: ['Nomad deviates (expectations/nomad.json): hashicorp/nomad client/hoststats/host.go CPUStats (client/stats/host.go before 1.7) has TotalPercent and TotalTicks instead of Total since 1.6.0 (PR 17579); 1.5.x and older send Total.'],
  }),
  rule({
    id: 'scheduler.stats.device-stats',
    title: 'DeviceStats of client stats is an array of device groups',
    sources: [{ file, section: 'Resources and their fields > Client stats response', quote: 'DeviceStats | array of {Name, Type, Vendor strings;' }],
    notes: ['Nomad deviates (expectations/nomad.json): DeviceStats is null when no device plugin reports statistics (hashicorp/nomad client/devicemanager/manager.go manager.AllStats returns a nil slice; client/hoststats/host.go collectDeviceGroupStats).'],
  }),
  rule({
    id: 'scheduler.alloc-stats.fields',
    title: 'Allocation stats of a running allocation has ResourceUsage, Tasks (one per task) and Timestamp',
    capability: FIX,
    notes: [
      "Asked of a running allocation, and given a few seconds for each task's first sample: Nomad lists only tasks with a usage sample and sums only running ones, so a stopped allocation may report no task usage and null Measured lists (hashicorp/nomad client/allocrunner/alloc_runner.go allocRunner.LatestAllocStats; client/structs/structs.go MemoryStats.Add).",
    ],
    sources: [{ file, section: 'Resources and their fields > Allocation stats response', quote: 'Tasks | map task name to {Pids, ResourceUsage, Timestamp}' }],
  }),
  rule({
    id: 'scheduler.fs.readat',
    title: 'For generated offsets and limits of at least 1, readat returns exactly that slice of the file',
    capability: FIX,
    sources: [{ file, section: EP, quote: 'Read at offset (readat). Parameters: alloc_id; path (default \'/\'); offset (integer, required, byte offset); limit (integer, required, number of bytes). Response: up to limit bytes from offset.' }],
    notes: ['limit=0 is scheduler.fs.readat-limit-zero, so that its verdict never depends on the generated cases.'],
  }),
  rule({
    id: 'scheduler.fs.readat-limit-zero',
    title: 'readat with limit 0 returns no bytes',
    capability: FIX,
    sources: [{ file, section: EP, quote: 'Response: up to limit bytes from offset.' }],
    notes: ['Nomad deviates (expectations/nomad.json): hashicorp/nomad client/fs_endpoint.go FileSystem.streamFile reads to the end of the file when limit <= 0, and command/agent/fs_endpoint.go FileReadAtRequest passes limit 0 through.'],
  }),
  rule({
    id: 'scheduler.fs.cat',
    title: 'cat returns the whole file',
    capability: FIX,
    sources: [{ file, section: EP, quote: "Read file (cat). Parameters: alloc_id (path, required); path (string, default '/', relative to the allocation directory root). Response: file content." }],
  }),
  rule({
    id: 'scheduler.fs.ls-stat',
    title: 'ls lists the files of a directory as file info; stat of each agrees with its ls entry and with its bytes, and its FileMode is a permission string of a directory or a file as IsDir says',
    capability: FIX,
    sources: [
      { file, section: EP, quote: 'List files (ls). Parameters: alloc_id; path (default \'/\'). Response: array of file info.' },
      { file, section: 'Resources and their fields > File info', quote: 'Size | integer' },
      { file, section: 'Resources and their fields > File info', quote: 'FileMode | string (permission string)' },
    ],
    notes: [
      "A permission string is read as ls prints it and Go's FileMode.String() writes it (Nomad's client/allocdir/alloc_dir.go fileInfo): type letters or '-' for a regular file, then nine places of r, w, x or '-'. A directory's carries 'd'. The permissions themselves are not compared: they follow the task's umask.",
    ],
  }),
  rule({
    id: 'scheduler.fs.default-path',
    title: "Without path, ls lists the allocation directory's root",
    capability: FIX,
    sources: [{ file, section: EP, quote: "List files (ls). Parameters: alloc_id; path (default '/')." }],
  }),
  rule({
    id: 'scheduler.fs.stat-default-path',
    title: "Without path, stat describes the allocation directory's root (a directory)",
    capability: FIX,
    sources: [{ file, section: EP, quote: "Stat file. Parameters: alloc_id; path (default '/'). Response: file info." }],
    notes: ['Nomad deviates (expectations/nomad.json): hashicorp/nomad command/agent/fs_endpoint.go FileStatRequest answers 400 "must provide a file name" when path is missing.'],
  }),
  rule({
    id: 'scheduler.fs.path-escape',
    title: 'For generated paths that leave the allocation directory (dot segments from any depth, with or without a leading slash or a ./ segment; percent-encoded, with encoded slashes, mixed or double-encoded; absolute paths; a traversing task name for logs), cat, readat, ls, stat, stream and logs return nothing from outside the directory, and ls, stat, stream and logs answer no success',
    capability: FIX,
    sources: [{ file, section: EP, quote: "path (string, default '/', relative to the allocation directory root)" }],
    notes: [
      'The spec states no status for a refused path: any non-2xx passes. Nomad answers 500 for ls and stat (client/allocdir/alloc_dir.go AllocDir.List and AllocDir.Stat return a plain "Path escapes the alloc directory" error, which command/agent/http.go errCodeFromHandler makes a 500) and 400 for stream (client/fs_endpoint.go FileSystem.stream fails its Stat with code 400); logs refuses a task name it does not know with 400 (FileSystem.logs).',
      CAT_READAT_BY_CONTENT,
      "Percent-encoded dots are sent as they are ('%2e%2e'), not re-encoded by the client, and stream frames are decoded before looking for outside bytes. A double-encoded '%252e%252e', decoded once as a server must, names a directory literally called '%2e%2e', which does not exist: no success either way. An absolute path is relative to the allocation directory's root (the spec's 'relative to the allocation directory root'; Nomad joins it to the allocation directory, client/allocdir/alloc_dir.go), so /etc/passwd names nothing there.",
      'The generated probes (suites/scheduler/path-escape.ts) run after explicit examples that give every operation every encoding toward a sibling allocation and toward the machine, an absolute path, and the logs task forms, so any seed reaches them. Symlinks are not tried: the fixture job makes none (its task writes files through templates and appends to one).',
    ],
  }),
  rule({
    id: 'scheduler.fs.stream',
    title: "Decoded stream frames concatenate to the file's bytes from the requested offset and origin, each frame with data naming the file in File",
    capability: FIX,
    notes: [FRAMES_BACK_TO_BACK],
    sources: [
      { file, section: EP, quote: "Stream file. Parameters: alloc_id; path (default '/'); follow (bool, default true, tail the file); offset (integer, required); origin (string, 'start' or 'end', relative base of offset)." },
      { file, section: 'Resources and their fields > Stream frame (file stream and log stream)', quote: 'Data | string | Base64 of the streamed bytes' },
    ],
  }),
  rule({
    id: 'scheduler.fs.stream-follow',
    title: 'A followed stream delivers the complete "tick <n>" lines a running task appends to its file after the stream started, in order, each frame\'s bytes being the file\'s bytes at its Offset',
    capability: FIX,
    notes: [
      FRAMES_BACK_TO_BACK,
      'The running fixture task appends "tick <n>" to local/grow.txt every 250 ms. The file is read back with readat afterwards. The spec says only "Offset into the stream": frames follow each other without gap or overlap, and each frame\'s Offset must point into its own bytes, at their start, their end or between. Nomad sends the position after a read (client/fs_endpoint.go streamFile passes the offset after each read to the framer), and a frame its framer batched from several reads within its 200 ms window keeps the Offset of its first read (client/lib/streamframer/framer.go StreamFramer.Send), which a loaded host makes likely: demanding the start or the end of every frame made a verdict of the host\'s load.',
    ],
    sources: [{ file, section: EP, quote: 'follow (bool, default true, tail the file)' }],
  }),
  rule({
    id: 'scheduler.fs.stream-file-events',
    title: "A followed stream of a file the task truncates and then deletes reports 'file truncated' with the new position (the file's start) and goes on from there, then 'file deleted' with the position reached",
    capability: FIX,
    sources: [{ file, section: 'Resources and their fields > Stream frame (file stream and log stream)', quote: "FileEvent | string | 'file deleted' or 'file truncated'; an event that may change the stream position" }],
    notes: [
      FRAMES_BACK_TO_BACK,
      "The fixture task appends a tick line every 300 ms, truncates its file right after tick 12 (: > file) and deletes it right after tick 20, then stops ticking. Nomad (hashicorp/nomad client/fs_endpoint.go streamFile): on a truncation it reopens the file at offset 0 and sends the next read with FileEvent \"file truncated\"; on a deletion it sends a frame with FileEvent \"file deleted\" and the offset reached, and ends the stream; StreamFrame's Offset is omitempty (client/lib/streamframer/framer.go), so a missing Offset reads as 0. Offset is read at the frame's start or after its bytes, as in scheduler.fs.stream-follow. The line written just before the truncation or the deletion may or may not reach the stream (the file changes again at once): only the ticks between are required.",
      "A repeated FileEvent frame counts once: a frame without data whose FileEvent, File and Offset are those of the frame before it (heartbeats aside) reports the same event again, and the spec does not say an event is reported once. Nomad sends 'file truncated' twice: client/lib/streamframer/framer.go StreamFramer.Send forces a frame without data out but leaves it uncleared, so the next flush or Send sends it again (v1.6.1 and v2.0.5).",
    ],
  }),
  rule({
    id: 'scheduler.fs.follow-defaults',
    title: 'A file stream without follow tails the file (default true); with follow=false it ends after the bytes there; logs without follow end after the bytes there (default false)',
    capability: FIX,
    sources: [
      { file, section: EP, quote: 'follow (bool, default true, tail the file)' },
      { file, section: EP, quote: 'Stream logs. Parameters: alloc_id; task (string, required); follow (bool, default false)' },
    ],
    notes: [
      'Asked of the running fixture, whose task keeps appending to its file and its stdout, so a stream that does not end by itself within 5 s is following. Nomad: command/agent/fs_endpoint.go Stream parses follow with default true and Logs with default false; client/fs_endpoint.go streamFile returns at EOF when not following.',
    ],
  }),
  rule({
    id: 'scheduler.fs.logs-defaults',
    title: 'Logs without offset and origin are the whole log (offset 0 from the start), framed and plain',
    capability: FIX,
    sources: [{ file, section: EP, quote: "offset (integer, default 0); origin ('start' or 'end', default 'start'); plain (bool, default false; plain text without framing)" }],
    notes: ["type is always given: its default is not shown, and Nomad refuses logs without it (scheduler.upstream.fs-params-400). Nomad: command/agent/fs_endpoint.go Logs takes origin \"start\" and offset 0 when they are missing."],
  }),
  rule({
    id: 'scheduler.fs.logs',
    title: "Decoded log frames concatenate to the task log's bytes from the requested offset and origin; plain logs equal the framed ones decoded",
    capability: FIX,
    notes: [FRAMES_BACK_TO_BACK],
    sources: [{ file, section: EP, quote: "plain (bool, default false; plain text without framing)" }],
  }),
  rule({
    id: 'scheduler.fs.logs-follow',
    title: 'A followed log stream delivers the complete "tick <n>" lines a running task writes to stdout after it started, in order, each frame\'s bytes being the log\'s bytes at its Offset',
    capability: FIX,
    notes: [
      FRAMES_BACK_TO_BACK,
      'The running fixture task echoes "tick <n>" to stdout every 250 ms; the log is read back as plain text afterwards (one log file: the fixture\'s logs rotate at 10 MB). Offsets are read as in scheduler.fs.stream-follow.',
    ],
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
    title: "After GC of a stopped allocation its files are gone from the node; GC asked of a running allocation leaves its files",
    capability: FIX,
    notes: [
      'Nomad collects only terminal allocations: client/gc.go AllocGarbageCollector.Collect finds a running one nowhere and client/alloc_endpoint.go Allocations.GarbageCollect answers a plain error (500). The spec states no status for that refusal: only the running allocation\'s files are checked.',
      'Collected means ls answers no success and cat delivers none of the file\'s bytes. ' + CAT_READAT_BY_CONTENT,
    ],
    sources: [{ file, section: EP, quote: 'Forces garbage collection of one stopped allocation on the node' }],
  }),
  rule({
    id: 'scheduler.gc.all',
    title: 'GC of all collects every stopped allocation on the node, and leaves running allocations',
    capability: FIX,
    notes: [
      'Nomad collects in the background: client/gc.go AllocGarbageCollector.CollectAll starts destroyAllocRunner in a goroutine per allocation and the endpoint answers at once, so the test waits up to 10 s for the files to go.',
      'Collected means ls answers no success and cat delivers none of the file\'s bytes. ' + CAT_READAT_BY_CONTENT,
    ],
    sources: [{ file, section: EP, quote: 'GC all. Parameter node_id (string, optional; required through a server). Collects all stopped allocations on the node.' }],
  }),
  rule({
    id: 'scheduler.acl.client-endpoints',
    title: "Each client endpoint accepts a token holding the grant its \"ACL required\" entry lists, in the allocation's namespace, and refuses tokens holding only another (node:read, node:write, read-job, read-fs, read-logs, submit-job, or every capability in another namespace)",
    capability: FIX,
    sources: [
      { file, section: 'Authentication', quote: 'Access control uses ACLs; required permissions are in the endpoint table.' },
      { file, section: EP, quote: 'GET | /v1/client/fs/logs/:alloc_id | text/plain | namespace:read-logs or namespace:read-fs' },
    ],
    notes: [
      'Every token is made through the fixtures with exactly one grant (a policy with node { policy = "read" | "write" }, or namespace "<ns>" { capabilities = [<one>] }); each is tried on every endpoint of the table. The spec states no status for a refusal: any answer that is not a success passes (Nomad: 403 Permission denied). Accepted, cat and readat also deliver the file.',
      CAT_READAT_BY_CONTENT,
      "Nomad checks the same grants on the client (hashicorp/nomad client/meta_endpoint.go NodeMeta.Read AllowNodeRead and Apply AllowNodeWrite; client/client_stats_endpoint.go AllowNodeRead; client/alloc_endpoint.go Stats read-job, GarbageCollect submit-job (or gc-allocation, which no token here holds), GarbageCollectAll AllowNodeWrite; client/fs_endpoint.go List, Stat and stream read-fs, logs read-fs or read-logs; AllowNsOp in the allocation's namespace). A node policy \"write\" includes read in Nomad (nomad/acl/acl.go AllowNodeRead): the spec does not say, so a node:write token is not judged on node:read endpoints.",
      'GC of all is tried with the node:write token only where the profile allows collecting the node (gcAll); refusals are tried everywhere.',
    ],
  }),
  rule({
    id: 'scheduler.acl.namespace-neighbours',
    title: "For generated tokens with capabilities in named namespaces, allocation stats, stat and logs on allocations of three namespaces (two sharing a prefix) are granted exactly where the token holds the endpoint's capability in the allocation's namespace; ?namespace= naming a namespace the token may read never opens an allocation of another; each token is asked beside a neighbour token that differs in one block's namespace or one capability",
    capability: FIX,
    sources: [
      { file, section: 'Authentication', quote: 'Access control uses ACLs; required permissions are in the endpoint table.' },
      { file, section: EP, quote: 'GET | /v1/client/allocation/:alloc_id/stats | application/json | namespace:read-job' },
      { file, section: EP, quote: 'GET | /v1/client/fs/stat/:alloc_id | text/plain | namespace:read-fs' },
      { file, section: EP, quote: 'GET | /v1/client/fs/logs/:alloc_id | text/plain | namespace:read-logs or namespace:read-fs' },
    ],
    notes: [
      "The model is suites/models/scheduler-acl.ts (mayUseNamespaced, mayUseWithQueryNamespace). Each token is one policy of exact-name namespace blocks with explicit capabilities (read-job, read-fs, read-logs), made through the fixtures. Every decision is asked: 3 endpoints x 3 allocations, and stat and logs again with ?namespace= each other namespace. A failure names the decision, what the model allows and the neighbouring decisions (one attribute changed) with their answers.",
      "The spec grants by the allocation's namespace and lists no namespace parameter for client endpoints: a token without the capability there is refused whatever ?namespace= names; one that holds it may be served or refused (scheduler.upstream.acl-namespace-patterns takes Nomad's answer: served; client/fs_endpoint.go and client/alloc_endpoint.go check alloc.Namespace). stat and allocation stats are judged by their status (Nomad: 403), plain logs by what they deliver (the task's stdout, or none of its bytes).",
    ],
  }),
  rule({
    id: 'scheduler.endpoints.no-blocking',
    title: 'A blocking-query index far ahead (with wait=4s) does not hold back the answer of a client endpoint (metadata, stats, allocation stats, cat, readat, ls, stat)',
    capability: FIX,
    sources: [{ file, section: EP, quote: 'For every endpoint blocking queries are not supported.' }],
    notes: [
      "Each answer must come within 2 s, whatever its status (the spec does not say whether the parameters are ignored or refused). Nomad parses index and wait into the request's QueryOptions (command/agent/http.go parse) but the client endpoints answer at once (client/meta_endpoint.go, client/client_stats_endpoint.go, client/alloc_endpoint.go, client/fs_endpoint.go have no blocking query).",
    ],
  }),
  rule({
    id: 'scheduler.endpoints.produces',
    title: "Each client endpoint answers with the media type its Produces column lists (application/json for metadata, stats and allocation stats; text/plain for cat, readat, stream, logs, ls and stat; application/json for an allocation GC answer with a body)",
    capability: FIX,
    sources: [
      { file, section: EP, quote: "'Produces' is as listed for each endpoint." },
      { file, section: EP, quote: 'GET | /v1/client/fs/ls/:alloc_id | text/plain | namespace:read-fs' },
    ],
    notes: [
      "Only the media type is compared (parameters such as charset are left out). The allocation GC's body is not shown: an empty answer without a Content-Type passes (Nomad returns no body: command/agent/alloc_endpoint.go ClientGCRequest returns nil). GC of all is not asked (it would collect the node's stopped allocations).",
      'Nomad: command/agent/http.go wrap sets application/json on every JSON answer, ls and stat among them (a deviation, expectations/nomad.json); command/agent/fs_endpoint.go Logs sets application/json on framed logs (a deviation) and text/plain on plain ones; cat and readat go through wrapUntrustedContent (noxssrw: text/plain for text); Stream sets none and Go sniffs its JSON frames as text/plain; charset=utf-8.',
    ],
  }),
  rule({
    id: 'scheduler.ids.full-only',
    title: 'The short 8-character form of an allocation ID (stats, cat, readat, stream, logs, ls, stat, GC) or node ID (metadata read and update, stats, GC of all) is refused where the full ID works, and a refused GC collects nothing',
    capability: FIX,
    sources: [{ file, section: 'What the service does', quote: 'Node IDs and allocation IDs in these endpoints must be full IDs, not the short 8-character form.' }],
    notes: [
      'The spec names no status for the refusal: any answer that is not a success passes. Nomad answers 500 "alloc lookup failed: index error: UUID must be 36 characters" (or "node lookup failed: …"): an ID the local client does not hold goes to the server, whose state store looks it up through go-memdb\'s UUIDFieldIndex (command/agent/helpers.go rpcHandlerForAlloc, rpcHandlerForNode; nomad/state/state_store.go AllocByID), and command/agent/http.go wrap makes the plain error a 500.',
      CAT_READAT_BY_CONTENT,
    ],
  }),
  rule({
    id: 'scheduler.fs.refusal-status',
    title: 'cat and readat answer what they refuse (a missing file, a path outside the allocation directory, an unknown, short or collected allocation ID, a token without read-fs) with a status that is not a success, and deliver none of the file\'s bytes',
    capability: FIX,
    sources: [
      { file, section: EP, quote: "path (string, default '/', relative to the allocation directory root)" },
      { file, section: 'What the service does', quote: 'Node IDs and allocation IDs in these endpoints must be full IDs, not the short 8-character form.' },
      { file, section: 'Authentication', quote: 'Access control uses ACLs; required permissions are in the endpoint table.' },
      { file, section: EP, quote: 'Response: file content.' },
    ],
    notes: [
      'The one rule that judges the status of cat and readat when they refuse (the others judge what they deliver): the spec names no status for a refusal, so any answer that is not a success passes, and a success status says the file was read. Each answer is first checked to deliver none of the file\'s bytes, so a leak fails this rule whatever its status. The token case needs ACLs (the profile\'s capability acl); the collected allocation is the run\'s own, collected through GET /v1/client/allocation/:alloc_id/gc.',
      "Nomad deviates (expectations/nomad.json): every cat and readat error is answered 200 with the error's text as the body (command/agent/http.go wrapUntrustedContent, helper/noxssrw; since 0.10.5), though Nomad logs the status it meant (400, 403, 404 or 500).",
    ],
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
    id: 'scheduler.upstream.stream-origin-default-start',
    level: 'UPSTREAM',
    title: 'A file stream without origin reads from the start (offset counted from the file\'s beginning)',
    capability: FIX,
    sources: [{ file, section: EP, quote: 'Default of type for log streaming and default of origin for file streaming: not shown.' }],
    upstream: nomad('command/agent/fs_endpoint.go', 'HTTPServer.Stream: an empty origin becomes "start"'),
  }),
  rule({
    id: 'scheduler.upstream.fs-params-400',
    level: 'UPSTREAM',
    title: 'logs without task or with a bad type, and stream with an origin other than start or end, answer 400',
    capability: FIX,
    sources: [{ file, section: 'Errors', quote: 'Other status codes and the error body format of these endpoints: not shown.' }],
    upstream: nomad('command/agent/fs_endpoint.go', 'must provide task name / log type → 400; origin must be start or end → 400'),
  }),
  rule({
    id: 'scheduler.upstream.acl-namespace-patterns',
    level: 'UPSTREAM',
    title: "Policies with namespace globs ('*', a prefix, a suffix), shorthand policies (read, write, deny) and several matching blocks: an exact block wins over every glob, the closest glob over the others, a deny clears its block, `read` reaches allocation stats but neither files nor logs; ?namespace= never changes the decision; a token's several policies on the same namespace or node block merge in either order (a deny wins, capabilities add up, node deny over write over read); every namespace capability but an endpoint's own (Nomad's others such as alloc-lifecycle) and each shorthand word is asked on every client endpoint, allocation GC included (generated tokens and their neighbours, judged against the access model)",
    capability: FIX,
    sources: [{ file, section: 'Authentication', quote: 'Access control uses ACLs; required permissions are in the endpoint table.' }],
    upstream: nomad('acl/acl.go', 'matchingNamespaceCapabilitySet: an exact namespace block, else findClosestMatchingGlob (difference len(ns) - len(glob) + count(*)); NewACL: a deny clears the block, the blocks of all of a token\'s policies naming one pattern merge ("Deny always takes precedence"), the node policy is maxPrivilege (deny, then write, then read); acl/policy.go expandNamespacePolicy: read has no read-fs or read-logs, write has both; client/alloc_endpoint.go GarbageCollect checks submit-job (2.0.5 also gc-allocation), not alloc-lifecycle; client/fs_endpoint.go and client/alloc_endpoint.go check alloc.Namespace, whatever ?namespace= says'),
    notes: [
      "The model is suites/models/scheduler-acl.ts (capabilitySets, mayUseNamespaced with the upstream semantics). The spec does not show the policy language. The same three namespaces and allocations as scheduler.acl.namespace-neighbours (patterns: each exact name, the prefix <base>-a*, <base>-*, '*', a suffix glob); equally close globs leave either answer open. Nomad 2.0.5 and 1.6.1 answer as the model says (asked with --expect nomad: PASS on both).",
      "Several policies: tokens of 2-3 policies (namespace blocks mostly on <base>-a, and node deny/read/write), each asked beside the same policies listed in the reverse order; every decision also asks the node endpoints (GET metadata and stats, node:read; POST metadata unsetting the run's own key, node:write). A node write asked on a node:read endpoint is not judged (the spec does not say write includes read). The spec names capabilities and policies but does not show how a token's policies combine: upstream. PASS on Nomad 2.0.5 and 1.6.1.",
      "Every other capability: one token per capability in <base>-b (the spec's four, and Nomad's others that 1.6.1 and 2.0.5 both accept: list-jobs, parse-job, dispatch-job, alloc-exec, alloc-node-exec, alloc-lifecycle, csi-*, scaling ones, submit-recommendation, sentinel-override; gc-allocation is left out, 2.0.5 takes it for GC) and per shorthand word (read, write, deny), on every endpoint. Allocation GC collects the allocation the other decisions read, so it is asked wherever the model refuses (status 403 under this profile) and never where it grants (scheduler.acl.client-endpoints asks the grant on an allocation of its own).",
    ],
  }),
];
