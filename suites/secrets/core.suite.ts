import fc from 'fast-check';
import { expect } from 'vitest';
import { errorBodySchema } from '../../src/client/schemas/secrets.ts';
import { ruleTest } from '../kit/rule-test.ts';

const segment = fc.stringMatching(/^[a-z][a-z0-9_-]{0,11}$/);
const runId = `stackproof-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

ruleTest('secrets.core.list-empty-404', async (kit) => {
  // A sibling secret makes sure the engine has data nearby; the listed directory itself stays empty.
  const sibling = await kit.secrets.write(`secret/${runId}/present`, { value: 'x' });
  expect(sibling.status, 'writing a sibling secret succeeds').toBeLessThan(300);
  await kit.property(fc.array(segment, { minLength: 1, maxLength: 3 }), async (segments) => {
    const dir = `secret/${runId}/empty/${segments.join('/')}/`;
    for (const via of ['verb', 'query'] as const) {
      const res = await kit.secrets.list(dir, via);
      const how = via === 'verb' ? 'LIST' : 'GET ?list=true';
      expect(res.status, `${how} ${dir} with no results answers 404`).toBe(404);
      expect(errorBodySchema.safeParse(res.json()).success, `${how} ${dir}: body is {"errors":[...]}`).toBe(true);
      expect(res.json(), `${how} ${dir}: body is exactly {"errors":[]}`).toEqual({ errors: [] });
    }
  }, { numRuns: Math.min(kit.ctx.runs, 10) });
});
