// Whether an ERROR that a mutant got on both tries counts as detecting it (run-mutant.mjs).
//
// An ERROR is never a verdict on a target: a bound ran out, or an answer could not be read. Here,
// though, the same reference passed the same rule in the dry run, so an ERROR that comes back on
// the second try, and cannot be the machine's load, is something a client of the mutant sees.

/** An ERROR message without what differs between two runs of the same case (ports, run prefixes, numbers). */
export const errorShape = (message) => (message ?? '').split('\n')[0].replace(/sp-[a-z0-9]+(-[a-z0-9]+)*/g, 'sp-…').replace(/\d+(\.\d+)?/g, '#');

/** The bound (ms) an ERROR says ran out, from the harness's bound messages; undefined for any other ERROR. */
export function boundMs(message) {
  const text = message ?? '';
  const ms = /(?:no complete answer within|no response headers within|timed out in) (\d+) ?ms/i.exec(text);
  if (ms) return Number(ms[1]);
  const s = /waited ([\d.]+) s for .*the bound ran out/i.exec(text);
  return s ? Math.round(Number(s[1]) * 1000) : undefined;
}

/** ERRORs that say an answer was malformed, not late: the same text twice is the mutant's. */
const MALFORMED = [/answered \d+ with an unexpected body shape/, /sent a body over \d+ bytes/];

/**
 * Why an ERROR of `rule` on the second try (after `first`, the first try's run) is the mutant's
 * doing, or undefined when it may be the machine's:
 * - a bound ran out on both tries where the rule passed alone in the dry run in under a third of
 *   that bound (dryMs): the reference stopped answering, what Stryker itself counts as Timeout;
 * - an answer the rule could not read (body shape, size), the same both times.
 * Any other ERROR (a wait on the product's signals, a window lost) stays undecided.
 */
export function steadyError(rule, first, dryMs) {
  const before = first?.error?.find((r) => r.id === rule.id);
  if (!before || first.crashed) return undefined;
  const bound = boundMs(rule.message);
  const boundBefore = boundMs(before.message);
  if (bound !== undefined && boundBefore !== undefined) {
    return typeof dryMs === 'number' && dryMs * 3 <= Math.min(bound, boundBefore)
      ? `a hang: the rule passed alone in ${dryMs} ms in the dry run, and ran out of its ${bound} ms bound on both tries`
      : undefined;
  }
  const malformed = MALFORMED.some((re) => re.test(rule.message ?? ''));
  return malformed && errorShape(rule.message) === errorShape(before.message) ? 'the same malformed answer on both tries, where the dry run passed' : undefined;
}
