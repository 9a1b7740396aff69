import { Agent, request } from 'undici';
import type { SystemName, Targets } from '../config/schema.ts';
import { toTargetError } from '../client/http-client.ts';

export interface PreflightResult {
  system: SystemName;
  url: string;
  ok: boolean;
  durationMs: number;
  problem?: string;
}

/**
 * Checks, before any verdict, that every configured target answers HTTP at all. Any status counts
 * as an answer; a refused, reset or silent target does not. All targets are probed at once, so the
 * whole check ends within `timeoutMs`.
 */
export async function preflight(targets: Targets, timeoutMs = 8_000): Promise<PreflightResult[]> {
  const agent = new Agent({ connectTimeout: timeoutMs, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  try {
    const probes = (Object.entries(targets) as [SystemName, { url: string } | undefined][])
      .filter((entry): entry is [SystemName, { url: string }] => Boolean(entry[1]))
      .map(async ([system, target]) => {
        const started = performance.now();
        const url = `${target.url.replace(/\/+$/, '')}/v1/`;
        try {
          const res = await request(url, { method: 'GET', dispatcher: agent, signal: AbortSignal.timeout(timeoutMs) });
          await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
          return { system, url: target.url, ok: true, durationMs: Math.round(performance.now() - started) };
        } catch (err) {
          const problem = toTargetError(err, 'GET', url, timeoutMs).message;
          return { system, url: target.url, ok: false, durationMs: Math.round(performance.now() - started), problem };
        }
      });
    return await Promise.all(probes);
  } finally {
    agent.destroy().catch(() => undefined);
  }
}
