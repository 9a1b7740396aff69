import { describe, expect, it } from 'vitest';
import { AnswerBatch } from '../src/reference/http/answer-batch.ts';

/**
 * The reference writes ready answers together at the end of the loop's turn: each must still be
 * written exactly once, in the order handed over, and one that throws must fail its own request
 * (its promise rejects, for the server's error path) without keeping the others from going out.
 */
describe('AnswerBatch', () => {
  it('writes after the current turn, in order, and settles each promise once written', async () => {
    const batch = new AnswerBatch();
    const written: string[] = [];
    const a = batch.defer(() => written.push('a'));
    const b = batch.defer(() => written.push('b'));
    await Promise.resolve();
    expect(written).toEqual([]);
    await Promise.all([a, b]);
    expect(written).toEqual(['a', 'b']);
    // A later turn starts a new batch.
    await batch.defer(() => written.push('c'));
    expect(written).toEqual(['a', 'b', 'c']);
  });

  it('rejects the promise of an answer that throws, and still writes the rest', async () => {
    const batch = new AnswerBatch();
    const written: string[] = [];
    const first = batch.defer(() => written.push('first'));
    const broken = batch.defer(() => {
      throw new Error('cannot serialise');
    });
    const last = batch.defer(() => written.push('last'));
    await expect(broken).rejects.toThrow('cannot serialise');
    await Promise.all([first, last]);
    expect(written).toEqual(['first', 'last']);
  });

  it('rejects with an error even when the write throws nothing useful', async () => {
    const batch = new AnswerBatch();
    await expect(
      batch.defer(() => {
        throw undefined;
      }),
    ).rejects.toThrow('an answer failed with no error');
  });
});
