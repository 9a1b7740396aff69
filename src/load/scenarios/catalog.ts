import { createHash, randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import { dialectFor, tokenHeaders } from '../../config/dialects.ts';
import type { Targets } from '../../config/schema.ts';
import { HttpClient } from '../../client/http-client.ts';
import { OidcApi } from '../../client/oidc-api.ts';
import { Redactor } from '../../client/redact.ts';
import { SecretsApi } from '../../client/secrets-api.ts';
import { isSchedulerLogsBody, SCHEDULER_LOGS_BODY } from '../../../load/k6/lib/scheduler-logs-body.ts';
import type { LoadScenario, PreparedScenario } from './types.ts';

/** Thrown when a scenario's target or fixtures are not configured. */
export class ScenarioUnavailable extends Error {}

const tag = () => `load${randomBytes(4).toString('hex')}`;
/** A name under the run prefix (when the caller has one). */
const named = (made: { runPrefix: string } | undefined) => (made ? `${made.runPrefix}-${tag()}` : tag());

function client(url: string, headers: Record<string, string>): HttpClient {
  return new HttpClient({ baseUrl: url, defaultHeaders: headers, timeoutMs: 10_000, redactor: new Redactor() });
}

function pool(url: string): Pool {
  return new Pool(url, { connections: 64, pipelining: 1, headersTimeout: 10_000, bodyTimeout: 10_000 });
}

async function ok(p: Pool, opts: Parameters<Pool['request']>[0], expect = 200): Promise<{ ok: boolean; text: string }> {
  const res = await p.request(opts);
  const text = await res.body.text();
  return { ok: res.statusCode === expect, text };
}

const s256 = (v: string) => createHash('sha256').update(v).digest('base64url');

/** OIDC: authorize, then the token exchange with PKCE (S256), then userinfo, as one iteration. */
const oidcCodeFlow: LoadScenario = {
  name: 'oidc-code-flow',
  system: 'secrets',
  description: 'authorize (GET), token exchange with PKCE and client_secret_basic, userinfo',
  async prepare(targets, made) {
    const t = targets.secrets;
    if (!t) throw new ScenarioUnavailable('no secrets target');
    if (!made?.entities) throw new ScenarioUnavailable(made?.entitiesMissing ?? 'no identity entities for the code flow');
    const d = dialectFor(t.dialect);
    const http = client(t.url, { [d.secrets.tokenHeader]: t.token });
    const api = new OidcApi(new SecretsApi(http, d));
    // Named under the run prefix: the run's end (or `stackproof cleanup --prefix`) removes them.
    const name = `${made.runPrefix}-${tag()}`;
    const entity = await made.entities.entity({ name });
    const redirect = `https://${name}.example.com/cb`;
    const mustWrite = async (kind: 'client' | 'provider' | 'assignment', n: string, body: Record<string, unknown>) => {
      const res = await api.write(kind, n, body);
      if (res.status >= 300) throw new Error(`load setup: ${kind} ${n}: ${res.status} ${res.text.slice(0, 200)}`);
    };
    await mustWrite('assignment', name, { entity_ids: [entity.id] });
    await mustWrite('client', name, { redirect_uris: [redirect], assignments: [name] });
    const read = (await api.read('client', name)).json() as { data: { client_id: string; client_secret: string } };
    await mustWrite('provider', name, { allowed_client_ids: [read.data.client_id] });
    const basic = `Basic ${Buffer.from(`${read.data.client_id}:${read.data.client_secret}`).toString('base64')}`;
    const p = pool(t.url);
    const base = `/v1/identity/oidc/provider/${name}`;
    return {
      name: this.name,
      url: t.url,
      requestsPerIteration: 3,
      async iterate() {
        const verifier = randomBytes(32).toString('base64url');
        const q = new URLSearchParams({ client_id: read.data.client_id, redirect_uri: redirect, response_type: 'code', scope: 'openid', state: 's', code_challenge: s256(verifier), code_challenge_method: 'S256' });
        const a = await ok(p, { method: 'GET', path: `${base}/authorize?${q}`, headers: { [d.secrets.tokenHeader]: entity.token } });
        if (!a.ok) return false;
        const code = (JSON.parse(a.text) as { code: string }).code;
        const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirect, code_verifier: verifier }).toString();
        const tk = await ok(p, { method: 'POST', path: `${base}/token`, headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, body: form });
        if (!tk.ok) return false;
        const access = (JSON.parse(tk.text) as { access_token: string }).access_token;
        return (await ok(p, { method: 'POST', path: `${base}/userinfo`, headers: { authorization: `Bearer ${access}` }, body: '{}' })).ok;
      },
      // The closed-model engine replays fixed requests; a code flow is stateful, so it repeats the authorize step.
      fixed: [{ method: 'GET', path: `${base}/authorize?${new URLSearchParams({ client_id: read.data.client_id, redirect_uri: redirect, response_type: 'code', scope: 'openid', state: 's' })}`, headers: { [d.secrets.tokenHeader]: entity.token } }],
      k6Env: { SECRETS_URL: t.url, PROVIDER: name, CLIENT_ID: read.data.client_id, CLIENT_SECRET: read.data.client_secret, REDIRECT_URI: redirect, ENTITY_TOKEN: entity.token, TOKEN_HEADER: d.secrets.tokenHeader },
      secrets: [entity.token, read.data.client_secret],
      close: async () => {
        await p.close();
        await http.close();
      },
    } satisfies PreparedScenario;
  },
};

function meshPrep(targets: Targets) {
  const t = targets.mesh;
  if (!t) throw new ScenarioUnavailable('no mesh target');
  const d = dialectFor(t.dialect);
  return { t, d, headers: tokenHeaders(d.mesh.token, t.token) };
}

const meshRoots: LoadScenario = {
  name: 'mesh-roots',
  system: 'mesh',
  description: 'GET /v1/agent/connect/ca/roots',
  async prepare(targets) {
    const { t, headers } = meshPrep(targets);
    const p = pool(t.url);
    const req = { method: 'GET' as const, path: '/v1/agent/connect/ca/roots', headers };
    return { name: this.name, url: t.url, iterate: async () => (await ok(p, req)).ok, fixed: [req], openFixed: { accept: (status: number) => status === 200 }, k6Env: { MESH_URL: t.url, MESH_TOKEN: t.token }, close: () => p.close() };
  },
};

const meshLeaf: LoadScenario = {
  name: 'mesh-leaf',
  system: 'mesh',
  description: 'GET /v1/agent/connect/ca/leaf/:service, cached',
  async prepare(targets, made) {
    const { t, headers } = meshPrep(targets);
    const p = pool(t.url);
    // Under the run prefix, like everything a run names (a leaf is signed, and cached by the agent, for it).
    const req = { method: 'GET' as const, path: `/v1/agent/connect/ca/leaf/${named(made)}`, headers };
    if (!(await ok(p, req)).ok) throw new Error('load setup: the first leaf fetch failed');
    return { name: this.name, url: t.url, iterate: async () => (await ok(p, req)).ok, fixed: [req], openFixed: { accept: (status: number) => status === 200 }, k6Env: { MESH_URL: t.url, MESH_TOKEN: t.token, SERVICE: req.path.split('/').pop()! }, close: () => p.close() };
  },
};

const meshLeafBlocking: LoadScenario = {
  name: 'mesh-leaf-blocking',
  system: 'mesh',
  description: 'GET /v1/agent/connect/ca/leaf/:service as a blocking query (index = current, wait 200 ms)',
  async prepare(targets, made) {
    const { t, headers } = meshPrep(targets);
    const p = pool(t.url);
    const service = named(made);
    const first = await ok(p, { method: 'GET', path: `/v1/agent/connect/ca/leaf/${service}`, headers });
    const index = (JSON.parse(first.text) as { ModifyIndex: number }).ModifyIndex;
    const req = { method: 'GET' as const, path: `/v1/agent/connect/ca/leaf/${service}?index=${index}&wait=200ms`, headers };
    return { name: this.name, url: t.url, iterate: async () => (await ok(p, req)).ok, fixed: [req], openFixed: { accept: (status: number) => status === 200 }, k6Env: { MESH_URL: t.url, MESH_TOKEN: t.token, SERVICE: service, INDEX: String(index) }, close: () => p.close() };
  },
};

const meshAuthorize: LoadScenario = {
  name: 'mesh-authorize',
  system: 'mesh',
  description: 'POST /v1/agent/connect/authorize against an allow intention',
  async prepare(targets, made) {
    const { t, headers } = meshPrep(targets);
    if (!made?.mesh) throw new ScenarioUnavailable(made?.meshMissing ?? 'no mesh fixtures for intentions');
    // Named under the run prefix: the run's end (or `stackproof cleanup --prefix`) removes the intention.
    const [source, destination] = [`${made.runPrefix}-${tag()}`, `${made.runPrefix}-${tag()}`];
    await made.mesh.intention({ source, destination, action: 'allow' });
    const p = pool(t.url);
    const leaf = JSON.parse((await ok(p, { method: 'GET', path: `/v1/agent/connect/ca/leaf/${source}`, headers })).text) as { ServiceURI: string; SerialNumber: string };
    const body = JSON.stringify({ Target: destination, ClientCertURI: leaf.ServiceURI, ClientCertSerial: leaf.SerialNumber });
    const req = { method: 'POST' as const, path: '/v1/agent/connect/authorize', headers: { ...headers, 'content-type': 'application/json' }, body };
    return {
      name: this.name,
      url: t.url,
      iterate: async () => {
        const r = await ok(p, req);
        return r.ok && (JSON.parse(r.text) as { Authorized: boolean }).Authorized === true;
      },
      fixed: [req],
      openFixed: { keepBodies: true, accept: (status, answer) => status === 200 && (JSON.parse(String(answer)) as { Authorized: boolean }).Authorized === true },
      k6Env: { MESH_URL: t.url, MESH_TOKEN: t.token, AUTHORIZE_BODY: body },
      close: () => p.close(),
    };
  },
};

const schedulerLogs: LoadScenario = {
  name: 'scheduler-logs',
  system: 'scheduler',
  description: 'GET /v1/client/fs/logs/:alloc (plain, 200 KB of stdout)',
  async prepare(targets, made) {
    const t = targets.scheduler;
    if (!t) throw new ScenarioUnavailable('no scheduler target');
    const fixtures = made?.scheduler;
    if (!fixtures) throw new ScenarioUnavailable(made?.schedulerMissing ?? 'no scheduler fixtures for allocations');
    // A job that wrote its 200 KB and ended: the log no longer grows while it is read.
    const jobId = `${made.runPrefix}-${tag()}`;
    const purge = () => fixtures.purgeJob(jobId).catch(() => undefined);
    let alloc: string;
    try {
      alloc = (await fixtures.allocation(jobId, [{ name: 'load', stdout: SCHEDULER_LOGS_BODY }], 'complete')).id;
    } catch (err) {
      await purge();
      throw err;
    }
    const d = dialectFor(t.dialect);
    const p = pool(t.url);
    const req = { method: 'GET' as const, path: `/v1/client/fs/logs/${alloc}?task=load&type=stdout&plain=true`, headers: tokenHeaders(d.scheduler.token, t.token) };
    return {
      name: this.name,
      url: t.url,
      iterate: async () => {
        const r = await ok(p, req);
        return r.ok && isSchedulerLogsBody(r.text);
      },
      fixed: [req],
      // latin1 reads each byte as one character, so any byte that differs from the ASCII body fails.
      openFixed: { keepBodies: true, accept: (status, answer) => status === 200 && answer !== undefined && isSchedulerLogsBody(answer.toString('latin1')) },
      acceptBody: isSchedulerLogsBody,
      k6Env: { SCHEDULER_URL: t.url, SCHEDULER_TOKEN: t.token, ALLOC_ID: alloc },
      close: async () => {
        await p.close();
        await purge();
      },
    };
  },
};

/** Every request-shaped hot path; the event fan-out has its own runner (src/load/event-fanout.ts). */
export const LOAD_SCENARIOS: LoadScenario[] = [oidcCodeFlow, meshAuthorize, meshLeaf, meshLeafBlocking, meshRoots, schedulerLogs];
