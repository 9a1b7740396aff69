import { z } from 'zod';
import { compareVersions, parseVersion } from '../expectations/version-range.ts';
import type { ConsulAdminApi } from './consul-admin-api.ts';
import type { Sweeper } from './sweep-report.ts';

/**
 * What a Consul agent is and what its version can do, as far as the mesh fixtures care, found
 * through its own API (GET /v1/agent/self, Config.Version: RuntimeConfig.VersionWithMetadata,
 * "+ent" on Enterprise). Facts by version, read in hashicorp/consul:
 * - 1.9.0 brought the `service-intentions` config entry kind (agent/structs/config_entry_intentions.go),
 *   `PUT /v1/connect/intentions/exact` and L7 intention Permissions. Before it an intention is made
 *   with `POST /v1/connect/intentions` (SourceName, DestinationName, Action; agent/intentions_endpoint.go
 *   IntentionCreate at v1.8.7), changed and removed by its ID, and `/v1/connect/intentions/exact` is
 *   read as an intention ID; `/v1/config/service-intentions` answers 500 "invalid config entry kind"
 *   (agent/structs/config_entry.go MakeConfigEntry at v1.8.7).
 * - 1.5.0 brought config entries (`service-defaults`).
 * A version the agent does not tell (no agent:read, a product that does not say) is taken to be the
 * newest, as before versions were detected, and the run says so.
 */
export interface ConsulCapabilities {
  product: { name: string; version?: string; how: string };
  /** How intentions are made: `exact` (1.9+) or `legacy` (POST /v1/connect/intentions, before 1.9). */
  intentionApi: 'exact' | 'legacy';
  /** The config entry kinds the fixtures use that this version has (what cleanup lists). */
  configEntryKinds: string[];
  /** Why a capability the suites rely on is missing, by name (`l7Permissions`). */
  missing: Record<string, string>;
}

const INTENTIONS_AS_CONFIG_ENTRIES = [1, 9, 0] as const;
const CONFIG_ENTRIES = [1, 5, 0] as const;

const selfSchema = z.looseObject({ Config: z.looseObject({ Version: z.string() }) });

/** The capabilities of a version (undefined: not known, so the newest). */
export function capabilitiesOf(version: string | undefined, how: string): ConsulCapabilities {
  const v = version ? parseVersion(version) : undefined;
  const name = version && /\+ent/.test(version) ? 'HashiCorp Consul Enterprise' : 'HashiCorp Consul';
  const product = { name, ...(version ? { version } : {}), how };
  if (!v || compareVersions(v, INTENTIONS_AS_CONFIG_ENTRIES) >= 0) {
    return { product, intentionApi: 'exact', configEntryKinds: ['service-intentions', 'service-defaults'], missing: {} };
  }
  return {
    product,
    intentionApi: 'legacy',
    configEntryKinds: compareVersions(v, CONFIG_ENTRIES) >= 0 ? ['service-defaults'] : [],
    missing: {
      l7Permissions: `no L7 intention permissions on Consul ${version}: intentions with Permissions (service-intentions config entries) came in Consul 1.9.0`,
    },
  };
}

/** Asks the agent its version; never throws (an agent that does not say is taken to be the newest). */
export async function consulCapabilities(api: ConsulAdminApi): Promise<ConsulCapabilities> {
  try {
    const res = await api.agentSelf();
    if (res.status === 200) {
      const parsed = selfSchema.safeParse(res.json());
      if (parsed.success) return capabilitiesOf(parsed.data.Config.Version, 'GET /v1/agent/self, Config.Version');
      return capabilitiesOf(undefined, 'GET /v1/agent/self answered without Config.Version: version unknown, taken to be the newest');
    }
    return capabilitiesOf(undefined, `GET /v1/agent/self answered ${res.status}: version unknown, taken to be the newest`);
  } catch (err) {
    return capabilitiesOf(undefined, `GET /v1/agent/self broke off (${(err as Error).message}): version unknown, taken to be the newest`);
  }
}

/** The product line of the run header: `mesh product: HashiCorp Consul 1.8.7 (GET /v1/agent/self, Config.Version)`. */
export function productLine(system: string, caps: ConsulCapabilities): string {
  return `${system} product: ${caps.product.name}${caps.product.version ? ` ${caps.product.version}` : ' (version unknown)'} (${caps.product.how})`;
}

/**
 * Before 1.9 an intention is its own object with an ID (not a source in a service-intentions
 * entry): removes those whose source or destination the run (or any run, with 'all') named.
 */
export async function sweepLegacyIntentions(api: ConsulAdminApi, sweeper: Sweeper, mine: (name: string) => boolean): Promise<void> {
  const intentions = await sweeper.attempt('list intentions', () => api.listIntentions());
  for (const i of (intentions ?? []).filter((i) => i.id && (mine(i.source) || mine(i.destination)))) {
    await sweeper.remove(`intention ${i.source} -> ${i.destination}`, () => api.deleteIntention(i.id));
  }
}
