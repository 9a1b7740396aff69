import { readFile } from 'node:fs/promises';
import { runResultsSchema, type LoadScenarioResult } from '../report/results-model.ts';

export interface Regression {
  scenario: string;
  engine: string;
  metric: 'p99 latency (ms)' | 'throughput (/s)' | 'error rate';
  baseline: number;
  current: number;
  /** Relative change, + is worse. */
  change: number;
}

/**
 * Compares a run's load results with a baseline results.json: p99 latency up, throughput down or
 * error rate up by more than `tolerance` (0.2 = 20%) is a regression.
 */
export async function compareWithBaseline(current: LoadScenarioResult[], baselineFile: string, tolerance: number): Promise<Regression[]> {
  const baseline = runResultsSchema.parse(JSON.parse(await readFile(baselineFile, 'utf8'))).load;
  const out: Regression[] = [];
  for (const c of current) {
    const b = baseline.find((x) => x.scenario === c.scenario && x.engine === c.engine);
    if (!b) continue;
    const worse = (metric: Regression['metric'], base: number, now: number, higherIsWorse: boolean) => {
      if (base <= 0) return;
      const change = higherIsWorse ? (now - base) / base : (base - now) / base;
      if (change > tolerance) out.push({ scenario: c.scenario, engine: c.engine, metric, baseline: base, current: now, change: Math.round(change * 1000) / 1000 });
    };
    worse('p99 latency (ms)', b.latencyMs.p99, c.latencyMs.p99, true);
    worse('throughput (/s)', b.throughput, c.throughput, false);
    const rate = (r: LoadScenarioResult) => (r.requests ? r.errors / r.requests : 0);
    if (rate(c) > rate(b) + tolerance / 100) out.push({ scenario: c.scenario, engine: c.engine, metric: 'error rate', baseline: rate(b), current: rate(c), change: rate(c) - rate(b) });
  }
  return out;
}
