import { z } from 'zod';
import { PRODUCTS, SYSTEMS } from '../config/schema.ts';
import { isValidRange } from './version-range.ts';

const regex = z.string().min(1).refine((s) => {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}, 'must be a valid regular expression');

/**
 * One spec deviation of a real product: the rule stays (the spec is the contract); the entry says
 * what the product does instead and where in its source that was read.
 */
export const expectationSchema = z
  .object({
    rule: z.string().min(1),
    /** What the product does instead of what the spec states. */
    behavior: z.string().min(1),
    /**
     * The rule's FAIL message matches this when the failure is this deviation: any other failure of
     * the same rule stays FAIL, so an expectation never hides a second bug.
     */
    failure: regex,
    source: z.object({ repo: z.string().min(1), file: z.string().min(1), function: z.string().min(1) }).strict(),
    /** The product versions it applies to, and how that was established (prose). */
    versions: z.string().min(1),
    /**
     * The same versions as a semver range (`>=1.2.0 <1.9.0 || >=1.10.0`, see version-range.ts): the
     * entry applies only when the version the provisioner detected is inside it. Without one, or
     * when the version is unknown, it applies to every version.
     */
    range: z.string().min(1).refine(isValidRange, 'must be a semver range: comparators like >=1.2.0 <1.9.0, alternatives separated by ||').optional(),
    /** Set when the deviation shows only in some set-ups: then a PASS is not reported as "no longer happens". */
    conditional: z.string().min(1).optional(),
  })
  .strict();

export const expectationFileSchema = z
  .object({
    $schema: z.string().optional(),
    product: z.enum(PRODUCTS),
    name: z.string().min(1),
    system: z.enum(SYSTEMS),
    expectations: z.array(expectationSchema),
  })
  .strict();

export type Expectation = z.infer<typeof expectationSchema>;
export type ExpectationFile = z.infer<typeof expectationFileSchema>;
