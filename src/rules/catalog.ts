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
/** Every rule id, to tell a filter that names one rule from a prefix. */
let ruleIds: Set<string> | undefined;

/**
 * A filter that is a rule's whole id selects that rule only (`mesh.leaf.cached`, not also a
 * `mesh.leaf.cached-…`: what `--rerun-failed` and a pasted replay name); any other filter is a
 * prefix (`secrets.core`) or a glob (`mesh.*.roots-*`).
 */
export function matchesRuleFilter(id: string, filters: readonly string[]): boolean {
  if (filters.length === 0) return true;
  ruleIds ??= new Set(RULES.map((r) => r.id));
  return filters.some((f) => {
    if (ruleIds!.has(f)) return id === f;
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
