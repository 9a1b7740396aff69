/**
 * Where a run's wall time goes: each phase's duration, in the order the phases ran, for the line
 * conform prints at its end (what to look at when the run is slower than it should be).
 */
export class PhaseClock {
  private readonly phases: { name: string; ms: number }[] = [];
  private current: { name: string; started: number } | undefined;

  /** Ends the phase under way, if any, and starts `name`. */
  start(name: string): void {
    this.stop();
    this.current = { name, started: performance.now() };
  }

  /** Records a phase that ran before this clock existed, such as loading the CLI. */
  record(name: string, ms: number): void {
    this.phases.push({ name, ms });
  }

  /** Ends the phase under way. */
  stop(): void {
    if (!this.current) return;
    this.phases.push({ name: this.current.name, ms: performance.now() - this.current.started });
    this.current = undefined;
  }

  /** Times `body` as the phase `name` (the phase under way before it ends). */
  async time<T>(name: string, body: () => Promise<T>): Promise<T> {
    this.start(name);
    try {
      return await body();
    } finally {
      this.stop();
    }
  }

  /** "reference 0.4 s, suites 12.1 s, ..." (a phase run more than once is summed). */
  summary(): string {
    const totals = new Map<string, number>();
    for (const p of this.phases) totals.set(p.name, (totals.get(p.name) ?? 0) + p.ms);
    return [...totals].map(([name, ms]) => `${name} ${(ms / 1000).toFixed(1)} s`).join(', ');
  }
}
