// When a mutant's ERROR on both tries counts as detecting it: only a hang far beyond the rule's
// dry-run time, or the same malformed answer twice; never a wait that a busy machine can lose.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the mutation scripts, without types
import { boundMs, steadyError } from '../scripts/mutation/steady-error.mjs';

const run = (message: string) => ({ error: [{ id: 'r', message }] });
const rule = (message: string) => ({ id: 'r', message });

describe('steadyError', () => {
  it('counts a request bound that ran out twice where the rule passed alone quickly', () => {
    const m = 'POST http://127.0.0.1:41991/v1/sys/namespaces/sp-mx1-nsa-9: no complete answer within 10000 ms (23)';
    expect(steadyError(rule(m.replace('41991', '33477')), run(m), 2_500)).toMatch(/^a hang/);
    expect(steadyError(rule('Test timed out in 60000ms.'), run('Test timed out in 60000ms.'), 9_000)).toMatch(/^a hang/);
  });

  it('leaves a bound undecided when the rule took more than a third of it alone', () => {
    const m = 'GET http://x/v1/a: no complete answer within 10000 ms (23)';
    expect(steadyError(rule(m), run(m), 4_000)).toBeUndefined();
    expect(steadyError(rule(m), run(m), undefined)).toBeUndefined();
  });

  it('leaves a bound undecided when only one try ran out of it', () => {
    expect(steadyError(rule('GET http://x/: no complete answer within 10000 ms (23)'), run('GET http://x/ answered 200 with an unexpected body shape: a'), 100)).toBeUndefined();
  });

  it('counts the same malformed answer twice, and not two different ones', () => {
    const a = 'PUT http://127.0.0.1:41081/v1/jobs answered 200 with an unexpected body shape: JobModifyIndex: expected number';
    expect(steadyError(rule(a.replace('41081', '5')), run(a), 100)).toMatch(/malformed/);
    expect(steadyError(rule(a), run(a.replace('JobModifyIndex', 'EvalID')), 100)).toBeUndefined();
  });

  it('leaves every other ERROR undecided: waits on signals and lost windows are the machine\'s as well', () => {
    const m = 'the stream opened after the task had truncated its file: no verdict';
    expect(steadyError(rule(m), run(m), 100)).toBeUndefined();
    expect(steadyError(rule('x'), { error: [] }, 100)).toBeUndefined();
    expect(steadyError(rule('x'), { crashed: 'exit 1', error: [{ id: 'r', message: 'x' }] }, 100)).toBeUndefined();
  });

  it('reads the bound of each bound message the harness writes', () => {
    expect(boundMs('waited 12.5 s for the allocation to run: the bound ran out; --time-scale raises it')).toBe(12_500);
    expect(boundMs('no response headers within 3000 ms')).toBe(3_000);
    expect(boundMs('answered 500')).toBeUndefined();
  });
});
