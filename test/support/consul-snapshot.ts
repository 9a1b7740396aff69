import type { ConsulAgent } from './consul-agent.ts';

/** What a run could change or leave behind on a Consul agent, as the agent's own listings show it. */
export interface Snapshot {
  ca: Record<string, unknown>;
  tokens: string[];
  policies: string[];
  intentions: string[];
  configEntries: string[];
  kv: string[];
}

/** Config entry kinds of Consul 1.8 (service-intentions came in 1.9: a 500 there is an empty list). */
const KINDS = ['service-defaults', 'proxy-defaults', 'service-router', 'service-splitter', 'service-resolver', 'ingress-gateway', 'terminating-gateway', 'service-intentions'];

export async function get(agent: ConsulAgent, path: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`${agent.url}${path}`, { headers: { 'x-consul-token': agent.token } });
  const text = await res.text();
  return { status: res.status, json: res.status === 200 && text ? JSON.parse(text) : undefined };
}

export async function caConfiguration(agent: ConsulAgent): Promise<{ Provider: string; Config: Record<string, unknown>; ForceWithoutCrossSigning?: boolean }> {
  const res = await get(agent, '/v1/connect/ca/configuration');
  if (res.status !== 200) throw new Error(`CA configuration answered ${res.status}`);
  return res.json;
}

export const activeRoot = async (agent: ConsulAgent) => ((await get(agent, '/v1/agent/connect/ca/roots')).json as { ActiveRootID: string }).ActiveRootID;

export async function snapshot(agent: ConsulAgent): Promise<Snapshot> {
  const ca = await caConfiguration(agent);
  const { PrivateKey: _key, RootCert: _root, ...config } = ca.Config;
  const entries: string[] = [];
  for (const kind of KINDS) {
    const res = await get(agent, `/v1/config/${kind}`);
    if (res.status === 200) entries.push(...((res.json ?? []) as { Name: string }[]).map((e) => `${kind}/${e.Name}`));
  }
  const kv = await get(agent, '/v1/kv/?keys');
  return {
    ca: { Provider: ca.Provider, Config: config, ForceWithoutCrossSigning: ca.ForceWithoutCrossSigning },
    tokens: ((await get(agent, '/v1/acl/tokens')).json as { AccessorID: string; Description: string }[]).map((t) => `${t.AccessorID} ${t.Description}`).sort(),
    policies: ((await get(agent, '/v1/acl/policies')).json as { Name: string }[]).map((p) => p.Name).sort(),
    intentions: (((await get(agent, '/v1/connect/intentions')).json ?? []) as { SourceName: string; DestinationName: string; Action: string }[]).map((i) => `${i.SourceName} -> ${i.DestinationName} ${i.Action}`).sort(),
    configEntries: entries.sort(),
    kv: ((kv.json ?? []) as string[]).sort(),
  };
}

