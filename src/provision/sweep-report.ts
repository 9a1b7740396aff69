/** What a provisioner hands the run: the target as the suites see it, what it made, and how to remove it. */
export interface Provision<Target, Provisioned> {
  provisioned: Provisioned;
  /** The target as the suites see it: detected capabilities set, the run's own fixtures named. */
  target: Target;
  /** What was detected and made, for the run header. */
  lines: string[];
  /** Removes what the run made (also what the suites made under the run prefix); never throws. */
  teardown(): Promise<SweepReport>;
  /**
   * Puts back at once what the run changed but did not make (e.g. the CA configuration), leaving
   * what it made for the teardown or `stackproof cleanup`: the first Ctrl-C (or SIGTERM) does it
   * without waiting for the suites to stop, the second (`leaving`) before the run leaves, when no
   * teardown follows. Never throws.
   */
  putBack?(options: { leaving: boolean }): Promise<SweepReport>;
}

/** What a sweep removed (or, in a dry run, would remove) and what it could not. */
export interface SweepReport {
  removed: string[];
  problems: string[];
  /** What the run's end (or cleanup) says besides: e.g. how many CA rotations the run made. */
  notes?: string[];
}

/** A change put back rather than a thing removed (a node's eligibility, the CA configuration): its entry says "… back to …". */
export function isPutBack(what: string): boolean {
  return / back to /.test(what);
}

/**
 * Keeps a sweep's report: each removal is one call, counted as removed when the target answers
 * below 300 or 404 (already gone), a problem otherwise or when the call throws. A dry run only
 * records what it would remove.
 */
export class Sweeper {
  readonly report: SweepReport = { removed: [], problems: [] };

  constructor(readonly dryRun = false) {}

  /** Whether it was removed (a dry run: whether it would be, always). */
  async remove(what: string, call: () => Promise<{ status: number; text: string }>): Promise<boolean> {
    if (this.dryRun) return (this.report.removed.push(what), true);
    const res = await this.attempt(what, call);
    if (!res) return false;
    if (res.status < 300 || res.status === 404) return (this.report.removed.push(what), true);
    this.report.problems.push(`${what}: answered ${res.status} ${res.text.trim().slice(0, 160)}`);
    return false;
  }

  /** Runs a call whose failure is a problem of the sweep, not the end of it. */
  async attempt<T>(what: string, call: () => Promise<T>): Promise<T | undefined> {
    try {
      return await call();
    } catch (err) {
      this.report.problems.push(`${what}: ${(err as Error).message}`);
      return undefined;
    }
  }
}
