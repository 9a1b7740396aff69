import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../src/client/http-client.ts';
import { Redactor } from '../src/client/redact.ts';
import { SchedulerApi } from '../src/client/scheduler-api.ts';
import { dialectFor } from '../src/config/dialects.ts';
import { loadConfig } from '../src/config/load-config.ts';
import { boundMs } from '../suites/kit/bounds/bound.ts';
import { KIT_BOUNDS } from '../suites/kit/bounds/bound.ts';
import { MESH_BOUNDS } from '../suites/kit/bounds/mesh.ts';
import { SCHEDULER_BOUNDS } from '../suites/kit/bounds/scheduler.ts';
import { SECRETS_BOUNDS } from '../suites/kit/bounds/secrets.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Issue 36: a rule that waits for the product's own signal under a bound gets ERROR when the bound
 * runs out (a TargetError, which the collector reports as ERROR), never the partial answer to judge;
 * a read whose deadline is part of the rule still returns it. --time-scale multiplies the bounds.
 */
let server: Server;
let api: SchedulerApi;
beforeAll(async () => {
  // A stream that sends one frame and then nothing, never ending.
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"Index":1,"Events":[]}\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  api = new SchedulerApi(new HttpClient({ baseUrl: url, timeoutMs: 5_000, redactor: new Redactor() }), dialectFor('hashicorp'));
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe('wait bounds', () => {
  it('an awaited signal that does not come within its bound is a TargetError naming what was awaited', async () => {
    const started = performance.now();
    const err = await api.events({ topic: 'Job' }, { maxMs: 500, awaiting: 'the frame at index 9', until: (s) => s.values.length > 5 }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).name).toBe('TargetError');
    expect((err as Error).message).toMatch(/^waited 0\.5 s for the frame at index 9 \(answered 200, 1 value\(s\) read\)/);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('without awaiting, the deadline is part of the rule: the read returns what came', async () => {
    const res = await api.events({ topic: 'Job' }, { maxMs: 300, until: (s) => s.values.length > 5 });
    expect(res.stoppedBy).toBe('deadline');
    expect(res.values).toHaveLength(1);
  });

  it('--time-scale multiplies every bound, and is refused outside 1..100', () => {
    expect(boundMs({ timeScale: 3 }, SCHEDULER_BOUNDS.streamEnd)).toBe(3 * SCHEDULER_BOUNDS.streamEnd.ms);
    expect(boundMs({}, SCHEDULER_BOUNDS.streamEnd)).toBe(SCHEDULER_BOUNDS.streamEnd.ms);
    expect(loadConfig({ env: { STACKPROOF_TIME_SCALE: '2.5' } }).timeScale).toBe(2.5);
    expect(loadConfig({ flags: { timeScale: 4 } }).timeScale).toBe(4);
    expect(() => loadConfig({ flags: { timeScale: 0.5 } })).toThrow(/timeScale/);
    for (const [name, b] of Object.entries(SCHEDULER_BOUNDS)) {
      expect(b.ms, name).toBeGreaterThanOrEqual(10_000);
      expect(b.why.length, `${name} says why`).toBeGreaterThan(20);
    }
  });

  it('keeps every bound in its system\'s bounds module: no fixed time in suites/ outside suites/kit/bounds/', () => {
    const root = join(import.meta.dirname, '..', 'suites');
    const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts') && !f.startsWith(join('kit', 'bounds')));
    // A time written as a number where a wait, a deadline or a pause is given.
    const fixedTime = /(setTimeout\([^,]+,\s*\d|sleep\(\d|(timeoutMs|maxMs|holdMs|everyMs|waitMs)\s*:\s*\d|wait\s*:\s*['"`]\d|\d[\d_]*\s*\*\s*1000\b|\+\s*\d[\d_]*000\b)/;
    const found: string[] = [];
    for (const f of files) {
      readFileSync(join(root, f), 'utf8').split('\n').forEach((line, i) => {
        if (/^\s*(\/\/|\*)/.test(line)) return;
        if (fixedTime.test(line)) found.push(`${relative(process.cwd(), join(root, f))}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });

  it('names what every bound waits for and why, and none is shorter than 10 s', () => {
    for (const [system, bounds] of Object.entries({ kit: KIT_BOUNDS, mesh: MESH_BOUNDS, scheduler: SCHEDULER_BOUNDS, secrets: SECRETS_BOUNDS })) {
      for (const [name, b] of Object.entries(bounds)) {
        expect(b.ms, `${system}.${name}`).toBeGreaterThanOrEqual(10_000);
        expect(b.waitsFor.length, `${system}.${name} names what it waits for`).toBeGreaterThan(10);
        expect(b.why.length, `${system}.${name} says why`).toBeGreaterThan(20);
      }
    }
  });
});
