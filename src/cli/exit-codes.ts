/** The exit codes a CI job can gate on. */
export const EXIT = {
  /** Every MUST rule passed (and no load threshold was breached). */
  OK: 0,
  /** A MUST rule is FAIL or ERROR, or a fault went uncaught in the fault matrix. */
  RULES_FAILED: 1,
  /** Bad usage or an invalid configuration. */
  USAGE: 2,
  /** A configured target does not answer, is not the product of its dialect, or refuses its token: no verdict. */
  UNREACHABLE: 3,
  /** A load threshold (SLO) was breached. */
  THRESHOLD: 4,
  /** Stopped by Ctrl-C or SIGTERM (128 + SIGINT, as shells report it); what the run made was removed. */
  INTERRUPTED: 130,
} as const;
