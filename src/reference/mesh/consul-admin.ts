import type { Router, RouteHandler } from '../http/router.ts';
import { AclEndpoints } from './acl-endpoints.ts';
import { AgentServiceEndpoints } from './agent-service-endpoints.ts';
import type { AclTokens } from './acl.ts';
import type { AdminContext } from './admin-http.ts';
import { ConfigEntryEndpoints } from './config-entry-endpoints.ts';
import { ConfigEntryStore } from './config-entries.ts';
import type { ConsulHeaders } from './consul-headers.ts';
import { HealthEndpoints } from './health-endpoints.ts';
import { IntentionEndpoints } from './intention-endpoints.ts';
import { KvEndpoints } from './kv-endpoints.ts';
import type { IntentionStore } from './intentions.ts';
import { LocalServices } from './local-services.ts';
import { NamespaceEndpoints } from './namespace-endpoints.ts';
import type { MeshNamespaces } from './namespaces.ts';

export interface ConsulAdminDeps {
  acl: AclTokens;
  namespaces: MeshNamespaces;
  intentions: IntentionStore;
  consul: ConsulHeaders;
  nextIndex: () => number;
  datacenter: string;
}

/**
 * Adds Consul's admin API to the mesh agent (hashicorp dialect only; the spec defines none): intentions,
 * config entries, ACL policies and tokens, the KV store (where a run records what it changes and did
 * not make, e.g. the CA configuration), the agent's services and TTL checks with the catalog and
 * health reads of them (what Consul's built-in proxy registers and looks its upstreams up in), and — where the agent has namespaces, as Consul
 * Enterprise — namespaces. They share the stores authorize and leaf read, so what they make is
 * what those endpoints decide by.
 */
export function registerConsulAdmin(router: Router<RouteHandler>, deps: ConsulAdminDeps): ConfigEntryStore {
  const enterprise = deps.namespaces.enabled;
  deps.intentions.nextIndex = deps.nextIndex;
  deps.acl.namespaceDefaults = (ns) => deps.namespaces.policyDefaults(ns);
  const config = new ConfigEntryStore(deps.intentions, deps.nextIndex, enterprise);
  const ctx: AdminContext = { acl: deps.acl, namespaces: deps.namespaces, config, consul: deps.consul, nextIndex: deps.nextIndex, enterprise };
  new IntentionEndpoints(ctx).register(router);
  new ConfigEntryEndpoints(ctx).register(router);
  new AclEndpoints(ctx).register(router);
  new KvEndpoints(ctx).register(router);
  const local = new LocalServices(deps.datacenter, deps.nextIndex);
  new AgentServiceEndpoints(ctx, local).register(router);
  new HealthEndpoints(ctx, local).register(router);
  if (enterprise) new NamespaceEndpoints(ctx).register(router);
  return config;
}
