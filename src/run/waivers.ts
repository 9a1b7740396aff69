import { z } from 'zod';
import { readJsonFile } from '../config/read-json-file.ts';
import type { RuleResult } from '../report/results-model.ts';

const waiverSchema = z
  .object({
    rule: z.string().min(1),
    owner: z.string().min(1),
    reason: z.string().min(1),
    /** The last day the waiver holds (YYYY-MM-DD). */
    expires: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date such as 2027-01-31'),
  })
  .strict();

export const waiverFileSchema = z.object({ waivers: z.array(waiverSchema) }).strict();
export type Waiver = z.infer<typeof waiverSchema>;

export interface WaiverFinding {
  rule: string;
  kind: 'expired' | 'no-longer-needed' | 'unknown-rule';
  message: string;
}

export function readWaivers(file: string): Waiver[] {
  return readJsonFile(file, waiverFileSchema, 'waiver file').waivers;
}

/**
 * Applies waivers: a FAIL or ERROR on a rule with a waiver that has not expired becomes WAIVED,
 * keeping what was observed. An expired waiver is not applied, and a waived rule that passes is
 * reported: both are findings, which `--strict-waivers` turns into a failed run.
 */
export function applyWaivers(results: RuleResult[], waivers: Waiver[], today = new Date()): { results: RuleResult[]; findings: WaiverFinding[] } {
  const findings: WaiverFinding[] = [];
  const day = today.toISOString().slice(0, 10);
  const known = new Set(results.map((r) => r.id));
  for (const w of waivers) if (!known.has(w.rule)) findings.push({ rule: w.rule, kind: 'unknown-rule', message: `waiver for ${w.rule} (${w.owner}) names no rule of this run` });
  const out = results.map((r) => {
    const w = waivers.find((x) => x.rule === r.id);
    if (!w) return r;
    if (w.expires < day) {
      findings.push({ rule: r.id, kind: 'expired', message: `the waiver of ${r.id} by ${w.owner} expired on ${w.expires} (${w.reason})` });
      return r;
    }
    if (r.outcome === 'PASS') {
      findings.push({ rule: r.id, kind: 'no-longer-needed', message: `${r.id} passes: its waiver by ${w.owner} (until ${w.expires}) is no longer needed` });
      return r;
    }
    if (r.outcome === 'FAIL' || r.outcome === 'ERROR') {
      return { ...r, outcome: 'WAIVED' as const, message: `waived by ${w.owner} until ${w.expires}: ${w.reason} (was ${r.outcome}: ${r.message ?? ''})` };
    }
    return r;
  });
  return { results: out, findings };
}
