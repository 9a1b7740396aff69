/**
 * How the embedded reference behaves where it may differ from the spec.
 * - `spec`: it follows the spec; in the hashicorp dialect it also does what the upstream products do
 *   wherever the spec leaves a choice. The fault matrix runs on this behaviour.
 * - `upstream`: it also reproduces the spec deviations listed in the products' expectation files, so
 *   that a run with `--expect` proves the suites do not over-assert against a faithful stand-in for
 *   the real products. Only meaningful in the hashicorp dialect.
 */
export const REFERENCE_BEHAVIORS = ['spec', 'upstream'] as const;
export type ReferenceBehavior = (typeof REFERENCE_BEHAVIORS)[number];
