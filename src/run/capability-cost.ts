import type { SystemName } from '../config/schema.ts';
import type { RuleResult } from '../report/results-model.ts';

/** Why each capability is not available on a system's target, as its provisioner found (ProvisionedX.missing). */
export type MissingCapabilities = Partial<Record<SystemName, Record<string, string>>>;

/** One capability that was not available, and the rules it cost (SKIP with its reason). */
export interface CapabilityCost {
  system: SystemName;
  capability: string;
  why: string;
  rules: string[];
}

/**
 * What each missing capability cost the run: the rules of its system that ended SKIP for exactly
 * that reason (the suites skip with the provisioner's words, suites/kit/rule-kit.ts).
 */
export function capabilityCosts(missing: MissingCapabilities, rules: readonly Pick<RuleResult, 'id' | 'system' | 'outcome' | 'message'>[]): CapabilityCost[] {
  const costs: CapabilityCost[] = [];
  for (const [system, reasons] of Object.entries(missing) as [SystemName, Record<string, string>][]) {
    for (const [capability, why] of Object.entries(reasons)) {
      const cost = rules.filter((r) => r.system === system && r.outcome === 'SKIP' && (r.message ?? '').startsWith(why)).map((r) => r.id);
      if (cost.length) costs.push({ system, capability, why, rules: cost });
    }
  }
  return costs;
}

/** Before the suites: what is not available, said once per capability (the provisioner's own lines may have said it already). */
export function capabilityNoticeLines(missing: MissingCapabilities, alreadySaid: readonly string[]): string[] {
  const lines: string[] = [];
  for (const [system, reasons] of Object.entries(missing) as [SystemName, Record<string, string>][]) {
    for (const [capability, why] of Object.entries(reasons)) {
      if (alreadySaid.some((l) => l.includes(`not available: ${capability}:`))) continue;
      lines.push(`${system}: not available: ${capability}: ${why}`);
    }
  }
  if (lines.length || Object.values(missing).some((m) => m && Object.keys(m).length)) lines.push('  the rules that need what is not available are SKIP, and are named before the verdict');
  return lines;
}

/** Before the verdict: each missing capability with every rule it cost. */
export function capabilityCostLines(costs: readonly CapabilityCost[]): string[] {
  if (costs.length === 0) return [];
  return [
    `what was not available cost ${costs.reduce((n, c) => n + c.rules.length, 0)} rule(s) (SKIP):`,
    ...costs.map((c) => `  ${c.system} ${c.capability} (${c.why}): ${c.rules.length} rule(s): ${c.rules.join(', ')}`),
  ];
}
