import type { SystemName } from '../config/schema.ts';
import { meshCaRootsRules } from './mesh/ca-roots.ts';
import { meshConnectRules, meshUpstreamRules } from './mesh/connect.ts';
import { schedulerMetadataRules } from './scheduler/metadata.ts';
import { schedulerClientRules, schedulerEventRules, schedulerUpstreamRules } from './scheduler/client.ts';
import { secretsAuthRules, secretsCoreRules, secretsErrorRules, secretsNamespaceRules } from './secrets/core.ts';
import { secretsKvRules } from './secrets/kv.ts';
import { secretsCloudAuthRules, secretsCloudAuthUpstreamRules } from './secrets/cloudauth.ts';
import { secretsOidcConfigRules, secretsOidcFlowRules, secretsOidcUpstreamRules } from './secrets/oidc.ts';
import { secretsUpstreamRules } from './secrets/upstream.ts';
import type { Rule } from './types.ts';

/** Every documented rule stackproof checks. Each area of each system contributes its own list. */
export const RULES: readonly Rule[] = [
  ...secretsCoreRules,
  ...secretsAuthRules,
  ...secretsErrorRules,
  ...secretsNamespaceRules,
  ...secretsKvRules,
  ...secretsOidcConfigRules,
  ...secretsOidcFlowRules,
  ...secretsCloudAuthRules,
  ...secretsUpstreamRules,
  ...secretsCloudAuthUpstreamRules,
  ...secretsOidcUpstreamRules,
  ...meshCaRootsRules,
  ...meshConnectRules,
  ...meshUpstreamRules,
  ...schedulerMetadataRules,
  ...schedulerEventRules,
  ...schedulerClientRules,
  ...schedulerUpstreamRules,
];

const byId = new Map(RULES.map((r) => [r.id, r]));

export function ruleById(id: string): Rule | undefined {
  return byId.get(id);
}

/** Rule ids are matched by prefix (`secrets.core`) or glob (`secrets.*.list-*`). */
export function matchesRuleFilter(id: string, filters: readonly string[]): boolean {
  if (filters.length === 0) return true;
  return filters.some((f) => {
    if (f.includes('*') || f.includes('?')) {
      const re = new RegExp(`^${f.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
      return re.test(id);
    }
    return id.startsWith(f);
  });
}

export function selectRules(systems: readonly SystemName[], filters: readonly string[], profile: 'default' | 'strict'): Rule[] {
  return RULES.filter(
    (r) => systems.includes(r.system) && matchesRuleFilter(r.id, filters) && (profile === 'strict' || r.level !== 'UPSTREAM'),
  );
}
