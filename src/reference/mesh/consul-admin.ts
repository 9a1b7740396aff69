import type { Router, RouteHandler } from '../http/router.ts';
import { AclEndpoints } from './acl-endpoints.ts';
import type { AclTokens } from './acl.ts';
import type { AdminContext } from './admin-http.ts';
import { ConfigEntryEndpoints } from './config-entry-endpoints.ts';
import { ConfigEntryStore } from './config-entries.ts';
import type { ConsulHeaders } from './consul-headers.ts';
import { IntentionEndpoints } from './intention-endpoints.ts';
import { KvEndpoints } from './kv-endpoints.ts';
import type { IntentionStore } from './intentions.ts';
import { NamespaceEndpoints } from './namespace-endpoints.ts';
import type { MeshNamespaces } from './namespaces.ts';

export interface ConsulAdminDeps {
  acl: AclTokens;
  namespaces: MeshNamespaces;
  intentions: IntentionStore;
  consul: ConsulHeaders;
  nextIndex: () => number;
}

/**
 * Adds Consul's admin API to the mesh agent (hashicorp dialect only; the spec defines none): intentions,
 * config entries, ACL policies and tokens, the KV store (where a run records what it changes and did
 * not make, e.g. the CA configuration), and — where the agent has namespaces, as Consul
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
  if (enterprise) new NamespaceEndpoints(ctx).register(router);
  return config;
}
