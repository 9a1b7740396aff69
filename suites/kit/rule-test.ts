import { describe, inject, test } from 'vitest';
import { ruleById } from '../../src/rules/catalog.ts';
import '../../src/run/evidence.ts';
import '../../src/run/suite-context.ts';
import { RuleKit, SkipRule } from './rule-kit.ts';

export interface RuleTestOptions {
  /** Overrides the run's test timeout, for rules that wait on purpose (blocking queries). */
  timeoutMs?: number;
}

/** How the rules and blocks being declared run beside each other: a file's own, one after another. */
type Order = 'in order' | 'side by side';
let declaring: Order = 'in order';

/**
 * A block of rules and blocks that run `inner` beside each other. The block itself is one rule of
 * the block or file around it: it runs in that one's order. Vitest calls a block's callback after
 * the file's (or outer block's) own declarations, so each callback sets the order it declares in.
 */
function block(why: string, inner: Order, declare: () => void): void {
  const outer = declaring;
  describe(why, outer === 'side by side' ? { concurrent: true } : { sequential: true }, () => {
    const before = declaring;
    declaring = inner;
    try {
      declare();
    } finally {
      declaring = before;
    }
  });
}

/**
 * Declares rules (and blocks) whose tests run side by side: most wait on the target, not on the
 * CPU. The block ends when all of them have ended. So a rule that changes what is global to the
 * target (a CA rotation or its configuration, the node's eligibility, GC of every allocation) goes
 * in no such block, or only with rules it cannot disturb; `why` says why these rules may overlap
 * (it names the block in the tests' full names, so it must hold no rule id).
 */
export function concurrently(why: string, declare: () => void): void {
  block(why, 'side by side', declare);
}

/** Declares rules (and blocks) that run one after another, within a concurrently() block: `why` says why. */
export function inOrder(why: string, declare: () => void): void {
  block(why, 'in order', declare);
}

/**
 * A rule's failure as the console, the live verdict lines and the reports see it, with the secrets
 * the rule learnt on the way (issued tokens, client secrets, registered with kit.secret) and the
 * secret shapes blanked: the message may quote an answer, and an assertion's actual and expected
 * values may be one.
 */
function redacted(err: unknown, kit: RuleKit): unknown {
  if (!(err instanceof Error)) return typeof err === 'string' ? kit.redactor.text(err) : err;
  err.message = kit.redactor.text(err.message);
  if (err.stack) err.stack = kit.redactor.text(err.stack);
  const assertion = err as Error & { actual?: unknown; expected?: unknown };
  if ('actual' in assertion) assertion.actual = kit.redactor.value(assertion.actual);
  if ('expected' in assertion) assertion.expected = kit.redactor.value(assertion.expected);
  return err;
}

/**
 * Declares the test of one catalog rule. Its name starts with the rule id, which is how the
 * collector, the filters and the fault matrix find it. The rule must exist in the catalog.
 */
export function ruleTest(ruleId: string, body: (kit: RuleKit) => Promise<void>, options: RuleTestOptions = {}): void {
  const rule = ruleById(ruleId);
  if (!rule) throw new Error(`ruleTest: "${ruleId}" is not in the rule catalog (src/rules)`);
  (declaring === 'side by side' ? test.concurrent : test.sequential)(
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
        if (err instanceof SkipRule) skip(kit.redactor.text(err.message));
        throw redacted(err, kit);
      } finally {
        context.task.meta.stackproof ??= kit.evidence();
      }
    },
    // The rule's own deadline stretches with the bounds it waits under (--time-scale).
    options.timeoutMs === undefined ? undefined : Math.round(options.timeoutMs * (inject('stackproof')?.timeScale ?? 1)),
  );
}
