import { ConfigError } from '../config/load-config.ts';
import type { ThresholdSpec } from '../load/thresholds.ts';

/** The load thresholds as `load`, `load --from-prometheus` and `merge` take them. */
export interface ThresholdFlags {
  p99?: string;
  /** Absent: no such threshold (`merge` applies only those it is given; `load` has defaults). */
  maxErrorRate?: string;
  maxDroppedRate?: string;
}

function fraction(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new ConfigError(`--${flag}: expected a fraction between 0 and 1, got ${JSON.stringify(raw)}`);
  return n;
}

export function thresholdsFromFlags(flags: ThresholdFlags): ThresholdSpec {
  let p99Ms: number | undefined;
  if (flags.p99 !== undefined) {
    p99Ms = Number(flags.p99);
    if (!Number.isFinite(p99Ms) || p99Ms <= 0 || p99Ms > 3_600_000) throw new ConfigError(`--p99: expected a number of ms in (0, 3600000], got ${JSON.stringify(flags.p99)}`);
  }
  return { p99Ms, errorRate: fraction('max-error-rate', flags.maxErrorRate), droppedRate: fraction('max-dropped-rate', flags.maxDroppedRate) };
}
