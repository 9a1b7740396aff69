import type { Rule } from '../types.ts';
import { SPEC_FILES } from '../spec-files.ts';

const file = SPEC_FILES.scheduler;

export const schedulerMetadataRules: Rule[] = [
  {
    id: 'scheduler.metadata.null-unsets',
    system: 'scheduler',
    title: 'POST /v1/client/metadata then GET returns the merged Meta; a key set to null is absent from Meta, and absent or null in Dynamic',
    level: 'MUST',
    sources: [
      { file, section: 'Resources and their fields > Node metadata response', quote: 'Merge of Static and Dynamic' },
      { file, section: 'Resources and their fields > Node metadata response', quote: "Set through the API; values may be null to mean unset, distinct from ''" },
      { file, section: 'Endpoints', quote: "Each value is a string, or null to mark the key unset ('' is a valid, distinct value)." },
    ],
    notes: [
      "Current Nomad deletes a key set to null from Dynamic unless the key is also static (hashicorp/nomad client/meta_endpoint.go NodeMeta.Apply, PR 18664: 1.5.10, 1.6.3 and 1.7.0 on); 1.5.0-1.5.9 and 1.6.0-1.6.2 keep it as null, and no API call removes it. Either way the key is unset, so absent and null both pass.",
    ],
  },
  {
    id: 'scheduler.metadata.node-id-default',
    system: 'scheduler',
    title: 'Without node_id (and without NodeID in the body) the node that receives the request answers: a key set so is the node\'s, read with its full ID; NodeID in the body names the node; stats answer without node_id',
    level: 'MUST',
    sources: [
      { file, section: 'Endpoints', quote: 'Parameter node_id (string, optional): full node ID; required through a server, defaults to the receiving node otherwise; given as query parameter.' },
      { file, section: 'Endpoints', quote: 'Parameters: NodeID in the body or node_id in the query (string, optional, same rules).' },
    ],
    notes: [
      "The target is the agent of the profile's node (the fixtures' node): a client, or a server that is also that client (nomad agent -dev). Nomad: command/agent/meta_endpoint.go and stats_endpoint.go serve the request on the local client when node_id is empty or names it (rpcHandlerForNode), and refuse it on a server-only agent, which is the \"required through a server\" a client target cannot show.",
    ],
  },
  {
    id: 'scheduler.metadata.write-neighbours',
    system: 'scheduler',
    title: "POST /v1/client/metadata is granted to a node:write token and refused to its neighbour with node:read, and to a token with every namespace capability, and a refused write sets nothing; a write for another node's ID is refused and changes nothing of this node while the same write with this node's ID sets the key; a static key set to null leaves Static as it was",
    level: 'MUST',
    capability: 'schedulerFixtures',
    sources: [
      { file, section: 'Endpoints', quote: 'POST | /v1/client/metadata | application/json | node:write' },
      { file, section: 'Endpoints', quote: 'Parameters: NodeID in the body or node_id in the query (string, optional, same rules).' },
      { file, section: 'Resources and their fields > Node metadata response', quote: 'Set in the agent configuration; loaded only at agent start' },
      { file, section: 'Endpoints', quote: "Each value is a string, or null to mark the key unset ('' is a valid, distinct value)." },
    ],
    notes: [
      "The model is suites/models/scheduler-acl.ts (mayUseNode). Each token writes the run's own key; the key is read back with the management token after every write, and unset at the end.",
      "A static key is set to null only when the node has one named stackproof.* (or stackproof_ / stackproof-) that its operator made for it: on Nomad the write persists a null tombstone that hides the static value from Meta for good (hashicorp/nomad client/meta_endpoint.go NodeMeta.Apply keeps static null values; the embedded reference has such a key). Static must not change; Dynamic holds the key null or not at all; Meta holds it unset (Nomad) or with its static value (the merge of an unset dynamic value), and nothing else of Meta changes.",
    ],
  },
];
