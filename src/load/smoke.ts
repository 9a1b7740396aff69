import { Pool } from 'undici';
import { dialectFor, tokenHeaders } from '../config/dialects.ts';
import type { Targets } from '../config/schema.ts';
import type { LoadScenarioResult } from '../report/results-model.ts';
import { runOpenModel } from './open-model-runner.ts';
import { applyThresholds } from './thresholds.ts';
import { rowWithoutFigures } from './row-without-figures.ts';

export interface SmokeOptions {
  rate: number;
  durationMs: number;
  /** The run's prefix: the key the secrets read path reads is named under it, so the run's cleanup removes it. */
  runPrefix: string;
}

interface SmokeScenario {
  name: string;
  url: string;
  path: string;
  headers: Record<string, string>;
  /** Prepares state the scenario reads (e.g. a secret to fetch). */
  setup?: (pool: Pool) => Promise<void>;
}

/**
 * A short, bounded open-model load on one read path per system, run side by side. It shows the
 * load machinery works end to end; `stackproof load` is the tool for real load runs.
 */
export async function runLoadSmoke(targets: Targets, options: SmokeOptions): Promise<LoadScenarioResult[]> {
  const scenarios: SmokeScenario[] = [];
  if (targets.secrets) {
    const d = dialectFor(targets.secrets.dialect);
    const headers = { [d.secrets.tokenHeader]: targets.secrets.token };
    // In the version 1 engine the run writes to (its own mount where the provisioner made one; a
    // fresh Vault or OpenBao in dev mode has version 2 at secret/, where this path would be 404).
    const path = `/v1/${targets.secrets.kv.v1Mount}${options.runPrefix}-smoke`;
    scenarios.push({
      name: 'secrets.kv-read',
      url: targets.secrets.url,
      path,
      headers,
      setup: async (pool) => {
        const res = await pool.request({ method: 'POST', path, headers: { ...headers, 'content-type': 'application/json' }, body: '{"value":"smoke"}' });
        await res.body.dump();
        if (res.statusCode >= 300) throw new Error(`the load smoke could not write ${path}: answered ${res.statusCode}`);
      },
    });
  }
  if (targets.mesh) {
    const d = dialectFor(targets.mesh.dialect);
    scenarios.push({ name: 'mesh.ca-roots', url: targets.mesh.url, path: '/v1/agent/connect/ca/roots', headers: tokenHeaders(d.mesh.token, targets.mesh.token) });
  }
  if (targets.scheduler) {
    const d = dialectFor(targets.scheduler.dialect);
    scenarios.push({ name: 'scheduler.metadata-read', url: targets.scheduler.url, path: '/v1/client/metadata', headers: tokenHeaders(d.scheduler.token, targets.scheduler.token) });
  }
  return Promise.all(
    scenarios.map(async (s) => {
      const pool = new Pool(s.url, { connections: 32, headersTimeout: 5_000, bodyTimeout: 5_000 });
      try {
        try {
          await s.setup?.(pool);
        } catch (err) {
          return setupFailed(s.name, options.rate, (err as Error).message);
        }
        const result = await runOpenModel({
          scenario: s.name,
          rate: options.rate,
          durationMs: options.durationMs,
          maxRequests: Math.ceil((options.rate * options.durationMs) / 1000),
          maxInFlight: 64,
          request: async () => {
            const res = await pool.request({ method: 'GET', path: s.path, headers: s.headers, signal: AbortSignal.timeout(5_000) });
            await res.body.dump();
            return res.statusCode === 200;
          },
        });
        return applyThresholds(result, { p99Ms: 250, errorRate: 0, droppedRate: 0 });
      } finally {
        await pool.close();
      }
    }),
  );
}

/** A smoke row without figures: its setup failed (the target refused the key it reads), and the row says so. */
const setupFailed = (scenario: string, rate: number, message: string) => rowWithoutFigures(scenario, 'open-model', rate, 'setup', message);
