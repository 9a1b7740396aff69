/**
 * The target misbehaved in a way that prevents a verdict (no answer, reset, unparseable body).
 * The collector maps it to ERROR rather than FAIL: the rule was not shown to be broken, only untestable.
 */
export type TargetErrorKind = 'timeout' | 'refused' | 'reset' | 'unparseable' | 'oversized' | 'protocol' | 'rate-limited';

export class TargetError extends Error {
  override name = 'TargetError';
  constructor(
    readonly kind: TargetErrorKind,
    message: string,
  ) {
    super(message);
  }
}
