import type { NomadAgent } from './nomad-agent.ts';

/**
 * What a run could change or leave behind on a Nomad agent, as the agent's own listings show it:
 * jobs, namespaces, ACL tokens, policies and roles, variables, the node's eligibility and drain, and
 * its metadata both as the client holds it (/v1/client/metadata: Meta, Dynamic) and as the servers see
 * it (the node's Meta), which follows the client's after up to 10 s of batching.
 */
export interface NomadSnapshot {
  jobs: string[];
  namespaces: string[];
  tokens: string[];
  policies: string[];
  roles: string[];
  variables: string[];
  node: { eligibility: string; drain: unknown; meta: Record<string, string> };
  clientMetadata: { Meta: Record<string, string | null>; Dynamic: Record<string, string | null> };
}

/** How long the client takes at most to pass metadata changes to the servers (client/meta_endpoint.go batching: 10 s). */
export const NOMAD_METADATA_BATCH_MS = 10_000;

async function get(agent: NomadAgent, path: string): Promise<any> {
  const res = await fetch(`${agent.url}${path}`, { headers: { 'x-nomad-token': agent.token } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : undefined;
}

const sorted = (xs: string[]) => [...xs].sort();

export async function nomadSnapshot(agent: NomadAgent): Promise<NomadSnapshot> {
  const [jobs, namespaces, tokens, policies, roles, variables, node, metadata] = await Promise.all([
    get(agent, '/v1/jobs?namespace=*'),
    get(agent, '/v1/namespaces'),
    get(agent, '/v1/acl/tokens'),
    get(agent, '/v1/acl/policies'),
    get(agent, '/v1/acl/roles'),
    get(agent, '/v1/vars?namespace=*'),
    get(agent, `/v1/node/${agent.nodeId}`),
    get(agent, `/v1/client/metadata?node_id=${agent.nodeId}`),
  ]);
  return {
    jobs: sorted((jobs as { Namespace: string; ID: string }[]).map((j) => `${j.Namespace}/${j.ID}`)),
    namespaces: sorted((namespaces as { Name: string }[]).map((n) => n.Name)),
    tokens: sorted((tokens as { AccessorID: string; Name: string }[]).map((t) => `${t.AccessorID} ${t.Name}`)),
    policies: sorted((policies as { Name: string }[]).map((p) => p.Name)),
    roles: sorted(((roles ?? []) as { Name: string }[]).map((r) => r.Name)),
    variables: sorted(((variables ?? []) as { Namespace: string; Path: string }[]).map((v) => `${v.Namespace}/${v.Path}`)),
    node: { eligibility: node.SchedulingEligibility, drain: node.DrainStrategy ?? null, meta: node.Meta ?? {} },
    clientMetadata: { Meta: metadata.Meta ?? {}, Dynamic: metadata.Dynamic ?? {} },
  };
}
