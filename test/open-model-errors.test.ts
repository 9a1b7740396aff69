import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { runOpenModel } from '../src/load/open-model-runner.ts';

describe('open-model runner: the errors say what they were', () => {
  it('counts HTTP statuses, connections the server resets, and answers the scenario refuses, each by kind', async () => {
    let n = 0;
    // Every third answer a 429, every fifth connection reset, every seventh a 200 the check refuses.
    const server = createServer((_req, res) => {
      n += 1;
      if (n % 5 === 0) return res.socket?.destroy();
      res.statusCode = n % 3 === 0 ? 429 : 200;
      res.end(n % 7 === 0 ? 'no' : 'ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const r = await runOpenModel({ scenario: 't', rate: 200, durationMs: 500, maxRequests: 100, fixed: { url, requests: [{ method: 'GET', path: '/', headers: {} }], keepBodies: true, accept: (status, body) => status === 200 && String(body) === 'ok' } });
      const kinds = r.errorKinds ?? {};
      expect(Object.values(kinds).reduce((a, b) => a + b, 0)).toBe(r.errors);
      expect(kinds['HTTP 429']).toBeGreaterThan(0);
      expect(kinds['wrong answer']).toBeGreaterThan(0);
      expect(Object.keys(kinds).some((k) => /reset|closed/.test(k)), JSON.stringify(kinds)).toBe(true);
    } finally {
      server.close();
    }
  });

  it('keeps no errorKinds on a clean run', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const r = await runOpenModel({ scenario: 't', rate: 200, durationMs: 300, maxRequests: 60, fixed: { url, requests: [{ method: 'GET', path: '/', headers: {} }] } });
      expect(r.errors).toBe(0);
      expect(r.errorKinds).toBeUndefined();
    } finally {
      server.close();
    }
  });
});
