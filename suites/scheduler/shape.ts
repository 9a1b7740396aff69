import { expect } from 'vitest';
import type { z } from 'zod';

/**
 * Like the kit's expectShape, for a value already read, with a failure message that does not
 * depend on the machine: array positions are written `[]` and each distinct issue is listed once
 * (a node with 64 CPUs and one with 2 fail with the same words), so an expectation's failure
 * pattern can match exactly one deviation.
 */
export function expectShapeOf<S extends z.ZodType>(value: unknown, schema: S, what: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issues = [
      ...new Set(
        result.error.issues.map((i) => {
          const path = i.path.map((p) => (typeof p === 'number' ? '[]' : `.${String(p)}`)).join('').replace(/^\./, '');
          return `${path || '(body)'}: ${i.message}`;
        }),
      ),
    ];
    expect.fail(`${what}: the body does not have the documented shape: ${issues.join('; ')}`);
  }
  return result.data;
}
