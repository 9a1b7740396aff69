/**
 * The stdout the scheduler-logs scenario's fixture task writes, and so the exact body every engine
 * must read back from the logs endpoint: the catalog (src/load/scenarios/catalog.ts) writes it and
 * gives it to the open model and autocannon, the k6 script compares with it. One definition, so the
 * engines cannot drift into checking different things. Pure string code: bundled for k6's engine and
 * imported by Node.
 *
 * 2,000 numbered lines of 92 or so bytes, about 200 KB: numbered so a body cut, reordered or
 * repeated differs from it, not only one of another size.
 */
export const SCHEDULER_LOGS_BODY: string = Array.from({ length: 2000 }, (_, i) => `log line ${i} ${'x'.repeat(80)}\n`).join('');

/** Whether a logs answer's body is the whole stdout, byte for byte (ASCII, so chars are bytes). */
export function isSchedulerLogsBody(body: unknown): boolean {
  return body === SCHEDULER_LOGS_BODY;
}
