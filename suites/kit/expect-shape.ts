import { expect } from 'vitest';
import type { z } from 'zod';
import type { HttpResponse } from '../../src/client/http-client.ts';

/**
 * Asserts that a response body has a documented shape. Use it when the shape is what the rule is
 * about (a mismatch is FAIL); use `res.parse(schema)` when the shape is only a precondition (ERROR).
 */
export function expectShape<S extends z.ZodType>(res: HttpResponse, schema: S, what: string): z.infer<S> {
  const value = res.json();
  const result = schema.safeParse(value);
  if (!result.success) {
    const issues = result.error.issues
      .slice(0, 8)
      .map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`)
      .join('; ');
    expect.fail(`${what}: the body does not have the documented shape: ${issues}`);
  }
  return result.data;
}
