import { describe, inject, test } from 'vitest';
import { ruleById } from '../../src/rules/catalog.ts';
import '../../src/run/evidence.ts';
import '../../src/run/suite-context.ts';
import { RuleKit, SkipRule } from './rule-kit.ts';

export interface RuleTestOptions {
  /** Overrides the run's test timeout, for rules that wait on purpose (blocking queries). */
  timeoutMs?: number;
}

/** Set while concurrently() declares its rules. */
let sideBySide = false;

/**
 * Declares rules whose tests run side by side (most wait on the target, not on the CPU). The block
 * is one step of its file: the rules declared before it have ended when it starts, and the rules
 * after it start once all of its rules have ended. So a rule that changes what is global to the
 * target (a CA rotation or its configuration, the node's eligibility, GC of every allocation) goes
 * in no block, or in a block only with rules it cannot disturb; `why` says why these rules may
 * overlap, and names the block in the test's full name.
 */
export function concurrently(why: string, declare: () => void): void {
  if (sideBySide) throw new Error('concurrently() blocks do not nest');
  describe(why, () => {
    sideBySide = true;
    try {
      declare();
    } finally {
      sideBySide = false;
    }
  });
}

/**
 * Declares the test of one catalog rule. Its name starts with the rule id, which is how the
 * collector, the filters and the fault matrix find it. The rule must exist in the catalog.
 */
export function ruleTest(ruleId: string, body: (kit: RuleKit) => Promise<void>, options: RuleTestOptions = {}): void {
  const rule = ruleById(ruleId);
  if (!rule) throw new Error(`ruleTest: "${ruleId}" is not in the rule catalog (src/rules)`);
  (sideBySide ? test.concurrent : test)(
    `${rule.id} ${rule.title}`,
    async (context) => {
      const ctx = inject('stackproof');
      const target = ctx.targets[rule.system];
      const skip = (reason: string): never => {
        context.task.meta.stackproof = new RuleKit(rule, ctx).evidence(reason);
        return context.skip(reason);
      };
      if (!target) skip(`no ${rule.system} target is configured`);
      if (rule.capability) {
        const capabilities = (target as { capabilities?: Record<string, boolean> }).capabilities ?? {};
        const found = (ctx.provisioned as Record<string, { missing?: Record<string, string> } | undefined> | undefined)?.[rule.system]?.missing?.[rule.capability];
        if (!capabilities[rule.capability]) skip(found ?? `the target does not declare the capability "${rule.capability}"`);
      }
      if (rule.level === 'UPSTREAM' && ctx.profile !== 'strict') skip('UPSTREAM rules run only under the strict profile');
      const kit = new RuleKit(rule, ctx);
      try {
        await body(kit);
      } catch (err) {
        if (err instanceof SkipRule) skip(err.message);
        throw err;
      } finally {
        context.task.meta.stackproof ??= kit.evidence();
      }
    },
    options.timeoutMs,
  );
}
