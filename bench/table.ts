// A bench section prints its figures as a table; the goals it measures go into the summary at the end.

export class Table {
  private readonly rows: string[][] = [];
  constructor(private readonly title: string) {}
  row(...cells: (string | number)[]): this {
    this.rows.push(cells.map(String));
    return this;
  }
  print(): void {
    if (this.rows.length === 0) return;
    const widths = this.rows[0]!.map((_, i) => Math.max(...this.rows.map((r) => (r[i] ?? '').length)));
    console.log(`\n${this.title}`);
    for (const r of this.rows) console.log(`  ${r.map((c, i) => c.padEnd(widths[i]!)).join('  ')}`.trimEnd());
  }
}

export const fmt = (n: number): string => (n >= 100 ? Math.round(n).toString() : n.toFixed(2));

/** One goal of issue 19, as a ratio measured in this run beside its yardstick. */
export interface GoalFigure {
  goal: string;
  measured: string;
  target: string;
  met: boolean;
}
