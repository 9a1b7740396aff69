import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SystemName } from '../src/config/names.ts';
import { startReference, type RunningReference } from '../src/reference/reference.ts';
import { runCli } from './support/run-cli.ts';

/**
 * Issue 35, part 1: before any verdict, each target is identified (it answers, as the product of its
 * dialect, and accepts its token). A wrong token, the wrong product or an unreachable URL is one line
 * per target, exit 3, within 5 s, no rule verdicts and no report that blames the product. The
 * reference runs without its control listener, as a real product would.
 */
const SYSTEMS: SystemName[] = ['secrets', 'mesh', 'scheduler'];
const up = (s: SystemName) => s.toUpperCase();

for (const dialect of ['hashicorp', 'spec'] as const) {
  describe(`conform identifies its targets before any verdict (${dialect} dialect)`, () => {
    let ref: RunningReference;
    let staticServer: Server;
    let staticUrl: string;
    const reports = mkdtempSync(join(tmpdir(), 'stackproof-identity-'));
    const env = (over: Record<string, string> = {}) => {
      const e: Record<string, string> = {};
      for (const s of SYSTEMS) {
        e[`STACKPROOF_${up(s)}_URL`] = ref[s].url;
        e[`STACKPROOF_${up(s)}_TOKEN`] = ref[s].token;
        e[`STACKPROOF_${up(s)}_DIALECT`] = dialect;
      }
      return { ...e, ...over };
    };
    const conform = (over: Record<string, string>) => runCli(['conform', '--no-load-smoke', '--reports-dir', reports], { env: env(over), timeoutMs: 60_000 });
    /** The refusal's lines: one per target, after the heading. */
    const refusal = (stderr: string) => stderr.split('\n').filter((l) => /^ {2}(secrets|mesh|scheduler) target /.test(l));
    const expectRefused = (res: Awaited<ReturnType<typeof conform>>) => {
      expect(res.code, res.stdout + res.stderr).toBe(3);
      expect(res.durationMs, 'within 5 s of start-up').toBeLessThan(15_000);
      expect(res.stderr).toMatch(/no verdict, a target is not what the profile says/);
      expect(res.stdout, 'no rule verdicts').not.toMatch(/\b(passed|failed|FAIL|PASS)\b/);
      expect(existsSync(join(reports, 'results.json')), 'no report').toBe(false);
    };

    beforeAll(async () => {
      ref = await startReference({ dialect, control: false });
      staticServer = createServer((_req, res) => {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<html><body><h1>Error response</h1><p>Error code: 404</p></body></html>');
      });
      await new Promise<void>((r) => staticServer.listen(0, '127.0.0.1', () => r()));
      staticUrl = `http://127.0.0.1:${(staticServer.address() as { port: number }).port}`;
    }, 60_000);
    afterAll(async () => {
      await ref?.stop();
      staticServer?.close();
      rmSync(reports, { recursive: true, force: true });
    });

    for (const system of SYSTEMS) {
      it(`a ${system} token the target refuses: one line naming STACKPROOF_${up(system)}_TOKEN, exit 3`, async () => {
        const res = await conform({ [`STACKPROOF_${up(system)}_TOKEN`]: 'not-a-token-of-this-target' });
        expectRefused(res);
        const lines = refusal(res.stderr);
        expect(lines).toHaveLength(1);
        expect(lines[0]).toContain(`${system} target ${ref[system].url}: `);
        expect(lines[0]).toMatch(/refuses the token \((GET|POST) \S+ answered (401|403|404)/);
        expect(lines[0]).toContain(`set STACKPROOF_${up(system)}_TOKEN`);
        expect(res.stderr, 'a token never reaches the output').not.toContain(ref[system].token);
      });
    }

    it('every URL pointed at another system\'s port: one line per target naming what answered, exit 3', async () => {
      const res = await conform({ STACKPROOF_SECRETS_URL: ref.mesh.url, STACKPROOF_MESH_URL: ref.scheduler.url, STACKPROOF_SCHEDULER_URL: ref.secrets.url });
      expectRefused(res);
      const lines = refusal(res.stderr);
      expect(lines.map((l) => l.trim().split(' ')[0])).toEqual(['secrets', 'mesh', 'scheduler']);
      for (const l of lines) expect(l).toMatch(/does not answer as .*Is STACKPROOF_(SECRETS|MESH|SCHEDULER)_URL the \w+ target's address\?/);
    });

    it('every URL pointed at a plain static file server: one line per target, no raw HTML, exit 3', async () => {
      const res = await conform({ STACKPROOF_SECRETS_URL: staticUrl, STACKPROOF_MESH_URL: staticUrl, STACKPROOF_SCHEDULER_URL: staticUrl });
      expectRefused(res);
      expect(refusal(res.stderr)).toHaveLength(3);
      expect(res.stderr).not.toMatch(/<html|<body/i);
    });

    it('an unreachable URL: one line, exit 3', async () => {
      const res = await conform({ STACKPROOF_MESH_URL: 'http://127.0.0.1:9' });
      expectRefused(res);
      const lines = refusal(res.stderr);
      expect(lines).toEqual([expect.stringMatching(/^ {2}mesh target http:\/\/127\.0\.0\.1:9: does not answer \(connection failed \(ECONNREFUSED\)\)/)]);
    });

    it('the other dialect named: one line saying which dialect the target speaks', async () => {
      const other = dialect === 'hashicorp' ? 'spec' : 'hashicorp';
      const res = await conform({ STACKPROOF_MESH_DIALECT: other });
      expectRefused(res);
      expect(refusal(res.stderr)).toEqual([expect.stringContaining(`but the profile says dialect ${other}: set STACKPROOF_MESH_DIALECT=${dialect}`)]);
    });

    it('load refuses alike, before any load', async () => {
      const res = await runCli(['load', '--scenario', 'mesh-roots', '--duration', '1s', '--reports-dir', reports], { env: env({ STACKPROOF_MESH_TOKEN: 'not-a-token-of-this-target' }), timeoutMs: 60_000 });
      expect(res.code, res.stdout + res.stderr).toBe(3);
      expect(refusal(res.stderr)).toEqual([expect.stringContaining('refuses the token')]);
      expect(res.stdout).not.toMatch(/mesh-roots \(open\)/);
    });

    it('cleanup refuses alike, before looking at anything', async () => {
      const res = await runCli(['cleanup', '--prefix', 'sp-mwy0aaaaaa'], { env: env({ STACKPROOF_SCHEDULER_TOKEN: 'not-a-token-of-this-target' }), timeoutMs: 60_000 });
      expect(res.code, res.stdout + res.stderr).toBe(3);
      expect(res.stderr).toMatch(/^stackproof: nothing looked at or removed, a target is not what the profile says:\n {2}scheduler target \S+: .*refuses the token/);
      expect(res.stdout).toBe('');
    });

    it('with the right URLs and tokens, each target is named in the preflight and the run goes on', async () => {
      const res = await runCli(['conform', '--rules', 'mesh.roots.no-acl', '--no-load-smoke', '--reports-dir', reports], { env: env(), timeoutMs: 90_000 });
      expect(res.code, res.stdout + res.stderr).toBe(0);
      expect(res.stdout).toMatch(/preflight: mesh: .*token accepted/);
      rmSync(join(reports, 'results.json'), { force: true });
    });
  });
}
